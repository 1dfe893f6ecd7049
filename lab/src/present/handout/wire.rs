//! A chapter's wire part: its packet ladder with each arrow's cause, the
//! headers' anatomy and the appendix of every header byte by byte, and
//! the wire facts the lab checked.

use super::*;

pub(super) fn wire_part(
    s: &Scenario,
    j: Option<&Judged>,
    addrs: &Addrs,
    ed: Edition,
    gives: &[String],
) -> String {
    let Some((rungs, facts_judged)) = j.and_then(|j| Some((j.rungs.as_ref()?, &j.facts))) else {
        return "<p class=\"missing\">No capture of this run.</p>\n".into();
    };
    let rungs = &blank_rungs(rungs, gives);
    // A long ladder is drawn in parts of at most half a page, each kept
    // whole, the first with its heading: a page is never left mostly
    // blank before one.
    let figure = |part: &[crate::capture::ladder::Rung]| {
        format!(
            "<figure>{}</figure>\n",
            crate::capture::ladder::svg(part, addrs)
        )
    };
    let (head, tail) = rungs.split_at(rungs.len().min(LADDER_HEAD));
    let first = figure(head);
    let rest: String = tail.chunks(LADDER_PART).map(figure).collect();
    let table = anatomy(rungs);
    let h = format!(
        "<div class=\"wire\"><div class=\"keep\"><h4>On the wire</h4>\n<p>The examples' packets between the two hosts, in time order: seconds since the run began, then the frame number in its capture, <a href=\"pcaps/{0}.pcap\">pcaps/{0}.pcap</a> (open it in Wireshark). A message of several packets is one arrow; a block of arrows that comes again and again is drawn once, with a note of how often.</p>\n{first}</div>\n{rest}</div>\n<details class=\"anatomy screen\"><summary>Every arrow: what sent it, and its headers</summary>\n{table}</details>\n<div class=\"anatomy print\">\n<p>Every arrow: what sent it, and its headers.</p>\n{table}</div>\n",
        s.name,
    );
    // The facts the lab checked are answers: the teacher's.
    match ed {
        Edition::Teacher => h + &facts(facts_judged),
        Edition::Student => h,
    }
}

/// The ladder's arrows as a table under it: frames, time, sender, what
/// it is, what sent it, and each header decoded.
pub(super) fn anatomy(rungs: &[crate::capture::ladder::Rung]) -> String {
    let mut h = String::from(
        "<table class=\"anatomy\"><thead><tr><th>frames</th><th>time</th><th>from</th><th>arrow</th><th>sent by, and its headers (an IPv4 or UDP line as the row's above is not repeated)</th></tr></thead>\n",
    );
    // RoCE v2's IPv4 and UDP lines change little from arrow to arrow:
    // each is shown where it first appears, not again.
    let mut shown: Vec<&str> = Vec::new();
    for r in rungs {
        let Some(from) = r.from else { continue };
        // An arrow no cause names shows only its headers: never a
        // placeholder printed to students.
        let mut about: Vec<String> = r
            .cause
            .map(|c| format!("<b>{}</b>", escape(c)))
            .into_iter()
            .collect();
        for l in &r.headers {
            let carrier = l.starts_with("IPv4: ") || l.starts_with("UDP: ");
            if carrier && shown.contains(&l.as_str()) {
                continue;
            }
            shown.push(l);
            about.push(escape(l));
        }
        h += &format!(
            "<tr><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            r.frames_text(),
            r.time,
            from.name(),
            escape(&r.label),
            about.join("<br>")
        );
    }
    h + "</table>\n"
}

/// One packet of each header type, and the header its decoded text
/// starts with.
pub(super) const ANATOMY: &[(&str, &str)] = &[
    ("an RC SEND: the BTH alone", "BTH: opcode 4 "),
    ("an RDMA Read Request: the BTH and a RETH", "RETH: "),
    ("an acknowledgement: the BTH and an AETH", "AETH: "),
    ("a UD multicast SEND: the BTH, a DETH and ImmDt", "ImmDt: "),
    (
        "a CM ConnectRequest: a management datagram in a UD SEND to QP 1, with a DETH",
        "CM REQ: ",
    ),
];

/// The appendix: one packet of each header type of the pairs' captures,
/// each expanded field by field and byte by byte (tshark's `-V -x`).
pub(super) fn anatomy_appendix(report: &LabReport) -> String {
    let mut h = String::from(
        "<section class=\"appendix\" id=\"anatomy\">\n<h2>Appendix: one packet of each kind, byte by byte</h2>\n<p>Wireshark's decoding of one frame of each header type from the pairs' captures: every field with its value, then the frame's bytes in hex. Ethernet, IPv4 and UDP come first; on RoCE v2 the InfiniBand headers follow the UDP header, and the ICRC ends the frame.</p>\n",
    );
    for (kind, header) in ANATOMY {
        let found = catalog::chapters().iter().find_map(|p| {
            let s = catalog::find(p).filter(|s| s.pair)?;
            let j = report.outcomes.iter().find(|j| j.name() == s.name)?;
            let at = j
                .outcome
                .capture
                .as_ref()?
                .iter()
                .position(|q| q.headers.iter().any(|l| l.starts_with(header)))?;
            Some((s.name.as_str(), at + 1))
        });
        h += &format!("<h3>{}</h3>\n", escape(&capitalised(kind)));
        let Some((name, frame)) = found else {
            h += "<p class=\"missing\">None in this run's captures.</p>\n";
            continue;
        };
        let pcap = report.dir.join(format!("{name}.pcap"));
        match crate::capture::expand_frame(&pcap, frame) {
            Ok(text) => {
                h += &format!(
                    "<p>Frame {frame} of <a href=\"pcaps/{name}.pcap\">pcaps/{name}.pcap</a>.</p>\n<pre class=\"anatomy\">{}</pre>\n",
                    escape(&text)
                )
            }
            Err(e) => h += &format!("<p class=\"missing\">{}</p>\n", escape(&e)),
        }
    }
    h + "</section>\n"
}

/// The pair's wire facts in words, each with its verdict on this capture:
/// what to look for in the ladder and in Wireshark.
pub(super) fn facts(judged: &[(&PacketFact, Vec<String>)]) -> String {
    if judged.is_empty() {
        return String::new();
    }
    let mut h = String::from(
        "<p class=\"facts-intro\">What this capture must show, each checked on it by the lab:</p>\n\
         <ul class=\"facts\">\n",
    );
    for (fact, failures) in judged {
        let (class, verdict) = match failures.as_slice() {
            [] => ("holds", "holds".to_string()),
            f => ("fails", format!("does not hold: {}", f.join("; "))),
        };
        h += &format!(
            "<li class=\"{class}\">{}: <b>{}</b></li>\n",
            inline(&fact.to_string()),
            escape(&verdict)
        );
    }
    h + "</ul>\n"
}
