use super::*;
use crate::model::mesh::testkit::{drop_host, result, run};
use crate::model::mesh::{McastResult, PairCell, Pattern, ScenarioResult};

/// The findings' kinds, in order.
fn kinds(findings: &[Finding]) -> Vec<FindingKind> {
    findings.iter().map(|f| f.kind.clone()).collect()
}

/// Asserts that `text` has every one of `parts`.
fn says(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "no `{p}` in: {text}");
    }
}

#[test]
fn a_run_that_passed_has_no_findings() {
    for pattern in [Pattern::AllPairs, Pattern::Ring, Pattern::Star(1)] {
        for n in 2..=8 {
            assert_eq!(diagnose(&run(n, pattern, |_, _| false)), vec![], "{n}");
        }
    }
}

#[test]
fn a_host_that_fails_with_every_peer_is_named() {
    let mut mesh = run(4, Pattern::AllPairs, |a, _| a == 2);
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 2 }]);
    says(
        &findings[0].text,
        &[
            "node2 fails with every one of its 3 peers (node0, node1, node3)",
            "node0",
            "node1",
            "node3",
            "the pairs among the other hosts pass",
            "rc_example (3 pairs), rdmacm_client_server (3 pairs)",
            "Its doctor found nothing.",
        ],
    );
    mesh.hosts[2].findings = vec!["rxe0 port 1 is DOWN".into(), "no GID on eth0".into()];
    says(
        &diagnose(&mesh)[0].text,
        &["Its doctor found: rxe0 port 1 is DOWN; no GID on eth0."],
    );
}

#[test]
fn a_host_that_fails_with_most_peers_is_named_with_the_count() {
    // node4 fails with 4 of its 5 peers; the others pass among themselves.
    let findings = diagnose(&run(6, Pattern::AllPairs, |a, b| a == 4 && b != 0));
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 4 }]);
    says(&findings[0].text, &["node4 fails with 4 of its 5 peers"]);
}

#[test]
fn two_bad_hosts_are_both_named() {
    let findings = diagnose(&run(6, Pattern::AllPairs, |a, _| a == 1 || a == 4));
    assert_eq!(
        kinds(&findings),
        vec![
            FindingKind::HostFault { rank: 1 },
            FindingKind::HostFault { rank: 4 }
        ]
    );
}

#[test]
fn a_bad_host_on_a_ring_or_at_a_stars_centre_is_named() {
    let findings = diagnose(&run(6, Pattern::Ring, |a, _| a == 3));
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 3 }]);
    // The centre fails with 3 of its 4 leaves: the centre, not 3 links.
    let findings = diagnose(&run(5, Pattern::Star(0), |a, b| a == 0 && b != 4));
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 0 }]);
    says(
        &findings[0].text,
        &["3 of its 4 peers", "in every pair that ran"],
    );
}

#[test]
fn a_bad_link_names_both_hosts_and_their_different_mtus() {
    let mut mesh = run(4, Pattern::AllPairs, |a, b| (a, b) == (0, 3));
    mesh.hosts[3].mtu = Some(9000);
    let findings = diagnose(&mesh);
    assert_eq!(
        kinds(&findings),
        vec![FindingKind::LinkFault { a: 0, b: 3 }]
    );
    says(
        &findings[0].text,
        &[
            "the link between node0 and node3 fails (rc_example, rdmacm_client_server)",
            "MTU differs, 1500 on node0 and 9000 on node3",
        ],
    );
    assert!(!findings[0].text.contains("GID type differs"));
}

#[test]
fn a_bad_link_names_a_different_gid_type_and_subnet() {
    let mut mesh = run(5, Pattern::AllPairs, |a, b| (a, b) == (1, 2));
    mesh.hosts[2].gid_type = Some("IB/RoCE v1".into());
    mesh.hosts[2].subnet = None;
    mesh.hosts[2].findings = vec!["GID index 0 is RoCE v1".into()];
    let findings = diagnose(&mesh);
    assert_eq!(
        kinds(&findings),
        vec![FindingKind::LinkFault { a: 1, b: 2 }]
    );
    says(
        &findings[0].text,
        &[
            "GID type differs, RoCE v2 on node1 and IB/RoCE v1 on node2",
            "subnet differs, 192.0.2.0/24 on node1 and unknown on node2",
            "node2's doctor found: GID index 0 is RoCE v1",
        ],
    );
}

