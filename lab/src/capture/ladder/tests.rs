use super::*;
use crate::capture;

fn addrs() -> Addrs {
    crate::model::Mode::TwoHosts
        .addrs()
        .expect("two hosts have addresses")
}

fn roce(from: &str, to: &str, what: &str, qp: u32, psn: u32) -> Packet {
    Packet {
        frame: psn,
        time: f64::from(psn) / 1000.0,
        psn: Some(psn),
        payload: b"hello\0\0\0".to_vec(),
        ..capture::tests::packet(from, to, what, qp, 0)
    }
}

#[test]
fn rc_example_reads_as_the_manual_tells_it() {
    let frames = capture::parse(include_str!("../../../tests/data/rc_example.tsv"));
    let packets = &capture::cut(&frames)[0].packets;
    let a = addrs();
    let text = text("rc_example", &rungs(packets, &a, None), &a);
    let order = [
        "|<------------------- TCP :19875 SYN -------------------|",
        "|----------------- TCP :19875 SYN/ACK ----------------->|",
        "- TCP :19875 34 B -",
        "- RC Send Only QP 0x2e PSN 0 21 B ----------->|  \"SEND operation \"",
        // A request, no payload: 21 is the length it asks for.
        "|<-- RC RDMA Read Request QP 0x13 PSN 0 (reads 21 B) ---|  va 0x",
        "--- RC RDMA Read Response Only QP 0x2e PSN 0 21 B ---->|  \"RDMA read operation \"",
        "|<------- RC RDMA Write Only QP 0x13 PSN 1 21 B --------|  va 0x",
        "TCP :19875 FIN",
    ];
    let mut at = 0;
    for want in order {
        let found = text[at..].find(want);
        assert!(
            found.is_some(),
            "`{want}` missing or out of order in\n{text}"
        );
        at += found.unwrap();
    }
    assert!(
        !text.contains("7471"),
        "the lab's control connection is not drawn"
    );
}

/// A ping-pong: the client's SEND and the server's ACK, the server's
/// SEND and the client's ACK, `n` times, from frame 1.
fn ping_pong(n: u32, a: &Addrs) -> Vec<Packet> {
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let mut ps = Vec::new();
    for i in 0..n {
        ps.push(roce(c, s, "RC Send Only", 0x20, 10 + i));
        ps.push(roce(s, c, "RC Acknowledge", 0x30, 10 + i));
        ps.push(roce(s, c, "RC Send Only", 0x30, 100 + i));
        ps.push(roce(c, s, "RC Acknowledge", 0x20, 100 + i));
    }
    for p in ps.iter_mut().filter(|p| p.what == "RC Acknowledge") {
        p.payload.clear();
    }
    for (i, p) in ps.iter_mut().enumerate() {
        p.time = i as f64 / 1000.0;
    }
    ps
}

#[test]
fn a_repeated_block_keeps_its_order_and_is_noted_once() {
    let a = addrs();
    let r = rungs(&ping_pong(10, &a), &a, None);
    let labels: Vec<&str> = r.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "RC Send Only QP 0x20 PSN 10 8 B",
            "RC Acknowledge QP 0x30 PSN 10",
            "RC Send Only QP 0x30 PSN 100 8 B",
            "RC Acknowledge QP 0x20 PSN 100",
            "the 4 arrows above, 9 more times",
        ]
    );
    let froms: Vec<_> = r.iter().map(|r| r.from).collect();
    let (s, c) = (Some(Side::Server), Some(Side::Client));
    assert_eq!(froms, [c, s, s, c, None]);
    assert_eq!((r[4].count, r[4].frames), (36, (5, 40)));
    let svg = svg(&r, &a);
    assert_eq!(
        svg.matches("<line").count(),
        2 + 4,
        "two lifelines, four arrows"
    );
}

#[test]
fn different_payloads_are_never_folded_together() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let tcp = |from: &str, to: &str, payload: &[u8]| Packet {
        kind: Kind::Tcp {
            sport: 19875,
            dport: 40000,
            syn: false,
            fin: false,
            rst: false,
            ack: true,
        },
        what: "TCP".into(),
        payload: payload.to_vec(),
        ..capture::tests::packet(from, to, "TCP", 0, 0)
    };
    // Two structs of the same size each way: conn_info, then mr_info.
    let ps = [
        tcp(s, c, b"conn_info server"),
        tcp(c, s, b"conn_info client"),
        tcp(s, c, b"mr_info at 0x1000"),
        tcp(c, s, b"mr_info at 0x2000"),
    ];
    let r = rungs(&ps, &a, None);
    assert_eq!(r.len(), 4, "{r:#?}");
    assert!(r.iter().all(|r| r.from.is_some()));
}

