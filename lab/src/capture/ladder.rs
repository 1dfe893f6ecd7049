//! The packet ladder: a scenario's packets between its two hosts, one arrow
//! a packet in time order, long runs folded into one arrow with a count,
//! drawn as text (after the lab's transcripts) and as SVG (in the handout).

use crate::model::{Addrs, Kind, Packet, Side};

/// One arrow of the ladder: a packet, or a run of alike packets; or a note
/// that the arrows above repeat.
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    /// Seconds since the scenario began, of the first packet.
    pub time: f64,
    /// The sender; `None` for a note.
    pub from: Option<Side>,
    /// Protocol and opcode, destination QP and PSN, length; `×N` for a run.
    pub label: String,
    /// What it carries: a payload preview, an RDMA target, a group.
    pub note: String,
    /// How many packets it stands for.
    pub count: usize,
}

/// The packets a student needs to see: the examples' own traffic (RoCE,
/// their TCP side channel but bare ACKs, ARP and IGMP for address
/// resolution and group joins), not IPv6 housekeeping.
fn shown(p: &Packet) -> bool {
    match p.kind {
        Kind::Other => false,
        Kind::Tcp { .. } => !p.bare_ack(),
        _ => true,
    }
}

/// What kind of packet it is, without what differs between alike ones
/// (PSN, length): the key of a run.
fn kind_of(p: &Packet) -> String {
    match p.kind {
        Kind::Tcp {
            sport,
            dport,
            syn,
            fin,
            rst,
            ack,
        } => {
            let flag = if syn && ack {
                " SYN/ACK"
            } else if syn {
                " SYN"
            } else if rst {
                " RST"
            } else if fin && p.payload.is_empty() {
                " FIN"
            } else {
                ""
            };
            format!("TCP :{}{flag}", sport.min(dport))
        }
        Kind::Igmp => {
            let verb = if p.info.contains("Leave") {
                "leave"
            } else {
                "join"
            };
            format!("IGMP {verb} {}", p.group.as_deref().unwrap_or("?"))
        }
        _ => p.what.clone(),
    }
}

fn label(p: &Packet) -> String {
    let mut l = kind_of(p);
    if !p.what.starts_with("CM ") {
        if let Some(qp) = p.dest_qp {
            l += &format!(" QP {qp:#x}");
        }
        if let Some(psn) = p.psn {
            l += &format!(" PSN {psn}");
        }
    }
    let len = p.message_len();
    if reads(p) {
        l += &format!(" (reads {len} B)");
    } else if len > 0 {
        l += &format!(" {len} B");
    }
    l
}

/// An RDMA Read Request: it carries no payload, only the RETH's DMA
/// length, the bytes it asks the responder to send back.
fn reads(p: &Packet) -> bool {
    p.what.ends_with("RDMA Read Request")
}

fn note(p: &Packet, addrs: &Addrs) -> String {
    let mut n = Vec::new();
    if let Some(r) = p.reth {
        n.push(format!("va {:#x} rkey {:#x}", r.va, r.rkey));
    }
    if let Some(imm) = p.imm {
        n.push(format!("imm {imm:#x}"));
    }
    if p.kind == Kind::Arp {
        n.push(p.info.clone());
    } else if p.dst != addrs.server_ip && p.dst != addrs.client_ip && !p.dst.is_empty() {
        n.push(format!("to {}", p.dst));
    }
    let text = p.preview(24);
    if text.contains(' ')
        && text
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == ' ' || c == '…')
    {
        n.push(text);
    } else if !text.is_empty() && text.chars().any(|c| c != '.') {
        n.push(format!("\"{text}\""));
    }
    n.join(", ")
}

fn single(p: &Packet, addrs: &Addrs) -> Rung {
    Rung {
        time: p.time,
        from: p.from(addrs),
        label: label(p),
        note: note(p, addrs),
        count: 1,
    }
}

/// How many kinds of packet a folded run may mix (a ping-pong of
/// messages longer than the MTU: a SEND's First, Middle and Last packets
/// and an ACK, each way).
const RUN_KINDS: usize = 8;
/// A run shorter than this is drawn packet by packet.
const RUN_MIN: usize = 10;
/// How often a run's first kind must come in it.
const RUN_REPEATS: usize = 5;
/// The longest block of arrows whose repetition is folded.
const BLOCK_MAX: usize = 12;

