//! The packet ladder: a scenario's packets between its two hosts, one arrow
//! a packet in time order, long runs folded into one arrow with a count,
//! drawn as text (after the lab's transcripts) and as SVG (in the handout).

pub use crate::model::Rung;
use crate::model::{glob_match, Addrs, Kind, Packet, Scenario, Side};

/// The packets a student needs to see: the examples' own traffic (RoCE,
/// their TCP side channel but bare ACKs, ARP and IGMP for address
/// resolution and group joins), not IPv6 housekeeping, and not an ARP
/// that asks for an address of neither side (another scenario's, in the
/// same VM), nor a report on a group that none of the packets goes to
/// (a group left by the scenario before).
fn shown(p: &Packet, addrs: &Addrs, packets: &[Packet]) -> bool {
    match p.kind {
        Kind::Other => false,
        Kind::Tcp { .. } => !p.bare_ack(),
        Kind::Arp => ipv4_words(&p.info)
            .iter()
            .all(|ip| *ip == addrs.server_ip || *ip == addrs.client_ip),
        Kind::Igmp => packets
            .iter()
            .any(|q| q.kind == Kind::Roce && Some(&q.dst) == p.group.as_ref()),
        _ => true,
    }
}

/// The IPv4 addresses a line names (`Who has 192.0.2.2? Tell 192.0.2.1`).
fn ipv4_words(line: &str) -> Vec<&str> {
    line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| w.parse::<std::net::Ipv4Addr>().is_ok())
        .collect()
}

/// What kind of packet it is, without what differs between alike ones
/// (PSN, length).
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
    // An acknowledgement that is a NAK says so: the AETH's syndrome.
    if let Some(nak) = p
        .headers
        .iter()
        .filter_map(|h| h.strip_prefix("AETH: "))
        .find(|a| a.contains("NAK"))
    {
        let nak = nak.split(" (").next().unwrap_or(nak);
        l += &format!(" ({})", nak.split(", ").next().unwrap_or(nak));
    }
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

/// A packet shown, with its frame number in the scenario's pcap.
type Shown<'a> = (usize, &'a Packet);

fn single((frame, p): Shown, resent: bool, addrs: &Addrs) -> Rung {
    let mut label = label(p);
    if resent {
        label += " (resent)";
    }
    Rung {
        time: p.time,
        from: p.from(addrs),
        label,
        note: note(p, addrs),
        count: 1,
        frames: (frame, frame),
        headers: p.headers.clone(),
        cause: None,
    }
}

/// The longest block of arrows whose repetition is folded.
const BLOCK_MAX: usize = 12;

/// How many rungs a pair's ladder may have: a screen's worth.
pub const SCREEN: usize = 40;

/// A quiet this long (seconds) between two packets is drawn as a pause.
const PAUSE: f64 = 1.0;

/// The rungs of a scenario's packets, in time order: a message of several
/// packets (First, Middles, Last) as one arrow, each other packet as its
/// own; a quiet of a second or more as a pause, which says why where the
/// scenario declares it (`pause`); then a block of arrows that comes again
/// and again, alike but for PSNs (a ping-pong's round trip), drawn once
/// with a note of how often it repeats. Nothing is reordered and no two
/// different payloads are merged; what is still longer than a screen is
/// summed up in a note that names its frames.
pub fn rungs(packets: &[Packet], addrs: &Addrs, scenario: Option<&Scenario>) -> Vec<Rung> {
    let pause = scenario.and_then(|s| s.pause);
    let ps: Vec<Shown> = packets
        .iter()
        .enumerate()
        .map(|(i, p)| (i + 1, p))
        .filter(|(_, p)| shown(p, addrs, packets) && p.from(addrs).is_some())
        .collect();
    // A retransmission (an RC packet's QP and PSN again, a CM retry) is
    // drawn, and said to be one.
    let resent = crate::judge::packets::resent(&ps.iter().map(|(_, p)| *p).collect::<Vec<_>>());
    let mut out: Vec<Rung> = Vec::new();
    let mut i = 0;
    while i < ps.len() {
        let (rung, next) = match message(&ps, i, addrs) {
            Some((mut rung, next)) => {
                // A message sent again: its first packet's QP and PSN again.
                if resent[i] {
                    rung.label += " (resent)";
                }
                (rung, next)
            }
            None => (single(ps[i], resent[i], addrs), i + 1),
        };
        let mut rung = rung;
        rung.cause = scenario.and_then(|s| cause(s, &rung));
        if let Some(last) = out.last() {
            let quiet = rung.time - last_time(&ps, last);
            if quiet >= PAUSE {
                out.push(pause_rung(last, quiet, pause));
            }
        }
        out.push(rung);
        i = next;
    }
    sum_up(fold_blocks(out), &ps, addrs)
}