#[test]
fn a_message_is_one_arrow_with_its_packets_and_psns() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let mut ps = vec![roce(s, c, "RC Send First", 0x30, 500)];
    for k in 1..4 {
        ps.push(roce(s, c, "RC Send Middle", 0x30, 500 + k));
    }
    let mut ack = roce(c, s, "RC Acknowledge", 0x20, 502);
    ack.payload.clear();
    ps.push(ack);
    for k in 4..7 {
        ps.push(roce(s, c, "RC Send Middle", 0x30, 500 + k));
    }
    ps.push(roce(s, c, "RC Send Last", 0x30, 507));
    let r = rungs(&ps, &a, None);
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(
        r[0].label,
        "RC Send QP 0x30 PSN 500..507 64 B = First + 6 Middle + Last"
    );
    assert!(
        r[0].note.ends_with("1 ACK(s) back while it went"),
        "{}",
        r[0].note
    );
    assert_eq!((r[0].count, r[0].frames), (9, (1, 9)));
    // Interrupted by something else, it is drawn packet by packet.
    ps.insert(2, roce(c, s, "RC Send Only", 0x20, 9));
    let r = rungs(&ps, &a, None);
    assert_eq!(r[0].label, "RC Send First QP 0x30 PSN 500 8 B");
    assert!(r.iter().all(|r| !r.label.contains("= First")), "{r:#?}");
}

#[test]
fn a_pause_is_drawn_and_says_why() {
    let a = addrs();
    let mut ps = ping_pong(1, &a);
    for p in &mut ps[2..] {
        p.time += 3.0;
    }
    let waits = Scenario {
        pause: Some("the original waits"),
        ..Scenario::BASE
    };
    let r = rungs(&ps, &a, Some(&waits));
    assert_eq!(r[2].from, None);
    assert_eq!(r[2].label, "3.0 s pass: the original waits");
    assert_eq!(r.len(), 5);
    let r = rungs(&ps, &a, None);
    assert_eq!(r[2].label, "3.0 s pass");
}

#[test]
fn an_arp_for_another_address_is_left_out() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let arp = |info: &str| Packet {
        kind: Kind::Arp,
        what: "ARP".into(),
        info: info.into(),
        payload: Vec::new(),
        ..capture::tests::packet(s, c, "ARP", 0, 0)
    };
    let ps = [
        arp("Who has 192.0.2.99? Tell 192.0.2.1"),
        arp("Who has 192.0.2.2? Tell 192.0.2.1"),
    ];
    let r = rungs(&ps, &a, None);
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0].frames, (2, 2), "frames count what is left out");
}

#[test]
fn what_a_screen_cannot_hold_is_summed_up_with_its_frames() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    // SENDs to four QPs, ACKed irregularly: no block repeats.
    let mut ps = Vec::new();
    for i in 0..80u32 {
        ps.push(roce(c, s, "RC Send Only", 0x20 + i % 4, i));
        if i % 3 == 0 || i % 7 == 0 {
            let mut ack = roce(s, c, "RC Acknowledge", 0x30, i);
            ack.payload.clear();
            ps.push(ack);
        }
    }
    let r = rungs(&ps, &a, None);
    assert!(r.len() <= SCREEN, "{} rungs", r.len());
    let sum: Vec<&Rung> = r
        .iter()
        .filter(|r| r.label.starts_with("frames "))
        .collect();
    assert_eq!(sum.len(), 1, "{r:#?}");
    assert!(
        sum[0].label.contains("× RC Send from the client"),
        "{}",
        sum[0].label
    );
    // Counted on the packets: every one of its frames is in a count.
    let counted: usize = sum[0]
        .label
        .split(|c: char| !c.is_ascii_digit() && c != '×')
        .filter_map(|w| w.strip_suffix('×')?.parse::<usize>().ok())
        .sum();
    assert_eq!(
        counted,
        sum[0].frames.1 - sum[0].frames.0 + 1,
        "{}",
        sum[0].label
    );
    assert_eq!(r.iter().map(|r| r.count).sum::<usize>(), ps.len());
    // In time order: each arrow's frames come after the one before.
    assert!(r.windows(2).all(|w| w[0].frames.1 < w[1].frames.0));
}

