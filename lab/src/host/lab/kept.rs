//! The handout's run: a kept two-host run with capture read back as a
//! report, or a new one of every scenario the handout needs.

use super::*;

/// The run a handout is made of: the kept two-host run with capture in
/// `from`, or a new one of every scenario the handout needs.
pub fn handout_run(from: Option<&Path>, tcg: bool) -> Result<LabReport, String> {
    let scenarios = catalog::handout_scenarios();
    if let Some(dir) = from {
        return load_two_host_run(dir, &scenarios);
    }
    let opts = LabOptions {
        keep: true,
        tcg,
        capture: true,
        ..LabOptions::new(
            Mode::TwoHosts,
            std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?,
        )
    };
    let names: Vec<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
    run_scenarios(&opts, &names)
}

/// The report of a kept two-host run with capture (its result dir), for
/// the scenarios of `list` that it ran.
pub fn load_two_host_run(path: &Path, list: &[&'static Scenario]) -> Result<LabReport, String> {
    let not_one = || {
        format!(
            "{} is not the result dir of a two-host run with --capture (no {})",
            path.display(),
            crate::capture::WIRE_PCAP
        )
    };
    let dir = Dir::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !dir.exists(crate::capture::WIRE_PCAP) {
        return Err(not_one());
    }
    let (a, b) = (
        dir.dir("a").map_err(|_| not_one())?,
        dir.dir("b").map_err(|_| not_one())?,
    );
    let ran: Vec<&Scenario> = list
        .iter()
        .copied()
        .filter(|s| {
            ["server", "client"].iter().any(|side| {
                let d = if *side == "server" { &a } else { &b };
                d.exists(&result_file(&s.name, side, "status"))
            })
        })
        .collect();
    let mut outcomes = collect(&ran, &a, &b);
    attach_captures(&dir, &mut outcomes)?;
    let kernel = read_in(&dir, KERNEL_FILE).unwrap_or_default();
    let addrs = Mode::TwoHosts.addrs();
    Ok(LabReport {
        dir: path.to_path_buf(),
        outcomes: crate::capture::verdict::judge_all(outcomes, addrs.as_ref(), true),
        notes: Vec::new(),
        elapsed: Duration::ZERO,
        vms: Some(VmInfo {
            accel: host::vm::Accel::Tcg("as recorded".into()),
            kernel: kernel.trim().to_string(),
            boot: Duration::ZERO,
            phases: None,
            cpu_secs: None,
        }),
        addrs,
        captured: true,
        mode: Mode::TwoHosts,
        skipped: Vec::new(),
        findings: Vec::new(),
        hosts: Vec::new(),
    })
}
