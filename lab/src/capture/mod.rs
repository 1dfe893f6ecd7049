//! What went over the wire between the two hosts: the capture of a
//! two-host run, cut per scenario at the lab's own "begin"/"end" control
//! messages, and decoded by tshark, so that every header is read by
//! Wireshark's dissectors and none by us. The ladder ([`crate::capture::ladder`])
//! draws it; [`crate::judge::packets::check`] holds it against each scenario's declared
//! [`PacketFact`]s.

pub mod ladder;
pub mod verdict;

use crate::base::rundir::Dir;
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
            // 8 hex digits, as the manual and rdma_cm write Q_Keys.
            "DETH: Q_Key {q_key:#010x}, source QP {}",
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
            // What the two numbers are for is an exercise's question.
            h.push(format!("CM {msg}: local QPN {q:#x}, starting PSN {p}"));
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
fn no_prefs_dir() -> Result<tempfile::TempDir, crate::base::tmp::TempDirError> {
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
    let text = run_tshark(cmd, pcap, &format!("frame {frame}"))?;
    if text.is_empty() {
        return Err(format!(
            "tshark found no frame {frame} in {}",
            pcap.display()
        ));
    }
    Ok(text)
}

/// The values of `field` in each frame of `pcap` that `filter` (a
/// Wireshark display filter) matches, one per frame (its first
/// occurrence), as tshark prints them: what a handout's answer counts.
/// Fields joined by commas (`infiniband.bth.destqp,infiniband.bth.psn`)
/// give each frame's values in one line, tab-separated: a PSN keyed by
/// its QP, since two QPs' PSNs may meet.
pub fn field_values(pcap: &Path, filter: &str, field: &str) -> Result<Vec<String>, String> {
    let mut cmd = tshark()?;
    cmd.args(["-n", "-r"])
        .arg(pcap)
        .args(["-Y", filter, "-T", "fields", "-E", "occurrence=f"])
        .args(["-E", "separator=/t"]);
    for f in field.split(',') {
        cmd.args(["-e", f]);
    }
    let what = format!("-Y '{filter}' -e {}", field.replace(',', " -e "));
    Ok(run_tshark(cmd, pcap, &what)?
        .lines()
        .map(str::to_string)
        .collect())
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
    Ok(parse(&run_tshark(cmd, pcap, "")?))
}

/// Runs `cmd` (tshark on `pcap`, asked `what`) with no user's
/// preferences: its output, or one line of tshark's own complaint.
fn run_tshark(mut cmd: Command, pcap: &Path, what: &str) -> Result<String, String> {
    // Kept while tshark runs.
    let prefs = no_prefs_dir()?;
    let out = cmd
        .env("WIRESHARK_CONFIG_DIR", prefs.path())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run tshark: {e} (`cargo xtask lab --two-hosts --capture` installs it, as root)"))?;
    if !out.status.success() {
        // Without its warning about running as root.
        let why: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| !l.is_empty() && !l.contains("could be dangerous"))
            .map(str::to_string)
            .collect();
        return Err(format!(
            "tshark -r {} {what} failed: {}",
            pcap.display(),
            why.join("; ")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
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
    for c in &mut out {
        drop_leftovers(&mut c.packets);
    }
    out
}

/// Drops what another run left in a scenario's part of the capture: an
/// IGMP leave of a group before any join of it here is the kernel
/// repeating the leave of the run before (mckey's, in mc's part), which
/// this scenario never sent.
fn drop_leftovers(packets: &mut Vec<Packet>) {
    let mut joined: Vec<Option<String>> = Vec::new();
    packets.retain(|p| {
        if !matches!(p.kind, Kind::Igmp) {
            return true;
        }
        if !p.info.contains("Leave") {
            joined.push(p.group.clone());
            return true;
        }
        joined.contains(&p.group)
    });
}

/// The frames `keep` (frame numbers, ascending) of a classic pcap file,
/// as a pcap file of their own: a capture's records are copied whole,
/// nothing in them is read.
pub fn frames(pcap: &[u8], keep: &[u32]) -> Result<Vec<u8>, String> {
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
    Ok(data)
}

/// [`frames`] written to a new file at `out`.
pub fn write_frames(pcap: &[u8], keep: &[u32], out: &Path) -> Result<(), String> {
    let data = frames(pcap, keep)?;
    fs::write(out, data).map_err(|e| format!("{}: {e}", out.display()))
}

/// Decodes `dir/wire.pcap`, writes `dir/<scenario>.pcap` for each
/// scenario and returns the cut.
pub fn split(dir: &Dir) -> Result<Vec<Capture>, String> {
    let pcap = dir.join(WIRE_PCAP);
    let bytes = dir.read(WIRE_PCAP).map_err(|_| {
        format!(
            "{} is not the result dir of a two-host run with --capture (no {WIRE_PCAP})",
            dir.path().display()
        )
    })?;
    // tshark reads the recording by its path; the cut is written through
    // the dir's handle.
    let decoded = decode(&pcap)?;
    let captures = cut(&decoded);
    for c in &captures {
        let keep: Vec<u32> = c.packets.iter().map(|p| p.frame).collect();
        let name = format!("{}.pcap", c.scenario);
        dir.write(&name, frames(&bytes, &keep)?)
            .map_err(|e| format!("{}: {e}", dir.join(&name).display()))?;
    }
    Ok(captures)
}

#[cfg(test)]
pub(crate) mod tests;
