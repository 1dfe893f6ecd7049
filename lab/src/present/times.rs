//! The test run's time table: each step, each VM batch with its boot, the
//! slowest tests against their own bound, and how much of the VM time was
//! waiting.

use crate::results::times::Times;
use std::fmt::Write as _;

/// How many of the slowest tests the table lists.
pub const SLOWEST: usize = 20;

/// A CPU time as `m:ss`, or `-` when not measured.
fn cpu(secs: Option<f64>) -> String {
    secs.map_or_else(|| "-".into(), clock)
}

/// Seconds as `m:ss`.
fn clock(secs: f64) -> String {
    let s = secs.round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The table, for the end of `cargo xtask test`.
pub fn table(t: &Times) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nWhere the time went ({} in all; wall, then CPU):",
        clock(t.total_secs)
    );
    for s in &t.steps {
        let verdict = if s.ok { "" } else { "  FAILED" };
        let _ = writeln!(
            out,
            "  {:>6} {:>6}  {}{verdict}",
            clock(s.secs),
            cpu(s.cpu_secs),
            s.name
        );
    }
    if let Some(c) = &t.cpu {
        let _ = writeln!(
            out,
            "CPU: {} of CPU time (user {}, system {}) on {} cores: no arrangement of these steps takes less than {}",
            clock(c.user_secs + c.sys_secs),
            clock(c.user_secs),
            clock(c.sys_secs),
            c.cores,
            clock(c.floor_secs())
        );
    }
    if !t.accel.is_empty() {
        let _ = writeln!(out, "VMs: {}", t.accel);
    }
    for b in &t.batches {
        let _ = writeln!(
            out,
            "  {:>6} {:>6}  {} (boot {:.1} s)",
            clock(b.secs),
            cpu(b.cpu_secs),
            b.name,
            b.boot_secs
        );
    }
    let slowest = t.slowest(SLOWEST);
    if !slowest.is_empty() {
        let _ = writeln!(
            out,
            "The {} slowest VM tests (time, its bound, idle):",
            slowest.len()
        );
        for x in slowest {
            let idle = x.waiting_secs().map_or("-".into(), |w| {
                format!("{:.0}%", 100.0 * w / x.secs.max(1e-9))
            });
            let _ = writeln!(
                out,
                "  {:>6.1} s  {:>4} s  {:>4}  {}",
                x.secs, x.bound_secs, idle, x.test
            );
        }
    }
    if let Some(share) = t.waiting_share() {
        let _ = writeln!(
            out,
            "VM time spent waiting (a program blocked on a bound or a pause) rather than computing: {:.0}%",
            share * 100.0
        );
    }
    out
}

#[cfg(test)]
mod tests;
