//! The result directory's format: the agent writes
//! `<scenario>.<side>.{stdout,stderr,status,leftover}` and the doctor's
//! files there, and the host reads them back into outcomes.

pub mod baseline;
pub mod bench;
pub mod record;
pub mod report;
pub mod times;

/// The doctor's report on this host.
#[derive(Debug, Clone, Default)]
pub struct HostCheck {
    /// What it saw, a line each: ports, GIDs, `ulimit -l`, rdma_cm, the
    /// address.
    pub lines: Vec<String>,
    /// What is wrong, a line each, with what to do about it.
    pub findings: Vec<String>,
    /// What it could not check, and why: not findings, since nothing wrong
    /// was seen.
    pub notes: Vec<String>,
    /// The device, for the reports.
    pub info: HostInfo,
}

/// What the doctor learnt of one host's RDMA device, for the reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Which side ran there: "server", "client" or "both".
    pub role: String,
    /// The RDMA device the examples use (`-d`/`{dev}`).
    pub dev: String,
    /// Its port.
    pub port: u32,
    /// The port's link layer ("InfiniBand", "Ethernet"), when known.
    pub link_layer: Option<String>,
    /// The GID index the examples use, when there is one.
    pub gid_index: Option<u32>,
    /// That GID's type ("RoCE v2", "IB/RoCE v1"), when sysfs says it.
    pub gid_type: Option<String>,
    /// The port's active MTU in bytes, when `ibv_devinfo` says it.
    pub active_mtu: Option<u32>,
}

/// The host's one text form, for people: the summary's line and the
/// report's doctor case.
impl std::fmt::Display for HostInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let link = self.link_layer.as_deref().unwrap_or("link layer unknown");
        // One host that ran both sides is "this host", not a "both host".
        match self.role.as_str() {
            "both" => write!(f, "this host (both sides)")?,
            role => write!(f, "{role} host")?,
        }
        write!(f, ": {} port {} ({link})", self.dev, self.port)?;
        match (self.gid_index, &self.gid_type) {
            (Some(i), Some(t)) => write!(f, ", GID index {i} ({t})")?,
            (Some(i), None) => write!(f, ", GID index {i}")?,
            _ => {}
        }
        match self.active_mtu {
            Some(m) => write!(f, ", active MTU {m}"),
            None => Ok(()),
        }
    }
}

use crate::base::rundir::Dir;
use crate::model::{Outcome, Scenario, SideOutcome, Skip};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// `<scenario>.<side>.<ext>`: the result files the host reads, in the
/// result dir.
pub fn result_file(scenario: &str, side: &str, ext: &str) -> String {
    format!("{scenario}.{side}.{ext}")
}

/// `value` as a line of a result file: one JSON object and a newline.
pub fn record_line<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default() + "\n"
}

/// What [`record_line`] wrote, `None` for anything else.
pub fn parse_line<T: DeserializeOwned>(line: &str) -> Option<T> {
    serde_json::from_str(line.trim_end_matches('\n')).ok()
}

/// How one side of a scenario ended, as `<scenario>.<side>.status` holds
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideStatus {
    /// Its exit status (128 and the signal for a signal's death).
    pub exit: i32,
    /// From its start to its end.
    pub elapsed_ms: u64,
    /// Why the agent could not start it at all: the command and the
    /// system's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cannot_start: Option<String>,
}

/// How an agent's run ended, as `agent.<role>.status` holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    /// Every step of its session was taken.
    Ok,
    /// A step failed: what the agent said of it.
    Failed(String),
}

/// The agent's log line and a note's words: `ok` or `error: ...`.
impl std::fmt::Display for AgentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentStatus::Ok => write!(f, "ok"),
            AgentStatus::Failed(e) => write!(f, "error: {e}"),
        }
    }
}

/// The file in a result dir where an agent in role `role` says how its
/// run ended ([`AgentStatus`]).
pub fn agent_status_file(role: &str) -> String {
    format!("agent.{role}.status")
}

/// The file in a result dir where an agent in role `role` adds a line as
/// each scenario ends: a [`ScenarioTime`] ([`record_line`]).
pub fn times_file(role: &str) -> String {
    format!("times.{role}.tsv")
}

/// The file in a result dir where an agent in a VM says where its boot
/// and set-up went ([`BootPhases`]).
pub fn boot_file(role: &str) -> String {
    format!("boot.{role}")
}

