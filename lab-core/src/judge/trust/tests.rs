use super::*;
use crate::model::mesh::testkit;
use crate::model::mesh::Pattern;

/// A perftest report of `messages` of 1 MB in its 2 s (8 Gb/s at 2000).
fn bw(messages: f64) -> String {
    format!("MsgSize: 1000000,\nn_iterations: {messages},\nBW_average: 0.000000,\n")
}

/// Host `rank`'s side of a measurement: its report, and the bytes its
/// port received meanwhile (as `port_rcv_data`, 4-byte words).
fn side(scenario: &str, report: String, received: Option<u64>) -> Measure {
    Measure {
        scenario: scenario.into(),
        report,
        received: received
            .map(|b| vec![("port_rcv_data".to_string(), b / 4)])
            .unwrap_or_default(),
        mtu: None,
    }
}

/// Both hosts' reports of a pair (server 0, client 1) whose every
/// direction moved 2000 messages of 1 MB (8 Gb/s) in 2 s, each host's
/// own figure times `claims[host]`, each receiver's counters times
/// `counts[host]` (`None`: it counts nothing).
fn pair(claims: [f64; 2], counts: [Option<f64>; 2]) -> Vec<SideReport> {
    let moved = 2000.0 * 1e6;
    let (server, client) = (0, 1);
    let host = |rank: usize| {
        let peer = 1 - rank;
        let own = bw(2000.0 * claims[rank]);
        let copy = bw(2000.0 * claims[peer]);
        let got = counts[rank].map(|k| (moved * k) as u64);
        // The client writes in perf_write_bw, the server in its _back.
        let (first, back) = if rank == client {
            (
                side(WRITE_BW, own, Some(1000)),
                side(WRITE_BW_BACK, copy, got),
            )
        } else {
            (
                side(WRITE_BW, copy, got),
                side(WRITE_BW_BACK, own, Some(1000)),
            )
        };
        SideReport {
            rank,
            measures: vec![
                first,
                back,
                side(SEND_LAT, "t_typical: 2.00,\n".into(), None),
            ],
            elapsed_ms: Some(10_000),
        }
    };
    vec![host(server), host(client)]
}

const PAIR: Pair = Pair {
    server: 0,
    client: 1,
};

#[test]
fn a_direction_counts_no_more_than_its_receiver_counted() {
    let honest = measured(PAIR, &pair([1.0, 1.0], [Some(1.0), Some(1.0)]), Some(100.0));
    assert_eq!(honest.gbps, Some(8.0));
    assert_eq!(honest.usec, Some(2.0));
    assert!(!honest.one_sided_gbps && !honest.one_sided_usec);
    assert!(honest.impossible.is_empty());
    // The client claims 2.1 times what it wrote: the server counted 8.
    let lie = measured(PAIR, &pair([1.0, 2.1], [Some(1.0), Some(2.1)]), Some(100.0));
    assert_eq!(lie.gbps, Some(8.0), "{lie:?}");
    assert!(lie.impossible.is_empty());
    // A receiver that counts less than it was sent lowers only its own
    // link: the lesser counts.
    let low = measured(PAIR, &pair([1.0, 1.0], [Some(0.5), Some(1.0)]), None);
    assert_eq!(low.gbps, Some(4.0));
}

#[test]
fn a_figure_no_receiver_counted_has_one_host_behind_it() {
    let alone = measured(PAIR, &pair([1.0, 2.1], [None, Some(1.0)]), Some(100.0));
    assert_eq!(alone.gbps, Some(8.0), "the lesser way");
    assert!(alone.one_sided_gbps);
    // The sender reported nothing of its own: the receiver's copy of its
    // figure is the receiver's word alone.
    let mut reports = pair([1.0, 1.0], [Some(1.0), Some(1.0)]);
    reports[1].measures.retain(|m| m.scenario != WRITE_BW);
    let copied = measured(PAIR, &reports, None);
    assert_eq!(copied.gbps, Some(8.0));
    assert!(copied.one_sided_gbps);
}

