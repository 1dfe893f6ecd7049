use super::*;

fn t(test: &str, secs: f64, busy: Option<f64>) -> TestTime {
    TestTime {
        test: test.into(),
        secs,
        bound_secs: 30,
        busy_secs: busy,
    }
}

#[test]
fn round_trips_through_json() {
    let times = Times {
        steps: vec![Step {
            name: "cargo clippy".into(),
            secs: 40.5,
            cpu_secs: Some(70.25),
            ok: true,
        }],
        batches: vec![Batch {
            name: "one host, 3 VMs".into(),
            boot_secs: 21.0,
            secs: 300.0,
            cpu_secs: None,
        }],
        tests: vec![t("a_single_host", 3.0, Some(1.0)), t("b", 60.0, None)],
        accel: "TCG (no vmx/svm flag)".into(),
        total_secs: 800.0,
        cpu: Some(Cpu {
            user_secs: 1500.5,
            sys_secs: 400.25,
            cores: 2,
        }),
    };
    assert_eq!(Times::from_json(&times.to_json()), times);
}

#[test]
fn waiting_is_what_the_vms_did_not_spend_busy() {
    let times = Times {
        tests: vec![
            t("waits", 60.0, Some(6.0)),
            t("computes", 10.0, Some(12.0)),
            t("unknown", 100.0, None),
        ],
        ..Times::default()
    };
    // 54 s of 70 s waited; the test without a figure is left out.
    let share = times.waiting_share().expect("two tests said");
    assert!((share - 54.0 / 70.0).abs() < 1e-9, "{share}");
    assert_eq!(times.slowest(2)[0].test, "unknown");
    assert_eq!(times.slowest(2)[1].test, "waits");
}

#[test]
fn shs_times_reads_as_its_childrens_cpu() {
    // dash's and bash's forms.
    let dash = "0m0.004000s 0m0.001000s\n1m2.500000s 0m3.250000s\n";
    assert_eq!(children_cpu(dash), Some(65.75));
    assert_eq!(
        children_cpu("0m0.004s 0m0.001s\n12m0.5s 1m0.000s\n"),
        Some(780.5)
    );
    for bad in ["", "0m0s 0m0s\n", "0m0s 0m0s\n1m2s\n", "0m0s 0m0s\n1x 2y\n"] {
        assert_eq!(children_cpu(bad), None, "{bad:?}");
    }
}
