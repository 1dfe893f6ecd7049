use super::*;
use crate::catalog;
use crate::judge::packets::check;
use crate::model::{Addrs, PacketFact, Side};

/// tshark's fields of a real two-host run of rc_example, from its
/// "begin" to its "end" control segments (`cargo xtask lab
/// --two-hosts --capture rc_example`).
const RC_EXAMPLE: &str = include_str!("../../tests/data/rc_example.tsv");

/// A RoCE packet for the tests, `len` bytes of `x`.
pub(crate) fn packet(from: &str, to: &str, what: &str, qp: u32, len: usize) -> Packet {
    Packet {
        frame: 1,
        time: 0.0,
        src: from.into(),
        dst: to.into(),
        kind: Kind::Roce,
        what: what.into(),
        info: String::new(),
        dest_qp: Some(qp),
        psn: Some(0),
        reth: None,
        imm: None,
        payload: vec![b'x'; len],
        group: None,
        local_qpn: None,
        tid: None,
        headers: Vec::new(),
    }
}

fn addrs() -> Addrs {
    crate::model::Mode::TwoHosts
        .addrs()
        .expect("two hosts have addresses")
}

fn rc_capture() -> Vec<Packet> {
    let frames = parse(RC_EXAMPLE);
    assert_eq!(
        frames.len(),
        RC_EXAMPLE.lines().count(),
        "every line parses"
    );
    let mut cut = cut(&frames);
    assert_eq!(cut.len(), 1);
    assert_eq!(cut[0].scenario, "rc_example");
    cut.remove(0).packets
}

fn facts() -> &'static [PacketFact] {
    catalog::find("rc_example").expect("declared").wire
}

#[test]
fn a_real_rc_example_capture_decodes_and_holds_its_facts() {
    let packets = rc_capture();
    assert!(packets.iter().all(|p| !p.control()), "no control frame");
    let read = packets
        .iter()
        .find(|p| p.what == "RC RDMA Read Request")
        .expect("a read");
    let reth = read.reth.expect("a RETH");
    assert_eq!(reth.len, 21);
    assert!(reth.va > u64::from(u32::MAX), "a 64-bit address");
    let send = packets.iter().find(|p| p.what == "RC Send Only").unwrap();
    assert_eq!(send.payload.len(), 21, "the pad is not payload");
    assert_eq!(send.preview(40), "SEND operation ");
    assert_eq!(check(facts(), &packets, &addrs()), Vec::<String>::new());
}

#[test]
fn each_rc_example_fact_can_fail() {
    let good = rc_capture();
    let fails = |f: &dyn Fn(&mut Vec<Packet>)| {
        let mut p = good.clone();
        f(&mut p);
        check(facts(), &p, &addrs())
    };
    let moved = fails(&|p| {
        let r = p
            .iter_mut()
            .find(|p| p.what == "RC RDMA Write Only")
            .unwrap();
        r.reth.as_mut().unwrap().va &= 0xffff_ffff;
    });
    assert!(moved.iter().any(|f| f.contains("targets")), "{moved:?}");
    let rekeyed = fails(&|p| {
        let r = p
            .iter_mut()
            .find(|p| p.what == "RC RDMA Read Request")
            .unwrap();
        r.reth.as_mut().unwrap().rkey ^= 1;
    });
    assert!(rekeyed.iter().any(|f| f.contains("rkey")), "{rekeyed:?}");
    let short = fails(&|p| {
        let s = p.iter_mut().find(|p| p.what == "RC Send Only").unwrap();
        s.payload.truncate(20);
    });
    assert!(short.iter().any(|f| f.contains("21 bytes")), "{short:?}");
    let no_write = fails(&|p| p.retain(|p| p.what != "RC RDMA Write Only"));
    assert!(no_write
        .iter()
        .any(|f| f.contains("1 `RC RDMA Write Only`")));
    let garbled = fails(&|p| {
        let s = p
            .iter_mut()
            .find(|p| p.what == "RC RDMA Read Response Only")
            .unwrap();
        s.payload[0] = b'X';
    });
    assert!(garbled.iter().any(|f| f.contains("RDMA read operation")));
    let no_advert = fails(&|p| p.retain(|p| !matches!(p.kind, Kind::Tcp { .. })));
    assert!(no_advert.iter().any(|f| f.contains("34-byte")));
}