/// What sent `r`: the transport when it was sent again, else the first
/// of the scenario's causes that matches it, else of its example's
/// pairs', else of the causes every connection has alike.
fn cause(s: &Scenario, r: &Rung) -> Option<&'static str> {
    // An exercise or a fault cell runs its example's programs: its pair's
    // causes hold for it too.
    let pair = crate::catalog::pairs()
        .filter(|p| p.package == s.package && !s.package.is_empty())
        .flat_map(|p| p.causes);
    crate::catalog::cells::RESENT_CAUSES
        .iter()
        .chain(s.causes)
        .chain(pair)
        .chain(crate::catalog::cells::COMMON_CAUSES)
        .find(|c| r.from == Some(c.from) && glob_match(c.label, &r.label))
        .map(|c| c.call)
}

/// When the last packet of `r` was sent.
fn last_time(ps: &[Shown], r: &Rung) -> f64 {
    ps.iter()
        .find(|(f, _)| *f == r.frames.1)
        .map_or(r.time, |(_, p)| p.time)
}

fn pause_rung(before: &Rung, quiet: f64, cause: Option<&str>) -> Rung {
    let label = match cause {
        Some(why) => format!("{quiet:.1} s pass: {why}"),
        None => format!("{quiet:.1} s pass"),
    };
    Rung {
        time: before.time,
        from: None,
        label,
        note: String::new(),
        count: 0,
        frames: (before.frames.1, before.frames.1),
        headers: Vec::new(),
        cause: None,
    }
}

/// The message that starts at `ps[i]` when it is a First packet: its
/// Middles and Last, to the same QP from the same side, as one rung, the
/// receiver's ACKs that come while it is sent counted in its note; and
/// where the ladder goes on. `None` when `ps[i]` starts no message, or
/// one that something else interrupts (it is then drawn packet by packet).
fn message(ps: &[Shown], i: usize, addrs: &Addrs) -> Option<(Rung, usize)> {
    let (first_frame, first) = ps[i];
    let name = first.what.strip_suffix(" First")?;
    let from = first.from(addrs);
    let (mut middles, mut acks, mut bytes) = (0, 0, first.message_len());
    let mut psn = first.psn;
    for (j, &(frame, p)) in ps.iter().enumerate().skip(i + 1) {
        let ours = p.from(addrs) == from && p.dest_qp == first.dest_qp;
        // A message's packets have PSNs one after the other: one missing
        // (lost, then sent again) is drawn packet by packet.
        if ours && p.psn != psn.map(|n| (n + 1) & 0xff_ffff) {
            return None;
        }
        if ours {
            psn = p.psn;
        }
        if ours && p.what == format!("{name} Middle") {
            middles += 1;
            bytes += p.message_len();
        } else if ours && p.what == format!("{name} Last") {
            bytes += p.message_len();
            let psns = match (first.psn, p.psn) {
                (Some(a), Some(b)) => format!(" PSN {a}..{b}"),
                _ => String::new(),
            };
            let qp = first
                .dest_qp
                .map_or(String::new(), |q| format!(" QP {q:#x}"));
            let mut note = note(first, addrs);
            if acks > 0 {
                let sep = if note.is_empty() { "" } else { ", " };
                note += &format!("{sep}{acks} ACK(s) back while it went");
            }
            let rung = Rung {
                time: first.time,
                from,
                label: format!("{name}{qp}{psns} {bytes} B = First + {middles} Middle + Last"),
                note,
                count: j - i + 1,
                frames: (first_frame, frame),
                headers: first.headers.clone(),
                cause: None,
            };
            return Some((rung, j + 1));
        } else if p.from(addrs) != from && p.what.ends_with("Acknowledge") {
            acks += 1;
        } else {
            return None;
        }
    }
    None
}