#[test]
fn figures_no_port_gives_are_refused_and_name_their_sender() {
    // 400 times 8 Gb/s on 100 Gb/s ports.
    let c = measured(
        PAIR,
        &pair([1.0, 400.0], [Some(1.0), Some(1.0)]),
        Some(100.0),
    );
    assert_eq!(c.gbps, Some(8.0), "the other way alone");
    assert_eq!(
        c.impossible,
        [Impossible {
            rank: 1,
            peer: 0,
            what: "3200.00 Gb/s on a 100 Gb/s port".into()
        }]
    );
    // Within a tenth of the rate, for perftest's late alarm: possible.
    assert!(possible_gbps(109.0, Some(100.0)));
    assert!(!possible_gbps(111.0, Some(100.0)));
    assert!(possible_gbps(0.0, Some(100.0)), "nothing moved is 0 Gb/s");
    for (claim, what) in [(-1.0, "-8.00 Gb/s"), (1e300, "inf Gb/s")] {
        let mut reports = pair([1.0, claim], [Some(1.0), Some(1.0)]);
        if claim > 1.0 {
            // 1e308-byte messages: a count times a size past f64.
            let m = &mut reports[1].measures[0];
            m.report = m.report.replace("MsgSize: 1000000", "MsgSize: 1e308");
        }
        let c = measured(PAIR, &reports, None);
        assert_eq!(c.impossible.len(), 1, "{c:?}");
        assert_eq!(
            (c.impossible[0].rank, c.impossible[0].what.as_str()),
            (1, what)
        );
        assert_eq!(c.gbps, Some(8.0));
    }
}

#[test]
fn a_latency_is_the_greater_side_and_one_below_zero_is_refused() {
    let mut reports = pair([1.0, 1.0], [Some(1.0), Some(1.0)]);
    reports[1].measures[2].report = "t_typical: 0.01,\n".into();
    assert_eq!(measured(PAIR, &reports, None).usec, Some(2.0));
    reports[1].measures[2].report = "t_typical: -3,\n".into();
    let c = measured(PAIR, &reports, None);
    assert_eq!(c.usec, Some(2.0));
    assert!(c.one_sided_usec);
    assert_eq!(c.impossible[0].what, "-3.0 usec");
}

#[test]
fn received_packets_count_at_the_port_mtu() {
    let m = Measure {
        scenario: WRITE_BW.into(),
        report: String::new(),
        received: vec![("rcvd_pkts".into(), 1_000_000)],
        mtu: Some(1024),
    };
    let g = received_gbps(&m).unwrap();
    assert!(
        (g - 1_000_000.0 * 1024.0 * 8.0 / 2.0 / 1e9).abs() < 1e-9,
        "{g}"
    );
    // No MTU, or one past IB's largest: 4096 bytes a packet.
    let loose = Measure {
        mtu: Some(65536),
        ..m.clone()
    };
    assert!((received_gbps(&loose).unwrap() - 4.0 * g).abs() < 1e-9);
    assert_eq!(
        received_gbps(&Measure {
            received: Vec::new(),
            ..m
        }),
        None
    );
}

/// A cell of hosts 0 and 1 with `counters` (rank, name, rise), on 100
/// Gb/s ports, each host's counters read over `ms`.
fn counted_cell(counters: &[(usize, &str, u64)], ms: Option<u64>) -> PairCell {
    let mut run = testkit::run(2, Pattern::AllPairs, |_, _| false);
    let mut cell = run.cells.remove(0);
    cell.counters = counters
        .iter()
        .map(|(r, n, v)| (*r, n.to_string(), *v))
        .collect();
    cell.rate_gbps = Some(100.0);
    cell.reports = [cell.pair.server, cell.pair.client]
        .map(|rank| SideReport {
            rank,
            measures: Vec::new(),
            elapsed_ms: ms,
        })
        .to_vec();
    cell
}

