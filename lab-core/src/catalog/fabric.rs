//! The fabric's mesh runs as data: each step of node0's scripts on four
//! VMs (`lab/fabric/`), the faults it makes and what its diagnosis must
//! say. Declared once: the fabric test (`lab/tests/fabric.rs`) checks the
//! steps of `test.sh` on a fresh fabric, and the recorded test
//! (`lab/tests/recorded.rs`) replays every step of the record scripts from
//! its record in `lab/tests/data/fabric/` (`cargo xtask fabric-record`
//! records them afresh).

/// A finding a step's diagnosis must have: its kind as the JSON report
/// names it, its ranks and its rail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named {
    /// The kind (`host_fault`, `link_fault`, `lossy`, `slow_host`, ...).
    pub kind: &'static str,
    /// The hosts it names, by rank.
    pub ranks: &'static [usize],
    /// The rail it is on.
    pub rail: usize,
}

/// One mesh run of the fabric's scripts.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// Its name in the scripts: `NAME.out`, `NAME.status`,
    /// `NAME.record.json` in node0's dir.
    pub name: &'static str,
    /// The faults made for it, in words.
    pub faults: &'static str,
    /// Its exit status.
    pub status: i32,
    /// What its matrix and diagnosis print, each part somewhere.
    pub says: &'static [&'static str],
    /// What they must not print.
    pub never_says: &'static [&'static str],
    /// What only the live run prints (the coordinator's lines as it runs),
    /// which a replay does not.
    pub live_says: &'static [&'static str],
    /// The diagnosis's findings, every one of them: no other is named
    /// but those of [`Step::may_also`].
    pub findings: &'static [Named],
    /// Findings a run may have beside them, and need not: what the fault
    /// can also honestly cause (a link that loses packets may measure
    /// slow too).
    pub may_also: &'static [Named],
    /// Links measured a rail (`--perf`): each with its bandwidth, all but
    /// one with its latency, and with its counters; 0 when not measured.
    pub links_a_rail: usize,
}

/// A step with nothing said beyond its name, faults and status.
const STEP: Step = Step {
    name: "",
    faults: "",
    status: 0,
    says: &[],
    never_says: &[],
    live_says: &[],
    findings: &[],
    may_also: &[],
    links_a_rail: 0,
};

/// What the healthy fabric's run under Slurm prints, measured or not.
const HEALTHY_SAYS: [&str; 5] = [
    "node0",
    "node3",
    "every pair passed",
    "Multicast (one host sends, every other receives at once):\n  mckey from node0: \
     node1 ., node2 ., node3 .",
    "\nRail 1 (198.51.100.0/24):\n",
];

/// What rank 0 prints of the two rails as it runs.
const TWO_RAILS: &str = "mesh: 2 rails: rail 0 (the hosts' RDMA addresses) and 198.51.100.0/24";

/// The healthy fabric under Slurm, every link of both rails measured.
const SRUN: Step = Step {
    name: "srun",
    faults: "none: the README's line under srun, --perf --rails",
    says: &[
        HEALTHY_SAYS[0],
        HEALTHY_SAYS[1],
        HEALTHY_SAYS[2],
        HEALTHY_SAYS[3],
        "Measured: ",
        " links of 6, median ",
        HEALTHY_SAYS[4],
    ],
    live_says: &[TWO_RAILS],
    links_a_rail: 6,
    ..STEP
};

/// What the mesh says of node1 with its devices made in the other order,
/// from the fabric test's first step on.
const SWAPPED_SAYS: &str = "\nDevices named otherwise (each rail pairs the ports on its \
                            subnet):\n  node1: rail 0 rxe1, rail 1 rxe0, where most hosts \
                            have rail 0 rxe0, rail 1 rxe1\n";

/// The healthy fabric under Slurm, both rails, not measured: the fabric
/// test's first step, whose reports (JUnit, JSON, the page) are checked
/// too. perftest and the counters run in its later steps; the judges on a
/// healthy fabric measured all-pairs are checked on [`SRUN`]'s record.
/// node1's devices are in the other order (`rxe1` on rail 0) from here
/// on: a healthy fabric, since rails are subnets.
const SRUN_UNMEASURED: Step = Step {
    name: "srun",
    faults: "none: the README's line under srun, --rails, on the ring; node1's devices \
             made in the other order",
    says: &[
        HEALTHY_SAYS[0],
        HEALTHY_SAYS[1],
        HEALTHY_SAYS[2],
        HEALTHY_SAYS[3],
        HEALTHY_SAYS[4],
        SWAPPED_SAYS,
    ],
    never_says: &["Measured: "],
    live_says: &[TWO_RAILS],
    ..STEP
};

/// What the mesh says of node1 on rail 0 alone (no `--rails`), its
/// devices in the other order.
const SWAPPED_ONE_RAIL: &str = "node1: rail 0 rxe1, where most hosts have rail 0 rxe0\n";

/// The slow NIC's finding: node2's on rail 1.
const SLOW_NIC: Named = Named {
    kind: "slow_host",
    ranks: &[2],
    rail: 1,
};

