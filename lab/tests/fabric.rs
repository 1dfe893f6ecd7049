//! The fabric smoke test on four VMs of one Ethernet segment, with real
//! Slurm (munged, slurmctld, slurmd) and real sshd in them: node0 runs
//! `rdma-lab mesh` under `srun` as the README writes it and with the
//! `--ssh` launcher, then makes one fault at a time on another node and
//! runs it again (`tests/fabric/`). Each fault's diagnosis must name what
//! was broken, not merely fail. The faults are shared between two fabrics
//! of four VMs that run side by side (the tests run in parallel): each
//! mesh run mostly waits on its programs, one after another.
//!
//! It boots VMs, so it runs only when asked: `cargo test -p rdma-lab
//! --test fabric -- --ignored` (which `cargo xtask test` runs).

use rdma_lab::host::fabric_run::run_script;
use std::fs;
use std::path::Path;

/// What a step of node0's script printed, and its exit status.
fn step(dir: &Path, name: &str) -> (String, Option<i32>) {
    let out = fs::read_to_string(dir.join(format!("{name}.out"))).unwrap_or_default();
    let status = fs::read_to_string(dir.join(format!("{name}.status")))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    (out, status)
}

/// Asserts that step `name` exited `code` and printed every one of `parts`.
fn says(dir: &Path, name: &str, code: i32, parts: &[&str]) {
    let (out, status) = step(dir, name);
    assert_eq!(status, Some(code), "{name} exited {status:?}:\n{out}");
    for p in parts {
        assert!(out.contains(p), "{name}: no `{p}` in:\n{out}");
    }
}

/// Boots four nodes that run `common.sh` then `script` on node0; node0's
/// rwdir, once every node ended well.
fn fabric(script: &str) -> std::path::PathBuf {
    let script = format!("{}\n{script}", include_str!("fabric/common.sh"));
    let run = run_script(4, 2, &script, 2400).expect("the fabric boots");
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
    run.node0
}

#[test]
#[ignore = "boots four VMs: cargo test -p rdma-lab --test fabric -- --ignored"]
fn four_nodes_under_slurm_and_ssh_and_a_host_that_drops_roce() {
    let d = &fabric(include_str!("fabric/healthy.sh"));
    // Under Slurm, as the README writes it: every pair and the multicast
    // round pass, and the reports are written.
    says(
        d,
        "srun",
        0,
        &["node0", "node3", "every pair passed", "multicast"],
    );
    let junit = fs::read_to_string(d.join("srun.xml")).expect("--junit");
    assert!(junit.matches("<testsuite ").count() >= 6, "{junit}");
    for line in fs::read_to_string(d.join("srun.json"))
        .expect("--json")
        .lines()
    {
        serde_json::from_str::<serde_json::Value>(line).expect("a JSON line");
    }
    assert!(fs::read_to_string(d.join("srun.html"))
        .expect("--html")
        .contains("every pair passed"));
    // No host's doctor found anything.
    let json = fs::read_to_string(d.join("srun.json")).expect("--json");
    assert!(!json.contains("\"findings\":[\""), "{json}");
    // The page, as a browser renders it.
    rdma_lab::host::setup::ensure_print_tools(false).expect("a Chromium");
    let rendered = rdma_lab::present::mesh::check_in_chromium(&d.join("srun.html"), 4);
    assert!(rendered.is_empty(), "{rendered:?}");
    // The ssh launcher, from a copy of the binaries on each node.
    says(d, "ssh", 0, &["every pair passed"]);
    // The faults, each named.
    says(
        d,
        "udp_blocked",
        1,
        &["node2 fails with every one of its 3 peers"],
    );
    // Every link measured (--perf) on the healthy fabric: each has its
    // figures, and none is named slow or lossy (the diagnosis is empty).
    // Both rails, each measured at the same time as the other.
    says(
        d,
        "srun",
        0,
        &[
            "mesh: 2 rails: rail 0 (the hosts' RDMA addresses) and 198.51.100.0/24",
            "Measured: ",
            " links of 6, median ",
            "\nRail 1 (198.51.100.0/24):\n",
        ],
    );
    let links: Vec<serde_json::Value> = fs::read_to_string(d.join("srun.json"))
        .expect("--json")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "link")
        .collect();
    assert_eq!(links.len(), 12, "{links:?}");
    // Every link has a bandwidth: the messages it completed in its 2 s.
    // A latency is perftest's own timing, which an emulated CPU's clock
    // may throw off (four TCG guests, two rails each, on two cores): one
    // link of six a rail may lack one.
    for rail in [0, 1] {
        let on: Vec<&serde_json::Value> = links.iter().filter(|l| l["rail"] == rail).collect();
        assert_eq!(on.len(), 6, "{links:?}");
        for (figure, least) in [("gbps", 6), ("usec", 5)] {
            let with = on
                .iter()
                .filter(|l| l[figure].as_f64().is_some_and(|g| g > 0.0))
                .count();
            assert!(with >= least, "rail {rail}, {figure}: {on:?}");
        }
    }
    for l in &links {
        assert!(
            l["counters"].as_array().is_some_and(|c| !c.is_empty()),
            "{l}"
        );
    }
    // node2's second NIC sends 2 Mbit/s: on the ring, named on rail 1 as
    // the NIC with its bandwidth against the median, and nothing else on
    // either rail.
    says(
        d,
        "slow_host",
        1,
        &[
            "rail 1 (198.51.100.0/24): node2 rxe1 is slow with every one of its 2 measured \
             peers (node1 rxe1: ",
            " Gb/s, median ",
            "It passes on rail 0: its NIC on rail 1 (198.51.100.0/24), not the host.",
        ],
    );
    let hosts = findings(d, "slow_host.json", "slow_host");
    assert_eq!(hosts.len(), 1, "{hosts:?}");
    assert_eq!(hosts[0]["ranks"], serde_json::json!([2]));
    assert_eq!(hosts[0]["rail"], 1);
    let all: Vec<serde_json::Value> = fs::read_to_string(d.join("slow_host.json"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "finding")
        .collect();
    assert_eq!(all.len(), 1, "rail 0 is clean: {all:?}");
}

