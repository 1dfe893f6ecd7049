//! What a lab run produced, as the host read it from the result dirs and
//! judged it: the outcomes and their failures, the notes, the doctor's
//! findings, how the VMs booted. The summary, the reports and the handout
//! read it; none of them judges again.

use super::{BootPhases, HostInfo};
use crate::model::{Addrs, Mode, Outcome, PacketFact, Rung, Scenario, Skip};
use std::path::PathBuf;
use std::time::Duration;

/// How QEMU runs the guests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accel {
    /// Hardware virtualization.
    Kvm,
    /// Emulation, and why.
    Tcg(String),
}

impl std::fmt::Display for Accel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Accel::Kvm => f.write_str("KVM"),
            Accel::Tcg(why) => write!(f, "TCG ({why})"),
        }
    }
}

/// How the VMs of a run were booted, for the summary.
#[derive(Debug, Clone)]
pub struct VmInfo {
    /// KVM or TCG, and why.
    pub accel: Accel,
    /// The kernel the VMs ran.
    pub kernel: String,
    /// From start to the guest's program running, the slowest VM.
    pub boot: Duration,
    /// Where the first VM's boot and set-up went, as its agent said.
    pub phases: Option<BootPhases>,
    /// The CPU seconds its VMs' processes (QEMU's) used, sampled.
    pub cpu_secs: Option<f64>,
}

impl VmInfo {
    /// The boot, and where it went where the guest said: the summary's
    /// and the time table's words.
    pub fn boot_text(&self) -> String {
        let boot = self.boot.as_secs_f64();
        match &self.phases {
            None => format!("boot {boot:.1} s"),
            Some(p) => format!(
                "boot {boot:.1} s: QEMU and firmware {:.1} s, {p}",
                (boot - p.agent_secs).max(0.0)
            ),
        }
    }
}

/// One outcome, judged once when the run was read
/// (`capture::verdict::judge`): the scenario it ran, every way it fell
/// short, each wire fact's verdict and its packet ladder. Whatever reports
/// it reads these and judges nothing again.
#[derive(Debug, Clone)]
pub struct Judged {
    /// What the run read of it.
    pub outcome: Outcome,
    /// The scenario it ran (`None`: no scenario of this lab has its name).
    pub scenario: Option<&'static Scenario>,
    /// Every way it fell short of its scenario; empty means PASS.
    pub failures: Vec<String>,
    /// Each of its scenario's wire facts and how it fell short on the
    /// packets (empty: it holds); none without a capture.
    pub facts: Vec<(&'static PacketFact, Vec<String>)>,
    /// Its packet ladder, where the run recorded its packets.
    pub rungs: Option<Vec<Rung>>,
}

impl Judged {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// Its scenario's name.
    pub fn name(&self) -> &str {
        &self.outcome.scenario
    }
}

/// What a lab run produced.
#[derive(Debug, Clone)]
pub struct LabReport {
    /// The result dir (removed when all passed and not `keep`).
    pub dir: PathBuf,
    /// One per scenario, in run order, each judged once.
    pub outcomes: Vec<Judged>,
    /// Problems outside any scenario (agent errors, VM trouble).
    pub notes: Vec<String>,
    /// Wall time of boot + run (or just the run with `--local`).
    pub elapsed: Duration,
    /// The VMs' accelerator, kernel and boot time (`None` with `--local`).
    pub vms: Option<VmInfo>,
    /// The sides' addresses, as [`judge::check`] takes them.
    pub addrs: Option<Addrs>,
    /// The run recorded the wire (`--capture`): every scenario with wire
    /// facts must then have its packets.
    pub captured: bool,
    /// Where the sides ran.
    pub mode: Mode,
    /// The scenarios this setup cannot run, each with why: reported as
    /// skipped, never as passed.
    pub skipped: Vec<Skip>,
    /// The doctor's findings on the hosts that ran the sides (and on the
    /// path between them): each is one line, what is wrong and what to do.
    pub findings: Vec<String>,
    /// The device, GID and MTU of each host, as the doctor found them.
    pub hosts: Vec<HostInfo>,
}

impl LabReport {
    /// How many of its outcomes failed.
    pub fn failed(&self) -> usize {
        self.outcomes.iter().filter(|j| !j.passed()).count()
    }
}