/// How many rungs a pair's ladder may have: a screen's worth.
pub const SCREEN: usize = 40;

/// A pause this long (seconds) ends a run: what comes after it is the next
/// step of the program, not more of the same.
const RUN_PAUSE: f64 = 0.5;

/// The rungs of a scenario's packets: each packet that stands alone, and
/// each long run of up to eight kinds of packet that repeat (srq's
/// hundreds of SENDs, a ping-pong's iterations) as one rung per kind with
/// its count; then a block of rungs that comes again and again (apm's
/// round trips) is drawn once, with a note of how often it repeats.
pub fn rungs(packets: &[Packet], addrs: &Addrs) -> Vec<Rung> {
    let ps: Vec<&Packet> = packets
        .iter()
        .filter(|p| shown(p) && p.from(addrs).is_some())
        .collect();
    let key = |p: &Packet| (p.from(addrs), kind_of(p));
    // A retransmission (an RC packet's QP and PSN again, a CM retry) is
    // drawn, and said to be one.
    let resent = crate::judge::wire::resent(&ps);
    let mut out = Vec::new();
    let mut i = 0;
    while i < ps.len() {
        let (end, mut kinds) = run_extent(&ps, i, &key);
        let first = key(ps[i]);
        let repeats = ps[i..end].iter().filter(|p| key(p) == first).count();
        let j = trim_run(&ps, i, end, &mut kinds, &key);
        if j - i < RUN_MIN || repeats < RUN_REPEATS {
            let mut r = single(ps[i], addrs);
            if resent[i] {
                r.label += " (resent)";
            }
            out.push(r);
            i += 1;
            continue;
        }
        for k in kinds {
            let members: Vec<usize> = (i..j).filter(|&x| key(ps[x]) == k).collect();
            let run: Vec<&Packet> = members.iter().map(|&x| ps[x]).collect();
            let again = members.iter().filter(|&&x| resent[x]).count();
            out.push(kind_rung(&k, &run, again, addrs));
        }
        i = j;
    }
    fold_blocks(out)
}

/// Where the run that starts at `ps[i]` ends (exclusive), and its kinds in
/// order: at a pause, or at a kind beyond the [`RUN_KINDS`] it may mix.
fn run_extent(
    ps: &[&Packet],
    i: usize,
    key: &impl Fn(&Packet) -> (Option<Side>, String),
) -> (usize, Vec<(Option<Side>, String)>) {
    let mut kinds = Vec::new();
    let mut j = i;
    while j < ps.len() {
        if j > i && ps[j].time - ps[j - 1].time > RUN_PAUSE {
            break;
        }
        let k = key(ps[j]);
        if !kinds.contains(&k) {
            if kinds.len() == RUN_KINDS {
                break;
            }
            kinds.push(k);
        }
        j += 1;
    }
    (j, kinds)
}

/// Where the run `ps[i..end]` really ends, its `kinds` kept to those in
/// it: with the last packet of a kind that repeats in it, for what merely
/// follows it (a disconnect) is drawn on its own. But what closes a
/// message in the run stays in it: its Last packet, and the ACKs that
/// follow at once.
fn trim_run(
    ps: &[&Packet],
    i: usize,
    end: usize,
    kinds: &mut Vec<(Option<Side>, String)>,
    key: &impl Fn(&Packet) -> (Option<Side>, String),
) -> usize {
    let count = |k: &(Option<Side>, String)| ps[i..end].iter().filter(|p| key(p) == *k).count();
    let Some(last) = (i..end).rev().find(|&x| count(&key(ps[x])) >= RUN_REPEATS) else {
        return end;
    };
    let mut j = last + 1;
    kinds.retain(|k| ps[i..j].iter().any(|p| key(p) == *k));
    while j < end {
        let k = key(ps[j]);
        let closes = k.1.ends_with(" Last") || k.1.ends_with("Acknowledge");
        if !kinds.contains(&k) && !closes {
            break;
        }
        if !kinds.contains(&k) {
            kinds.push(k);
        }
        j += 1;
    }
    j
}