/// A rung's shape: what makes two rungs alike, PSNs aside (what they
/// carry is part of it: different payloads are never folded together).
fn shape(r: &Rung) -> (Option<Side>, String, String) {
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
    (r.from, kept.join(" "), r.note.clone())
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
                out.push(repeat_rung(&rungs[i + k..i + reps * k], k, reps - 1));
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

/// The note for `again` more repetitions of the `k` arrows above: `folded`.
fn repeat_rung(folded: &[Rung], k: usize, again: usize) -> Rung {
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
    // One arrow again and again: say which PSNs the copies carry.
    let psn = |r: &Rung| {
        let at = r.label.find(" PSN ")? + 5;
        r.label[at..].split([' ', '.']).next()?.parse::<u32>().ok()
    };
    let psns = match (k, psn(&folded[0]), folded.last().and_then(psn)) {
        (1, Some(a), Some(b)) if a != b => format!(" (PSN {a} to {b})"),
        // Its own PSN, not the one above: a resent Middle after a Middle.
        (1, Some(a), _) => format!(" (PSN {a})"),
        _ => String::new(),
    };
    Rung {
        time: folded[0].time,
        from: None,
        label: format!("{arrows}, {times}{psns}"),
        note: String::new(),
        count: folded.iter().map(|r| r.count).sum(),
        frames: (folded[0].frames.0, folded[folded.len() - 1].frames.1),
        headers: Vec::new(),
        cause: None,
    }
}

/// Rungs beyond a screen: the longest stretch without a pause keeps its
/// first and last arrows, and what is between them is one note that
/// counts its packets by sender and kind and names their frames.
fn sum_up(rungs: Vec<Rung>, ps: &[Shown], addrs: &Addrs) -> Vec<Rung> {
    if rungs.len() <= SCREEN {
        return rungs;
    }
    let excess = rungs.len() - SCREEN + 1;
    let keep = 6;
    let Some((start, len)) = stretches(&rungs)
        .into_iter()
        .filter(|(_, len)| *len > excess + 2 * keep)
        .max_by_key(|(_, len)| *len)
    else {
        return rungs;
    };
    let (a, b) = (start + keep, start + len - keep);
    let cut = b - a;
    let (a, b) = (a + (cut - excess) / 2, a + (cut - excess) / 2 + excess);
    let mut out = rungs[..a].to_vec();
    out.push(summary(&rungs[a..b], ps, addrs));
    out.extend_from_slice(&rungs[b..]);
    out
}

/// The stretches of arrows between pauses: where each starts, how long.
fn stretches(rungs: &[Rung]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, r) in rungs.iter().enumerate() {
        if r.from.is_none() && r.count == 0 {
            out.push((start, i - start));
            start = i + 1;
        }
    }
    out.push((start, rungs.len() - start));
    out
}