/// What the slow NIC's diagnosis says of it, and of the rail it passes on.
const SLOW_NIC_SAYS: [&str; 2] = [
    "rail 1 (198.51.100.0/24): node2 rxe1 is slow with every one of its 2 measured \
     peers (node1 rxe1: ",
    "It passes on rail 0: its NIC on rail 1 (198.51.100.0/24), not the host.",
];

/// node2's rail-1 NIC throttled to 2 Mbit/s, on the ring.
const SLOW_HOST: Step = Step {
    name: "slow_host",
    faults: "node2's rail-1 NIC sends 2 Mbit/s (netem rate)",
    status: 1,
    says: &[SLOW_NIC_SAYS[0], " Gb/s, median ", SLOW_NIC_SAYS[1]],
    findings: &[SLOW_NIC],
    ..STEP
};

/// A lossy link's finding, between `ranks` on rail 0.
const fn lossy(ranks: &'static [usize]) -> Named {
    Named {
        kind: "lossy",
        ranks,
        rail: 0,
    }
}

/// That lossy link measured slow as well, which it may be.
const fn lossy_slow(ranks: &'static [usize]) -> Named {
    Named {
        kind: "slow",
        ranks,
        rail: 0,
    }
}

/// What a lossy link's diagnosis says after it names the link.
const LOSSY_WORDS: [&str; 3] = [
    "packets lost of",
    "while their pair ran",
    "a lossy link between them",
];

/// What the lossy link's diagnosis says (node1 - node3).
const LOSSY_SAYS: &[&str] = &[
    "node1 - node3: ",
    LOSSY_WORDS[0],
    LOSSY_WORDS[1],
    LOSSY_WORDS[2],
];

/// The NIC on the wrong subnet's finding: node3's, on rail 0's report.
const STRAY: Named = Named {
    kind: "rail",
    ranks: &[3],
    rail: 0,
};

/// What the NIC on the wrong subnet's diagnosis says.
const STRAY_SAYS: &str = "node3 rxe1 is on 203.0.113.0/24, not on rail 198.51.100.0/24 as \
                          every other host's port: a NIC on the wrong subnet";

/// The blocked link's finding, node1 - node3.
const BLOCKED: Named = Named {
    kind: "link_fault",
    ranks: &[1, 3],
    rail: 0,
};

/// The host without a device's finding, node2.
const NO_DEVICE: Named = Named {
    kind: "cannot_take_part",
    ranks: &[2],
    rail: 0,
};

/// What the host without a device's diagnosis says.
const NO_DEVICE_SAYS: &str = "node2 cannot take part: no RDMA device on this host";

/// The steps of `lab/fabric/test.sh`, the fabric test's: what only VMs
/// show, several faults a run.
pub const TEST: &[Step] = &[
    SRUN_UNMEASURED,
    Step {
        name: "slow_and_lossy",
        faults: "node2's rail-1 NIC sends 2 Mbit/s (netem rate); node0 and node1 drop 3% \
                 of each other's RoCE data packets on rail 0 (nftables)",
        status: 1,
        says: &[
            // node1's rail-1 NIC is rxe0 here.
            "rail 1 (198.51.100.0/24): node2 rxe1 is slow with every one of its 2 measured \
             peers (node1 rxe0: ",
            SLOW_NIC_SAYS[1],
            SWAPPED_SAYS,
            "node0 - node1: ",
            LOSSY_WORDS[0],
            LOSSY_WORDS[1],
            LOSSY_WORDS[2],
        ],
        findings: &[SLOW_NIC, lossy(&[0, 1])],
        may_also: &[lossy_slow(&[0, 1])],
        links_a_rail: 4,
        ..STEP
    },
    // Without --rails, rail 0 is each host's port on the coordinator's
    // subnet whatever it is called (node1's rxe1): said, and node1 named
    // for nothing else. The multicast round on that port is the first
    // step's, whose rail 0 is the same port.
    Step {
        name: "blocked_missing_and_stray",
        faults: "node1 drops node3's RoCE (nftables); node2's devices deleted; node3's \
                 rail-1 NIC on 203.0.113.0/24; over ssh",
        status: 1,
        says: &[
            // One rail without --rails.
            SWAPPED_ONE_RAIL,
            NO_DEVICE_SAYS,
            "the link between",
            "node1",
            "node3",
            "nothing the doctor sees differs",
            STRAY_SAYS,
        ],
        never_says: &["never joined"],
        findings: &[NO_DEVICE, BLOCKED, STRAY],
        ..STEP
    },
];

/// The fabric test's node that is a guest of two NUMA nodes
/// ([`crate::host::fabric::FabricSpec::numa`]): its rail-`k` NIC on NUMA
/// node `k`, a spare NIC on none.
pub const NUMA_NODE: usize = 3;

/// The CPUs on which rank `rank`'s measurements on rail `rail` must have
/// run (`mesh --perf` pins each to its NIC's local CPUs): on
/// [`NUMA_NODE`], node `rail`'s one vCPU, `rail`; on the nodes of one
/// vCPU, 0.
pub fn pinned_cpus(rank: usize, rail: usize) -> String {
    if rank == NUMA_NODE {
        rail.to_string()
    } else {
        "0".into()
    }
}