#[test]
fn a_bad_link_of_alike_hosts_says_nothing_differs() {
    let findings = diagnose(&run(4, Pattern::AllPairs, |a, b| (a, b) == (2, 1)));
    assert_eq!(
        kinds(&findings),
        vec![FindingKind::LinkFault { a: 1, b: 2 }]
    );
    says(
        &findings[0].text,
        &[
            "node1 and node2",
            "nothing the doctor sees differs (MTU 1500, GID type RoCE v2, subnet 192.0.2.0/24)",
        ],
    );
}

#[test]
fn two_bad_links_are_two_findings() {
    let bad = |a: usize, b: usize| matches!((a.min(b), a.max(b)), (0, 1) | (2, 3));
    let findings = diagnose(&run(4, Pattern::AllPairs, bad));
    assert_eq!(
        kinds(&findings),
        vec![
            FindingKind::LinkFault { a: 0, b: 1 },
            FindingKind::LinkFault { a: 2, b: 3 }
        ]
    );
}

#[test]
fn every_pair_failing_is_one_fabric_finding() {
    let mut mesh = run(4, Pattern::AllPairs, |_, _| true);
    for h in &mut mesh.hosts {
        h.findings = vec!["no RDMA device".into()];
    }
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::FabricWide]);
    says(
        &findings[0].text,
        &[
            "every pair that ran failed (6 of 6",
            "UDP port 4791",
            "GID policy",
            "no RDMA device at all",
            "The doctors found: no RDMA device (on node0, node1, node2, node3).",
        ],
    );
    assert!(!findings[0].text.contains("may be that host"));
}

#[test]
fn every_pair_of_a_star_failing_also_names_its_centre() {
    let findings = diagnose(&run(5, Pattern::Star(2), |_, _| true));
    assert_eq!(kinds(&findings), vec![FindingKind::FabricWide]);
    says(&findings[0].text, &["Every pair included node2"]);
}

#[test]
fn failures_spread_over_most_hosts_are_fabric_wide() {
    // Every pair but node0's with node1 fails: no few hosts explain it.
    let findings = diagnose(&run(6, Pattern::AllPairs, |a, b| a + b != 1));
    assert_eq!(kinds(&findings), vec![FindingKind::FabricWide]);
    says(&findings[0].text, &["14 of the 15 pairs that ran failed"]);
}

#[test]
fn a_host_that_never_joined_is_said_once_and_blames_no_one() {
    let mut mesh = run(4, Pattern::AllPairs, |_, _| false);
    drop_host(&mut mesh, 3, Joined::NeverJoined { waited_secs: 120 });
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::Missing { rank: 3 }]);
    says(
        &findings[0].text,
        &[
            "node3 never joined (waited 120 s for it)",
            "its 3 pairs did not run",
        ],
    );
    // With a bad host among the rest, that host is still found.
    let mut mesh = run(5, Pattern::AllPairs, |a, _| a == 1);
    drop_host(&mut mesh, 4, Joined::NeverJoined { waited_secs: 120 });
    assert_eq!(
        kinds(&diagnose(&mesh)),
        vec![
            FindingKind::Missing { rank: 4 },
            FindingKind::HostFault { rank: 1 }
        ]
    );
}

#[test]
fn a_host_that_died_is_said_once_and_its_failed_pairs_blame_no_one() {
    // node2's pairs failed as it died: they say nothing of its peers.
    let mut mesh = run(4, Pattern::AllPairs, |a, _| a == 2);
    mesh.hosts[2].joined = Joined::Died {
        during: "round 2 (rc_example)".into(),
    };
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::Missing { rank: 2 }]);
    says(
        &findings[0].text,
        &["node2 died during round 2 (rc_example)"],
    );
}

