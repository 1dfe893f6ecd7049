//! The test run's time table: each step, each VM batch with its boot, the
//! slowest tests against their own bound, and how much of the VM time was
//! waiting.

use crate::results::times::Times;
use std::fmt::Write as _;

/// How many of the slowest tests the table lists.
pub const SLOWEST: usize = 20;

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
        "\nWhere the time went ({} in all):",
        clock(t.total_secs)
    );
    for s in &t.steps {
        let verdict = if s.ok { "" } else { "  FAILED" };
        let _ = writeln!(out, "  {:>6}  {}{verdict}", clock(s.secs), s.name);
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
            "  {:>6}  {} (boot {:.1} s)",
            clock(b.secs),
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
mod tests {
    use super::*;
    use crate::results::times::{Batch, Step, TestTime};

    #[test]
    fn names_every_step_batch_and_slow_test() {
        let t = Times {
            steps: vec![
                Step {
                    name: "cargo clippy".into(),
                    secs: 61.0,
                    ok: true,
                },
                Step {
                    name: "fabric".into(),
                    secs: 5.0,
                    ok: false,
                },
            ],
            batches: vec![Batch {
                name: "one host, 3 VMs".into(),
                boot_secs: 20.5,
                secs: 300.0,
            }],
            tests: vec![TestTime {
                test: "x_single_host".into(),
                secs: 60.0,
                bound_secs: 90,
                busy_secs: Some(15.0),
            }],
            accel: "TCG (--tcg)".into(),
            total_secs: 725.0,
            cpu: Some(crate::results::times::Cpu {
                user_secs: 900.0,
                sys_secs: 300.0,
                cores: 2,
            }),
        };
        let text = table(&t);
        for want in [
            "(12:05 in all)",
            "1:01  cargo clippy",
            "0:05  fabric  FAILED",
            "5:00  one host, 3 VMs (boot 20.5 s)",
            "60.0 s    90 s   75%  x_single_host",
            "rather than computing: 75%",
            "VMs: TCG (--tcg)",
            "CPU: 20:00 of CPU time (user 15:00, system 5:00) on 2 cores: no arrangement of these steps takes less than 10:00",
        ] {
            assert!(text.contains(want), "no `{want}` in:\n{text}");
        }
    }
}
