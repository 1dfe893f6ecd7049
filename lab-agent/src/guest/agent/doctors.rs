//! The session's doctors: this host's own, the two hosts' exchanged over
//! the control channel, and the RC probe (a pair of real programs) that
//! shows whether the path between them carries RDMA.

use super::*;

/// Runs the doctor on this host for the scenarios of `list`, writes its
/// findings and device into the result dir, and takes its GID index when
/// none was given; returns the two files' texts.
pub(super) fn doctor_here(
    cfg: &mut AgentConfig,
    list: &[&Scenario],
    log: &mut Log,
) -> (String, String) {
    // The doctor's own session runs no scenario: it judges for the pairs.
    let pairs: Vec<&Scenario> = catalog::pairs().collect();
    let (locked_kib, locked_by) =
        catalog::largest_registration(if list.is_empty() { &pairs } else { list });
    let doctor = if QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        crate::guest::doctor::check_host_once
    } else {
        crate::guest::doctor::check_host
    };
    let check = doctor(&crate::guest::doctor::DoctorOpts {
        dev: Some(cfg.params.dev.clone()),
        ip: Some(cfg.ip.clone()),
        gid_idx: (!cfg.auto_gid).then_some(cfg.params.gid_idx),
        locked_kib,
        locked_by: locked_by.to_string(),
        mcast: mcast_groups(cfg, list),
        bin_dir: Some(cfg.bin_dir.clone()),
    });
    for l in &check.lines {
        log.say(&format!("doctor: {l}"));
    }
    for n in &check.notes {
        log.say(&format!("doctor notes: {n}"));
    }
    for f in &check.findings {
        log.say(&format!("doctor finds: {f}"));
    }
    if cfg.auto_gid {
        if let Some(i) = check.info.gid_index {
            cfg.params.gid_idx = i;
        }
    }
    let mut info = check.info;
    info.role = cfg.role.as_str().to_string();
    let findings: Vec<DoctorFinding> = check.findings.iter().map(DoctorFinding::said).collect();
    let findings = findings_text(&findings);
    let host = record_line(&info);
    let who = cfg.role.as_str();
    let _ = out(cfg).write(&findings_file(who), &findings);
    let _ = out(cfg).write(&host_file(who), &host);
    (findings, host)
}

/// Step 2: each side's doctor, and each tells the other what it found;
/// the finding on the path that the two devices make (their MTUs).
pub(super) fn exchange_doctors(
    cfg: &mut AgentConfig,
    c: &mut Control,
    list: &[&Scenario],
    log: &mut Log,
) -> Result<Option<String>, String> {
    let (mut findings, host) = doctor_here(cfg, list, log);
    // Told to the peer with the rest, so that neither host takes a probe
    // that never ran for a fault of the path.
    if let Some(f) = probe_unstartable(cfg) {
        log.say(&format!("doctor finds: {}", f.text));
        findings += &record_line(&f);
        let _ = out(cfg).write(&findings_file(cfg.role.as_str()), &findings);
    }
    c.send_blob("findings", findings.as_bytes())?;
    c.send_blob("host", host.as_bytes())?;
    let peer = match cfg.role {
        Role::Server => "client",
        _ => "server",
    };
    // The peer's words, escaped before they reach a file; a line that is
    // not a finding is none.
    let theirs = their_findings(&c.expect_blob("findings", SETUP_STEP)?);
    let their_host = escaped_bytes(&c.expect_blob("host", SETUP_STEP)?);
    let _ = out(cfg).write(&findings_file(peer), theirs);
    let _ = out(cfg).write(&host_file(peer), &their_host);
    // Both sides judge the two MTUs alike, so each says the same.
    let mtu = parse_line::<HostInfo>(&host)
        .zip(parse_line::<HostInfo>(&their_host))
        .and_then(|(mine, theirs)| crate::guest::doctor::mtu_finding(&mine, &theirs));
    Ok(mtu)
}

/// The longest text kept of a peer's finding: the doctor's own are a few
/// hundred characters.
const FINDING_MAX: usize = 2000;

/// A peer's findings as told, each text escaped on one line and cut
/// ([`crate::base::text::one_line`]); a line that is not a finding's
/// record is none (the peer runs this version: the handshake's hello
/// says so).
pub(super) fn their_findings(blob: &[u8]) -> String {
    let escaped = |t: String| crate::base::text::one_line(&t, FINDING_MAX);
    let findings: Vec<DoctorFinding> = findings_of(&String::from_utf8_lossy(blob))
        .into_iter()
        .map(|f| DoctorFinding {
            text: escaped(f.text),
            probe_unstarted: f.probe_unstarted.map(escaped),
        })
        .collect();
    findings_text(&findings)
}

/// The start of a host's finding that its side of the RC probe cannot start.
pub(super) const PROBE_CANNOT_START: &str = "the doctor's RC probe cannot start here: ";

