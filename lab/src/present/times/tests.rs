use super::*;
use crate::results::times::{Batch, Step, TestTime};

#[test]
fn names_every_step_batch_and_slow_test() {
    let t = Times {
        steps: vec![
            Step {
                name: "cargo clippy".into(),
                secs: 61.0,
                cpu_secs: Some(110.0),
                ok: true,
            },
            Step {
                name: "fabric".into(),
                secs: 5.0,
                cpu_secs: None,
                ok: false,
            },
        ],
        batches: vec![Batch {
            name: "one host, 3 VMs".into(),
            boot_secs: 20.5,
            secs: 300.0,
            cpu_secs: Some(500.0),
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
        "(12:05 in all; wall, then CPU)",
        "1:01   1:50  cargo clippy",
        "0:05      -  fabric  FAILED",
        "5:00   8:20  one host, 3 VMs (boot 20.5 s)",
        "60.0 s    90 s   75%  x_single_host",
        "rather than computing: 75%",
        "VMs: TCG (--tcg)",
        "CPU: 20:00 of CPU time (user 15:00, system 5:00) on 2 cores: no arrangement of these steps takes less than 10:00",
    ] {
        assert!(text.contains(want), "no `{want}` in:\n{text}");
    }
}
