//! What a lab run produced, as the host read it from the result dirs and
//! judged it: the outcomes and their failures, the notes, the doctor's
//! findings, how the VMs booted. The summary, the reports and the handout
//! read it; none of them judges again.

use super::{BootPhases, HostInfo};
use crate::model::{Addrs, Mode, Outcome, Skip};
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

/// What a lab run produced.
#[derive(Debug, Clone)]
pub struct LabReport {
    /// The result dir (removed when all passed and not `keep`).
    pub dir: PathBuf,
    /// One per scenario, in run order.
    pub outcomes: Vec<Outcome>,
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
    /// Every way each outcome fell short of its scenario, in the order of
    /// `outcomes` (empty: PASS); judged once, when the run was read
    /// (`capture::judged`), and only read after.
    pub failures: Vec<Vec<String>>,
}

impl LabReport {
    /// Every way `o`, one of [`LabReport::outcomes`], fell short of its
    /// scenario; empty means PASS. An outcome the run did not judge has
    /// failed: that it was not judged.
    pub fn failures(&self, o: &Outcome) -> Vec<String> {
        let at = self
            .outcomes
            .iter()
            .position(|x| std::ptr::eq(x, o))
            .or_else(|| self.outcomes.iter().position(|x| x.scenario == o.scenario));
        match at.and_then(|i| self.failures.get(i)) {
            Some(f) => f.clone(),
            None => vec!["the run did not judge it".into()],
        }
    }
}