/// This host's finding when it cannot start its side of the RC probe:
/// `PROGRAM --help`, started as the probe will be (bounded: 5 s).
pub(super) fn probe_unstartable(cfg: &AgentConfig) -> Option<DoctorFinding> {
    let probe = catalog::find(catalog::PROBE)?;
    let cmd = match cfg.role {
        Role::Server => probe.server.as_ref()?,
        _ => probe.client.as_ref()?,
    };
    let out = Command::new("timeout")
        .args(["-k", "2", "5"])
        .arg(program_path(cfg, cmd.program))
        .arg("--help")
        .env("PATH", search_path(&cfg.bin_dir))
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let why = crate::model::not_started(out.status.code(), &String::from_utf8_lossy(&out.stderr))?;
    Some(DoctorFinding::unstarted(
        format!("{PROBE_CANNOT_START}{why}"),
        why,
    ))
}

/// A host's finding (this one's or the peer's, as told) that its side of
/// the probe cannot start: which host, and why.
pub(super) fn probe_cannot_start(cfg: &AgentConfig) -> Option<(&'static str, String)> {
    ["server", "client"].into_iter().find_map(|who| {
        let text = read_in(out(cfg), &findings_file(who))?;
        let why = findings_of(&text)
            .into_iter()
            .find_map(|f| f.probe_unstarted)?;
        Some((who, why))
    })
}

/// The finding of a probe that did not run because the `who` host cannot
/// start its side, for `why`.
pub(super) fn not_run(who: &str, why: &str) -> DoctorFinding {
    DoctorFinding::unstarted(
        format!(
            "the doctor's RC probe did not run, since the {who} host cannot start its side: {why}"
        ),
        why,
    )
}

/// The finding of a failed probe, or `None` when its RC message arrived,
/// judged on what this host ran and saw: a serving host judges its own
/// side, whatever the peer may claim; the peer, both sides' files.
pub(super) fn probe_finding(cfg: &AgentConfig, probe: &'static Scenario) -> Option<DoctorFinding> {
    let outcome = crate::results::collect(&[probe], out(cfg), out(cfg)).pop()?;
    let failures = match cfg.role {
        Role::Server if probe.server.is_some() => judge::check_one_side(
            probe,
            crate::model::Side::Server,
            outcome.server.as_ref(),
            None,
        ),
        Role::Server => Vec::new(),
        _ => judge::check(probe, &outcome, None),
    };
    if failures.is_empty() {
        return None;
    }
    if let Some((who, why)) = probe_cannot_start(cfg) {
        return Some(not_run(who, &why));
    }
    // A side that never started: the probe did not run, and says nothing
    // of the path.
    let sides = [("server", &outcome.server), ("client", &outcome.client)];
    let mine = |side: &str| cfg.role != Role::Server || side == "server";
    if let Some((side, why)) = sides.iter().find_map(|(side, o)| {
        let why = o.as_ref()?.not_started().filter(|_| mine(side))?;
        Some((*side, why))
    }) {
        let host = if side == "server" {
            &cfg.params.server_ip
        } else {
            &cfg.params.client_ip
        };
        return Some(DoctorFinding::unstarted(
            format!("the doctor's RC probe did not run on {host}: its {side} side {why}"),
            why,
        ));
    }
    let said = [&outcome.client, &outcome.server]
        .into_iter()
        .flatten()
        .find_map(|s| s.stderr.lines().next().map(crate::base::text::shown))
        .unwrap_or_else(|| failures[0].clone());
    Some(DoctorFinding::said(format!(
        "one RC message from {} to {} did not arrive ({said}): {}",
        cfg.params.server_ip,
        cfg.params.client_ip,
        hints::RC_PATH_BLOCKED
    )))
}

/// Step 3: the doctor's probe, one RC message across, as a scenario of its
/// own; each host judges it on its own.
pub(super) fn probe_path(
    cfg: &AgentConfig,
    c: &mut Control,
    mtu: Option<String>,
    log: &mut Log,
) -> Result<(), String> {
    let probe = catalog::find(catalog::PROBE).expect("the probe is in the table");
    // Both hosts hold both findings by now: when one side cannot start,
    // neither runs the probe, so no server waits out its bound for a
    // client that will never come.
    let finding = match probe_cannot_start(cfg) {
        Some((who, why)) => Some(not_run(who, &why)),
        None => {
            run_all(cfg, &[probe], Some(c), log)?;
            probe_finding(cfg, probe)
        }
    };
    if finding.is_none() {
        log.say("doctor: one RC message crossed to the peer and back");
    }
    let found: Vec<DoctorFinding> = mtu
        .map(DoctorFinding::said)
        .into_iter()
        .chain(finding)
        .collect();
    for f in &found {
        log.say(&format!("doctor finds: {}", f.text));
    }
    let _ = out(cfg).write(&findings_file("path"), findings_text(&found));
    Ok(())
}