#[test]
fn a_links_share_beside_others_is_the_larger_of_what_each_host_received() {
    let (s, c) = (0, 1);
    let honest = counted_cell(
        &[
            (s, "sent_pkts", 1000),
            (s, "rcvd_pkts", 1000),
            (s, "rcvd_seq_err", 4),
            (c, "sent_pkts", 1000),
            (c, "rcvd_pkts", 1000),
            (c, "rcvd_seq_err", 2),
        ],
        Some(10_000),
    );
    let (tally, yard, refused) = loss(&honest);
    assert_eq!(
        tally,
        Tally {
            lost: 6,
            sent: 2000
        }
    );
    assert_eq!(yard.rate, Some(0.004));
    assert!(refused.is_empty());
    // The client hides its losses and counts ten times the packets it
    // sent: the link's share beside others is still the server's.
    let liar = counted_cell(
        &[
            (s, "sent_pkts", 1000),
            (s, "rcvd_pkts", 1000),
            (s, "rcvd_seq_err", 4),
            (c, "sent_pkts", 10_000),
            (c, "rcvd_pkts", 10_000),
        ],
        Some(10_000),
    );
    assert_eq!(loss(&liar).1.rate, Some(0.004));
    // Without receive counters (an older record): the link's own tally.
    let old = counted_cell(&[(s, "sent_pkts", 1000), (c, "rcvd_seq_err", 5)], None);
    assert_eq!(
        loss(&old).1,
        Tally {
            lost: 5,
            sent: 1000
        }
        .yard()
    );
}

#[test]
fn counts_that_cannot_be_true_are_refused_and_name_their_host() {
    let (s, c) = (0, 1);
    let more_lost = counted_cell(
        &[
            (s, "sent_pkts", 100),
            (c, "sent_pkts", 100),
            (c, "rcvd_seq_err", 500),
        ],
        None,
    );
    let (tally, _, refused) = loss(&more_lost);
    assert_eq!(tally, Tally { lost: 0, sent: 100 });
    assert_eq!(
        refused,
        [Impossible {
            rank: c,
            peer: s,
            what: "500 packets lost of 200 sent".into()
        }]
    );
    // 100 Gb/s moves at most some 21 million 64-byte frames in 0.1 s.
    let flood = counted_cell(
        &[(s, "sent_pkts", 100), (c, "sent_pkts", 1 << 40)],
        Some(100),
    );
    let (tally, _, refused) = loss(&flood);
    assert_eq!(tally.sent, 100);
    assert_eq!(refused[0].rank, c);
    assert!(
        refused[0]
            .what
            .ends_with("packets in 0.1 s on a 100 Gb/s port"),
        "{refused:?}"
    );
    let busy = counted_cell(
        &[(s, "sent_pkts", 100), (c, "sent_pkts", 1 << 20)],
        Some(100),
    );
    assert!(loss(&busy).2.is_empty());
}

#[test]
fn a_host_that_reported_what_cannot_be_true_is_named_once() {
    let mut run = testkit::run(3, Pattern::AllPairs, |_, _| false);
    for cell in &mut run.cells {
        cell.rate_gbps = Some(25.0);
        let liar = cell.pair.has(2);
        let claims = if cell.pair.server == 2 {
            [13.1, 1.0]
        } else if liar {
            [1.0, 13.1]
        } else {
            [1.0, 1.0]
        };
        let mut reports = pair(claims, [Some(1.0), Some(1.0)]);
        reports[0].rank = cell.pair.server;
        reports[1].rank = cell.pair.client;
        cell.reports = reports;
    }
    let label = |r: usize| format!("node{r}");
    let found = findings(&run, &label);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].kind, FindingKind::ImpossibleReport { rank: 2 });
    assert!(
        found[0]
            .text
            .starts_with("node2 reported 104.80 Gb/s on a 25 Gb/s port (its link with node"),
        "{}",
        found[0].text
    );
    assert!(
        found[0].text.contains(", and 1 more that cannot be true: "),
        "{}",
        found[0].text
    );
}
