//! `mesh`: the fabric smoke test of N hosts, under Slurm, `--ssh`, or flags.

use super::args::*;
use crate::host::places::Places;
use crate::{guest, host, model};

/// `mesh`'s flags.
const MESH_FLAGS: &[&str] = &["ring", "secret-stdin", "serial", "perf", "rails", "no-pin"];

/// `mesh`'s options that may be given again.
const MESH_MULTI: &[&str] = &["allow", "dev"];

/// `mesh`'s options that take one value.
const MESH_VALUES: &[&str] = &[
    "star",
    "mcast-senders",
    "ssh",
    "remote-dir",
    "rank",
    "size",
    "coordinator",
    "port",
    "wait",
    "ip",
    "netdev",
    "gid-idx",
    "bin-dir",
    "secret-file",
    "out",
    "junit",
    "json",
    "html",
    "min-bw-ratio",
    "min-gbps",
    "max-lat-ratio",
    "min-rate-ratio",
    "qp-timeout",
    "record",
    "replay",
    "baseline",
    "save-baseline",
];

/// `mesh`'s options.
pub(super) fn mesh_getopts() -> getopts::Options {
    let mut opts = getopts::Options::new();
    for flag in MESH_FLAGS {
        opts.optflag("", flag, "");
    }
    for multi in MESH_MULTI {
        opts.optmulti("", multi, "", "");
    }
    for value in MESH_VALUES {
        opts.optopt("", value, "", "");
    }
    opts
}

/// The mesh's secret: `--secret-stdin`'s first line, `--secret-file`'s,
/// or `RDMA_LAB_SECRET`; `None` for the ssh launcher, which makes one.
pub(super) fn mesh_secret(m: &getopts::Matches) -> Result<guest::control::Secret, String> {
    if m.opt_present("secret-stdin") {
        use std::io::{BufRead as _, Read as _};
        // One bounded line: a launcher writes the secret and a newline.
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .take(4096)
            .read_line(&mut line)
            .map_err(|e| format!("--secret-stdin: {e}"))?;
        return guest::control::Secret::from_text(&line, "--secret-stdin");
    }
    let file = m.opt_str("secret-file").map(std::path::PathBuf::from);
    guest::control::Secret::load(file.as_deref())
        .unwrap_or_else(|| Err(guest::control::Secret::missing()))
}

/// The pattern of `--ring` or `--star HOST` (a rank, or a name of
/// `hosts`); all pairs by default.
pub(super) fn mesh_pattern(
    m: &getopts::Matches,
    hosts: &[String],
) -> Result<crate::model::mesh::Pattern, String> {
    use crate::model::mesh::Pattern;
    match (m.opt_present("ring"), m.opt_str("star")) {
        (true, Some(_)) => Err("--ring and --star: choose one".into()),
        (true, None) => Ok(Pattern::Ring),
        (false, None) => Ok(Pattern::AllPairs),
        (false, Some(h)) => match hosts.iter().position(|n| *n == h) {
            Some(r) => Ok(Pattern::Star(r)),
            None => h
                .parse()
                .map(Pattern::Star)
                .map_err(|_| format!("--star {h}: give a rank, or one of the hosts' names")),
        },
    }
}

/// `--mcast-senders all` (every host sends in turn) or `first` (host 0,
/// the default).
pub(super) fn mcast_senders(m: &getopts::Matches) -> Result<bool, String> {
    match m.opt_str("mcast-senders").as_deref() {
        None | Some("first") => Ok(false),
        Some("all") => Ok(true),
        Some(other) => Err(format!("--mcast-senders {other}: give all or first")),
    }
}

/// What `mesh`'s options say without the hosts: read, and each refused
/// with its own line, before the rank is sought (a bad value is its own
/// fault, not a missing rank's).
pub(super) struct Plain {
    mcast_all: bool,
    gid_idx: Option<u32>,
    port: u16,
    wait_secs: u64,
    perf: Option<crate::model::mesh::PerfLimits>,
}

/// [`Plain`] of `m`.
pub(super) fn plain_options(m: &getopts::Matches) -> Result<Plain, String> {
    check_values(m)?;
    let mcast_all = mcast_senders(m)?;
    let gid_idx = whole_opt(m, "gid-idx")?;
    let (port, wait_secs): (u16, u64) = (
        num_opt(m, "port", model::CONTROL_PORT)?,
        num_opt(m, "wait", guest::agent::PEER_WAIT_SECS)?,
    );
    // The pairs meet on the next port; a day is the longest wait.
    let top = 65534 - guest::mesh::messages::RAILS_MAX as u16;
    if !(1..=top).contains(&port) {
        return Err(format!(
            "--port {port}: give 1 to {top} (the pairs use the next ports, one a rail)"
        ));
    }
    if !(1..=86400).contains(&wait_secs) {
        return Err(format!("--wait {wait_secs}: give 1 to 86400 seconds"));
    }
    Ok(Plain {
        mcast_all,
        gid_idx,
        port,
        wait_secs,
        perf: perf_limits(m)?,
    })
}