#[test]
fn two_hosts_that_fail_are_the_pairs_not_either_hosts() {
    let mut mesh = run(2, Pattern::AllPairs, |_, _| true);
    mesh.hosts[1].mtu = Some(4200);
    let findings = diagnose(&mesh);
    assert_eq!(
        kinds(&findings),
        vec![FindingKind::LinkFault { a: 0, b: 1 }]
    );
    says(
        &findings[0].text,
        &[
            "node0 and node1 fail together",
            "cannot be pinned on either one",
            "add a third host",
            "MTU differs, 1500 on node0 and 4200 on node1",
            "node0's doctor found nothing. node1's doctor found nothing.",
        ],
    );
    assert_eq!(diagnose(&run(2, Pattern::Ring, |_, _| false)), vec![]);
}

#[test]
fn three_hosts_with_one_missing_are_two_hosts() {
    let mut mesh = run(3, Pattern::AllPairs, |_, _| true);
    drop_host(&mut mesh, 0, Joined::NeverJoined { waited_secs: 60 });
    let findings = diagnose(&mesh);
    assert_eq!(
        kinds(&findings),
        vec![
            FindingKind::Missing { rank: 0 },
            FindingKind::LinkFault { a: 1, b: 2 }
        ]
    );
    says(&findings[1].text, &["cannot be pinned"]);
}

#[test]
fn a_pair_that_only_skipped_or_did_not_run_counts_for_nothing() {
    let mut mesh = run(4, Pattern::AllPairs, |a, b| (a, b) == (0, 1));
    let cell = mesh.cells.iter_mut().find(|c| c.pair.joins(0, 1)).unwrap();
    cell.results = vec![
        result("rc_example", Verdict::Skip),
        result(
            "mckey",
            Verdict::NotRun("the round's deadline passed".into()),
        ),
    ];
    assert_eq!(diagnose(&mesh), vec![]);
}

/// A multicast round from `sender` where `got(receiver)` says whether
/// each other host of 4 got every message.
fn mcast(sender: usize, got: impl Fn(usize) -> bool) -> McastResult {
    McastResult {
        sender,
        scenario: "mckey".into(),
        receivers: (0..4)
            .filter(|&r| r != sender)
            .map(|r| (r, if got(r) { Verdict::Pass } else { Verdict::Fail }))
            .collect(),
    }
}

#[test]
fn a_multicast_receiver_that_missed_messages_is_named() {
    let mut mesh = run(4, Pattern::AllPairs, |_, _| false);
    mesh.mcast = vec![mcast(0, |r| r != 2)];
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::Multicast { rank: 2 }]);
    says(
        &findings[0].text,
        &[
            "node2 did not get every multicast message from node0 (mckey)",
            "IGMP snooping or multicast routing",
        ],
    );
    // From every sender: one finding for the receiver, naming them all.
    mesh.mcast = (0..4).map(|s| mcast(s, |r| r != 2)).collect();
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::Multicast { rank: 2 }]);
    says(&findings[0].text, &["from node0, node1, node3 (mckey)"]);
}

#[test]
fn a_multicast_no_receiver_got_is_one_finding_about_the_sender() {
    let mut mesh = run(4, Pattern::AllPairs, |_, _| false);
    mesh.mcast = vec![mcast(0, |_| false)];
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::Multicast { rank: 0 }]);
    says(
        &findings[0].text,
        &[
            "node0's multicast (mckey): none of its 3 receivers",
            "IGMP snooping",
        ],
    );
    // A receiver that is missing counts for nothing.
    drop_host(&mut mesh, 3, Joined::NeverJoined { waited_secs: 5 });
    mesh.mcast = vec![mcast(0, |r| r == 1)];
    mesh.mcast[0].receivers[2].1 = Verdict::NotRun("node3 is missing".into());
    assert_eq!(
        kinds(&diagnose(&mesh)),
        vec![
            FindingKind::Missing { rank: 3 },
            FindingKind::Multicast { rank: 2 }
        ]
    );
}

#[test]
fn hosts_with_the_same_name_are_told_apart_by_rank() {
    let mut mesh = run(4, Pattern::AllPairs, |a, _| a == 1);
    for h in &mut mesh.hosts {
        h.name = "localhost".into();
    }
    says(&diagnose(&mesh)[0].text, &["localhost (rank 1) fails"]);
}

#[test]
fn a_large_mesh_with_one_bad_host_is_diagnosed_quickly() {
    let findings = diagnose(&run(128, Pattern::AllPairs, |a, _| a == 77));
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 77 }]);
    says(
        &findings[0].text,
        &["every one of its 127 peers", "119 more"],
    );
}