/// The rung of one kind `k` of a run: its packets `run` (`again` of them
/// resent) with their count, QPs and bytes; a lone packet as itself.
fn kind_rung(k: &(Option<Side>, String), run: &[&Packet], again: usize, addrs: &Addrs) -> Rung {
    if let [p] = run {
        let mut r = single(p, addrs);
        if again > 0 {
            r.label += " (resent)";
        }
        return r;
    }
    let mut qps: Vec<u32> = run.iter().filter_map(|p| p.dest_qp).collect();
    qps.sort_unstable();
    qps.dedup();
    let mut label = format!("{} ×{}", k.1, run.len());
    match qps.as_slice() {
        [] => {}
        [qp] => label += &format!(" QP {qp:#x}"),
        many => label += &format!(" to {} QPs", many.len()),
    }
    let mut lens: Vec<usize> = run.iter().map(|p| p.message_len()).collect();
    lens.sort_unstable();
    lens.dedup();
    match lens.as_slice() {
        [0] => {}
        [len] if reads(run[0]) => label += &format!(" (reads {len} B each)"),
        _ if reads(run[0]) => {
            label += &format!(
                " (reads {} B in all)",
                run.iter().map(|p| p.message_len()).sum::<usize>()
            )
        }
        [len] => label += &format!(" {len} B each"),
        _ => {
            label += &format!(
                " {} B in all",
                run.iter().map(|p| p.message_len()).sum::<usize>()
            )
        }
    }
    if again > 0 {
        label += &format!(" ({again} resent)");
    }
    Rung {
        time: run[0].time,
        from: k.0,
        label,
        note: note(run[0], addrs),
        count: run.len(),
    }
}

/// A rung's shape: what makes two rungs alike, PSNs aside.
fn shape(r: &Rung) -> (Option<Side>, String) {
    let words: Vec<&str> = r.label.split(' ').collect();
    let mut kept = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        if *w == "PSN" {
            it.next();
        } else {
            kept.push(*w);
        }
    }
    (r.from, kept.join(" "))
}

