//! `mesh`: the fabric smoke test of N hosts, under Slurm, `--ssh`, or flags.

use super::define::{MeshArgs, Reports, Senders, NEED_PERF};
use crate::host::places::Places;
use crate::model::mesh::{Pattern, PerfLimits};
use crate::{guest, host};
use std::path::Path;

/// The mesh's secret: `--secret-stdin`'s first line, `--secret-file`'s,
/// or `RDMA_LAB_SECRET`.
fn mesh_secret(a: &MeshArgs) -> Result<guest::control::Secret, String> {
    if a.launch.secret_stdin {
        use std::io::{BufRead as _, Read as _};
        // One bounded line: a launcher writes the secret and a newline.
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .take(4096)
            .read_line(&mut line)
            .map_err(|e| format!("--secret-stdin: {e}"))?;
        return Ok(guest::control::Secret::from_text(&line, "--secret-stdin")?);
    }
    Ok(guest::control::Secret::required(
        a.launch.session.secret_file.as_deref(),
    )?)
}

/// The pattern of `--ring` or `--star HOST` (a rank, or a name of
/// `hosts`); all pairs by default.
fn mesh_pattern(a: &MeshArgs, hosts: &[String]) -> Result<Pattern, String> {
    let p = &a.pairing;
    match &p.star {
        None if p.ring => Ok(Pattern::Ring),
        None => Ok(Pattern::AllPairs),
        Some(h) => match hosts.iter().position(|n| n == h) {
            Some(r) => Ok(Pattern::Star(r)),
            None => h.parse().map(Pattern::Star).map_err(|_| {
                format!(
                    "--star {}: give a rank, or one of the hosts' names",
                    crate::base::text::shown(h)
                )
            }),
        },
    }
}

/// `--perf`'s limits, `None` without `--perf`; an option that needs it is
/// refused without it (read from the command line, not the defaults).
fn perf_limits(a: &MeshArgs, given: &[String]) -> Result<Option<PerfLimits>, String> {
    if !a.perf.perf {
        return match NEED_PERF.iter().find(|id| given.iter().any(|g| g == *id)) {
            Some(id) => Err(format!("--{} needs --perf", id.replace('_', "-"))),
            None => Ok(None),
        };
    }
    let p = &a.perf;
    Ok(Some(PerfLimits {
        min_bw_ratio: p.min_bw_ratio,
        min_gbps: p.min_gbps,
        max_lat_ratio: p.max_lat_ratio,
        min_rate_ratio: p.min_rate_ratio,
        qp_timeout: p.qp_timeout,
    }))
}

/// `mesh`'s options read into the run's, for the hosts named `hosts`.
fn mesh_options(
    a: &MeshArgs,
    perf: Option<PerfLimits>,
    hosts: &[String],
    places: &dyn Places,
) -> Result<host::mesh::MeshOptions, String> {
    let pattern = mesh_pattern(a, hosts)?;
    // The secret last of what is read, the result dir only then made.
    let secret = if a.launch.ssh.is_some() {
        guest::control::Secret::generate()?
    } else {
        mesh_secret(a)?
    };
    let out = host::mesh::run_dir(a.reports.out.as_deref(), places)?;
    let ports = &a.ports;
    Ok(host::mesh::MeshOptions {
        names: a.pairing.names.clone(),
        pattern,
        port: a.launch.port,
        wait_secs: a.launch.session.wait,
        ip: ports.ip.clone(),
        netdev: ports.netdev.clone(),
        dev: ports.dev.first().cloned(),
        rail_devs: ports.dev.clone(),
        gid_idx: ports.examples.gid_idx,
        bin_dir: ports.examples.bin_dir.clone(),
        out,
        secret,
        mcast_all: a.pairing.mcast_senders == Senders::All,
        serial: a.pairing.serial,
        rails: a.pairing.rails,
        pin: !a.perf.no_pin,
        allow: a.launch.session.allow.clone(),
        perf,
    })
}

/// `mesh`: launched by ssh from here, or one rank of another launcher's;
/// rank 0 (or this launcher) prints the matrix and writes the reports.
pub(super) fn mesh_cmd(
    a: &MeshArgs,
    given: &[String],
    places: &dyn Places,
) -> Result<bool, String> {
    if let Some(file) = &a.reports.replay {
        return replay(&a.reports, file);
    }
    let perf = perf_limits(a, given)?;
    let (run, dir, baseline) = match &a.launch.ssh {
        None => {
            let l = &a.launch;
            let ranked = host::mesh::ranked(l.rank, l.size, l.coordinator.clone())?;
            let opts = mesh_options(a, perf, &ranked.names, places)?;
            // Rank 0 reports, and reads the baseline before it starts; the
            // others may not see its file.
            let baseline = if ranked.rank == 0 {
                baseline(&a.reports)?
            } else {
                None
            };
            let run = host::mesh::run_ranked(&opts, &ranked, places)?;
            (run, opts.out, baseline)
        }
        Some(list) => {
            let hosts: Vec<String> = list
                .split(',')
                .filter(|h| !h.is_empty())
                .map(str::to_string)
                .collect();
            ssh_run(a, perf, hosts, places)?
        }
    };
    let Some(mut run) = run else { return Ok(true) };
    let refused = with_baseline(&mut run, baseline, &a.reports);
    if let Some(file) = &a.reports.record {
        crate::results::record::write(file, &run)?;
    }
    let files = crate::present::mesh::ReportFiles {
        transcripts: Some(dir.path().to_path_buf()),
        ..report_files(&a.reports)
    };
    let passed = crate::present::mesh::report(&run, &files)?;
    save_baseline(&a.reports, &run, passed)?;
    Ok(passed && !refused)
}