#[test]
fn a_bad_host_whose_mtu_is_the_odd_one_out_says_so() {
    let mut mesh = run(4, Pattern::AllPairs, |a, b| a == 3 || b == 3);
    for h in &mut mesh.hosts {
        h.mtu = Some(if h.rank == 3 { 9000 } else { 1500 });
    }
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 3 }]);
    says(
        &findings[0].text,
        &["Unlike the others: its MTU is 9000, every other host's 1500."],
    );
    // Alike hosts: nothing is said to differ.
    mesh.hosts[3].mtu = Some(1500);
    assert!(!diagnose(&mesh)[0].text.contains("Unlike"));
}

/// A host's doctor finding is told once: in the finding that names the
/// host, else as a finding of its own that says how its pairs went.
#[test]
fn a_doctor_finding_is_told_once_by_the_finding_that_names_its_host() {
    let mut mesh = run(4, Pattern::AllPairs, |a, _| a == 2);
    mesh.hosts[2].findings = vec!["rxe0 port 1 is DOWN".into()];
    mesh.hosts[0].findings = vec!["`ulimit -l` is 64 KiB".into()];
    let findings = diagnose(&mesh);
    assert_eq!(
        kinds(&findings),
        vec![
            FindingKind::HostFault { rank: 2 },
            FindingKind::Doctor { rank: 0 }
        ]
    );
    says(
        &findings[0].text,
        &["Its doctor found: rxe0 port 1 is DOWN."],
    );
    // node0's pair with node2 failed, which node2's fault explains.
    assert_eq!(
        findings[1].text,
        "node0's doctor found: `ulimit -l` is 64 KiB (1 of its 3 pairs failed): the examples \
         meet it there, so fix it there"
    );
    // On a host whose pairs all passed.
    let mut mesh = run(3, Pattern::AllPairs, |_, _| false);
    mesh.hosts[1].findings = vec!["x".into()];
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::Doctor { rank: 1 }]);
    says(
        &findings[0].text,
        &["node1's doctor found: x (its 2 pairs passed anyway)"],
    );
}

/// Programs that never started are said as such, not as the network's
/// fault: every failure one, and a host whose failures are.
#[test]
fn programs_that_never_started_are_not_blamed_on_the_network() {
    let not_started = "client: could not start /opt/rc_example: Permission denied (exit 126)";
    let unstart = |r: &mut ScenarioResult| {
        r.detail = format!("server: exit status 143, expected 0; {not_started}");
        r.unstarted = Some(not_started.into());
    };
    let mut mesh = run(4, Pattern::AllPairs, |_, _| true);
    for c in &mut mesh.cells {
        c.results.iter_mut().for_each(unstart);
    }
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::FabricWide]);
    says(
        &findings[0].text,
        &[&format!(
            "Every failure is a program that never started, not the network: {not_started}."
        )],
    );
    assert!(
        !findings[0].text.contains("UDP port 4791"),
        "{}",
        findings[0].text
    );
    // One host's programs: named with it.
    let mut mesh = run(4, Pattern::AllPairs, |a, _| a == 2);
    for c in mesh.cells.iter_mut().filter(|c| c.pair.has(2)) {
        c.results.iter_mut().for_each(unstart);
    }
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 2 }]);
    says(
        &findings[0].text,
        &[&format!(
            "A program never started there, not a network fault: {not_started}."
        )],
    );
}