/// A NAK and a go-back-N, as a lost packet makes them: each fact holds
/// on them and fails without them.
#[test]
fn a_nak_and_a_resend_are_facts_that_can_fail() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let send = |psn: u32| Packet {
        psn: Some(psn),
        ..packet(c, s, "RC Send Middle", 0x11, 1024)
    };
    let mut nak = packet(s, c, "RC Acknowledge", 0x22, 0);
    nak.headers = vec!["AETH: NAK: PSN sequence error, MSN 0".into()];
    let ps = vec![send(1), send(3), nak, send(2), send(3)];
    let facts = [
        PacketFact::Aeth {
            from: Side::Server,
            says: "NAK: PSN sequence error",
            n: 1,
        },
        PacketFact::Resent {
            from: Side::Client,
            what: "RC Send*",
            n: 1,
        },
    ];
    assert!(crate::judge::packets::check(&facts, &ps, &a).is_empty());
    let clean = vec![send(1), send(2), send(3)];
    let failures = crate::judge::packets::check(&facts, &clean, &a);
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(failures[0].contains("sent 0 AETH(s) saying `NAK: PSN sequence error`, expected 1"));
    assert!(failures[1].contains("sent 0 of its `RC Send*` again, expected at least 1"));
}

#[test]
fn the_other_facts_can_hold_and_fail() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let mut req = packet(c, s, "CM ConnectRequest", 1, 56);
    req.local_qpn = Some(0x18);
    req.payload[..2].copy_from_slice(&[0, 0]);
    let mut ps = vec![req];
    for i in 0..8 {
        ps.push(packet(c, s, "RC Send First", 0x30 + i % 4, 1024));
    }
    ps.push(packet(s, c, "RC Send First", 0x18, 1024));
    let mut mcast = packet(c, "239.255.1.1", "UD Send Only Immediate", 0xffffff, 100);
    mcast.imm = Some(0x13);
    ps.push(mcast);
    let facts = [
        PacketFact::Qps {
            from: Side::Client,
            what: "RC Send*",
            n: 4,
        },
        PacketFact::ToFirstConnection {
            from: Side::Server,
            what: "RC Send*",
        },
        PacketFact::PrivateData {
            from: Side::Client,
            what: "CM ConnectRequest",
            begins: &[0, 0],
        },
        PacketFact::To {
            from: Side::Client,
            what: "UD Send*",
            addr: "239.255.1.1",
        },
        PacketFact::InOrder(&[
            (Side::Client, "CM ConnectRequest"),
            (Side::Server, "RC Send First"),
        ]),
    ];
    assert_eq!(check(&facts, &ps, &a), Vec::<String>::new());
    let mut bad = ps.clone();
    bad[1].dest_qp = Some(0x99);
    bad[9].dest_qp = Some(0x31);
    bad[0].payload[1] = 7;
    bad[10].dst = "239.255.1.2".into();
    bad.swap(0, 9);
    let failures = check(&facts, &bad, &a);
    assert_eq!(failures.len(), 5, "{failures:#?}");
    let joins = [PacketFact::Joins {
        from: Side::Server,
        group: "239.255.1.1",
    }];
    assert_eq!(check(&joins, &ps, &a).len(), 1);
}

#[test]
fn a_retransmission_is_the_same_message_again() {
    let a = addrs();
    let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
    let send = |psn: u32| Packet {
        psn: Some(psn),
        ..packet(c, s, "RC Send First", 0x13, 1024)
    };
    let ack = |psn: u32| Packet {
        psn: Some(psn),
        ..packet(s, c, "RC Acknowledge", 0x14, 0)
    };
    let mut req = packet(c, s, "CM ConnectRequest", 1, 56);
    req.tid = Some(7);
    let ps = vec![req.clone(), req, send(0), send(4), send(0), ack(3), ack(3)];
    let facts = [
        PacketFact::Count {
            from: Side::Client,
            what: "RC Send First",
            n: 2,
            len: Some(1024),
        },
        PacketFact::Count {
            from: Side::Client,
            what: "CM ConnectRequest",
            n: 1,
            len: None,
        },
        PacketFact::Count {
            from: Side::Server,
            what: "RC Acknowledge",
            n: 2,
            len: None,
        },
    ];
    assert_eq!(check(&facts, &ps, &a), Vec::<String>::new());
    let mut other = ps.clone();
    other[4].psn = Some(8);
    other[1].tid = Some(8);
    assert_eq!(check(&facts, &other, &a).len(), 2);
}

