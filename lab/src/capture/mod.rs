//! What went over the wire between the two hosts: the capture of a
//! two-host run, cut per scenario at the lab's own "begin"/"end" control
//! messages, and decoded by tshark, so that every header is read by
//! Wireshark's dissectors and none by us. The ladder ([`crate::capture::ladder`])
//! draws it; [`crate::judge::packets::check`] holds it against each scenario's declared
//! [`Wire`] facts.

pub mod ladder;
pub mod verdict;

use crate::model::{Kind, Packet, Reth, CONTROL_PORT};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// The capture of a whole two-host run, in its result dir.
pub const WIRE_PCAP: &str = "wire.pcap";

/// The fields asked of tshark, in the order [`parse`] reads them.
pub const FIELDS: &[&str] = &[
    "frame.number",
    "frame.time_relative",
    "ip.src",
    "ip.dst",
    "arp.src.proto_ipv4",
    "arp.dst.proto_ipv4",
    "tcp.srcport",
    "tcp.dstport",
    "tcp.flags.syn",
    "tcp.flags.fin",
    "tcp.flags.reset",
    "tcp.flags.ack",
    "tcp.payload",
    "_ws.col.Protocol",
    "_ws.col.Info",
    "infiniband.bth.destqp",
    "infiniband.bth.psn",
    "infiniband.bth.padcnt",
    "infiniband.reth.va",
    "infiniband.reth.r_key",
    "infiniband.reth.dmalen",
    "infiniband.immdt",
    "data.data",
    "infiniband.mad.transactionid",
    "infiniband.cm.req.localqpn",
    "infiniband.cm.req.ip_cm.private",
    "infiniband.cm.rep.private",
    "infiniband.cm.rtu.private",
    "infiniband.cm.dreq.private",
    "igmp.maddr",
    // The headers of the ladder's anatomy. A recording made before these
    // were asked for lacks them: they are read as empty.
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.a",
    "infiniband.bth.p_key",
    "infiniband.aeth.syndrome.opcode",
    "infiniband.aeth.syndrome.credit_count",
    "infiniband.aeth.syndrome.timer",
    "infiniband.aeth.syndrome.error_code",
    "infiniband.aeth.msn",
    "infiniband.deth.q_key",
    "infiniband.deth.srcqp",
    "udp.srcport",
    "ip.ttl",
    "ip.dsfield.dscp",
    "infiniband.cm.req.startpsn",
    "infiniband.cm.rep.localqpn",
    "infiniband.cm.rep.startpsn",
];

/// How many of [`FIELDS`] a line must have: those asked for from the
/// start (the anatomy's came later).
const FIELDS_REQUIRED: usize = 30;

fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s
        .bytes()
        .filter(u8::is_ascii_hexdigit)
        .map(|c| (c as char).to_digit(16).unwrap_or(0) as u8)
        .collect();
    digits
        .chunks(2)
        .map(|p| (p[0] << 4) | p.get(1).unwrap_or(&0))
        .collect()
}