/// Every arrow of rc_example's recorded ladder says what sent it, and
/// its RoCE arrows carry their decoded headers.
#[test]
fn every_rc_example_arrow_has_a_cause_and_its_headers() {
    let frames = capture::parse(include_str!("../../../tests/data/rc_example.tsv"));
    let packets = &capture::cut(&frames)[0].packets;
    let a = addrs();
    let s = crate::catalog::find("rc_example").expect("declared");
    let r = rungs(packets, &a, Some(s));
    assert!(r.len() > 15, "{}", r.len());
    for rung in &r {
        assert!(rung.cause.is_some(), "no cause for {}", rung.label);
        if rung.label.starts_with("RC ") {
            assert!(
                rung.headers.iter().any(|h| h.starts_with("BTH: opcode ")),
                "{}: {:?}",
                rung.label,
                rung.headers
            );
        }
    }
    let read = r
        .iter()
        .find(|r| r.label.starts_with("RC RDMA Read Request"))
        .unwrap();
    assert_eq!(read.cause, Some("post_send (7.1.12) with IBV_WR_RDMA_READ"));
    assert!(read
        .headers
        .iter()
        .any(|h| h.starts_with("RETH: VA 0x7faec1432000")));
    let ack = r
        .iter()
        .find(|r| r.label.starts_with("RC Acknowledge"))
        .unwrap();
    assert!(
        ack.headers
            .iter()
            .any(|h| h.starts_with("AETH: ACK, credit code")),
        "{:?}",
        ack.headers
    );
}

#[test]
fn a_read_request_shows_the_length_it_asks_for_not_a_payload() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let read = |psn: u32| Packet {
        payload: Vec::new(),
        reth: Some(capture::Reth {
            va: 0x1000,
            rkey: 7,
            len: 4096,
        }),
        ..roce(c, s, "RC RDMA Read Request", 1, psn)
    };
    let one = rungs(&[read(3)], &a, None);
    assert_eq!(
        one[0].label,
        "RC RDMA Read Request QP 0x1 PSN 3 (reads 4096 B)"
    );
    let many: Vec<Packet> = (0..12).map(read).collect();
    let folded = rungs(&many, &a, None);
    assert_eq!(
        folded[1].label,
        "the arrow above, 11 more times (PSN 1 to 11)"
    );
}

#[test]
fn a_retransmission_says_so() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let ps = [
        roce(c, s, "RC Send Only", 1, 7),
        roce(s, c, "RC Acknowledge", 2, 7),
        roce(c, s, "RC Send Only", 1, 7),
    ];
    let labels: Vec<String> = rungs(&ps, &a, None).into_iter().map(|r| r.label).collect();
    assert_eq!(labels[0], "RC Send Only QP 0x1 PSN 7 8 B");
    assert_eq!(labels[2], "RC Send Only QP 0x1 PSN 7 8 B (resent)");
    // The peer's packet with the same QP and PSN is its own.
    let peer = [
        roce(c, s, "RC Send Only", 1, 7),
        roce(s, c, "RC Send Only", 1, 7),
    ];
    assert!(rungs(&peer, &a, None)
        .iter()
        .all(|r| !r.label.contains("resent")));
}

#[test]
fn svg_text_is_escaped() {
    let a = addrs();
    let mut p = roce(&a.client_ip, &a.server_ip, "RC Send Only", 1, 1);
    p.payload = b"<b>&\"".to_vec();
    let svg = svg(&rungs(&[p], &a, None), &a);
    assert!(svg.contains("&quot;&lt;b&gt;&amp;&quot;&quot;"), "{svg}");
}

/// How many of `packets` a ladder draws (another scenario's ARP, say,
/// it leaves out): what its arrows' counts must add up to.
fn drawn(packets: &[Packet], a: &Addrs) -> usize {
    packets
        .iter()
        .filter(|p| shown(p, a, packets) && p.from(a).is_some())
        .count()
}

/// The packets a note (`the N arrows above, K more times`) stands
/// for carry nothing the block it repeats does not: a fold never
/// merges another message into the one above it.
fn folds_repeat_only_their_block(packets: &[Packet], r: &[Rung]) -> usize {
    let mut folds = 0;
    let seen = |from: usize, to: usize| -> Vec<(String, Vec<u8>)> {
        packets[from - 1..to]
            .iter()
            .map(|p| (p.what.clone(), p.payload.clone()))
            .collect()
    };
    for (i, rung) in r.iter().enumerate() {
        let Some(n) = rung
            .label
            .strip_prefix("the ")
            .and_then(|l| l.split(' ').next()?.parse::<usize>().ok())
            .or_else(|| rung.label.starts_with("the arrow above").then_some(1))
        else {
            continue;
        };
        let block = seen(r[i - n].frames.0, r[i - 1].frames.1);
        for p in seen(rung.frames.0, rung.frames.1) {
            assert!(block.contains(&p), "{} folds in {p:?}", rung.label);
        }
        folds += 1;
    }
    folds
}

