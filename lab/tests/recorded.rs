//! The mesh's diagnosis on recorded runs: every mesh run of the fabric's
//! record scripts on four VMs (`lab/fabric/record-*.sh`, one fault a run,
//! the healthy fabric included) is kept as the record rank 0 wrote
//! (`lab/tests/data/fabric/NAME.record.json`), and replayed here through
//! the real binary (`rdma-lab mesh --replay`): each must print, exit and
//! report what `catalog::fabric::RECORDED` declares of it, as the live run
//! did. A change to a judge is checked against what real runs produced, in
//! seconds. `cargo xtask fabric-record` records them afresh.

mod fabric_steps;

use fabric_steps::{replay, shortfalls};
use rdma_lab::catalog::fabric::RECORDED;
use std::path::{Path, PathBuf};

/// Where the records are kept.
fn records() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fabric")
}

#[test]
fn every_recorded_fault_is_diagnosed_as_declared() {
    let scratch = tempfile::tempdir().unwrap();
    let mut bad = Vec::new();
    for step in RECORDED {
        let record = records().join(format!("{}.record.json", step.name));
        if !record.is_file() {
            bad.push(format!("{}: no record", record.display()));
            continue;
        }
        let shown = replay(&record, scratch.path());
        bad.extend(shortfalls(step, &shown, false));
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The fabric test's own slow and lossy run, kept from a run whose
/// lossy link stalled on its QP timeout more than it was NAKed: few
/// packets crossed it, and the gaps its hosts counted came to 0.41% of
/// them, ten times the links beside it. Held to the live step's
/// declaration, it names the lossy link, the slow NIC and nothing else.
#[test]
fn the_fabric_tests_stalled_lossy_link_is_named_lossy() {
    let scratch = tempfile::tempdir().unwrap();
    let step = rdma_lab::catalog::fabric::TEST
        .iter()
        .find(|s| s.name == "slow_and_lossy")
        .unwrap();
    let record = records().join("test/slow_and_lossy.record.json");
    let bad = shortfalls(step, &replay(&record, scratch.path()), false);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The replay can fail: the lossy link's record with its loss counters
/// gone names no lossy link, and the slow NIC's with its figures evened
/// names no slow one.
#[test]
fn a_record_whose_fault_is_taken_out_fails_its_declaration() {
    let scratch = tempfile::tempdir().unwrap();
    for (name, fix) in [
        (
            "lossy",
            &(|run: &mut serde_json::Value| {
                for c in run["cells"].as_array_mut().unwrap() {
                    c["counters"] = serde_json::json!([]);
                }
            }) as &dyn Fn(&mut serde_json::Value),
        ),
        ("link_blocked", &|run: &mut serde_json::Value| {
            for c in run["cells"].as_array_mut().unwrap() {
                for r in c["results"].as_array_mut().unwrap() {
                    r["verdict"] = serde_json::json!("Pass");
                    r["detail"] = serde_json::json!("");
                }
            }
        }),
    ] {
        let step = RECORDED.iter().find(|s| s.name == name).unwrap();
        let path = records().join(format!("{name}.record.json"));
        let mut record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        fix(&mut record["run"]);
        let altered = scratch.path().join(format!("{name}.record.json"));
        std::fs::write(&altered, record.to_string()).unwrap();
        let shown = replay(&altered, scratch.path());
        let bad = shortfalls(step, &shown, false);
        assert!(!bad.is_empty(), "{name}: passed without its fault");
    }
}

/// The fabric test's healthy step can fail: held to its declaration, a
/// run with a blocked link, and one measured where it is not, fall short.
#[test]
fn the_fabric_tests_healthy_step_fails_on_other_runs() {
    let scratch = tempfile::tempdir().unwrap();
    let healthy = rdma_lab::catalog::fabric::TEST[0];
    for name in ["link_blocked", "srun"] {
        let shown = replay(
            &records().join(format!("{name}.record.json")),
            scratch.path(),
        );
        let bad = shortfalls(&healthy, &shown, false);
        assert!(
            !bad.is_empty(),
            "{name} passed as the unmeasured healthy run"
        );
    }
}

/// The healthy fabric's declaration can fail on figures: its record with
/// one link's bandwidth cut to a message in two seconds, as each host
/// reported it, no longer passes as healthy.
#[test]
fn a_healthy_record_with_a_slow_link_planted_fails_its_declaration() {
    let scratch = tempfile::tempdir().unwrap();
    let step = RECORDED.iter().find(|s| s.name == "srun").unwrap();
    let path = records().join("srun.record.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cell = &mut record["run"]["cells"][0];
    for report in cell["reports"].as_array_mut().unwrap() {
        for m in report["measures"].as_array_mut().unwrap() {
            let text = m["report"].as_str().unwrap_or_default().to_string();
            let bandwidth = m["scenario"] != "perf_send_lat";
            let cut: Vec<&str> = text
                .lines()
                .map(|l| match l.starts_with("n_iterations") && bandwidth {
                    true => "n_iterations: 1,",
                    false => l,
                })
                .collect();
            m["report"] = serde_json::json!(cut.join("\n"));
        }
    }
    let altered = scratch.path().join("srun.record.json");
    std::fs::write(&altered, record.to_string()).unwrap();
    let shown = replay(&altered, scratch.path());
    assert!(
        !shortfalls(step, &shown, false).is_empty(),
        "a slow link passed as healthy:\n{}",
        shown.out
    );
}

/// The fabric test's third run has a NIC on the wrong subnet beside a host
/// without a device: that host's want of ports neither hides the stray
/// NIC nor is named as a rail it misses.
#[test]
fn a_stray_nic_is_named_beside_a_host_without_ports() {
    let scratch = tempfile::tempdir().unwrap();
    let path = records().join("stray_rail.record.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    record["run"]["hosts"][2]["ports"] = serde_json::json!([]);
    let altered = scratch.path().join("stray_rail.record.json");
    std::fs::write(&altered, record.to_string()).unwrap();
    let shown = replay(&altered, scratch.path());
    let rails: Vec<&serde_json::Value> = shown
        .json
        .iter()
        .filter(|v| v["type"] == "finding" && v["kind"] == "rail")
        .collect();
    assert_eq!(rails.len(), 1, "{rails:?}");
    assert_eq!(rails[0]["ranks"], serde_json::json!([3]), "{rails:?}");
    assert!(
        shown.out.contains(
            "node3 rxe1 is on 203.0.113.0/24, not on rail 198.51.100.0/24 as every other \
             host's port: a NIC on the wrong subnet"
        ),
        "{}",
        shown.out
    );
}