fn fold_blocks(rungs: Vec<Rung>) -> Vec<Rung> {
    let shapes: Vec<_> = rungs.iter().map(shape).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < rungs.len() {
        let folded = (1..=BLOCK_MAX).find_map(|k| {
            let same = |a: usize| a + k <= shapes.len() && shapes[a..a + k] == shapes[i..i + k];
            let mut reps = 1;
            while same(i + reps * k) {
                reps += 1;
            }
            (reps > 1 && i + k <= shapes.len()).then_some((k, reps))
        });
        match folded {
            Some((k, reps)) => {
                out.extend_from_slice(&rungs[i..i + k]);
                let again = reps - 1;
                let arrows = if k == 1 {
                    "the arrow above".to_string()
                } else {
                    format!("the {k} arrows above")
                };
                let times = if again == 1 {
                    "once more".to_string()
                } else {
                    format!("{again} more times")
                };
                out.push(Rung {
                    time: rungs[i + k].time,
                    from: None,
                    label: format!("{arrows}, {times}"),
                    note: String::new(),
                    count: (i + k..i + reps * k).map(|r| rungs[r].count).sum(),
                });
                i += reps * k;
            }
            None => {
                out.push(rungs[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// The ladder as text: the server's column on the left, the client's on
/// the right.
pub fn text(title: &str, rungs: &[Rung], addrs: &Addrs) -> String {
    let width = rungs
        .iter()
        .map(|r| r.label.chars().count() + 8)
        .max()
        .unwrap_or(40)
        .max(40);
    let server = format!("server {}", addrs.server_ip);
    let client = format!("client {}", addrs.client_ip);
    let mut s = format!("--- {title}: on the wire ---\n");
    s += &format!(
        "{:>8}  {server:<w$}{client}\n",
        "time",
        w = width + 2 - client.len().min(width) / 2
    );
    for r in rungs {
        let label = format!(" {} ", r.label);
        let fill = width.saturating_sub(label.chars().count() + 1);
        let (left, right) = (fill / 2, fill - fill / 2);
        let arrow = match r.from {
            Some(Side::Server) => format!("{}{label}{}>", "-".repeat(left), "-".repeat(right)),
            Some(Side::Client) => format!("<{}{label}{}", "-".repeat(left), "-".repeat(right)),
            None => format!(" {}({}){} ", " ".repeat(left), r.label, " ".repeat(right)),
        };
        let line = format!("{:>8.3}  |{arrow}|  {}", r.time, r.note);
        s += line.trim_end();
        s.push('\n');
    }
    s
}

/// `s` as HTML or SVG text.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The ladder as a standalone SVG picture.
pub fn svg(rungs: &[Rung], addrs: &Addrs) -> String {
    const ROW: usize = 26;
    const TOP: usize = 50;
    let (x_server, x_client) = (110usize, 560usize);
    let width = 1000;
    let height = TOP + ROW * rungs.len() + 20;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ladder\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"12\">\n\
<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\"/></marker></defs>\n"
    );
    for (x, name) in [
        (x_server, format!("server {}", addrs.server_ip)),
        (x_client, format!("client {}", addrs.client_ip)),
    ] {
        s += &format!(
            "<text x=\"{x}\" y=\"20\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>\n<line x1=\"{x}\" y1=\"30\" x2=\"{x}\" y2=\"{}\" stroke=\"#444\" stroke-width=\"2\"/>\n",
            escape(&name),
            height - 10
        );
    }
    for (i, r) in rungs.iter().enumerate() {
        let y = TOP + ROW * i + 10;
        let (x1, x2) = match r.from {
            Some(Side::Server) => (x_server, x_client),
            Some(Side::Client) => (x_client, x_server),
            None => {
                s += &format!(
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-style=\"italic\" fill=\"#666\">({})</text>\n",
                    (x_server + x_client) / 2,
                    y + 4,
                    escape(&r.label)
                );
                continue;
            }
        };
        let colour = match r.label.split_whitespace().next() {
            Some("CM") => "#7a3e9d",
            Some("TCP") => "#2a7a2a",
            Some("ARP") | Some("IGMPv2") | Some("IGMPv3") => "#888888",
            _ => "#1f4e9c",
        };
        let width = if r.count > 1 { 3 } else { 1 };
        s += &format!(
            "<text x=\"4\" y=\"{}\" fill=\"#666\">{:.3}</text>\n<line x1=\"{x1}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\" stroke=\"{colour}\" stroke-width=\"{width}\" marker-end=\"url(#arrow)\"/>\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{colour}\">{}</text>\n",
            y + 4,
            r.time,
            (x_server + x_client) / 2,
            y - 4,
            escape(&r.label)
        );
        if !r.note.is_empty() {
            s += &format!(
                "<text x=\"{}\" y=\"{}\" fill=\"#333\">{}</text>\n",
                x_client + 12,
                y + 4,
                escape(&r.note)
            );
        }
    }
    s += "</svg>\n";
    s
}

#[cfg(test)]
mod tests {
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
        let frames = capture::parse(include_str!("../../tests/data/rc_example.tsv"));
        let packets = &capture::cut(&frames)[0].packets;
        let a = addrs();
        let text = text("rc_example", &rungs(packets, &a), &a);
        let order = [
            "|<------------------- TCP :19875 SYN -------------------|",
            "|----------------- TCP :19875 SYN/ACK ----------------->|",
            "- TCP :19875 34 B -",
            "- RC Send Only QP 0x15 PSN 0 21 B ----------->|  \"SEND operation \"",
            // A request, no payload: 21 is the length it asks for.
            "|<-- RC RDMA Read Request QP 0x15 PSN 0 (reads 21 B) ---|  va 0x",
            "--- RC RDMA Read Response Only QP 0x15 PSN 0 21 B ---->|  \"RDMA read operation \"",
            "|<------- RC RDMA Write Only QP 0x15 PSN 1 21 B --------|  va 0x",
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

    #[test]
    fn long_runs_fold_into_counted_rungs_and_repeated_blocks_into_a_note() {
        let a = addrs();
        let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
        let mut ps = vec![roce(c, s, "CM ConnectRequest", 1, 0)];
        for i in 0..40 {
            ps.push(roce(c, s, "RC Send Only", 0x20 + i % 4, 10 + i));
            if i % 5 == 4 {
                ps.push(roce(s, c, "RC Acknowledge", 0x30, 10 + i));
            }
        }
        for p in ps.iter_mut().filter(|p| p.what == "RC Acknowledge") {
            p.payload.clear();
        }
        for round in 0..3 {
            ps.push(roce(c, s, "CM DisconnectRequest", 1, 100 + round));
            ps.push(roce(s, c, "CM DisconnectReply", 1, 100 + round));
        }
        let r = rungs(&ps, &a);
        let labels: Vec<&str> = r.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "CM ConnectRequest 5 B",
                "RC Send Only ×40 to 4 QPs 8 B each",
                "RC Acknowledge ×8 QP 0x30",
                "CM DisconnectRequest 5 B",
                "CM DisconnectReply 5 B",
                "the 2 arrows above, 2 more times",
            ]
        );
        assert_eq!(r[1].count, 40);
        assert_eq!(r[1].from, Some(Side::Client));
        assert_eq!((r[5].from, r[5].count), (None, 4));
        let svg = svg(&r, &a);
        assert_eq!(
            svg.matches("<line").count(),
            2 + 5,
            "two lifelines, five arrows"
        );
        assert!(svg.contains("RC Send Only ×40 to 4 QPs"));
    }

    #[test]
    fn a_message_stays_whole_and_a_pause_ends_a_run() {
        let a = addrs();
        let (s, c) = (a.server_ip.as_str(), a.client_ip.as_str());
        let ladder = |pause: f64| {
            let mut ps = Vec::new();
            // The client's 12 messages of 3 packets each, ACKed...
            for m in 0..12 {
                for (k, what) in ["RC Send First", "RC Send Middle", "RC Send Last"]
                    .iter()
                    .enumerate()
                {
                    ps.push(roce(c, s, what, 0x20, m * 3 + k as u32));
                }
                ps.push(roce(s, c, "RC Acknowledge", 0x30, m * 3 + 2));
            }
            // ...then the server's one message of 8 packets, and the end.
            let mut answer = vec![roce(s, c, "RC Send First", 0x30, 500)];
            for k in 1..7 {
                answer.push(roce(s, c, "RC Send Middle", 0x30, 500 + k));
            }
            answer.push(roce(s, c, "RC Send Last", 0x30, 507));
            answer.push(roce(c, s, "CM DisconnectRequest", 1, 900));
            for p in &mut answer {
                p.time += pause;
            }
            ps.extend(answer);
            rungs(&ps, &a)
                .into_iter()
                .map(|r| r.label)
                .collect::<Vec<_>>()
        };
        let client = [
            "RC Send First ×12 QP 0x20 8 B each",
            "RC Send Middle ×12 QP 0x20 8 B each",
            "RC Send Last ×12 QP 0x20 8 B each",
            "RC Acknowledge ×12 QP 0x30 8 B each",
        ];
        // At once: the server's message joins the run, its Last with it;
        // the disconnect stands alone.
        let mut at_once = client.to_vec();
        at_once.extend([
            "RC Send First QP 0x30 PSN 500 8 B",
            "RC Send Middle ×6 QP 0x30 8 B each",
            "RC Send Last QP 0x30 PSN 507 8 B",
            "CM DisconnectRequest 5 B",
        ]);
        assert_eq!(ladder(0.0), at_once);
        // After a pause: it is a step of its own.
        let mut paused = client.to_vec();
        paused.extend([
            "RC Send First QP 0x30 PSN 500 8 B",
            "RC Send Middle QP 0x30 PSN 501 8 B",
            "the arrow above, 5 more times",
            "RC Send Last QP 0x30 PSN 507 8 B",
            "CM DisconnectRequest 5 B",
        ]);
        assert_eq!(ladder(2.0), paused);
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
        let one = rungs(&[read(3)], &a);
        assert_eq!(
            one[0].label,
            "RC RDMA Read Request QP 0x1 PSN 3 (reads 4096 B)"
        );
        let many: Vec<Packet> = (0..12).map(read).collect();
        let folded = rungs(&many, &a);
        assert_eq!(
            folded[0].label,
            "RC RDMA Read Request ×12 QP 0x1 (reads 4096 B each)"
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
        let labels: Vec<String> = rungs(&ps, &a).into_iter().map(|r| r.label).collect();
        assert_eq!(labels[0], "RC Send Only QP 0x1 PSN 7 8 B");
        assert_eq!(labels[2], "RC Send Only QP 0x1 PSN 7 8 B (resent)");
        // The peer's packet with the same QP and PSN is its own.
        let peer = [
            roce(c, s, "RC Send Only", 1, 7),
            roce(s, c, "RC Send Only", 1, 7),
        ];
        assert!(rungs(&peer, &a).iter().all(|r| !r.label.contains("resent")));
    }

    #[test]
    fn svg_text_is_escaped() {
        let a = addrs();
        let mut p = roce(&a.client_ip, &a.server_ip, "RC Send Only", 1, 1);
        p.payload = b"<b>&\"".to_vec();
        let svg = svg(&rungs(&[p], &a), &a);
        assert!(svg.contains("&quot;&lt;b&gt;&amp;&quot;&quot;"), "{svg}");
    }
}
