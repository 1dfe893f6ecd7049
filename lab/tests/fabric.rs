//! The fabric smoke test on four VMs of one Ethernet segment, two NICs a
//! node (two rails), with real Slurm (munged, slurmctld, slurmd) and real
//! sshd in them: node0 runs `lab/fabric/test.sh`, the mesh as the README
//! writes it under `srun` and with the `--ssh` launcher, with faults made
//! on the other nodes, several in one run. Each step must print, exit and
//! report what `catalog::fabric::TEST` declares of it: each fault named
//! and nothing else. What the judges make of every fault alone is checked
//! on the records of real runs in the host tests (`tests/recorded.rs`).
//!
//! It boots VMs, so it runs only when asked: `cargo test -p rdma-lab
//! --test fabric -- --ignored` (which `cargo xtask test` runs).

mod fabric_steps;

use fabric_steps::{json_lines, replay, shortfalls, Shown};
use rdma_lab::catalog::fabric::{bound_memory, pinned_cpus, DOCTOR_NUMA, NUMA_NODE, TEST};
use rdma_lab::host::fabric_run::{run_script, TEST_SCRIPT};
use std::fs;
use std::path::Path;

/// What step `name` of node0's script printed and its exit status, with
/// the findings its record gives.
fn shown(dir: &Path, name: &str, scratch: &Path) -> Shown {
    let out = fs::read_to_string(dir.join(format!("{name}.out"))).unwrap_or_default();
    let status = fs::read_to_string(dir.join(format!("{name}.status")))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    // The run's JSON report, as rank 0 would write it, from its record.
    let json = replay(&dir.join(format!("{name}.record.json")), scratch).json;
    Shown { out, status, json }
}

#[test]
#[ignore = "boots four VMs: cargo test -p rdma-lab --test fabric -- --ignored"]
fn four_nodes_under_slurm_and_ssh_and_the_faults_each_named() {
    let run = run_script(4, 2, Some(NUMA_NODE), TEST_SCRIPT, 2400).expect("the fabric boots");
    for n in &run.nodes {
        assert!(
            n.ok(),
            "{}: {:?} {:?}; see {}",
            n.name,
            n.status,
            n.error,
            n.console.display()
        );
    }
    let d = &run.node0;
    let scratch = tempfile::tempdir().unwrap();
    let mut bad = Vec::new();
    for step in TEST {
        let shown = shown(d, step.name, scratch.path());
        let failed = shortfalls(step, &shown, true);
        if !failed.is_empty() {
            bad.push(format!("{failed:#?}\n{}", shown.out));
        }
    }
    // The doctor's step is no mesh run: no record, no JSON.
    let doctor = Shown {
        json: Vec::new(),
        ..shown(d, DOCTOR_NUMA.name, scratch.path())
    };
    let failed = shortfalls(&DOCTOR_NUMA, &doctor, true);
    if !failed.is_empty() {
        bad.push(format!("{failed:#?}\n{}", doctor.out));
    }
    bad.extend(unpinned(&d.join("slow_and_lossy.record.json")));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    healthy_reports(d);
    // The host without a device was named at once, not after --wait.
    let out = fs::read_to_string(d.join("blocked_missing_and_stray.out")).unwrap_or_default();
    let took: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("took ")?.strip_suffix(" s")?.parse().ok())
        .expect("the step's time");
    assert!(took < 600, "it waited out --wait: {took} s");
}

/// Each measurement of the run recorded at `record` that did not run on
/// the CPUs its NIC's NUMA node has ([`pinned_cpus`]), or on
/// [`NUMA_NODE`] with its memory bound elsewhere ([`bound_memory`]), as its
/// perftest's own process said; and each rail on which no measurement of
/// [`NUMA_NODE`] said where it ran.
fn unpinned(record: &Path) -> Vec<String> {
    let run = rdma_lab::results::record::read(record).expect("the measured run's record");
    let mut bad = Vec::new();
    let mut numa_rails = Vec::new();
    for c in &run.cells {
        for side in c.reports.iter().chain(&c.alone_reports) {
            for m in &side.measures {
                let ran = rdma_lab::catalog::perf::ran_on(&m.report);
                let want = pinned_cpus(side.rank, c.rail);
                let memory = rdma_lab::catalog::perf::memory_of(&m.report);
                let bound = bound_memory(side.rank, c.rail);
                if ran.as_deref() != Some(want.as_str()) {
                    bad.push(format!(
                        "rank {} rail {} {}: ran on {ran:?}, not {want}",
                        side.rank, c.rail, m.scenario
                    ));
                } else if bound.is_some() && memory != bound {
                    bad.push(format!(
                        "rank {} rail {} {}: memory policy {memory:?}, not {bound:?}",
                        side.rank, c.rail, m.scenario
                    ));
                } else if side.rank == NUMA_NODE {
                    numa_rails.push(c.rail);
                }
            }
        }
    }
    for rail in 0..run.rails.len() {
        if !numa_rails.contains(&rail) {
            bad.push(format!(
                "node{NUMA_NODE}: no measurement on rail {rail} said where it ran"
            ));
        }
    }
    bad
}

/// The healthy run's reports as rank 0 wrote them: JUnit, JSON Lines
/// (no host's doctor found anything, each host's device by rail), and the
/// page as Chromium renders it.
fn healthy_reports(d: &Path) {
    let junit = fs::read_to_string(d.join("srun.xml")).expect("--junit");
    // A suite a pair on each rail: the ring's four links, twice.
    assert_eq!(
        junit.matches("<testsuite name=\"node").count(),
        8,
        "{junit}"
    );
    let json = fs::read_to_string(d.join("srun.json")).expect("--json");
    assert_eq!(json_lines(&d.join("srun.json")).len(), json.lines().count());
    assert!(!json.contains("\"findings\":[\""), "{json}");
    // Each host's device by rail; node1's in the other order.
    let devs: Vec<String> = json_lines(&d.join("srun.json"))
        .iter()
        .filter(|v| v["type"] == "host")
        .map(|v| format!("{} {}", v["name"], v["rail_devs"]))
        .collect();
    assert_eq!(
        devs,
        [
            r#""node0" ["rxe0","rxe1"]"#,
            r#""node1" ["rxe1","rxe0"]"#,
            r#""node2" ["rxe0","rxe1"]"#,
            r#""node3" ["rxe0","rxe1"]"#
        ],
        "{json}"
    );
    assert!(fs::read_to_string(d.join("srun.html"))
        .expect("--html")
        .contains("every pair passed"));
    rdma_lab::host::setup::ensure_print_tools(false).expect("a Chromium");
    let rendered = rdma_lab::present::mesh::check_in_chromium(&d.join("srun.html"), 4);
    assert!(rendered.is_empty(), "{rendered:?}");
}