fn number(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Reads `tshark -T fields` output with [`FIELDS`], one frame a line.
pub fn parse(text: &str) -> Vec<Packet> {
    text.lines().filter_map(parse_line).collect()
}

/// One frame's line of [`FIELDS`], tab-separated, as a packet; `None`
/// when it lacks fields or its frame number.
fn parse_line(line: &str) -> Option<Packet> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() < FIELDS_REQUIRED {
        return None;
    }
    let get = |name: &str| {
        let i = FIELDS
            .iter()
            .position(|x| *x == name)
            .expect("a known field");
        f.get(i).copied().unwrap_or("")
    };
    let num = |name: &str| number(get(name));
    let proto = get("_ws.col.Protocol");
    let info = get("_ws.col.Info").trim().to_string();
    let kind = frame_kind(&get, proto);
    let what = frame_what(&kind, &info, proto);
    let headers = headers(&get, &what);
    let payload = frame_payload(&get, &kind);
    let (src, dst) = match kind {
        Kind::Arp => (get("arp.src.proto_ipv4"), get("arp.dst.proto_ipv4")),
        _ => (get("ip.src"), get("ip.dst")),
    };
    let reth = num("infiniband.reth.va").map(|va| Reth {
        va,
        rkey: num("infiniband.reth.r_key").unwrap_or(0) as u32,
        len: num("infiniband.reth.dmalen").unwrap_or(0) as u32,
    });
    let imm = Some(hex(get("infiniband.immdt")))
        .filter(|b| b.len() == 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    Some(Packet {
        frame: num("frame.number")? as u32,
        time: get("frame.time_relative").trim().parse().unwrap_or(0.0),
        src: src.to_string(),
        dst: dst.to_string(),
        kind,
        what,
        info,
        dest_qp: num("infiniband.bth.destqp").map(|v| v as u32),
        psn: num("infiniband.bth.psn").map(|v| v as u32),
        reth,
        imm,
        payload,
        group: Some(get("igmp.maddr").to_string()).filter(|g| !g.is_empty()),
        local_qpn: num("infiniband.cm.req.localqpn").map(|v| v as u32),
        tid: num("infiniband.mad.transactionid"),
        headers,
    })
}

/// Whether a flag field is set (tshark prints `1` or `True`).
fn set(v: &str) -> bool {
    matches!(v, "1" | "True" | "true")
}

/// A RoCE packet's headers in words, outermost first: how the GRH's
/// fields ride in IPv4 and UDP on RoCE v2, the BTH, and each extended
/// header it has. Empty for a packet that is not RoCE.
fn headers<'a>(get: &impl Fn(&str) -> &'a str, what: &str) -> Vec<String> {
    let num = |name: &str| number(get(name));
    let Some(psn) = num("infiniband.bth.psn") else {
        return Vec::new();
    };
    // A recording made before the anatomy's fields were asked for.
    if get("infiniband.bth.opcode").is_empty() {
        return Vec::new();
    }
    // A CM message is a management datagram (MAD) in a UD SEND to QP 1.
    let opcode = match what.strip_prefix("CM ") {
        Some(msg) => format!("UD Send Only, carrying the MAD of a CM {msg}"),
        None => what.to_string(),
    };
    let mut h = vec![
        format!(
            "IPv4: TTL {}, DSCP {} (the GRH's hop limit and traffic class; RoCE v2 sends no GRH)",
            get("ip.ttl"),
            get("ip.dsfield.dscp")
        ),
        format!(
            "UDP: source port {} (per QP, for ECMP), destination port 4791",
            get("udp.srcport")
        ),
        format!(
            "BTH: opcode {} ({opcode}), SE {}, A {}, pad {} B, P_Key {}, dest QP {}, PSN {psn}",
            get("infiniband.bth.opcode"),
            u8::from(set(get("infiniband.bth.se"))),
            u8::from(set(get("infiniband.bth.a"))),
            get("infiniband.bth.padcnt"),
            get("infiniband.bth.p_key"),
            get("infiniband.bth.destqp"),
        ),
    ];
    if let Some(va) = num("infiniband.reth.va") {
        h.push(format!(
            "RETH: VA {va:#x}, R_Key {}, DMA length {}",
            get("infiniband.reth.r_key"),
            get("infiniband.reth.dmalen")
        ));
    }
    if let Some(msn) = num("infiniband.aeth.msn") {
        h.push(format!("AETH: {}, MSN {msn}", syndrome(get)));
    }
    if let Some(q_key) = num("infiniband.deth.q_key") {
        h.push(format!(
            "DETH: Q_Key {q_key:#x}, source QP {}",
            get("infiniband.deth.srcqp")
        ));
    }
    if !get("infiniband.immdt").is_empty() {
        h.push(format!("ImmDt: {}", get("infiniband.immdt")));
    }
    for (msg, qpn, start) in [
        (
            "REQ",
            "infiniband.cm.req.localqpn",
            "infiniband.cm.req.startpsn",
        ),
        (
            "REP",
            "infiniband.cm.rep.localqpn",
            "infiniband.cm.rep.startpsn",
        ),
    ] {
        if let (Some(q), Some(p)) = (num(qpn), num(start)) {
            h.push(format!(
                "CM {msg}: local QPN {q:#x}, starting PSN {p}: the destination QP and the first \
                 PSN of the packets that come to this side"
            ));
        }
    }
    h
}

