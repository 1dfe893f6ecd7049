//! The result directory's format: the agent writes
//! `<scenario>.<side>.{stdout,stderr,status,leftover}` and the doctor's
//! files there, and the host reads them back into outcomes.

use crate::mode::Skip;
use crate::scenarios::{Outcome, Scenario, SideOutcome};
use std::fs;
use std::path::{Path, PathBuf};

/// `<dir>/<scenario>.<side>.<ext>`: the result files the host reads.
pub fn result_file(dir: &Path, scenario: &str, side: &str, ext: &str) -> PathBuf {
    dir.join(format!("{scenario}.{side}.{ext}"))
}

/// The file in the peer's result dir with the scenarios the serving host
/// refused: a line each, `NAME<TAB>why`.
pub fn refused_file(dir: &Path) -> PathBuf {
    dir.join("session.refused")
}

/// The file in a result dir with the doctor's findings on `who` ("server",
/// "client", "both", or "path" for the probe between the hosts).
pub fn findings_file(dir: &Path, who: &str) -> PathBuf {
    dir.join(format!("doctor.{who}.findings"))
}

/// The file in a result dir with the device the doctor found on `who`.
pub fn host_file(dir: &Path, who: &str) -> PathBuf {
    dir.join(format!("doctor.{who}.host"))
}

/// A [`HostInfo`](crate::doctor::HostInfo) as one tab-separated line.
pub fn host_line(h: &crate::doctor::HostInfo) -> String {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    [
        h.role.clone(),
        h.dev.clone(),
        h.port.to_string(),
        opt(h.link_layer.clone()),
        opt(h.gid_index.map(|i| i.to_string())),
        opt(h.gid_type.clone()),
        opt(h.active_mtu.map(|m| m.to_string())),
    ]
    .join("\t")
}

/// The [`HostInfo`](crate::doctor::HostInfo) of [`host_line`]'s line.
pub fn parse_host_line(line: &str) -> Option<crate::doctor::HostInfo> {
    let f: Vec<&str> = line.trim_end_matches('\n').split('\t').collect();
    let [role, dev, port, link, gid, gtype, mtu] = f.as_slice() else {
        return None;
    };
    let opt = |v: &str| (v != "-").then(|| v.to_string());
    Some(crate::doctor::HostInfo {
        role: role.to_string(),
        dev: dev.to_string(),
        port: port.parse().ok()?,
        link_layer: opt(link),
        gid_index: opt(gid).and_then(|v| v.parse().ok()),
        gid_type: opt(gtype),
        active_mtu: opt(mtu).and_then(|v| v.parse().ok()),
    })
}

/// A result file's text, `None` when it cannot be read. Lossy: a program's
/// output is whatever bytes it wrote, and one byte that is not UTF-8 must
/// not drop the whole transcript from the report.
pub fn read_text(path: &Path) -> Option<String> {
    fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn read_side(dir: &Path, name: &str, side: &str) -> Option<SideOutcome> {
    let read = |ext: &str| read_text(&result_file(dir, name, side, ext));
    let stdout = read("stdout");
    let status = read("status");
    if stdout.is_none() && status.is_none() {
        return None;
    }
    let field = |key: &str| {
        status.as_deref().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        })
    };
    Some(SideOutcome {
        exit: field("exit").and_then(|v| v.parse().ok()),
        elapsed_ms: field("elapsed_ms").and_then(|v| v.parse().ok()),
        stdout: stdout.unwrap_or_default(),
        stderr: read("stderr").unwrap_or_default(),
    })
}

/// Reads the agents' result files (server side from `server_dir`).
pub fn collect(list: &[&Scenario], server_dir: &Path, client_dir: &Path) -> Vec<Outcome> {
    list.iter()
        .map(|s| Outcome {
            scenario: s.name.to_string(),
            server: s
                .server
                .as_ref()
                .and_then(|_| read_side(server_dir, &s.name, "server")),
            client: s
                .client
                .as_ref()
                .and_then(|_| read_side(client_dir, &s.name, "client")),
            leftover: [
                (server_dir, "server"),
                (server_dir, "both"),
                (client_dir, "client"),
            ]
            .iter()
            .filter_map(|(dir, role)| read_text(&result_file(dir, &s.name, role, "leftover")))
            .collect(),
            capture: None,
        })
        .collect()
}

/// Adds a note for the agent of `role` that did not end well, or left no
/// status at all.
pub fn agent_note(dir: &Path, role: &str, notes: &mut Vec<String>) {
    match read_text(&dir.join(format!("agent.{role}.status"))) {
        Some(s) if s.trim() == "ok" => {}
        Some(s) => notes.push(format!("{role} agent: {}", s.trim())),
        None => notes.push(format!(
            "{role} agent left no status (it did not start or the VM died); see {}",
            dir.display()
        )),
    }
}

/// The scenarios a serving host refused, from a peer's result dir.
pub fn read_refused(dir: &Path) -> Vec<Skip> {
    let text = fs::read(refused_file(dir)).unwrap_or_default();
    String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(name, why)| Skip {
            scenario: name.to_string(),
            reason: crate::control::escaped(why, 300),
        })
        .collect()
}

/// The doctor's findings and hosts that an agent's result dir holds: on
/// this host, or on both hosts of a session and the path between them.
pub fn read_doctor(dir: &Path) -> (Vec<String>, Vec<crate::doctor::HostInfo>) {
    let mut findings = Vec::new();
    let mut hosts = Vec::new();
    for (who, label) in [
        ("both", "this host"),
        ("server", "server host"),
        ("client", "client host"),
        ("path", "between the hosts"),
    ] {
        if let Some(text) = read_text(&findings_file(dir, who)) {
            findings.extend(
                text.lines()
                    .filter(|l| !l.is_empty())
                    .map(|l| format!("{label}: {l}")),
            );
        }
        if let Some(text) = read_text(&host_file(dir, who)) {
            hosts.extend(text.lines().filter_map(parse_host_line));
        }
    }
    (findings, hosts)
}
