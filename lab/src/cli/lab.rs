//! `lab`: every example pair (or the NAMEs, or the fault matrix) in a VM,
//! in two VMs, or on this host and a peer (`--local`).

use super::define::{LabArgs, LOCAL_ONLY};
use crate::host::lab::LabOptions;
use crate::model;
use crate::model::Mode;

/// `lab --mesh ...` is `mesh ...`, for those who start from `lab`.
pub(super) fn mesh_alias(args: &[String]) -> Result<bool, String> {
    let rest: Vec<String> = args.iter().filter(|a| *a != "--mesh").cloned().collect();
    rdma_fabric::cli::dispatch("mesh", &rest, &crate::host::places::Workspace)
        .unwrap_or_else(|| Err("mesh: not a command here".into()))
}

/// `cargo xtask lab`: its options checked (`given`: those the command
/// line gave), the run, its report.
pub(super) fn lab_cmd(a: LabArgs, given: &[String]) -> Result<bool, String> {
    let role = lab_role(&a, given)?;
    let opts = lab_options(&a, &role)?;
    let mut names: Vec<&str> = a.names.iter().map(String::as_str).collect();
    if a.faults {
        names = crate::catalog::faults(&names)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|s| s.name.as_str())
            .collect();
    }
    // A peer without a secret is told at once, before any build.
    if let model::Local::Peer(_) = role {
        crate::guest::control::Secret::required(opts.secret_file.as_deref())?;
    }
    let report = crate::host::lab::run_scenarios(&opts, &names)?;
    if role == model::Local::Serve {
        return Ok(print_served(&report));
    }
    crate::present::summary::print_transcripts(&report.outcomes, report.addrs.as_ref());
    let failed = crate::present::summary::print_summary(&report);
    crate::present::report::write(
        &report,
        a.reports.junit.as_deref(),
        a.reports.json.as_deref(),
    )?;
    Ok(failed == 0 && report.notes.is_empty() && report.findings.is_empty())
}

/// `lab`'s options checked against each other, and which half of a run
/// `--local` takes (alone without it). What clap excludes (`--two-hosts`
/// and `--local`, `--serve` and `--peer`) it has refused already; these
/// say why.
pub(super) fn lab_role(a: &LabArgs, given: &[String]) -> Result<model::Local, String> {
    let gave = |id: &str| given.iter().any(|g| g == id);
    let local = &a.local;
    if a.capture && !a.two_hosts {
        return Err("--capture goes with --two-hosts: it records the wire between the VMs".into());
    }
    if let Some(o) = LOCAL_ONLY.iter().find(|o| !local.local && gave(o)) {
        return Err(format!("--{} goes with --local", o.replace('_', "-")));
    }
    if a.kernel.is_some() && local.local {
        return Err("--kernel is the VMs' kernel: it does not go with --local".into());
    }
    let role = match (local.serve, &local.peer) {
        (true, _) => model::Local::Serve,
        (false, Some(p)) => model::Local::Peer(p.clone()),
        (false, None) => model::Local::Alone,
    };
    if role != model::Local::Alone && local.ip.is_none() {
        return Err("two hosts need --ip: this host's address on its RDMA netdev".into());
    }
    if !local.serve && !local.session.allow.is_empty() {
        return Err("--allow goes with --serve: it narrows who may connect to this host".into());
    }
    if local.serve && !a.names.is_empty() {
        return Err("--serve runs the scenarios the peer names: give the NAMEs there".into());
    }
    Ok(role)
}

/// The lab's options from `lab`'s checked ones: the mode (with `role`
/// under `--local`) and every other choice.
pub(super) fn lab_options(a: &LabArgs, role: &model::Local) -> Result<LabOptions, String> {
    let local = &a.local;
    let mode = if local.local {
        Mode::Local {
            dev: local.dev.clone(),
            ip: local.ip.clone().unwrap_or_else(|| "127.0.0.1".into()),
            gid_idx: local.gid_idx,
            role: role.clone(),
        }
    } else if a.two_hosts {
        Mode::TwoHosts
    } else {
        Mode::SingleHost
    };
    let agent_exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    Ok(LabOptions {
        keep: a.keep,
        tcg: a.tcg || crate::host::lab::tcg_from_env(),
        capture: a.capture,
        kernel: a.kernel.clone(),
        bin_dir: local.bin_dir.clone(),
        // Only --local takes --wait; the VMs' own bound otherwise.
        wait_secs: local.local.then_some(local.session.wait),
        port: local.port,
        secret_file: local.session.secret_file.clone(),
        allow: local.session.allow.clone(),
        out: a.reports.out.clone(),
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