/// Where a VM's boot and the agent's set-up went, as the guest saw it;
/// the host adds what came before the guest's kernel (QEMU, firmware).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BootPhases {
    /// From the kernel's start to its running init (the kernel's log).
    pub kernel_secs: f64,
    /// What init spent running systemd-tmpfiles (virtme-ng-init's log;
    /// another init's log may not say).
    #[serde(default)]
    pub tmpfiles_secs: f64,
    /// What init spent waiting for udev's coldplug to settle.
    #[serde(default)]
    pub udev_secs: f64,
    /// From the kernel's start to this agent's.
    pub agent_secs: f64,
    /// rdma_rxe loaded and its device up.
    pub rxe_secs: f64,
    /// The doctor's checks.
    pub doctor_secs: f64,
}

/// The guest's part, for people: the agent's log line and the summary's.
impl std::fmt::Display for BootPhases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "kernel {:.1} s, init {:.1} s (systemd-tmpfiles {:.1} s, udev {:.1} s), \
             rxe set-up {:.1} s, doctor {:.1} s",
            self.kernel_secs.max(0.0),
            (self.agent_secs - self.kernel_secs).max(0.0),
            // A phase whose marks came in another order (another
            // virtme-ng's init) reads as none, never as "-0.0 s".
            self.tmpfiles_secs.max(0.0),
            self.udev_secs.max(0.0),
            self.rxe_secs.max(0.0),
            self.doctor_secs.max(0.0)
        )
    }
}

/// One line of a [`times_file`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioTime {
    /// The scenario.
    pub name: String,
    /// From its first step to its results' being written, in ms.
    pub wall_ms: u64,
    /// The CPU time its host spent busy meanwhile, all CPUs together.
    pub busy_ms: Option<u64>,
}

/// The lines of a [`times_file`] in `dir` (none when it is not there
/// yet); a line still being written is left for the next read.
pub fn read_times(dir: &Dir, role: &str) -> Vec<ScenarioTime> {
    let text = read_in(dir, &times_file(role)).unwrap_or_default();
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .filter_map(parse_line)
        .collect()
}

/// The file in the peer's result dir with the scenarios the serving host
/// refused: a [`Skip`] a line ([`record_line`]).
pub const REFUSED_FILE: &str = "session.refused";

/// The file in a result dir with the doctor's findings on `who` ("server",
/// "client", "both", or "path" for the probe between the hosts).
pub fn findings_file(who: &str) -> String {
    format!("doctor.{who}.findings")
}

/// One of the doctor's findings as its file ([`findings_file`]) keeps it:
/// a record a line ([`record_line`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorFinding {
    /// What it found, as the reports say it.
    pub text: String,
    /// Why the doctor's RC probe (a pair of the examples' programs) never
    /// started, when that is the finding: a program that cannot start
    /// says nothing of the host's RDMA or of the path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_unstarted: Option<String>,
}

impl DoctorFinding {
    /// A finding that is its text alone.
    pub fn said(text: impl Into<String>) -> DoctorFinding {
        DoctorFinding {
            text: text.into(),
            probe_unstarted: None,
        }
    }

    /// The finding `text`, that the probe never started, for `why`.
    pub fn unstarted(text: impl Into<String>, why: impl Into<String>) -> DoctorFinding {
        DoctorFinding {
            text: text.into(),
            probe_unstarted: Some(why.into()),
        }
    }
}

/// `findings` as their file holds them.
pub fn findings_text(findings: &[DoctorFinding]) -> String {
    findings.iter().map(record_line).collect()
}

/// The findings of a findings file's text; a line that is not one is
/// not a finding.
pub fn findings_of(text: &str) -> Vec<DoctorFinding> {
    text.lines().filter_map(parse_line).collect()
}

/// The file in a result dir with the device the doctor found on `who`.
pub fn host_file(who: &str) -> String {
    format!("doctor.{who}.host")
}