/// The memory policy rank `rank`'s measurements on rail `rail` must have
/// run with (`mesh --perf` binds them to their NIC's node where numactl
/// is installed, as the fabric's set-up installs it): on [`NUMA_NODE`],
/// node `rail`'s; elsewhere none is required, the nodes of one vCPU
/// having NICs on no node.
pub fn bound_memory(rank: usize, rail: usize) -> Option<String> {
    (rank == NUMA_NODE).then(|| format!("bind:{rail}"))
}

/// The fabric test's last step, after its mesh runs: the doctor on
/// [`NUMA_NODE`] once its spare NIC, on the root bus and on no NUMA node,
/// has an address and Soft-RoCE. It names that NIC, and its rails lines
/// give each NIC's node.
pub const DOCTOR_NUMA: Step = Step {
    name: "doctor_numa",
    faults: "node3's spare NIC, on no NUMA node of its two, with an address and Soft-RoCE",
    status: 1,
    says: &[
        "rxe2 reports no NUMA node on a 2-node host: its measurements cannot be placed; \
         check the BIOS's ACPI SRAT/NUMA setting",
        "rail 192.0.2.0/24: rxe0 port 1 on ",
        ", NUMA node 0\n",
        ", NUMA node 1\n",
        ", no NUMA node\n",
    ],
    ..STEP
};

/// The steps of `lab/fabric/record-healthy.sh` and `record-faults.sh`:
/// one fault a run, each kept as a record and replayed in the host tests.
pub const RECORDED: &[Step] = &[
    SRUN,
    Step {
        name: "udp_blocked",
        faults: "node2 drops every RoCE v2 packet (nftables)",
        status: 1,
        says: &["node2 fails with every one of its 3 peers"],
        findings: &[Named {
            kind: "host_fault",
            ranks: &[2],
            rail: 0,
        }],
        ..STEP
    },
    SLOW_HOST,
    Step {
        name: "link_blocked",
        faults: "node1 drops node3's RoCE (nftables)",
        status: 1,
        says: &[
            "the link between",
            "node1",
            "node3",
            "nothing the doctor sees differs",
        ],
        findings: &[BLOCKED],
        ..STEP
    },
    Step {
        name: "mtu",
        faults: "node3's netdev at MTU 9000",
        status: 1,
        says: &[
            "node3 fails with",
            "its MTU is 9000, every other host's 1500",
        ],
        findings: &[Named {
            kind: "host_fault",
            ranks: &[3],
            rail: 0,
        }],
        ..STEP
    },
    Step {
        name: "never_started",
        faults: "rank 3 never starts",
        status: 1,
        says: &["rank 3 never joined (waited 180 s for it)"],
        findings: &[Named {
            kind: "missing",
            ranks: &[3],
            rail: 0,
        }],
        ..STEP
    },
    Step {
        name: "doctor_only",
        faults: "node1 under ulimit -l 64 without CAP_IPC_LOCK; node0's rail-1 NIC down",
        status: 1,
        says: &[
            "6 pairs, 0 failing, 0 not run",
            "node1's doctor found: `ulimit -l` is 64 KiB",
            "(its 3 pairs passed anyway)",
            "node0 has no port on rail 198.51.100.0/24, which every other host is on",
        ],
        never_says: &["every pair passed"],
        findings: &[
            Named {
                kind: "rail",
                ranks: &[0],
                rail: 0,
            },
            Named {
                kind: "doctor",
                ranks: &[1],
                rail: 0,
            },
        ],
        ..STEP
    },
    Step {
        name: "no_device",
        faults: "node2's devices deleted",
        status: 1,
        says: &[NO_DEVICE_SAYS],
        never_says: &["never joined"],
        findings: &[NO_DEVICE],
        ..STEP
    },
    Step {
        name: "stray_rail",
        faults: "node3's rail-1 NIC on 203.0.113.0/24",
        status: 1,
        says: &["6 pairs, 0 failing, 0 not run", STRAY_SAYS],
        findings: &[STRAY],
        ..STEP
    },
    Step {
        name: "lossy",
        faults: "node1 and node3 drop 3% of each other's RoCE (nftables)",
        status: 1,
        says: LOSSY_SAYS,
        findings: &[lossy(&[1, 3])],
        may_also: &[lossy_slow(&[1, 3])],
        ..STEP
    },
    Step {
        name: "base_healthy",
        faults: "none: both rails measured on the ring, saved as a baseline",
        says: &["every pair passed", "Measured: "],
        links_a_rail: 4,
        ..STEP
    },
    Step {
        name: "rail_throttled",
        faults: "every node's rail-1 NIC sends 3 Mbit/s (netem rate); judged against \
                 base_healthy's baseline",
        status: 1,
        says: &[
            "\nBaseline: 8 links measured on ",
            "rail 1 (198.51.100.0/24): every link at ",
            "% of its baseline (",
            "): the fabric, not a host",
        ],
        findings: &[Named {
            kind: "rail_below_baseline",
            ranks: &[],
            rail: 1,
        }],
        links_a_rail: 4,
        ..STEP
    },
];

#[cfg(test)]
mod tests;