/// One note for `rungs`: how many messages and packets of each kind each
/// side sent in their frames, counted on the packets themselves (`ps`),
/// in the order they first came.
fn summary(rungs: &[Rung], ps: &[Shown], addrs: &Addrs) -> Rung {
    let (first, last) = (&rungs[0], &rungs[rungs.len() - 1]);
    let frames = (first.frames.0, last.frames.1);
    // Per sender and kind: messages (a First or an Only starts one; an
    // unsegmented packet is one) and packets.
    let mut kinds: Vec<(Option<Side>, String, usize, usize)> = Vec::new();
    for (_, p) in ps.iter().filter(|(f, _)| (frames.0..=frames.1).contains(f)) {
        let (kind, part) = match p.what.rsplit_once(' ') {
            Some((k, part @ ("First" | "Middle" | "Last" | "Only"))) => (k.to_string(), part),
            _ => (kind_of(p), "Only"),
        };
        let starts = u32::from(matches!(part, "First" | "Only")) as usize;
        let from = p.from(addrs);
        match kinds.iter_mut().find(|(f, k, ..)| *f == from && *k == kind) {
            Some((_, _, n, packets)) => {
                *n += starts;
                *packets += 1;
            }
            None => kinds.push((from, kind, starts, 1)),
        }
    }
    let said: Vec<String> = kinds
        .iter()
        .map(|(from, kind, n, packets)| {
            let who = from.map_or("?", Side::name);
            if n == packets {
                format!("{n}× {kind} from the {who}")
            } else {
                format!("{n}× {kind} ({packets} packets) from the {who}")
            }
        })
        .collect();
    Rung {
        time: first.time,
        from: None,
        label: format!(
            "frames {}-{}, interleaved: {}",
            frames.0,
            frames.1,
            said.join(", ")
        ),
        note: String::new(),
        count: rungs.iter().map(|r| r.count).sum(),
        frames,
        headers: Vec::new(),
        cause: None,
    }
}

/// The ladder as text: the server's column on the left, the client's on
/// the right.
pub fn text(title: &str, rungs: &[Rung], addrs: &Addrs) -> String {
    // The arrows set the width; a note may run past it.
    let width = rungs
        .iter()
        .filter(|r| r.from.is_some())
        .map(|r| r.label.chars().count() + 8)
        .max()
        .unwrap_or(40)
        .max(40);
    let server = format!("server {}", addrs.server_ip);
    let client = format!("client {}", addrs.client_ip);
    let mut s = format!("--- {title}: on the wire ---\n");
    s += &format!(
        "{:>8} {:>9}  {server:<w$}{client}\n",
        "time",
        "frames",
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
        let frames = if r.from.is_some() {
            r.frames_text()
        } else {
            String::new()
        };
        let line = format!("{:>8.3} {frames:>9}  |{arrow}|  {}", r.time, r.note);
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

/// The colour of an arrow, by what it is.
fn colour(label: &str) -> &'static str {
    match label.split_whitespace().next() {
        Some("CM") => "#7a3e9d",
        Some("TCP") => "#2a7a2a",
        Some("ARP") | Some("IGMP") => "#777777",
        _ => "#1f4e9c",
    }
}

/// The ladder as a standalone SVG picture, as wide as a printed page (720
/// units, so that it prints at its own size and its smallest text, the
/// notes, at 8 pt): time and frames on the left, each arrow's label above
/// it and what it carries below it. Hovering an arrow shows all of it.
pub fn svg(rungs: &[Rung], addrs: &Addrs) -> String {
    const ROW: usize = 38;
    const TOP: usize = 46;
    let (x_server, x_client) = (130usize, 700usize);
    let mid = (x_server + x_client) / 2;
    let width = 720;
    let height = TOP + ROW * rungs.len() + 16;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ladder\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"12\">\n\
<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\"/></marker></defs>\n\
<text x=\"4\" y=\"18\" font-size=\"11\" fill=\"#666\">time, frames</text>\n"
    );
    for (x, name) in [
        (x_server, format!("server {}", addrs.server_ip)),
        (x_client, format!("client {}", addrs.client_ip)),
    ] {
        let anchor = if x == x_server { "start" } else { "end" };
        s += &format!(
            "<text x=\"{x}\" y=\"18\" text-anchor=\"{anchor}\" font-weight=\"bold\">{}</text>\n<line x1=\"{x}\" y1=\"26\" x2=\"{x}\" y2=\"{}\" stroke=\"#444\" stroke-width=\"2\"/>\n",
            escape(&name),
            height - 8
        );
    }
    for (i, r) in rungs.iter().enumerate() {
        s += &svg_rung(r, TOP + ROW * i + 14, (x_server, x_client), mid);
    }
    s += "</svg>\n";
    s
}

