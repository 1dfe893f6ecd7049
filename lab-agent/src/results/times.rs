//! How long a test run took, and where the time went: what `cargo xtask
//! test` prints as its last table and keeps in `target/test-times.json`,
//! so that two runs can be compared. The Soft-RoCE suite writes its
//! batches' and scenarios' part ([`SOFTROCE_FILE`]), which the test command
//! merges into its steps.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Where, under the target dir, the Soft-RoCE suite leaves its part.
pub const SOFTROCE_FILE: &str = "test-times-softroce.json";

/// Where, under the target dir, the test command keeps the whole run's.
pub const RUN_FILE: &str = "test-times.json";

/// The file `name` under `target`.
pub fn path(target: &Path, name: &str) -> PathBuf {
    target.join(name)
}

/// One step of the run: a build, the host tests, the VM suite, the fabric.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What it ran, as the run printed it.
    pub name: String,
    /// Its wall time.
    pub secs: f64,
    /// The CPU time, user and system, of it and every process it started
    /// and waited for (QEMU's included), when measured.
    pub cpu_secs: Option<f64>,
    /// Whether it passed.
    pub ok: bool,
}

/// One VM batch of the Soft-RoCE suite: its VMs, their boot and its time.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The mode and how many VMs ran it side by side.
    pub name: String,
    /// From the first VM's start to the slowest one's program running.
    pub boot_secs: f64,
    /// Boot and run, all of its VMs.
    pub secs: f64,
    /// The CPU time its VMs' processes used (QEMU's), when measured.
    pub cpu_secs: Option<f64>,
}

/// One test of the Soft-RoCE suite: a scenario in a mode.
#[derive(Debug, Clone, PartialEq)]
pub struct TestTime {
    /// The test's name (`<scenario>_<mode>`).
    pub test: String,
    /// Its wall time in its VM(s).
    pub secs: f64,
    /// The scenario's own bound on each side (`timeout`).
    pub bound_secs: u32,
    /// The CPU time its VM(s) spent busy meanwhile, when they said.
    pub busy_secs: Option<f64>,
}

impl TestTime {
    /// The part of its wall time its VM(s) spent idle: a program blocked
    /// on a bound or a pause rather than computing.
    pub fn waiting_secs(&self) -> Option<f64> {
        self.busy_secs
            .map(|b| (self.secs - b.min(self.secs)).max(0.0))
    }
}

/// A run's times.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Times {
    /// Each step, in the order they started.
    pub steps: Vec<Step>,
    /// The VM batches.
    pub batches: Vec<Batch>,
    /// Every test of the VM suite.
    pub tests: Vec<TestTime>,
    /// How the VMs ran (KVM, or TCG and why).
    pub accel: String,
    /// The whole run.
    pub total_secs: f64,
    /// The CPU time the run's processes used, user and system, and the
    /// cores it had: what no arrangement of its steps can go below.
    pub cpu: Option<Cpu>,
}

/// The CPU a run used: every process it started and waited for, the VMs'
/// QEMU among them (`getrusage` of its children).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cpu {
    /// User time, in seconds.
    pub user_secs: f64,
    /// System time, in seconds.
    pub sys_secs: f64,
    /// The cores the run had.
    pub cores: usize,
}

/// The CPU time, user and system, that `sh`'s `times` gives its children
/// (its second line: `1m2.5s 0m3.25s`, or with more decimals), in
/// seconds; `None` when `text` is not that.
pub fn children_cpu(text: &str) -> Option<f64> {
    let line = text.lines().nth(1)?;
    let secs = |t: &str| -> Option<f64> {
        let (m, s) = t.strip_suffix('s')?.split_once('m')?;
        Some(m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?)
    };
    let mut words = line.split_whitespace();
    let (user, sys) = (secs(words.next()?)?, secs(words.next()?)?);
    words.next().is_none().then_some(user + sys)
}

impl Cpu {
    /// The least wall time this CPU work takes on these cores.
    pub fn floor_secs(&self) -> f64 {
        (self.user_secs + self.sys_secs) / self.cores.max(1) as f64
    }
}

impl Times {
    /// The `n` slowest tests, slowest first.
    pub fn slowest(&self, n: usize) -> Vec<&TestTime> {
        let mut v: Vec<&TestTime> = self.tests.iter().collect();
        v.sort_by(|a, b| b.secs.total_cmp(&a.secs));
        v.truncate(n);
        v
    }

    /// The share of the tests' VM time spent waiting rather than computing,
    /// over the tests whose VMs said.
    pub fn waiting_share(&self) -> Option<f64> {
        let known: Vec<(f64, f64)> = self
            .tests
            .iter()
            .filter_map(|t| Some((t.secs, t.waiting_secs()?)))
            .collect();
        let wall: f64 = known.iter().map(|k| k.0).sum();
        (wall > 0.0).then(|| known.iter().map(|k| k.1).sum::<f64>() / wall)
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "total_secs": self.total_secs,
            "accel": self.accel,
            "cpu": self.cpu.map(|c| json!({
                "user_secs": c.user_secs, "sys_secs": c.sys_secs, "cores": c.cores,
            })),
            "steps": self.steps.iter().map(|s| json!({
                "name": s.name, "secs": s.secs, "cpu_secs": s.cpu_secs, "ok": s.ok,
            })).collect::<Vec<_>>(),
            "batches": self.batches.iter().map(|b| json!({
                "name": b.name, "boot_secs": b.boot_secs, "secs": b.secs,
                "cpu_secs": b.cpu_secs,
            })).collect::<Vec<_>>(),
            "tests": self.tests.iter().map(|t| json!({
                "test": t.test, "secs": t.secs, "bound_secs": t.bound_secs,
                "busy_secs": t.busy_secs,
            })).collect::<Vec<_>>(),
        })
    }

    /// What [`Times::to_json`] wrote; fields it lacks are left empty.
    pub fn from_json(v: &Value) -> Times {
        let list = |k: &str| v[k].as_array().cloned().unwrap_or_default();
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let num = |v: &Value| v.as_f64().unwrap_or_default();
        Times {
            total_secs: num(&v["total_secs"]),
            accel: text(&v["accel"]),
            cpu: v["cpu"].as_object().map(|_| Cpu {
                user_secs: num(&v["cpu"]["user_secs"]),
                sys_secs: num(&v["cpu"]["sys_secs"]),
                cores: v["cpu"]["cores"].as_u64().unwrap_or(1) as usize,
            }),
            steps: list("steps")
                .iter()
                .map(|s| Step {
                    name: text(&s["name"]),
                    secs: num(&s["secs"]),
                    cpu_secs: s["cpu_secs"].as_f64(),
                    ok: s["ok"].as_bool().unwrap_or(false),
                })
                .collect(),
            batches: list("batches")
                .iter()
                .map(|b| Batch {
                    name: text(&b["name"]),
                    boot_secs: num(&b["boot_secs"]),
                    secs: num(&b["secs"]),
                    cpu_secs: b["cpu_secs"].as_f64(),
                })
                .collect(),
            tests: list("tests")
                .iter()
                .map(|t| TestTime {
                    test: text(&t["test"]),
                    secs: num(&t["secs"]),
                    bound_secs: t["bound_secs"].as_u64().unwrap_or_default() as u32,
                    busy_secs: t["busy_secs"].as_f64(),
                })
                .collect(),
        }
    }

    /// Writes it to `path`.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, self.to_json().to_string() + "\n")
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// What [`Times::write`] left at `path`, if it is there.
    pub fn read(path: &Path) -> Option<Times> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text)
            .ok()
            .map(|v| Times::from_json(&v))
    }
}

#[cfg(test)]
mod tests;