/// What a run of the ssh launcher on `hosts` gives: its run, its result
/// dir and the baseline read before it.
type Launched = (
    Option<crate::model::mesh::MeshRun>,
    crate::base::rundir::Dir,
    Option<crate::model::baseline::Baseline>,
);

/// `mesh --ssh HOSTS`: a rank started on each host from here.
fn ssh_run(
    a: &MeshArgs,
    perf: Option<PerfLimits>,
    hosts: Vec<String>,
    places: &dyn Places,
) -> Result<Launched, String> {
    host::ssh::check_hosts(&hosts)?;
    let baseline = baseline(&a.reports)?;
    // What the hosts are to run, before any dir is made for the run.
    host::mesh::scenario_names(&a.pairing.names)?;
    let bin_dir = host::places::bin_dir(a.ports.examples.bin_dir.as_deref(), places)?;
    let opts = mesh_options(a, perf, &hosts, places)?;
    let launch = host::ssh::SshLaunch {
        hosts,
        remote_dir: a.launch.remote_dir.clone(),
        coordinator: a.launch.coordinator.clone(),
    };
    let run = host::ssh::run_ssh(&opts, &launch, &bin_dir)?;
    Ok((Some(run), opts.out, baseline))
}

/// `run` with `baseline`, unless its rails are another layout's: then the
/// run is shown without it, its refusal on stderr in one line; whether it
/// was refused.
fn with_baseline(
    run: &mut crate::model::mesh::MeshRun,
    baseline: Option<crate::model::baseline::Baseline>,
    r: &Reports,
) -> bool {
    let Some(b) = baseline else {
        return false;
    };
    match crate::judge::baseline::refusal(run, &b) {
        Some(why) => {
            let file = r.baseline.as_deref().unwrap_or(Path::new(""));
            eprintln!(
                "mesh: --baseline {}: {why}",
                crate::base::text::shown(&file.to_string_lossy())
            );
            true
        }
        None => {
            run.baseline = Some(b);
            false
        }
    }
}

/// `--baseline FILE`'s baseline, read (and refused, in one line) before
/// the run.
fn baseline(r: &Reports) -> Result<Option<crate::model::baseline::Baseline>, String> {
    r.baseline
        .as_deref()
        .map(|f| crate::results::baseline::read(f).map_err(|e| format!("--baseline {e}")))
        .transpose()
}

/// `--save-baseline FILE`: the run's JSON Lines report, where the run
/// passed with nothing to say; else why not, on stderr (the run's status
/// already says it failed).
fn save_baseline(
    r: &Reports,
    run: &crate::model::mesh::MeshRun,
    passed: bool,
) -> Result<(), String> {
    let Some(file) = &r.save_baseline else {
        return Ok(());
    };
    let file = file.display();
    if !passed {
        eprintln!("mesh: --save-baseline {file}: not saved, since the run did not pass");
        return Ok(());
    }
    if run.perf.is_none()
        || !run
            .cells
            .iter()
            .any(|c| crate::judge::perf::figures(c).gbps.is_some())
    {
        eprintln!("mesh: --save-baseline {file}: not saved, since no link was measured");
        return Ok(());
    }
    std::fs::write(
        r.save_baseline.as_deref().unwrap_or(Path::new("")),
        crate::present::mesh::json_lines(run, &[]),
    )
    .map_err(|e| format!("--save-baseline {file}: {e}"))
}

/// Where `--junit`, `--json` and `--html` ask the reports to go.
fn report_files(r: &Reports) -> crate::present::mesh::ReportFiles {
    crate::present::mesh::ReportFiles {
        junit: r.junit.clone(),
        json: r.json.clone(),
        html: r.html.clone(),
        transcripts: None,
    }
}

/// `mesh --replay FILE`: a recorded run judged and shown again, as rank 0
/// showed it, with no host; only the reports' options go with it (the
/// others are refused as clap reads them: `define::ON_HOSTS`).
fn replay(r: &Reports, file: &Path) -> Result<bool, String> {
    let mut run = crate::results::record::read(file).map_err(|e| format!("--replay {e}"))?;
    let refused = match baseline(r)? {
        Some(b) => with_baseline(&mut run, Some(b), r),
        None => false,
    };
    let passed = crate::present::mesh::report(&run, &report_files(r))?;
    save_baseline(r, &run, passed)?;
    Ok(passed && !refused)
}