/// `mesh`'s options read into the run's, [`Plain`] among them.
pub(super) fn mesh_options(
    m: &getopts::Matches,
    plain: Plain,
    hosts: &[String],
    places: &dyn Places,
) -> Result<host::mesh::MeshOptions, String> {
    let pattern = mesh_pattern(m, hosts)?;
    let Plain {
        mcast_all,
        gid_idx,
        port,
        wait_secs,
        perf,
    } = plain;
    // The secret last of what is read, the result dir only then made.
    let secret = if m.opt_present("ssh") {
        guest::control::Secret::generate()?
    } else {
        mesh_secret(m)?
    };
    let out = host::mesh::run_dir(
        m.opt_str("out").as_deref().map(std::path::Path::new),
        places,
    )?;
    Ok(host::mesh::MeshOptions {
        names: m.free.clone(),
        pattern,
        port,
        wait_secs,
        ip: m.opt_str("ip"),
        netdev: m.opt_str("netdev"),
        dev: m.opt_str("dev"),
        rail_devs: m.opt_strs("dev"),
        gid_idx,
        bin_dir: m.opt_str("bin-dir").map(std::path::PathBuf::from),
        out,
        secret,
        mcast_all,
        serial: m.opt_present("serial"),
        rails: m.opt_present("rails"),
        pin: !m.opt_present("no-pin"),
        allow: allow_list(m)?,
        perf,
    })
}

/// `--perf`'s limits: `--min-bw-ratio` (a share of the median, above 0
/// and below 1), `--min-gbps` (above 0), `--max-lat-ratio` (above 1),
/// and how the links are measured, `--qp-timeout` (1 to 31); each needs
/// `--perf`.
pub(super) fn perf_limits(
    m: &getopts::Matches,
) -> Result<Option<crate::model::mesh::PerfLimits>, String> {
    let number = |k: &str, ok: &dyn Fn(f64) -> bool, range: &str| {
        m.opt_str(k)
            .map(|v| match v.parse::<f64>() {
                Ok(x) if x.is_finite() && ok(x) => Ok(x),
                _ => Err(format!("--{k} {v}: give a number {range}")),
            })
            .transpose()
    };
    let ratio = number("min-bw-ratio", &|x| x > 0.0 && x < 1.0, "between 0 and 1")?;
    let gbps = number("min-gbps", &|x| x > 0.0, "above 0")?;
    let lat = number("max-lat-ratio", &|x| x > 1.0, "above 1")?;
    let rate = number(
        "min-rate-ratio",
        &|x| x > 0.0 && x <= 1.0,
        "above 0, at most 1",
    )?;
    let qp_timeout = m
        .opt_str("qp-timeout")
        .map(|v| match v.parse::<u8>() {
            Ok(t @ 1..=31) => Ok(t),
            _ => Err(format!(
                "--qp-timeout {}: give a whole number from 1 to 31",
                crate::base::text::shown(&v)
            )),
        })
        .transpose()?;
    if !m.opt_present("perf") {
        if let Some(k) = [
            "min-bw-ratio",
            "min-gbps",
            "max-lat-ratio",
            "min-rate-ratio",
            "qp-timeout",
            "baseline",
            "save-baseline",
        ]
        .iter()
        .find(|k| m.opt_present(k))
        {
            return Err(format!("--{k} needs --perf"));
        }
        return Ok(None);
    }
    let d = crate::model::mesh::PerfLimits::default();
    Ok(Some(crate::model::mesh::PerfLimits {
        min_bw_ratio: ratio.unwrap_or(d.min_bw_ratio),
        min_gbps: gbps,
        max_lat_ratio: lat.unwrap_or(d.max_lat_ratio),
        min_rate_ratio: rate,
        qp_timeout,
    }))
}

