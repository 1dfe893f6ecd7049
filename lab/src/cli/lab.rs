//! `lab`: every example pair (or the NAMEs, or the fault matrix) in a VM,
//! in two VMs, or on this host and a peer (`--local`).

use super::args::*;
use crate::host::lab::LabOptions;
use crate::model;
use crate::model::Mode;

/// `cargo xtask lab`: its options read into the lab's, the run, its report.
pub(super) fn lab_cmd(args: &[String]) -> Result<bool, String> {
    // `lab --mesh ...` is `mesh ...`, for those who start from `lab`.
    if args.iter().any(|a| a == "--mesh") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--mesh").cloned().collect();
        if let Some(done) =
            rdma_fabric::cli::dispatch("mesh", &rest, &crate::host::places::Workspace)
        {
            return done;
        }
    }
    let Some(m) = parse("lab", lab_getopts(), args)? else {
        return Ok(true);
    };
    let role = lab_role(&m)?;
    let opts = lab_options(&m, &role)?;
    let mut names: Vec<&str> = m.free.iter().map(String::as_str).collect();
    if m.opt_present("faults") {
        names = crate::catalog::faults(&names)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|s| s.name.as_str())
            .collect();
    }
    // A peer without a secret is told at once, before any build.
    if let model::Local::Peer(_) = role {
        crate::guest::control::Secret::load(opts.secret_file.as_deref())
            .unwrap_or_else(|| Err(crate::guest::control::Secret::missing()))?;
    }
    let report = crate::host::lab::run_scenarios(&opts, &names)?;
    if role == model::Local::Serve {
        return Ok(print_served(&report));
    }
    crate::present::summary::print_transcripts(&report.outcomes, report.addrs.as_ref());
    let failed = crate::present::summary::print_summary(&report);
    crate::present::report::write(
        &report,
        m.opt_str("junit").as_deref().map(std::path::Path::new),
        m.opt_str("json").as_deref().map(std::path::Path::new),
    )?;
    Ok(failed == 0 && report.notes.is_empty() && report.findings.is_empty())
}

/// The options `lab` takes: its flags, its values, and `--allow`.
pub(super) fn lab_getopts() -> getopts::Options {
    let mut opts = getopts::Options::new();
    for flag in [
        "two-hosts",
        "local",
        "keep",
        "tcg",
        "faults",
        "capture",
        "serve",
    ] {
        opts.optflag("", flag, "");
    }
    for value in TWO_HOST_VALUES
        .iter()
        .chain(&["junit", "json", "kernel", "out"])
    {
        opts.optopt("", value, "", "");
    }
    opts.optmulti("", "allow", "", "");
    opts
}

/// `lab`'s options checked against each other, and which half of a run
/// `--local` takes (alone without it).
pub(super) fn lab_role(m: &getopts::Matches) -> Result<model::Local, String> {
    check_values(m)?;
    let (two, local) = (m.opt_present("two-hosts"), m.opt_present("local"));
    if two && local {
        return Err("--two-hosts and --local exclude each other".into());
    }
    if m.opt_present("capture") && !two {
        return Err("--capture goes with --two-hosts: it records the wire between the VMs".into());
    }
    let local_only = [
        "dev",
        "ip",
        "gid-idx",
        "serve",
        "peer",
        "port",
        "wait",
        "bin-dir",
        "secret-file",
        "allow",
    ];
    if let Some(o) = local_only.iter().find(|o| !local && m.opt_present(o)) {
        return Err(format!("--{o} goes with --local"));
    }
    if m.opt_present("kernel") && local {
        return Err("--kernel is the VMs' kernel: it does not go with --local".into());
    }
    let (serve, peer) = (m.opt_present("serve"), m.opt_str("peer"));
    let role = match (serve, peer) {
        (true, Some(_)) => return Err("--serve and --peer exclude each other".into()),
        (true, None) => model::Local::Serve,
        (false, Some(p)) => model::Local::Peer(p),
        (false, None) => model::Local::Alone,
    };
    if role != model::Local::Alone && !m.opt_present("ip") {
        return Err("two hosts need --ip: this host's address on its RDMA netdev".into());
    }
    if !serve && m.opt_present("allow") {
        return Err("--allow goes with --serve: it narrows who may connect to this host".into());
    }
    if serve && !m.free.is_empty() {
        return Err("--serve runs the scenarios the peer names: give the NAMEs there".into());
    }
    Ok(role)
}

/// The lab's options from `lab`'s checked ones: the mode (with `role`
/// under `--local`) and every other choice.
pub(super) fn lab_options(m: &getopts::Matches, role: &model::Local) -> Result<LabOptions, String> {
    let (two, local) = (m.opt_present("two-hosts"), m.opt_present("local"));
    let gid_idx = match m.opt_str("gid-idx") {
        Some(v) => Some(v.parse().map_err(|e| format!("--gid-idx {v}: {e}"))?),
        None => None,
    };
    let mode = if local {
        Mode::Local {
            dev: m.opt_str("dev"),
            ip: m.opt_str("ip").unwrap_or_else(|| "127.0.0.1".into()),
            gid_idx,
            role: role.clone(),
        }
    } else if two {
        Mode::TwoHosts
    } else {
        Mode::SingleHost
    };
    let agent_exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    Ok(LabOptions {
        keep: m.opt_present("keep"),
        tcg: m.opt_present("tcg") || crate::host::lab::tcg_from_env(),
        capture: m.opt_present("capture"),
        kernel: m.opt_str("kernel").map(std::path::PathBuf::from),
        bin_dir: m.opt_str("bin-dir").map(std::path::PathBuf::from),
        wait_secs: m
            .opt_str("wait")
            .map(|v| v.parse().map_err(|e| format!("--wait {v}: {e}")))
            .transpose()?,
        port: num_opt(m, "port", model::CONTROL_PORT)?,
        secret_file: m.opt_str("secret-file").map(std::path::PathBuf::from),
        allow: allow_list(m)?,
        out: m.opt_str("out").map(std::path::PathBuf::from),
        ..LabOptions::new(mode, agent_exe)
    })
}

/// A serving host's end of a run: the notes (some are the peer's words),
/// or that the peer prints the report; whether there were none.
pub(super) fn print_served(report: &crate::results::report::LabReport) -> bool {
    for n in &report.notes {
        println!("note: {}", crate::base::text::escape_controls(n));
    }
    if report.notes.is_empty() {
        println!("lab: served the peer; it prints the report");
    }
    report.notes.is_empty()
}