#[test]
fn a_link_whose_counters_show_loss_is_named_lossy_though_it_passed() {
    let mut r = run(4, Pattern::AllPairs, |_, _| false);
    // Every link loses a little, as an emulated segment does under load.
    for c in &mut r.cells {
        c.counters = vec![
            (c.pair.server, "sent_pkts".into(), 500),
            (c.pair.client, "sent_pkts".into(), 500),
            (c.pair.client, "rcvd_seq_err".into(), 4),
        ];
    }
    let at = r.cells.iter().position(|c| c.pair.joins(1, 3)).unwrap();
    r.cells[at].counters.extend([
        (1, "rcvd_seq_err".into(), 33),
        (3, "completer_retry_err".into(), 412),
    ]);
    // Packets sent again after a late ACK, with no gap: no loss.
    let other = r.cells.iter().position(|c| c.pair.joins(0, 2)).unwrap();
    r.cells[other]
        .counters
        .push((0, "duplicate_request".into(), 64));
    let f = diagnose(&r);
    assert_eq!(kinds(&f), [FindingKind::Lossy { a: 1, b: 3 }]);
    says(
        &f[0].text,
        &[
            "node1 - node3: 37 packets lost of 1000 sent (3.7%; the other links lose 0.4% at \
             the median) while their pair ran",
            "node1's rcvd_seq_err +33, node3's completer_retry_err +412",
            "its scenarios passed anyway",
            "a lossy link between them",
        ],
    );
    assert!(!f[0].text.contains("sent_pkts"), "{}", f[0].text);
    // The same loss on every link is the run's usual, not a lossy link.
    for c in &mut r.cells {
        let (s, k) = (c.pair.server, c.pair.client);
        c.counters = vec![
            (s, "sent_pkts".into(), 500),
            (k, "sent_pkts".into(), 500),
            (s, "rcvd_seq_err".into(), 33),
            (k, "rcvd_seq_err".into(), 4),
        ];
    }
    let f = diagnose(&r);
    assert!(f.is_empty(), "{f:?}");
}

/// A host that fails on every rail is one host fault, on rail 0, which
/// names its other rails; a host that fails on rail 1 only is its NIC's.
#[test]
fn a_host_failing_on_every_rail_is_named_once() {
    let second = |mut r: MeshRun, fails: fn(usize) -> bool| {
        let net = crate::model::rails::Subnet::of("198.51.100.1".parse().unwrap(), 24);
        r.rails = vec![None, Some(net)];
        let mut rail1: Vec<PairCell> = r.cells.clone();
        for c in &mut rail1 {
            c.rail = 1;
            let bad = fails(c.pair.server) || fails(c.pair.client);
            for res in &mut c.results {
                res.verdict = if bad { Verdict::Fail } else { Verdict::Pass };
            }
        }
        r.cells.extend(rail1);
        r
    };
    let everywhere = second(run(4, Pattern::AllPairs, |a, _| a == 2), |h| h == 2);
    let findings = diagnose(&everywhere);
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 2 }]);
    says(
        &findings[0].text,
        &[
            "node2 fails with every one of its 3 peers",
            "It fails on rail 1 (198.51.100.0/24) too.",
        ],
    );
    let nic = second(run(4, Pattern::AllPairs, |_, _| false), |h| h == 2);
    let findings = diagnose(&nic);
    assert_eq!(kinds(&findings), vec![FindingKind::HostFault { rank: 2 }]);
    assert_eq!(findings[0].rail, 1);
    says(&findings[0].text, &["its NIC on rail 1"]);
}

/// The fabric test's combined run: one host without a device and a link
/// blocked between two others are two findings, each of its own kind.
#[test]
fn a_host_that_cannot_take_part_and_a_blocked_link_are_each_named() {
    let mut mesh = run(4, Pattern::AllPairs, |a, b| (a, b) == (1, 3));
    let why = "no RDMA device on this host".to_string();
    drop_host(&mut mesh, 2, Joined::CannotRun { why });
    let findings = diagnose(&mesh);
    assert_eq!(
        kinds(&findings),
        vec![
            FindingKind::CannotTakePart { rank: 2 },
            FindingKind::LinkFault { a: 1, b: 3 }
        ]
    );
}

/// Whether a program never started is the result's own field: a detail
/// that merely reads so (a program's own words, say) is a failure of the
/// fabric like any other.
#[test]
fn a_detail_that_reads_unstarted_is_not_taken_for_it() {
    let mut mesh = run(4, Pattern::AllPairs, |_, _| true);
    for c in &mut mesh.cells {
        for r in &mut c.results {
            r.detail = "client: could not start /opt/rc_example: Permission denied".into();
        }
    }
    let findings = diagnose(&mesh);
    assert_eq!(kinds(&findings), vec![FindingKind::FabricWide]);
    says(&findings[0].text, &["UDP port 4791"]);
}