/// The faults of one link, one host's MTU, a rank that never starts, a
/// doctor's finding alone, a host without a device, a stray address on a
/// rail of its own and a lossy link, on a fabric of their own beside the
/// healthy one's: each named by the diagnosis.
#[test]
#[ignore = "boots four VMs: cargo test -p rdma-lab --test fabric -- --ignored"]
fn four_nodes_and_the_faults_the_diagnosis_names() {
    let d = &fabric(include_str!("fabric/faults.sh"));
    says(
        d,
        "link_blocked",
        1,
        &[
            "the link between",
            "node1",
            "node3",
            "nothing the doctor sees differs",
        ],
    );
    says(
        d,
        "mtu",
        1,
        &[
            "node3 fails with",
            "its MTU is 9000, every other host's 1500",
        ],
    );
    says(
        d,
        "never_started",
        1,
        &["rank 3 never joined (waited 30 s for it)"],
    );
    // A doctor's finding alone: every pair passed, the diagnosis names
    // the host and the finding, and the run fails on it.
    says(
        d,
        "doctor_only",
        1,
        &[
            "6 pairs, 0 failing, 0 not run",
            "node1's doctor found: `ulimit -l` is 64 KiB",
            "(its 3 pairs passed anyway)",
            "node0 has no port on rail 198.51.100.0/24, which every other host is on",
        ],
    );
    let (out, _) = step(d, "doctor_only");
    assert!(!out.contains("every pair passed"), "{out}");
    // A host with no device is named with its cause, at once.
    says(
        d,
        "no_device",
        1,
        &["node2 cannot take part: no RDMA device on this host"],
    );
    let (out, _) = step(d, "no_device");
    assert!(!out.contains("never joined"), "{out}");
    let took: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("took ")?.strip_suffix(" s")?.parse().ok())
        .expect("the step's time");
    assert!(took < 600, "it waited out --wait: {took} s");
    // A port on a subnet no other host has: named down to the device,
    // though every pair passed, and the run fails on it.
    says(
        d,
        "stray_rail",
        1,
        &[
            "6 pairs, 0 failing, 0 not run",
            "node3 rxe1 is on 203.0.113.0/24, not on rail 198.51.100.0/24 as every other \
             host's port: a NIC on the wrong subnet",
        ],
    );
    // A lossy link, named from the counters; no host is blamed, and no
    // other link is named lossy.
    says(
        d,
        "lossy",
        1,
        &[
            "node1 - node3: ",
            "packets lost of",
            "while their pair ran",
            "a lossy link between them",
        ],
    );
    let lossy: Vec<serde_json::Value> = findings(d, "lossy.json", "lossy");
    assert_eq!(lossy.len(), 1, "{lossy:?}");
    for kind in ["host_fault", "slow_host", "fabric_wide"] {
        let blamed = findings(d, "lossy.json", kind);
        assert!(blamed.is_empty(), "a host was blamed: {blamed:?}");
    }
    assert_eq!(lossy[0]["ranks"], serde_json::json!([1, 3]));
}

/// The findings of `kind` in the JSON Lines file `name` of node0's dir.
fn findings(d: &Path, name: &str, kind: &str) -> Vec<serde_json::Value> {
    fs::read_to_string(d.join(name))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "finding" && v["kind"] == kind)
        .collect()
}