/// An AETH's syndrome in words: an ACK and its credit code, an RNR NAK and
/// its timer, or a NAK and its error.
fn syndrome<'a>(get: &impl Fn(&str) -> &'a str) -> String {
    let code = |name: &str| number(get(name)).unwrap_or(0);
    match code("infiniband.aeth.syndrome.opcode") {
        0 => format!(
            "ACK, credit code {}",
            code("infiniband.aeth.syndrome.credit_count")
        ),
        1 => format!(
            "RNR NAK (the receiver had no receive posted), timer code {}",
            code("infiniband.aeth.syndrome.timer")
        ),
        3 => {
            let error = match code("infiniband.aeth.syndrome.error_code") {
                0 => "PSN sequence error",
                1 => "invalid request",
                2 => "remote access error",
                3 => "remote operational error",
                4 => "invalid RD request",
                _ => "reserved error code",
            };
            format!("NAK: {error}")
        }
        other => format!("reserved syndrome opcode {other}"),
    }
}

/// A frame's kind, from its protocol column `proto` and its fields
/// (`get` gives one by name).
fn frame_kind<'a>(get: &impl Fn(&str) -> &'a str, proto: &str) -> Kind {
    let num = |name: &str| number(get(name));
    let flag = |name: &str| matches!(get(name), "1" | "True" | "true");
    if proto == "RRoCE" || proto == "RoCE" || !get("infiniband.bth.psn").is_empty() {
        Kind::Roce
    } else if let (Some(s), Some(d)) = (num("tcp.srcport"), num("tcp.dstport")) {
        Kind::Tcp {
            sport: s as u16,
            dport: d as u16,
            syn: flag("tcp.flags.syn"),
            ack: flag("tcp.flags.ack"),
            fin: flag("tcp.flags.fin"),
            rst: flag("tcp.flags.reset"),
        }
    } else if proto == "ARP" {
        Kind::Arp
    } else if proto.starts_with("IGMP") {
        Kind::Igmp
    } else {
        Kind::Other
    }
}

/// What a frame of `kind` is, in short: a RoCE packet's opcode or CM
/// message (from tshark's `info`), TCP, or its protocol `proto`.
fn frame_what(kind: &Kind, info: &str, proto: &str) -> String {
    match kind {
        Kind::Roce => match info.strip_prefix("CM: ") {
            Some(cm) => format!("CM {}", cm.split_whitespace().next().unwrap_or(cm)),
            None => info.split(" QP=").next().unwrap_or(info).trim().to_string(),
        },
        Kind::Tcp { .. } => "TCP".to_string(),
        _ => proto.to_string(),
    }
}

/// A frame's payload: a CM message's private data, a RoCE packet's data
/// without its pad, a TCP segment's; none for the rest.
fn frame_payload<'a>(get: &impl Fn(&str) -> &'a str, kind: &Kind) -> Vec<u8> {
    match kind {
        Kind::Roce => {
            let cm = [
                "infiniband.cm.req.ip_cm.private",
                "infiniband.cm.rep.private",
                "infiniband.cm.rtu.private",
                "infiniband.cm.dreq.private",
            ]
            .iter()
            .map(|n| get(n))
            .find(|v| !v.is_empty());
            match cm {
                Some(p) => hex(p),
                None => {
                    let mut d = hex(get("data.data"));
                    let pad = number(get("infiniband.bth.padcnt")).unwrap_or(0) as usize;
                    d.truncate(d.len().saturating_sub(pad));
                    d
                }
            }
        }
        Kind::Tcp { .. } => hex(get("tcp.payload")),
        _ => Vec::new(),
    }
}