/// A file's text (a sysfs attribute), `None` when it cannot be read.
/// Lossy: one byte that is not UTF-8 must not drop the whole text.
pub fn read_text(path: &Path) -> Option<String> {
    fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The text of the file at `path`, refused past `max` bytes (the error
/// names the file and the limit), so that no file a user names can take
/// the memory.
pub fn read_at_most(path: &Path, max: u64) -> Result<String, String> {
    use std::io::Read as _;
    let shown = path.display();
    let file = fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut text = String::new();
    file.take(max + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{shown}: {e}"))?;
    if text.len() as u64 > max {
        return Err(format!("{shown}: larger than {} MiB", max >> 20));
    }
    Ok(text)
}

/// The text of the result file `name` in `dir`, read through the dir's
/// handle, `None` when it cannot be read. Lossy, as [`read_text`]: a
/// program's output is whatever bytes it wrote.
pub fn read_in(dir: &Dir, name: &str) -> Option<String> {
    dir.read(name)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn read_side(dir: &Dir, name: &str, side: &str) -> Option<SideOutcome> {
    let read = |ext: &str| read_in(dir, &result_file(name, side, ext));
    let stdout = read("stdout");
    let status = read("status");
    if stdout.is_none() && status.is_none() {
        return None;
    }
    let status: Option<SideStatus> = status.as_deref().and_then(parse_line);
    Some(SideOutcome {
        exit: status.as_ref().map(|s| s.exit),
        elapsed_ms: status.as_ref().map(|s| s.elapsed_ms),
        stdout: stdout.unwrap_or_default(),
        stderr: read("stderr").unwrap_or_default(),
        cannot_start: status.and_then(|s| s.cannot_start),
    })
}

/// Reads the agents' result files (server side from `server_dir`).
pub fn collect(list: &[&Scenario], server_dir: &Dir, client_dir: &Dir) -> Vec<Outcome> {
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
            .filter_map(|(dir, role)| read_in(dir, &result_file(&s.name, role, "leftover")))
            .collect(),
            capture: None,
        })
        .collect()
}

/// Adds a note for the agent of `role` that did not end well, or left no
/// status at all.
pub fn agent_note(dir: &Dir, role: &str, notes: &mut Vec<String>) {
    match read_in(dir, &agent_status_file(role)) {
        Some(s) => match parse_line(&s) {
            Some(AgentStatus::Ok) => {}
            Some(failed) => notes.push(format!("{role} agent: {failed}")),
            None => notes.push(format!(
                "{role} agent: its status is not one it writes: {}",
                crate::base::text::escaped(&s, 300)
            )),
        },
        None => notes.push(format!(
            "{role} agent left no status (it did not start or the VM died); see {}",
            dir.path().display()
        )),
    }
}

/// The scenarios a serving host refused, from a peer's result dir.
pub fn read_refused(dir: &Dir) -> Vec<Skip> {
    read_in(dir, REFUSED_FILE)
        .unwrap_or_default()
        .lines()
        .filter_map(parse_line::<Skip>)
        .map(|s| Skip {
            scenario: crate::base::text::escaped(&s.scenario, 64),
            reason: crate::base::text::escaped(&s.reason, 300),
        })
        .collect()
}

/// The doctor's findings and hosts that an agent's result dir holds: on
/// this host, or on both hosts of a session and the path between them.
pub fn read_doctor(dir: &Dir) -> (Vec<String>, Vec<HostInfo>) {
    let mut findings = Vec::new();
    let mut hosts = Vec::new();
    for (who, label) in [
        ("both", "this host"),
        ("server", "server host"),
        ("client", "client host"),
        ("path", "between the hosts"),
    ] {
        if let Some(text) = read_in(dir, &findings_file(who)) {
            findings.extend(
                findings_of(&text)
                    .into_iter()
                    .map(|f| format!("{label}: {}", f.text)),
            );
        }
        if let Some(text) = read_in(dir, &host_file(who)) {
            hosts.extend(text.lines().filter_map(parse_line::<HostInfo>));
        }
    }
    (findings, hosts)
}

/// One side's transcript as the lab prints it (`lab::side_text`'s
/// format): a header with the exit status and wall time, then each stream
/// that is not empty under its own rule, ending with a newline.
pub fn side_transcript(label: &str, side: &SideOutcome) -> String {
    let exit = match side.exit {
        Some(crate::model::TIMED_OUT) => "exit 124 (timed out)".to_string(),
        Some(c) => format!("exit {c}"),
        None => "no exit status".to_string(),
    };
    let time = side
        .elapsed_ms
        .map(|ms| format!(", {:.2} s", ms as f64 / 1000.0))
        .unwrap_or_default();
    let mut out = format!("=== {label} ({exit}{time}) ===\n");
    for (stream, text) in [("stdout", &side.stdout), ("stderr", &side.stderr)] {
        if !text.is_empty() {
            let _ = writeln!(out, "--- {stream} ---");
            out.push_str(text);
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