/// `mesh`: launched by ssh from here, or one rank of another launcher's;
/// rank 0 (or this launcher) prints the matrix and writes the reports.
pub(super) fn mesh_cmd(args: &[String], places: &dyn Places) -> Result<bool, String> {
    let Some(m) = parse("mesh", mesh_getopts(), args)? else {
        return Ok(true);
    };
    if let Some(file) = m.opt_str("replay") {
        return replay(&m, std::path::Path::new(&file));
    }
    let ssh_hosts: Vec<String> = m
        .opt_str("ssh")
        .map(|l| {
            l.split(',')
                .filter(|h| !h.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let plain = plain_options(&m)?;
    let (run, dir, baseline) = if ssh_hosts.is_empty() {
        let (rank, size) = (whole_opt(&m, "rank")?, whole_opt(&m, "size")?);
        let ranked = host::mesh::ranked(rank, size, m.opt_str("coordinator"))?;
        let opts = mesh_options(&m, plain, &ranked.names, places)?;
        // Rank 0 reports, and reads the baseline before it starts; the
        // others may not see its file.
        let baseline = if ranked.rank == 0 {
            baseline(&m)?
        } else {
            None
        };
        (
            host::mesh::run_ranked(&opts, &ranked, places)?,
            opts.out,
            baseline,
        )
    } else {
        host::ssh::check_hosts(&ssh_hosts)?;
        let baseline = baseline(&m)?;
        // What the hosts are to run, before any dir is made for the run.
        host::mesh::scenario_names(&m.free)?;
        let given = m.opt_str("bin-dir").map(std::path::PathBuf::from);
        let bin_dir = host::places::bin_dir(given.as_deref(), places)?;
        let opts = mesh_options(&m, plain, &ssh_hosts, places)?;
        let launch = host::ssh::SshLaunch {
            hosts: ssh_hosts,
            remote_dir: m.opt_str("remote-dir"),
            coordinator: m.opt_str("coordinator"),
        };
        (
            Some(host::ssh::run_ssh(&opts, &launch, &bin_dir)?),
            opts.out,
            baseline,
        )
    };
    let Some(mut run) = run else { return Ok(true) };
    let refused = with_baseline(&mut run, baseline, &m);
    if let Some(file) = m.opt_str("record") {
        crate::results::record::write(std::path::Path::new(&file), &run)?;
    }
    let files = crate::present::mesh::ReportFiles {
        transcripts: Some(dir.path().to_path_buf()),
        ..report_files(&m)
    };
    let passed = crate::present::mesh::report(&run, &files)?;
    save_baseline(&m, &run, passed)?;
    Ok(passed && !refused)
}

/// `run` with `baseline`, unless its rails are another layout's: then the
/// run is shown without it, its refusal on stderr in one line; whether it
/// was refused.
fn with_baseline(
    run: &mut crate::model::mesh::MeshRun,
    baseline: Option<crate::model::baseline::Baseline>,
    m: &getopts::Matches,
) -> bool {
    let Some(b) = baseline else {
        return false;
    };
    match crate::judge::baseline::refusal(run, &b) {
        Some(why) => {
            let file = m.opt_str("baseline").unwrap_or_default();
            eprintln!(
                "mesh: --baseline {}: {why}",
                crate::base::text::shown(&file)
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
fn baseline(m: &getopts::Matches) -> Result<Option<crate::model::baseline::Baseline>, String> {
    m.opt_str("baseline")
        .map(|f| {
            crate::results::baseline::read(std::path::Path::new(&f))
                .map_err(|e| format!("--baseline {e}"))
        })
        .transpose()
}

/// `--save-baseline FILE`: the run's JSON Lines report, where the run
/// passed with nothing to say; else why not, on stderr (the run's status
/// already says it failed).
fn save_baseline(
    m: &getopts::Matches,
    run: &crate::model::mesh::MeshRun,
    passed: bool,
) -> Result<(), String> {
    let Some(file) = m.opt_str("save-baseline") else {
        return Ok(());
    };
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
    std::fs::write(&file, crate::present::mesh::json_lines(run, &[]))
        .map_err(|e| format!("--save-baseline {file}: {e}"))
}

/// Where `--junit`, `--json` and `--html` ask the reports to go.
fn report_files(m: &getopts::Matches) -> crate::present::mesh::ReportFiles {
    crate::present::mesh::ReportFiles {
        junit: m.opt_str("junit").map(Into::into),
        json: m.opt_str("json").map(Into::into),
        html: m.opt_str("html").map(Into::into),
        transcripts: None,
    }
}

/// `mesh --replay FILE`: a recorded run judged and shown again, as rank 0
/// showed it, with no host; only the reports' options go with it.
fn replay(m: &getopts::Matches, file: &std::path::Path) -> Result<bool, String> {
    const WITH: &[&str] = &[
        "replay",
        "junit",
        "json",
        "html",
        "baseline",
        "save-baseline",
    ];
    let all = MESH_FLAGS.iter().chain(MESH_MULTI).chain(MESH_VALUES);
    if let Some(other) = all.filter(|o| !WITH.contains(o)).find(|o| m.opt_present(o)) {
        return Err(format!("--replay: --{other} is for a run on hosts"));
    }
    if let Some(name) = m.free.first() {
        return Err(format!(
            "--replay: {} is for a run on hosts",
            crate::base::text::shown(name)
        ));
    }
    let mut run = crate::results::record::read(file).map_err(|e| format!("--replay {e}"))?;
    let refused = match baseline(m)? {
        Some(b) => with_baseline(&mut run, Some(b), m),
        None => false,
    };
    let passed = crate::present::mesh::report(&run, &report_files(m))?;
    save_baseline(m, &run, passed)?;
    Ok(passed && !refused)
}