/// The first 3000 frames of a two-VM run's apm pair (payloads cut to
/// 32 bytes): the client's and the server's 1 MB messages alternate
/// on the wire, and so do their arrows (the ladder once showed the
/// client's five, then the server's).
#[test]
fn apm_capture_keeps_its_alternating_messages_in_time_order() {
    let packets = capture::parse(include_str!("../../../tests/data/apm_start.tsv"));
    let a = addrs();
    let r = rungs(&packets, &a, crate::catalog::find("apm"));
    assert!(faults(&r).is_empty(), "{:?}", faults(&r));
    assert_eq!(
        r.iter().map(|r| r.count).sum::<usize>(),
        drawn(&packets, &a)
    );
    let senders: Vec<_> = r
        .iter()
        .filter(|r| r.label.starts_with("RC Send QP"))
        .map(|r| r.from)
        .collect();
    let (s, c) = (Some(Side::Server), Some(Side::Client));
    assert_eq!(senders, [c, s, c], "{r:#?}");
    folds_repeat_only_their_block(&packets, &r);
}

/// The first 1000 frames of a two-VM run's srq pair: the client's
/// messages go round its four QPs, each its own arrow in the order
/// sent (the ladder once drew them as "to 4 QPs"), and no fold merges
/// a different message into another.
#[test]
fn srq_capture_keeps_each_qps_message_in_time_order() {
    let packets = capture::parse(include_str!("../../../tests/data/srq_start.tsv"));
    let a = addrs();
    let r = rungs(&packets, &a, crate::catalog::find("srq"));
    assert!(faults(&r).is_empty(), "{:?}", faults(&r));
    assert_eq!(
        r.iter().map(|r| r.count).sum::<usize>(),
        drawn(&packets, &a)
    );
    let qps: Vec<&str> = r
        .iter()
        .filter(|r| r.from == Some(Side::Client) && r.label.starts_with("RC Send QP"))
        .filter_map(|r| r.label.split(' ').nth(3))
        .collect();
    assert!(qps.len() >= 4, "{r:#?}");
    let mut first_four = qps[..4].to_vec();
    first_four.dedup();
    assert_eq!(first_four.len(), 4, "{qps:?}");
    let firsts: Vec<u32> = packets
        .iter()
        .filter(|p| p.from(&a) == Some(Side::Client) && p.what == "RC Send First")
        .filter_map(|p| p.dest_qp)
        .take(4)
        .collect();
    let drawn: Vec<u32> = qps[..4]
        .iter()
        .filter_map(|q| u32::from_str_radix(q.trim_start_matches("0x"), 16).ok())
        .collect();
    assert_eq!(
        drawn, firsts,
        "the arrows' QPs in the order the packets went"
    );
    assert!(folds_repeat_only_their_block(&packets, &r) > 0, "{r:#?}");
}

#[test]
fn a_packet_sent_again_is_the_transports_never_the_programs_send() {
    let s = crate::catalog::find("ibv_sockets_pingpong_lost_packet").unwrap();
    let rung = |label: &str| Rung {
        time: 0.0,
        from: Some(Side::Server),
        label: label.into(),
        note: String::new(),
        count: 1,
        frames: (1, 1),
        headers: Vec::new(),
        cause: None,
    };
    let first = cause(s, &rung("RC Send Only QP 0x11 PSN 4"));
    let again = cause(s, &rung("RC Send Only QP 0x11 PSN 4 (resent)")).unwrap();
    assert!(first.is_some_and(|f| f != again), "{first:?}");
    assert!(
        again.starts_with("the server's transport, sending again"),
        "{again}"
    );
    assert!(
        again.contains("ACK timeout") && again.contains("NAK"),
        "{again}"
    );
    // A CM message sent again is its CM's, not the RC transport's.
    let cm = cause(s, &rung("CM DisconnectRequest (resent)")).unwrap();
    assert!(
        cm.starts_with("the server's CM, sending its message again"),
        "{cm}"
    );
    // A reject has a sender too: no arrow of a CM is left without one.
    let reject = cause(s, &rung("CM ConnectReject")).unwrap();
    assert!(reject.contains("CM"), "{reject}");
}

/// One resent Middle folded under the Middle above it says its own PSN:
/// "once more" alone reads as the same packet again.
#[test]
fn a_folded_arrow_says_its_own_psn() {
    let rung = |psn: u32| Rung {
        time: 0.0,
        from: Some(Side::Client),
        label: format!("RC Send Middle QP 0x1c PSN {psn} 1024 B (resent)"),
        note: String::new(),
        count: 1,
        frames: (18, 18),
        headers: Vec::new(),
        cause: None,
    };
    assert_eq!(
        repeat_rung(&[rung(2)], 1, 1).label,
        "the arrow above, once more (PSN 2)"
    );
    assert_eq!(
        repeat_rung(&[rung(2), rung(3), rung(4)], 1, 3).label,
        "the arrow above, 3 more times (PSN 2 to 4)"
    );
}