/// The protocols whose heuristic dissectors tshark would try on an
/// InfiniBand payload or a CM message's private data (`tshark -G
/// heuristic-decodes`), that are protocols it can turn off (`tshark -G
/// protocols`): they take the examples' bytes for RPC-over-RDMA, NVMe or
/// SMB Direct (srq's 100000-byte messages become "reassembled RPCoRDMA
/// fragments"). Ethernet's own (`ethertype`) and InfiniBand's stay on.
pub fn payload_heuristics(heuristics: &str, protocols: &str) -> Vec<String> {
    let known: Vec<&str> = protocols
        .lines()
        .filter_map(|l| l.split('\t').nth(2))
        .collect();
    let mut v: Vec<String> = heuristics
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            let table = f.next()?;
            let name = f.next()?;
            (table.starts_with("infiniband.")
                && name != "ethertype"
                && !name.starts_with("infiniband")
                && known.contains(&name))
            .then(|| name.to_string())
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// An empty configuration dir for tshark, so that it reads no user's
/// preferences: fresh and private (0700) for each run. A fixed dir in the
/// world-writable temporary dir could hold a preferences file any local
/// user put there for root's tshark.
fn no_prefs_dir() -> Result<tempfile::TempDir, String> {
    crate::base::tmp::private_tempdir("rdma-examples-no-wireshark-prefs-", "tshark")
}

fn tshark_listing(what: &str) -> Result<String, String> {
    Command::new("tshark")
        .args(["-G", what])
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .map_err(|e| format!("cannot run tshark: {e} (`cargo xtask lab --two-hosts --capture` installs it, as root)"))
}

/// tshark as the lab runs it: the payload heuristics off (see
/// [`payload_heuristics`]).
fn tshark() -> Result<Command, String> {
    let off = payload_heuristics(
        &tshark_listing("heuristic-decodes")?,
        &tshark_listing("protocols")?,
    );
    let mut cmd = Command::new("tshark");
    for p in off {
        cmd.args(["--disable-protocol", &p]);
    }
    Ok(cmd)
}

/// One frame of a capture, every header expanded field by field, then
/// its bytes: what the handout shows of one packet of each header type.
pub fn expand_frame(pcap: &Path, frame: usize) -> Result<String, String> {
    let mut cmd = tshark()?;
    cmd.args(["-n", "-r"])
        .arg(pcap)
        .args(["-Y", &format!("frame.number == {frame}"), "-V", "-x"]);
    let prefs = no_prefs_dir()?;
    let out = cmd
        .env("WIRESHARK_CONFIG_DIR", prefs.path())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run tshark: {e}"))?;
    if !out.status.success() || out.stdout.is_empty() {
        return Err(format!(
            "tshark found no frame {frame} in {}",
            pcap.display()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Decodes a capture with tshark.
pub fn decode(pcap: &Path) -> Result<Vec<Packet>, String> {
    let mut cmd = tshark()?;
    // No name resolution, no user preferences: the same fields on every
    // machine.
    cmd.args(["-n", "-r"]).arg(pcap).args([
        "-T",
        "fields",
        "-E",
        "occurrence=f",
        "-E",
        "separator=/t",
    ]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    // Kept while tshark runs.
    let prefs = no_prefs_dir()?;
    let out = cmd
        .env("WIRESHARK_CONFIG_DIR", prefs.path())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run tshark: {e} (`cargo xtask lab --two-hosts --capture` installs it, as root)"))?;
    if !out.status.success() {
        // One line: tshark's own complaint, without its warning about
        // running as root.
        let why: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| !l.is_empty() && !l.contains("could be dangerous"))
            .map(str::to_string)
            .collect();
        return Err(format!(
            "tshark -r {} failed: {}",
            pcap.display(),
            why.join("; ")
        ));
    }
    Ok(parse(&String::from_utf8_lossy(&out.stdout)))
}

/// One scenario's share of the capture.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// The scenario.
    pub scenario: String,
    /// Its frames in order, the lab's control connection left out, times
    /// counted from the scenario's "begin".
    pub packets: Vec<Packet>,
}

/// Cuts a run's frames per scenario: a scenario's frames are those between
/// the control segments that complete its "begin" and "end" lines (the
/// server agent's stream is put back together, however it was segmented).
pub fn cut(frames: &[Packet]) -> Vec<Capture> {
    let mut out: Vec<Capture> = Vec::new();
    let mut current: Option<(usize, f64)> = None;
    let mut stream: Vec<u8> = Vec::new();
    for p in frames {
        if p.control() {
            if !matches!(
                p.kind,
                Kind::Tcp {
                    sport: CONTROL_PORT,
                    ..
                }
            ) {
                continue;
            }
            stream.extend_from_slice(&p.payload);
            while let Some(nl) = stream.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = stream.drain(..=nl).collect();
                let line = String::from_utf8_lossy(&line[..nl]).into_owned();
                // The names become file names: only the table's are taken.
                let line = crate::model::session::body_of(&line);
                let known = |name: &str| crate::catalog::find(name).is_some();
                if let Some(name) = line.strip_prefix("begin ").filter(|n| known(n)) {
                    // A retransmitted "begin" starts nothing new.
                    if !out.iter().any(|c| c.scenario == name) {
                        out.push(Capture {
                            scenario: name.to_string(),
                            packets: Vec::new(),
                        });
                        current = Some((out.len() - 1, p.time));
                    }
                } else if let Some(name) = line.strip_prefix("end ") {
                    if current.is_some_and(|(i, _)| out[i].scenario == name) {
                        current = None;
                    }
                }
            }
            // A control line is short: a stream without newlines is no lab's.
            if stream.len() > crate::model::session::LINE_MAX {
                stream.clear();
            }
            continue;
        }
        if let Some((i, t0)) = current {
            let mut p = p.clone();
            p.time -= t0;
            out[i].packets.push(p);
        }
    }
    out
}

/// Writes the frames `keep` (frame numbers, ascending) of a classic pcap
/// file to `out`: a capture's records are copied whole, nothing in them is
/// read.
pub fn write_frames(pcap: &[u8], keep: &[u32], out: &Path) -> Result<(), String> {
    const HEADER: usize = 24;
    if pcap.len() < HEADER {
        return Err("the capture has no pcap header".into());
    }
    let le = match pcap[..4] {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
        _ => return Err("the capture is not a pcap file".into()),
    };
    let u32_at = |i: usize| {
        let b = [pcap[i], pcap[i + 1], pcap[i + 2], pcap[i + 3]];
        if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    let mut data = pcap[..HEADER].to_vec();
    let (mut at, mut frame, mut want) = (HEADER, 1u32, keep.iter().peekable());
    while at + 16 <= pcap.len() && want.peek().is_some() {
        let end = at + 16 + u32_at(at + 8) as usize;
        if end > pcap.len() {
            break;
        }
        if want.peek() == Some(&&frame) {
            data.extend_from_slice(&pcap[at..end]);
            want.next();
        }
        at = end;
        frame += 1;
    }
    fs::write(out, data).map_err(|e| format!("{}: {e}", out.display()))
}

/// Decodes `dir/wire.pcap`, writes `dir/<scenario>.pcap` for each
/// scenario and returns the cut.
pub fn split(dir: &Path) -> Result<Vec<Capture>, String> {
    let pcap = dir.join(WIRE_PCAP);
    if !pcap.is_file() {
        return Err(format!(
            "{} is not the result dir of a two-host run with --capture (no {WIRE_PCAP})",
            dir.display()
        ));
    }
    let frames = decode(&pcap)?;
    let captures = cut(&frames);
    let bytes = fs::read(&pcap).map_err(|e| format!("{}: {e}", pcap.display()))?;
    for c in &captures {
        let keep: Vec<u32> = c.packets.iter().map(|p| p.frame).collect();
        write_frames(&bytes, &keep, &dir.join(format!("{}.pcap", c.scenario)))?;
    }
    Ok(captures)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::catalog;
    use crate::judge::packets::check;
    use crate::model::{Addrs, Side, Wire};

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

    fn facts() -> &'static [Wire] {
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
            Wire::Aeth {
                from: Side::Server,
                says: "NAK: PSN sequence error",
                n: 1,
            },
            Wire::Resent {
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
            Wire::Qps {
                from: Side::Client,
                what: "RC Send*",
                n: 4,
            },
            Wire::ToFirstConnection {
                from: Side::Server,
                what: "RC Send*",
            },
            Wire::PrivateData {
                from: Side::Client,
                what: "CM ConnectRequest",
                begins: &[0, 0],
            },
            Wire::To {
                from: Side::Client,
                what: "UD Send*",
                addr: "239.255.1.1",
            },
            Wire::InOrder(&[
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
        let joins = [Wire::Joins {
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
            Wire::Count {
                from: Side::Client,
                what: "RC Send First",
                n: 2,
                len: Some(1024),
            },
            Wire::Count {
                from: Side::Client,
                what: "CM ConnectRequest",
                n: 1,
                len: None,
            },
            Wire::Count {
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
}