/// Every way a pair's ladder falls short of what the handout promises: it
/// fits on a screen, its arrows come in time order, and each says what
/// sent it and (a RoCE one) its headers.
pub fn faults(rungs: &[Rung]) -> Vec<String> {
    let mut out = Vec::new();
    if rungs.len() > SCREEN {
        out.push(format!(
            "ladder: {} arrows, more than fit on a screen ({SCREEN})",
            rungs.len()
        ));
    }
    for w in rungs.windows(2) {
        if w[1].frames.0 < w[0].frames.1 {
            out.push(format!(
                "ladder: {} comes before {}, out of time order",
                w[1].frames_text(),
                w[0].frames_text()
            ));
        }
    }
    for r in rungs.iter().filter(|r| r.from.is_some()) {
        if r.cause.is_none() {
            out.push(format!(
                "ladder: {} ({}) says nothing of what sent it",
                r.frames_text(),
                r.label
            ));
        }
        let roce = ["RC ", "UD ", "CM "].iter().any(|p| r.label.starts_with(p));
        if roce && !r.headers.iter().any(|h| h.starts_with("BTH: ")) {
            out.push(format!(
                "ladder: {} ({}) has no decoded headers",
                r.frames_text(),
                r.label
            ));
        }
    }
    out
}

/// `text` cut to what fits between the lifelines at `per_char` units a
/// character: the whole is in the arrow's hover text and in the table
/// under the ladder.
fn fit(text: &str, per_char: f64) -> String {
    let max = (560.0 / per_char) as usize;
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// `text` in lines of at most `width` characters, broken between words,
/// at most `most` lines (the last cut with `…` when more is left).
fn wrapped(text: &str, width: usize, most: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    if lines.len() > most {
        lines.truncate(most);
        let last = lines.last_mut().expect("most > 0");
        *last = fit(&format!("{last} …"), 560.0 / width as f64);
    }
    lines
}

/// One rung of [`svg`] at height `y`.
fn svg_rung(r: &Rung, y: usize, (x_server, x_client): (usize, usize), mid: usize) -> String {
    let (x1, x2) = match r.from {
        Some(Side::Server) => (x_server, x_client),
        Some(Side::Client) => (x_client, x_server),
        None => {
            // A note in up to three lines, which a rung's height holds (a
            // printed page has no hover text); the whole in its hover text.
            let lines = wrapped(&format!("({})", r.label), (560.0 / 6.6) as usize, 3);
            let spans: String = lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let dy = if i == 0 { 0 } else { 13 };
                    format!("<tspan x=\"{mid}\" dy=\"{dy}\">{}</tspan>", escape(l))
                })
                .collect();
            // The lines centred on the rung.
            let y0 = match lines.len() {
                1 => y + 4,
                2 => y - 2,
                _ => y - 9,
            };
            return format!(
                "<text x=\"{mid}\" y=\"{y0}\" text-anchor=\"middle\" font-style=\"italic\" fill=\"#555\" font-size=\"11\"><title>{}</title>{spans}</text>\n",
                escape(&r.label)
            );
        }
    };
    let colour = colour(&r.label);
    let width = if r.count > 1 { 3 } else { 1 };
    let mut title = vec![
        format!("{:.3} s, frames {}", r.time, r.frames_text()),
        r.label.clone(),
        r.note.clone(),
    ];
    title.extend(r.cause.map(|c| format!("sent by: {c}")));
    title.extend(r.headers.iter().cloned());
    let title = title.join("\n");
    let mut g = format!(
        "<g><title>{}</title>\n<text x=\"4\" y=\"{}\" fill=\"#666\" font-size=\"11\">{:.3} {}</text>\n<line x1=\"{x1}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\" stroke=\"{colour}\" stroke-width=\"{width}\" marker-end=\"url(#arrow)\"/>\n<text x=\"{mid}\" y=\"{}\" text-anchor=\"middle\" fill=\"{colour}\">{}</text>\n",
        escape(&title),
        y + 4,
        r.time,
        r.frames_text(),
        y - 5,
        escape(&fit(&r.label, 7.2))
    );
    if !r.note.is_empty() {
        g += &format!(
            "<text x=\"{mid}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333\" font-size=\"11\">{}</text>\n",
            y + 14,
            escape(&fit(&r.note, 6.6))
        );
    }
    g + "</g>\n"
}

#[cfg(test)]
mod tests;
