//! What a scenario cost and left: its wall and busy CPU time, and the
//! kernel's RDMA objects that a user process left behind.

use super::*;

/// The wall time and the guest's busy CPU time of one scenario, written
/// to [`times_file`] once it is over: what the host's progress lines and
/// its time table read (a scenario that waits on a bound is idle, one that
/// computes is busy).
pub(super) struct ScenarioClock {
    started: Instant,
    busy: Option<u64>,
}

impl ScenarioClock {
    pub(super) fn start() -> ScenarioClock {
        ScenarioClock {
            started: Instant::now(),
            busy: busy_ticks(),
        }
    }

    pub(super) fn record(self, cfg: &AgentConfig, name: &str) {
        let wall_ms = self.started.elapsed().as_millis();
        // /proc/stat counts in USER_HZ ticks, 100 a second on Linux.
        let busy_ms = match (self.busy, busy_ticks()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a) * 10),
            _ => None,
        };
        let line = crate::results::record_line(&crate::results::ScenarioTime {
            name: name.to_string(),
            wall_ms: wall_ms as u64,
            busy_ms,
        });
        let file = out(cfg).append(&times_file(cfg.role.as_str()));
        let _ = file.and_then(|mut f| f.write_all(line.as_bytes()));
    }
}

/// The CPU ticks this (virtual) machine has spent busy so far, all CPUs
/// together: `/proc/stat`'s first line less idle and iowait.
fn busy_ticks() -> Option<u64> {
    let stat = fs::read_to_string("/proc/stat").ok()?;
    let ticks: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let idle = ticks.get(3)? + ticks.get(4)?;
    Some(ticks.iter().sum::<u64>().saturating_sub(idle))
}

/// The kernel's RDMA objects when nothing of ours ran: `rdma res show`'s
/// per-device counts. A scenario that leaves them as they were left
/// nothing, which one command tells (five name the objects, at a tenth
/// of a second each under emulation, and only when the counts differ).
pub(super) struct KernelObjects {
    idle: Option<String>,
}

impl KernelObjects {
    pub(super) fn now() -> KernelObjects {
        KernelObjects {
            idle: rdma_res_counts(),
        }
    }

    /// [`leftovers`], asked only when the counts moved; counts that moved
    /// with no user object behind them (the kernel's own) are the new
    /// idle ones.
    pub(super) fn leftovers(&mut self) -> String {
        let counts = rdma_res_counts();
        if counts.is_some() && counts == self.idle {
            return String::new();
        }
        let left = leftovers();
        if left.is_empty() {
            self.idle = rdma_res_counts();
        }
        left
    }
}

/// `rdma res show`: one line of counts per device.
fn rdma_res_counts() -> Option<String> {
    crate::guest::sys::output("rdma", &["res", "show"])
}

/// What user processes left in the kernel's RDMA resource tracking: the
/// `rdma res show` lines that carry a `pid` (the kernel's own carry none),
/// once the kernel has had up to 5 s to finish releasing a dead process's.
fn leftovers() -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut left = String::new();
        for kind in ["qp", "cq", "mr", "pd", "cm_id"] {
            let Ok(out) = Command::new("rdma").args(["res", "show", kind]).output() else {
                continue;
            };
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if line.contains(" pid ") {
                    left += &format!("{kind}: {}\n", line.trim());
                }
            }
        }
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