#[test]
fn the_control_stream_is_cut_however_it_was_segmented() {
    let ctl = |payload: &str| Packet {
        kind: Kind::Tcp {
            sport: CONTROL_PORT,
            dport: 40000,
            syn: false,
            fin: false,
            rst: false,
            ack: true,
        },
        payload: payload.as_bytes().to_vec(),
        ..packet("192.0.2.1", "192.0.2.2", "TCP", 0, 0)
    };
    let data = |n: u32| Packet {
        frame: n,
        ..packet("192.0.2.2", "192.0.2.1", "RC Send Only", 1, 4)
    };
    let mac = "0f".repeat(32);
    let frames = vec![
        data(1),
        ctl("beg"),
        ctl("in rc_example\n"),
        data(2),
        ctl("ready rc_example\nend rc_example"),
        data(3),
        // A session line carries its MAC before the body.
        ctl(&format!("\n{mac} begin srq\n")),
        data(4),
        ctl("begin srq\n"),
        data(5),
        ctl(&format!("{mac} end srq\n")),
        data(6),
        // A name that is no scenario's (it would climb out of the run's
        // directory as a file name) starts nothing.
        ctl("begin ../../evil\n"),
        data(7),
        ctl("end ../../evil\n"),
    ];
    let cut = cut(&frames);
    let frames_of = |i: usize| cut[i].packets.iter().map(|p| p.frame).collect::<Vec<_>>();
    assert_eq!(cut.len(), 2);
    assert_eq!(
        (cut[0].scenario.as_str(), frames_of(0)),
        ("rc_example", vec![2, 3])
    );
    assert_eq!(
        (cut[1].scenario.as_str(), frames_of(1)),
        ("srq", vec![4, 5])
    );
}

#[test]
fn frames_are_copied_whole_into_a_scenario_pcap() {
    let mut pcap = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
    pcap.extend([0; 8]);
    pcap.extend(65535u32.to_le_bytes());
    pcap.extend(1u32.to_le_bytes());
    let record = |n: u8| {
        let mut r = vec![n, 0, 0, 0, 0, 0, 0, 0];
        r.extend(3u32.to_le_bytes());
        r.extend(3u32.to_le_bytes());
        r.extend([n; 3]);
        r
    };
    for n in 1..=3 {
        pcap.extend(record(n));
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("wire-test.pcap");
    write_frames(&pcap, &[1, 3], &out).unwrap();
    let written = fs::read(&out).unwrap();
    let mut want = pcap[..24].to_vec();
    want.extend(record(1));
    want.extend(record(3));
    assert_eq!(written, want);
    assert!(write_frames(b"not a pcap file at all..", &[1], &out).is_err());
}

#[test]
fn tshark_gets_a_fresh_private_config_dir_not_the_planted_one() {
    use std::os::unix::fs::PermissionsExt;
    // The fixed dir tshark was given, with a preferences file planted
    // in it (a symlink, as a local user could), unless it is there.
    let fixed = std::env::temp_dir().join("rdma-examples-no-wireshark-prefs");
    let made = fs::create_dir(&fixed).is_ok();
    let planted_prefs = tempfile::NamedTempFile::new().unwrap();
    let prefs = fixed.join("preferences");
    let planted = std::os::unix::fs::symlink(planted_prefs.path(), &prefs).is_ok();
    let dir = no_prefs_dir().unwrap();
    let other = no_prefs_dir().unwrap();
    if planted {
        let _ = fs::remove_file(&prefs);
    }
    if made {
        let _ = fs::remove_dir(&fixed);
    }
    assert_ne!(dir.path(), fixed);
    assert_ne!(dir.path(), other.path());
    assert!(!dir.path().starts_with(&fixed));
    let meta = fs::symlink_metadata(dir.path()).unwrap();
    assert!(meta.is_dir());
    assert_eq!(meta.permissions().mode() & 0o7777, 0o700);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn only_the_payload_heuristics_that_are_protocols_go_off() {
    let heuristics = "infiniband.payload\trpcordma\tT\ninfiniband.payload\tethertype\tT\ninfiniband.payload\tinfiniband.eoib\tT\ninfiniband.mad.cm.private\tnvme-rdma\tT\ntcp\thttp\tT\ninfiniband.payload\tgone\tT\n";
    let protocols = "RPC-over-RDMA\tRPCoRDMA\trpcordma\nNVMe RDMA\tNVMe RDMA\tnvme-rdma\nHTTP\tHTTP\thttp\nEthertype\tEthertype\tethertype\n";
    assert_eq!(
        payload_heuristics(heuristics, protocols),
        ["nvme-rdma", "rpcordma"]
    );
}

#[test]
fn a_leave_of_a_group_not_joined_in_this_part_is_the_run_befores() {
    let igmp = |frame: u32, info: &str| Packet {
        frame,
        kind: Kind::Igmp,
        info: info.into(),
        group: Some("239.255.0.1".into()),
        ..packet("192.0.2.1", "224.0.0.2", "IGMPv2", 0, 0)
    };
    let mut packets = vec![
        igmp(1, "Leave Group 239.255.0.1"),
        igmp(2, "Membership Report group 239.255.0.1"),
        Packet {
            frame: 3,
            ..packet("192.0.2.1", "192.0.2.2", "RC Send Only", 1, 8)
        },
        igmp(4, "Leave Group 239.255.0.1"),
    ];
    drop_leftovers(&mut packets);
    let frames: Vec<u32> = packets.iter().map(|p| p.frame).collect();
    assert_eq!(frames, [2, 3, 4]);
}
