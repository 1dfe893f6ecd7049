//! `cargo xtask handout`: the lab handout, one self-contained, printable
//! HTML file written from a two-host run with capture: an introduction,
//! then a chapter per example with what it demonstrates and its step table
//! (from the example's README, the one source of both), how to run it on
//! two hosts, the run's transcripts, its packet ladder and pcap, and "try
//! this" exercises with what the programs really printed.

use crate::capture::ladder::escape;
use crate::model::{
    glob_match, Addrs, Check, Cmd, Exercise, Outcome, PacketFact, Params, Scenario, SideOutcome,
};
use crate::results::report::{Judged, LabReport};
use crate::{base, catalog, model};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `handout` makes besides the handout itself.
#[derive(Debug, Clone, Default)]
pub struct Publish {
    /// The run is a kept one (`--from`): its failures are named, not its
    /// whole summary printed.
    pub from_kept: bool,
    /// The instructor's key too (`--key`).
    pub key: bool,
    /// A PDF too (`--pdf`).
    pub pdf: bool,
    /// Look at it in Chromium (`--check`).
    pub check: bool,
}

/// Writes the handout of `report` into `out` (and what `what` asks for
/// besides), saying each file it wrote; whether the run passed, with no
/// note, and the handout looked right.
pub fn publish(report: &LabReport, out: &Path, what: &Publish) -> Result<bool, String> {
    let failed = if what.from_kept {
        let failed: Vec<&str> = report
            .outcomes
            .iter()
            .filter(|j| !j.passed())
            .map(|j| j.name())
            .collect();
        if !failed.is_empty() {
            println!("handout: in that run, these failed: {}", failed.join(", "));
        }
        failed.len()
    } else {
        super::summary::print_summary(report)
    };
    let html = write(report, out)?;
    for stem in handout_stems() {
        for ed in [Edition::Student, Edition::Teacher] {
            println!("handout: {}", out.join(ed.file(&stem)).display());
        }
    }
    if what.key {
        let key = write_key(report, out)?;
        println!("handout: the instructor's key, {}", key.display());
    }
    if what.pdf {
        for stem in handout_stems() {
            for ed in [Edition::Student, Edition::Teacher] {
                let html_file = out.join(ed.file(&stem));
                let pdf_file = html_file.with_extension("pdf");
                pdf(&html_file, &pdf_file)?;
                println!("handout: {}", pdf_file.display());
            }
        }
    }
    let looks_right = !what.check || checked(&html);
    Ok(failed == 0 && report.notes.is_empty() && looks_right)
}

/// The handouts' file stems: each lab's, then all three in one.
fn handout_stems() -> Vec<String> {
    let mut stems: Vec<String> = LABS.iter().map(|l| format!("lab{}", l.n)).collect();
    stems.push("handout".into());
    stems
}

/// Looks at the handout in Chromium and says what it saw; whether it
/// looked right.
fn checked(html: &Path) -> bool {
    let failures = check_in_chromium(html);
    for f in &failures {
        println!("handout check: {f}");
    }
    if failures.is_empty() {
        println!("handout check: Chromium renders every chapter and ladder, and prints it");
    }
    failures.is_empty()
}

/// Markdown to HTML (the README's tables and code blocks included).
fn markdown(md: &str) -> String {
    use pulldown_cmark::{html, Options, Parser};
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(md, Options::ENABLE_TABLES));
    local_links_as_text(&out)
}

/// `html` with each link to a file of the repository (a README's
/// `README-mc.md`), which is not beside the handout, as its text alone:
/// web links, anchors and what the handout supplies stay links.
fn local_links_as_text(html: &str) -> String {
    let kept = [
        "http://",
        "https://",
        "#",
        "pcaps/",
        "transcripts/",
        STANDINS,
    ];
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find("<a href=\"") {
        let target = &rest[at + 9..];
        let Some(open_end) = rest[at..].find('>') else {
            break;
        };
        let Some(close) = rest[at..].find("</a>") else {
            break;
        };
        out += &rest[..at];
        if kept.iter().any(|k| target.starts_with(k)) {
            out += &rest[at..at + close + 4];
        } else {
            out += &rest[at + open_end + 1..at + close];
        }
        rest = &rest[at + close + 4..];
    }
    out + rest
}

/// One line of Markdown, without the paragraph around it.
fn inline(md: &str) -> String {
    let html = markdown(md);
    let html = html.trim_end();
    html.strip_prefix("<p>")
        .and_then(|h| h.strip_suffix("</p>"))
        .unwrap_or(html)
        .to_string()
}

/// An example's README, cut into its title, the text before its first
/// section, and the sections whose headings start with `wanted`.
#[derive(Debug, PartialEq, Eq)]
pub struct Readme {
    /// The first line's title, without `# `.
    pub title: String,
    /// What comes before the first `## ` heading.
    pub intro: String,
    /// (heading, body) of each section asked for, in `wanted`'s order.
    pub sections: Vec<(String, String)>,
}

/// Cuts `md` as [`Readme`] says.
pub fn read_readme(md: &str, wanted: &[&str]) -> Readme {
    let mut title = String::new();
    let mut intro = String::new();
    let mut all: Vec<(String, String)> = Vec::new();
    let mut fence = false;
    for line in md.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        if !fence && title.is_empty() && line.starts_with("# ") {
            title = line[2..].trim().to_string();
        } else if !fence && line.starts_with("## ") {
            all.push((line[3..].trim().to_string(), String::new()));
        } else if let Some((_, body)) = all.last_mut() {
            *body += line;
            *body += "\n";
        } else {
            intro += line;
            intro += "\n";
        }
    }
    let sections = wanted
        .iter()
        .filter_map(|w| all.iter().find(|(h, _)| h.starts_with(w)).cloned())
        .collect();
    Readme {
        title,
        intro,
        sections,
    }
}

/// The two-host lab's values of the placeholders, as a student would type
/// them (the agents derive the GID index, 1 on a fresh rxe device).
fn lab_params() -> Params {
    Params {
        server_ip: model::SERVER_IP.into(),
        client_ip: model::CLIENT_IP.into(),
        dev: "rxe0".into(),
        gid_idx: 1,
        ib_port: 1,
        tcp_shift: 0,
        qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
        cpus: String::new(),
        numa_node: String::new(),
    }
}

/// A command line as a shell would take it.
pub fn command_line(cmd: &Cmd, p: &Params) -> String {
    let mut args = cmd.args_shown(p);
    let mut program = cmd.program.to_string();
    // An inline script is shown as the file it comes from, as one would
    // run it: `python3 lab/standins/rc_example_peer.py rnr ...`.
    if let (Some(file), true) = (cmd.script_file, args.len() >= 2 && args[0] == "-c") {
        program = format!(
            "{} {file}",
            cmd.program.rsplit('/').next().unwrap_or(cmd.program)
        );
        args.drain(..2);
    }
    std::iter::once(program)
        .chain(args.iter().map(|a| crate::base::text::shell_quote(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many lines of a side's output the handout prints whole; a longer
/// one shows its first and last lines and links to the whole.
const TRANSCRIPT_LINES: usize = 24;

/// Where [`write`] puts the whole stdout of one side of a scenario.
fn whole_stdout(scenario: &str, host: &str) -> String {
    format!("transcripts/{scenario}.{host}.txt")
}

/// A stretch of a shortened transcript: lines kept, or how many were left
/// out.
enum Piece {
    /// Lines as the program printed them.
    Lines(String),
    /// This many lines left out.
    Gap(usize),
}

/// `stdout` as the handout prints it: whole, or its first and last lines
/// and every line that matches one of `keep` (the lines the lab expects
/// of it, which say what the run is about), with how many lines each gap
/// leaves out.
fn shortened(stdout: &str, keep: &[String]) -> Vec<Piece> {
    let lines: Vec<&str> = stdout.lines().collect();
    let (head, tail) = (10, 6);
    let kept: Vec<bool> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            lines.len() <= TRANSCRIPT_LINES
                || i < head
                || i + tail >= lines.len()
                || keep.iter().any(|p| glob_match(p, l.trim_end()))
        })
        .collect();
    let mut out: Vec<Piece> = Vec::new();
    for (line, k) in lines.iter().zip(&kept) {
        match (out.last_mut(), k) {
            (Some(Piece::Lines(text)), true) => {
                text.push_str(line);
                text.push('\n');
            }
            (Some(Piece::Gap(n)), false) => *n += 1,
            (_, true) => out.push(Piece::Lines(format!("{line}\n"))),
            (_, false) => out.push(Piece::Gap(1)),
        }
    }
    out
}

fn transcript(
    scenario: &str,
    host: &str,
    cmd: &Cmd,
    side: Option<&SideOutcome>,
    keep: &[String],
) -> String {
    let link = whole_stdout(scenario, host);
    let mut h = escape(&format!("{host}$ {}\n", command_line(cmd, &lab_params())));
    let Some(o) = side else {
        h += "(no result: the lab did not run it)\n";
        return format!("<pre class=\"transcript\">{h}</pre>\n");
    };
    let all = o.stdout.lines().count();
    for piece in shortened(&o.stdout, keep) {
        h += &match piece {
            Piece::Lines(text) => escape(&text),
            Piece::Gap(n) => format!(
                "<span class=\"gap\">({n} more {}: all {all} in <a href=\"{link}\">{link}</a>)</span>\n",
                if n == 1 { "line" } else { "lines" }
            ),
        };
    }
    let mut rest = String::new();
    for line in o.stderr.lines() {
        rest += line;
        rest += "\n";
    }
    match o.exit {
        Some(model::TIMED_OUT) => rest += "(killed by timeout: exit 124)\n",
        Some(c) => rest += &format!("(exit {c})\n"),
        None => rest += "(no exit status)\n",
    }
    h += &escape(&rest);
    format!("<pre class=\"transcript\">{h}</pre>\n")
}

/// The lines the lab expects of one side, their addresses filled in as
/// the two-host lab has them: the lines a shortened transcript keeps.
fn expected_lines(patterns: &[String]) -> Vec<String> {
    let addrs = model::Mode::TwoHosts.addrs();
    patterns
        .iter()
        .filter_map(|p| model::expand(p, addrs.as_ref()))
        .collect()
}

fn runs(s: &Scenario, o: Option<&Outcome>) -> String {
    let mut h = String::from("<div class=\"sides\">\n");
    if let Some(cmd) = &s.server {
        h += &transcript(
            &s.name,
            "hostA",
            cmd,
            o.and_then(|o| o.server.as_ref()),
            &expected_lines(&s.server_expect.stdout),
        );
    }
    if let Some(cmd) = &s.client {
        h += &transcript(
            &s.name,
            "hostB",
            cmd,
            o.and_then(|o| o.client.as_ref()),
            &expected_lines(&s.client_expect.stdout),
        );
    }
    h + "</div>\n"
}

fn wire_part(s: &Scenario, j: Option<&Judged>, addrs: &Addrs, ed: Edition) -> String {
    let Some((rungs, facts_judged)) = j.and_then(|j| Some((j.rungs.as_ref()?, &j.facts))) else {
        return "<p class=\"missing\">No capture of this run.</p>\n".into();
    };
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
fn anatomy(rungs: &[crate::capture::ladder::Rung]) -> String {
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
const ANATOMY: &[(&str, &str)] = &[
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
fn anatomy_appendix(report: &LabReport) -> String {
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

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

/// The pair's wire facts in words, each with its verdict on this capture:
/// what to look for in the ladder and in Wireshark.
fn facts(judged: &[(&PacketFact, Vec<String>)]) -> String {
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

/// How to read a ladder: its columns, colours and marks.
const LEGEND: &str = "### How to read a packet ladder\n\n\
Each chapter draws the packets of the lab's run between host A (the server, left) and host B (the client, right), one arrow per packet or per message, top to bottom in time order. \
On the left of each arrow: the seconds since the run began, and the frame number in the run's capture (`#12`, or `#14-112` for a message of many packets): the number Wireshark gives the same packet (Wireshark counts its times from the capture's first frame instead). \
A ladder draws the packets the examples send: the capture also holds what it leaves out (bare TCP acknowledgements, IPv6 housekeeping, another run's ARP). \
Above an arrow: what it is, its destination QP and PSN and its length; below it: what it carries (the start of its payload, an RDMA target's address and rkey, immediate data). \
Colours: blue for the RDMA transport (SENDs, RDMA Reads and Writes, acknowledgements), purple for the RDMA connection manager's messages, green for the TCP side channel, grey for ARP and IGMP. \
A thick arrow stands for several packets (a message cut at the MTU: First, Middles, Last). \
Notes in italics say what is not an arrow: a block of arrows that comes again (drawn once), a pause and its cause, or a stretch summed up with its frames. \
`(resent)` marks a packet or a message sent again: the same QP and PSN as one before. \
Under each ladder, a table gives every arrow's cause (the program's step and verb call, or the transport) and its headers, decoded.\n";

/// How many arrows one figure of a ladder holds: under half a printed page.
const LADDER_PART: usize = 10;

/// How many arrows the first figure holds, which goes with the heading.
const LADDER_HEAD: usize = 6;

/// The primer a student reads before chapter 1, in the workspace.
pub const PRIMER: &str = "lab/handout/primer.md";

/// The README sections a chapter takes, in the chapter's order: what to
/// learn and know first, what the program does and how to run it, then
/// (after the lab's runs and the exercises) the questions to check
/// oneself and what the manual's program gets wrong.
pub const CHAPTER_SECTIONS: [&str; 6] = [
    "Learning goals",
    "Before you start",
    "What it demonstrates",
    "Running it",
    "Check yourself",
    "Differences from the original",
];

/// Who a handout is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edition {
    /// The student's: the questions, room for each prediction and a step
    /// to check it on the supplied captures and transcripts; no answer
    /// anywhere (not collapsed: absent), no porting notes, no checked
    /// facts, no byte-by-byte appendix.
    Student,
    /// The teacher's: every answer open with the runs and packets behind
    /// it, the wire facts as the lab checked them, the porting notes and
    /// the appendix.
    Teacher,
}

impl Edition {
    /// Its name on a title page.
    pub fn name(self) -> &'static str {
        match self {
            Edition::Student => "student edition",
            Edition::Teacher => "teacher edition",
        }
    }

    /// The file name of a handout of this edition: `STEM.html` for the
    /// student's, `STEM-teacher.html` for the teacher's.
    pub fn file(self, stem: &str) -> String {
        match self {
            Edition::Student => format!("{stem}.html"),
            Edition::Teacher => format!("{stem}-teacher.html"),
        }
    }
}

/// A lab of about two hours: chapters a teacher hands out together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lab {
    /// Its number, from 1.
    pub n: usize,
    /// Its title.
    pub title: &'static str,
    /// How long it takes, as trial readers took it.
    pub time: &'static str,
    /// What the student comes away with.
    pub goals: &'static str,
    /// Its chapters (the examples' crates), in order.
    pub chapters: &'static [&'static str],
    /// Whether the primer and its glossary open it.
    pub primer: bool,
}

/// The three labs; every chapter is in one of them.
pub const LABS: [Lab; 3] = [
    Lab {
        n: 1,
        title: "Verbs over a TCP side channel",
        time: "About two hours and a quarter",
        goals: "read an RDMA program's steps (device, PD, MR, CQ, QP, its moves to RTR and RTS) \
                against its packets; tell a SEND from an RDMA Read and Write on the wire; follow \
                PSNs, acknowledgements and resends",
        chapters: &["rc_example", "ibv_sockets_pingpong"],
        primer: true,
    },
    Lab {
        n: 2,
        title: "The connection manager and a shared receive queue",
        time: "About two hours and a quarter",
        goals: "follow rdma_cm's events and the CM messages behind them on the wire, \
                when a connection is made and when it cannot be; see what a shared \
                receive queue changes, and how a program keeps it from running empty",
        chapters: &["rdmacm_client_server", "srq"],
        primer: false,
    },
    Lab {
        n: 3,
        title: "UD multicast, and a note on path migration",
        time: "About an hour and a half",
        goals: "join a multicast group with rdma_cm and send UD datagrams to it; read a \
                datagram's headers (DETH, Q_Key) and the IGMP that joins it; know what \
                automatic path migration needs, and why RoCE does not show it",
        chapters: &["mckey", "apm"],
        primer: false,
    },
];

/// The chapters read as a one-page note rather than worked: APM, of
/// which RoCE shows nothing (it has no alternate paths).
pub const READING_NOTES: &[&str] = &["apm"];

/// A chapter read as a note: the example's opening and what it
/// demonstrates.
fn reading_note(package: &str, root: &Path) -> String {
    let md = fs::read_to_string(root.join(package).join("README.md")).unwrap_or_default();
    let readme = read_readme(&md, &[CHAPTER_SECTIONS[2]]);
    let mut h = format!(
        "<section class=\"chapter note\" id=\"{package}\">\n<h2>Reading note: {}</h2>\n{}",
        inline(&readme.title),
        markdown(&readme.intro)
    );
    // The prose only: the step table is the worked chapters', and a note
    // fits one page.
    for (heading, body) in &readme.sections {
        let prose: Vec<&str> = body.lines().take_while(|l| !l.starts_with('|')).collect();
        h += &format!(
            "<h3>{}</h3>\n{}",
            escape(heading),
            markdown(&prose.join("\n"))
        );
    }
    h + "</section>\n"
}

/// The "check yourself" questions of a README section as `ed` prints
/// them: the student's with room to write each answer in place of it,
/// the teacher's open.
fn check_yourself(body_html: &str, ed: Edition) -> String {
    match ed {
        Edition::Teacher => body_html.replace("<details>", "<details open>"),
        Edition::Student => replaced(body_html, "<details>", "details", ANSWER_ROOM),
    }
}

fn chapter(report: &LabReport, package: &str, root: &Path, addrs: &Addrs, ed: Edition) -> String {
    if READING_NOTES.contains(&package) {
        return reading_note(package, root);
    }
    let md = fs::read_to_string(root.join(package).join("README.md")).unwrap_or_default();
    let readme = read_readme(&md, &CHAPTER_SECTIONS);
    let find = |s: &Scenario| report.outcomes.iter().find(|j| j.name() == s.name);
    let section = |name: &str| {
        readme
            .sections
            .iter()
            .find(|(h, _)| h.starts_with(name))
            .map_or(String::new(), |(h, body)| {
                let html = match ed {
                    Edition::Student => {
                        without_answers(&without_column(&markdown(&for_students(body)), "function"))
                    }
                    Edition::Teacher => markdown(body),
                };
                format!("<h3>{}</h3>\n{html}", escape(h))
            })
    };
    let intro = match ed {
        Edition::Student => without_answers(&markdown(&readme.intro)),
        Edition::Teacher => markdown(&readme.intro),
    };
    let mut h = format!(
        "<section class=\"chapter\" id=\"{package}\">\n<h2>Chapter {}. {}</h2>\n{intro}",
        chapter_number(package),
        inline(&readme.title),
    );
    for name in &CHAPTER_SECTIONS[..4] {
        h += &section(name);
    }
    h += &chapter_runs(package, addrs, &find, ed);
    h += &exercises(report, package, addrs, ed);
    if let Some((head, body)) = readme
        .sections
        .iter()
        .find(|(head, _)| head.starts_with(CHAPTER_SECTIONS[4]))
    {
        h += &format!(
            "<h3>{}</h3>\n{}",
            escape(head),
            check_yourself(&markdown(&wire_numbers(report, package, body)), ed)
        );
    }
    if ed == Edition::Student {
        return h + "</section>\n";
    }
    let wrong = readme
        .sections
        .iter()
        .find(|(head, _)| head.starts_with(CHAPTER_SECTIONS[5]));
    if let Some((_, body)) = wrong {
        h += &format!(
            "<aside class=\"manual\"><h3>What the original program gets wrong</h3>\n<p>Each is a good place to read the original's code.</p>\n{}</aside>\n",
            markdown(body)
        );
    }
    h + "</section>\n"
}

/// A README section for a student: without the sentences about this
/// project's own lab tool (`cargo xtask`), which a lab sheet's reader
/// does not run; code blocks are kept whole.
fn for_students(md: &str) -> String {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, out: &mut Vec<String>| {
        if !paragraph.is_empty() {
            let kept = without_xtask(&paragraph.join("\n"));
            if !kept.trim().is_empty() {
                out.push(kept);
            }
            paragraph.clear();
        }
    };
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut out);
            fenced = !fenced;
            out.push(line.to_string());
        } else if fenced {
            out.push(line.to_string());
        } else if line.trim().is_empty() {
            flush(&mut paragraph, &mut out);
            out.push(String::new());
        } else {
            paragraph.push(line);
        }
    }
    flush(&mut paragraph, &mut out);
    out.join("\n")
}

/// A paragraph without its sentences that name `cargo xtask`: a sentence
/// ends at a full stop and a space or line end outside a code span.
fn without_xtask(paragraph: &str) -> String {
    let mut sentences = Vec::new();
    let (mut start, mut code) = (0, false);
    let bytes = paragraph.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'`' => code = !code,
            b'.' if !code && bytes.get(i + 1).map_or(true, |n| n.is_ascii_whitespace()) => {
                sentences.push(&paragraph[start..=i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    sentences.push(&paragraph[start..]);
    sentences
        .into_iter()
        .filter(|s| !s.contains("cargo xtask"))
        .collect::<String>()
        .trim()
        .to_string()
}

/// `html` without what a README marks `<span class="answer">`: a detail
/// of a step (a C call's argument) that answers one of the chapter's
/// questions, which the student's edition leaves to the student.
fn without_answers(html: &str) -> String {
    replaced(html, "<span class=\"answer\">", "span", "")
}

/// `html` with each element that starts with `open` (a `tag` element)
/// replaced by `with`, to its own end past any `tag` inside it; all of
/// the rest when it has none.
fn replaced(html: &str, open: &str, tag: &str, with: &str) -> String {
    let (start, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find(open) {
        out += &rest[..at];
        out += with;
        rest = &rest[at..];
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, _) in rest.match_indices('<') {
            if rest[i..].starts_with(&start) {
                depth += 1;
            } else if rest[i..].starts_with(&close) {
                depth -= 1;
                if depth == 0 {
                    end = i + close.len();
                    break;
                }
            }
        }
        rest = &rest[end..];
    }
    out + rest
}

/// `html` with the column of each table whose header starts with `head`
/// taken out: the Rust function beside the manual's step and its C
/// calls, which a student reading the manual's C does not need.
fn without_column(html: &str, head: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find("<table>") {
        let end = rest[at..]
            .find("</table>")
            .map_or(rest.len(), |e| at + e + 8);
        out += &rest[..at];
        let table = &rest[at..end];
        let cells = |row: &str| -> Vec<String> {
            row.split("</th>")
                .flat_map(|c| c.split("</td>"))
                .map(str::to_string)
                .collect()
        };
        let header = table.split("</tr>").next().unwrap_or("");
        let column = cells(header)
            .iter()
            .position(|c| plain_text(c).trim_start().starts_with(head));
        out += &match column {
            Some(k) => drop_cell(table, k),
            None => table.to_string(),
        };
        rest = &rest[end..];
    }
    out + rest
}

/// `table` with the `k`th cell of every row removed.
fn drop_cell(table: &str, k: usize) -> String {
    let opening = |s: &str| {
        ["<td>", "<td ", "<th>", "<th "]
            .iter()
            .filter_map(|t| s.find(t))
            .min()
    };
    table
        .split_inclusive("</tr>")
        .map(|row| {
            let mut out = String::new();
            let mut rest = row;
            let mut i = 0;
            while let Some(at) = opening(rest) {
                let close = if rest[at..].starts_with("<td") {
                    "</td>"
                } else {
                    "</th>"
                };
                let end = rest[at..]
                    .find(close)
                    .map_or(rest.len(), |e| at + e + close.len());
                out += &rest[..at];
                if i != k {
                    out += &rest[at..end];
                }
                i += 1;
                rest = &rest[end..];
            }
            out + rest
        })
        .collect()
}

/// The chapter's pairs as the lab ran them: both transcripts, the ladder
/// and the wire facts.
fn chapter_runs<'a>(
    package: &str,
    addrs: &Addrs,
    find: &impl Fn(&Scenario) -> Option<&'a Judged>,
    ed: Edition,
) -> String {
    let mut h = String::new();
    let all = catalog::all();
    for s in all.iter().filter(|s| s.package == package && s.pair) {
        h += &format!(
            "<h3>The lab's run: {}</h3>\n<p>Host A is the server (192.0.2.1), host B the client (192.0.2.2): two VMs on one wire, Soft-RoCE on each.</p>\n",
            s.name
        );
        h += &runs(s, find(s).map(|j| &j.outcome));
        h += &wire_part(s, find(s), addrs, ed);
    }
    h
}

/// The chapter's exercises, numbered: each question and a place for the
/// prediction, then in the student's edition a step to check it, in the
/// teacher's the answer, open, with the run and packets behind it.
fn exercises(report: &LabReport, package: &str, addrs: &Addrs, ed: Edition) -> String {
    let find = |s: &Scenario| report.outcomes.iter().find(|j| j.name() == s.name);
    let chapter = chapter_number(package);
    let list: Vec<(&Scenario, Exercise)> = catalog::all()
        .iter()
        .filter(|s| s.package == package)
        .filter_map(|s| s.exercise.map(|e| (s, e)))
        .collect();
    if list.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h3>Exercises</h3>\n");
    for (n, (s, e)) in list.into_iter().enumerate() {
        h += &format!(
            "<div class=\"exercise\">\n<h4>Exercise {chapter}.{}</h4>\n<p>{}</p>\n<p><b>Predict:</b> {}</p>\n{ROOM}\n",
            n + 1,
            inline(e.question),
            inline(e.predict),
        );
        let captured = |j: &Judged| j.outcome.capture.as_ref().is_some_and(|c| !c.is_empty());
        if ed == Edition::Student {
            h += &check_step(s, &e.check, find(s).is_some_and(captured));
            h += "</div>\n";
            continue;
        }
        h += &format!(
            "<details class=\"answer\" open><summary>Answer</summary>\n<p>{}</p>\n",
            inline(&wire_numbers(report, &s.name, e.explain))
        );
        if s.pair {
            h += "<p>The run and its packets are in this chapter, above.</p>\n";
        } else {
            h += "<p>What the lab ran, and what the programs printed:</p>\n";
            h += &runs(s, find(s).map(|j| &j.outcome));
            if find(s).is_some_and(captured) {
                h += &wire_part(s, find(s), addrs, ed);
            }
        }
        h += "</details>\n</div>\n";
    }
    h
}

/// The instructor's key: every chapter's exercises with their answers
/// open, the real output and the packets, frame by frame.
pub fn key_html(report: &LabReport) -> String {
    let addrs = crate::model::Mode::TwoHosts
        .addrs()
        .expect("the two-host lab has addresses");
    let mut h = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rdma-examples: the instructor's key</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>rdma-examples: the instructor's key</h1>\n<p>The answers to the handout's exercises and its \"check yourself\" questions, from the same run: frame numbers are those of the captures in <code>pcaps/</code>.</p>\n"
    );
    let root = base::workspace::workspace_root();
    for p in catalog::chapters() {
        h += &format!("<section class=\"chapter\" id=\"{p}\">\n<h2>{p}</h2>\n");
        h += &exercises(report, p, &addrs, Edition::Teacher);
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap_or_default();
        let check = read_readme(&md, &[CHAPTER_SECTIONS[4]]);
        if let Some((heading, body)) = check.sections.first() {
            let open =
                markdown(&wire_numbers(report, p, body)).replace("<details>", "<details open>");
            h += &format!("<h3>{}</h3>\n{open}", escape(heading));
        }
        h += "</section>\n";
    }
    h + "</body>\n</html>\n"
}

/// Ruled room for a student's prediction.
const ROOM: &str = "<div class=\"prediction\"></div>";

/// Ruled room for a student's answer to a question.
const ANSWER_ROOM: &str = "<div class=\"room\"></div>";

const STYLE: &str = "
body { font-family: 'DejaVu Sans', sans-serif; max-width: 60em; margin: 2em auto; line-height: 1.4; color: #222; }
h1 { font-size: 1.8em; } h2 { border-bottom: 2px solid #1f4e9c; padding-bottom: .2em; }
code, pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 0.85em; }
pre code, td code, th code { font-size: 1em; } code.cmd span { white-space: nowrap; } /* already in a smaller box: 0.85 twice printed at 7.2 pt */
pre { background: #f4f4f4; padding: .6em; white-space: pre-wrap; overflow-wrap: break-word; }
.gap { font-style: italic; color: #555; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
td, th { border: 1px solid #bbb; padding: .2em .4em; vertical-align: top; }
figure { margin: 1em 0; overflow-x: auto; } figure svg { max-width: 100%; height: auto; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: .8em; }
.exercise { border-left: 3px solid #1f4e9c; padding-left: .8em; margin: 1em 0; }
.prediction, .room { height: 7.5em; border-bottom: 1px dotted #999; background: repeating-linear-gradient(transparent, transparent 1.45em, #ddd 1.5em); }
details.answer > summary { cursor: pointer; color: #1f4e9c; }
table.anatomy { font-size: 0.8em; break-inside: auto; } table.anatomy td:nth-child(5) { font-family: 'DejaVu Sans Mono', monospace; }
.anatomy.print { display: none; }
@media print { .anatomy.print { display: block; } .anatomy.screen { display: none; } }
aside.manual { border: 1px solid #c9a400; background: #fffbe6; padding: 0 1em; margin: 1.5em 0; }
section.primer, section.appendix { break-before: page; }
.facts .holds b { color: #2a602a; } .facts .fails b, .missing { color: #a00; }
nav li { margin: .1em 0; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  section.chapter { break-before: page; }
  h2, h3, h4 { break-after: avoid; }
  figure, .keep, .exercise, .prediction, .room, nav { break-inside: avoid; }
  ol:has(+ .room), p:has(+ .room) { break-after: avoid; }
  .anatomy.print > p, p.facts-intro { break-after: avoid; }
  details { break-before: avoid; }
  .wire > h4, .wire > p { break-after: avoid; }
  pre { break-inside: auto; orphans: 3; widows: 3; }
  tr, tbody.lead { break-inside: avoid; } thead { display: table-header-group; }
  a { color: inherit; }
}
";

/// The step that checks an exercise's prediction on what the handout
/// supplies: the capture, with the tshark command that lists its packets,
/// and the transcript, with a line the run printed.
fn check_step(s: &Scenario, c: &Check, captured: bool) -> String {
    let mut ways = Vec::new();
    let mut command = String::new();
    if captured && !c.filter.is_empty() {
        let mut words = vec![
            "tshark".to_string(),
            format!("-r pcaps/{}.pcap", s.name),
            format!("-Y '{}'", c.filter),
            "-T fields".to_string(),
        ];
        for f in ["frame.number", "ip.src", "_ws.col.Info"]
            .iter()
            .chain(c.fields)
        {
            words.push(format!("-e {f}"));
        }
        // Each option with its value unbroken: a printed line breaks only
        // between them, never at a hyphen, so the command types as shown.
        command = format!(
            "<code class=\"cmd\">{}</code>",
            words
                .iter()
                .map(|w| format!("<span>{}</span>", escape(w)))
                .collect::<Vec<_>>()
                .join(" ")
        );
        ways.push(format!(
            "list the packets, {COMMAND}{}",
            field_notes(c.fields)
        ));
    }
    let sides = [("hostB", s.client.is_some()), ("hostA", s.server.is_some())];
    let files: Vec<String> = sides
        .iter()
        .filter(|x| x.1)
        .map(|x| format!("`{}`", whole_stdout(&s.name, x.0)))
        .collect();
    let whose = if files.len() == 1 {
        "the program's output"
    } else {
        "each program's output"
    };
    ways.push(format!(
        "in {whose}, {}, find the line with `{}`: {}",
        files.join(" and "),
        c.line,
        c.look
    ));
    format!(
        "<p class=\"check\"><b>Check it yourself:</b> {}.</p>\n",
        inline(&capitalised(&ways.join("; then "))).replace(COMMAND, &command)
    )
}

/// Where a check step's tshark command goes in its Markdown, which the
/// command's own HTML replaces.
const COMMAND: &str = "TSHARK-COMMAND";

/// What the values of the fields a check step lists mean, where the
/// primer does not say.
const FIELD_NOTES: &[(&str, &str)] = &[
    (
        "infiniband.aeth.syndrome.opcode",
        "the AETH's kind: 0 an ACK, 1 an RNR NAK, 3 a NAK",
    ),
    (
        "infiniband.aeth.syndrome.error_code",
        "a NAK's reason: 0 PSN sequence error, 1 invalid request, 2 remote access error, \
         3 remote operational error",
    ),
    (
        "infiniband.aeth.syndrome.timer",
        "an RNR NAK's timer code (how long to wait before trying again)",
    ),
    (
        "infiniband.aeth.syndrome.credit_count",
        "an ACK's credit code",
    ),
];

/// The notes of [`FIELD_NOTES`] for `fields`, as a parenthesis.
fn field_notes(fields: &[&str]) -> String {
    let notes: Vec<String> = fields
        .iter()
        .filter_map(|f| FIELD_NOTES.iter().find(|(n, _)| n == f))
        .map(|(n, what)| format!("`{}` is {what}", n.rsplit('.').next().unwrap_or(n)))
        .collect();
    if notes.is_empty() {
        return String::new();
    }
    format!(" ({})", notes.join("; "))
}

/// Every check step of the handout's exercises against `report`'s run:
/// the first whose filter matches no frame of its capture, or whose line
/// no transcript of the run has.
fn check_steps(report: &LabReport) -> Result<(), String> {
    for s in catalog::handout_scenarios() {
        let (Some(e), Some(j)) = (
            s.exercise,
            report.outcomes.iter().find(|j| j.name() == s.name),
        ) else {
            continue;
        };
        let c = e.check;
        let pcap = report.dir.join(format!("{}.pcap", s.name));
        if !c.filter.is_empty() && pcap.is_file() {
            let found = crate::capture::field_values(&pcap, c.filter, "frame.number")?;
            if found.is_empty() {
                return Err(format!(
                    "handout: {}'s check step lists no packet: `{}` matches nothing in {}",
                    s.name,
                    c.filter,
                    pcap.display()
                ));
            }
        }
        let printed = [&j.outcome.server, &j.outcome.client]
            .iter()
            .filter_map(|side| side.as_ref())
            .any(|side| side.stdout.contains(c.line) || side.stderr.contains(c.line));
        if !printed {
            return Err(format!(
                "handout: {}'s check step looks for a line with `{}`, which no program of the \
                 run printed",
                s.name, c.line
            ));
        }
    }
    Ok(())
}

/// A handout of `report` (a two-host run with capture of
/// [`scenarios`]) in edition `ed`: one lab, or (`None`) all three in one
/// file, with the README sections read from the workspace.
pub fn edition_html(report: &LabReport, ed: Edition, lab: Option<&Lab>) -> String {
    let root = base::workspace::workspace_root();
    let addrs = crate::model::Mode::TwoHosts
        .addrs()
        .expect("the two-host lab has addresses");
    let (title, chapters, primer) = match lab {
        Some(l) => (
            format!("rdma-examples, lab {}: {}", l.n, l.title),
            l.chapters.to_vec(),
            l.primer,
        ),
        None => (
            "rdma-examples: the lab handout".to_string(),
            catalog::chapters().to_vec(),
            true,
        ),
    };
    let title = format!("{title} ({})", ed.name());
    let mut h = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = escape(&title)
    );
    h += &intro(report, ed);
    h += &labs_text(lab);
    h += &markdown(LEGEND);
    h += &contents(&root, &chapters, primer);
    if primer {
        h += &primer_section(&root);
    }
    for p in chapters {
        h += &chapter(report, p, &root, &addrs, ed);
    }
    if ed == Edition::Teacher {
        h += &anatomy_appendix(report);
    }
    first_rows_kept(&h) + "</body>\n</html>\n"
}

/// The rows a table may not leave alone at a page's foot: its first two
/// go in a body of their own that print keeps whole (`tbody.lead`).
const LEAD_ROWS: usize = 2;

/// `html` with the first [`LEAD_ROWS`] rows of each table body longer
/// than that in a `tbody.lead` of their own, so that a printed table
/// never starts with a lone row under its header at a page's foot:
/// Chromium keeps the lead body whole and moves it to the next page.
fn first_rows_kept(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find("<tbody>") {
        let body_at = at + "<tbody>".len();
        let end = rest[body_at..]
            .find("</tbody>")
            .map_or(rest.len(), |e| body_at + e);
        let body = &rest[body_at..end];
        let lead_end = body
            .match_indices("</tr>")
            .nth(LEAD_ROWS - 1)
            .map(|(i, m)| i + m.len())
            .filter(|_| body.matches("<tr").count() > LEAD_ROWS);
        out += &rest[..at];
        out += &match lead_end {
            Some(split) => format!(
                "<tbody class=\"lead\">{}</tbody>\n<tbody>{}",
                &body[..split],
                &body[split..]
            ),
            None => format!("<tbody>{body}"),
        };
        rest = &rest[end..];
    }
    out + rest
}

/// The combined student edition: every lab in one file.
pub fn html(report: &LabReport) -> String {
    edition_html(report, Edition::Student, None)
}

/// What the handout is and where its run came from.
fn intro(report: &LabReport, ed: Edition) -> String {
    let kernel = report
        .vms
        .as_ref()
        .map_or("this host's".to_string(), |v| v.kernel.clone());
    let run = format!(
        "Everything in it comes from one run of the lab: two throwaway virtual machines (kernel {kernel}), each with a Soft-RoCE device (`rdma_rxe`: software RoCE, the kernel doing an RDMA NIC's work) on a virtual NIC, joined by one wire. Host A (192.0.2.1) runs the servers, host B (192.0.2.2) the clients, and the wire between them was recorded. All of it is real RoCE v2: UDP port 4791, the InfiniBand transport inside. The captures are in `pcaps/` and the programs' whole output in `transcripts/`, beside this file.\n\n"
    );
    let text = match ed {
        Edition::Student => format!(
            "This lab uses the example programs of the Mellanox *RDMA Aware Networks Programming User Manual* (Rev 1.4) and two classic tutorials, in a port that keeps each program's options, steps and printed lines (the manual's C programs, rewritten in Rust; each chapter's table names the manual's C calls beside each step): what each demonstrates, how to run it on two hosts, what it printed, and what went over the wire.\n\n{run}\
Each exercise asks for a prediction: write it in its box first. Then check it as the exercise's last step says, with `tshark` (Wireshark's command-line tool) run in the directory of this file, and with the programs' output.\n"
        ),
        Edition::Teacher => format!(
            "This handout walks through the example programs of the Mellanox *RDMA Aware Networks Programming User Manual* (Rev 1.4) and two classic tutorials, ported to Rust: what each demonstrates, how to run it on two hosts, what it printed, and what went over the wire.\n\n{run}\
To make it yourself, on a Debian or Ubuntu machine with this repository:\n\n\
```\ncargo xtask handout          # HTML, with the captures beside it\ncargo xtask handout --pdf    # and a PDF, printed by headless Chromium\n```\n\n\
To run one pair and see its packets: `cargo xtask lab --two-hosts --capture rc_example`. On two real hosts, each chapter says which commands to type.\n"
        ),
    };
    markdown(&text)
}

/// The lab's time and goals, or (the combined file) the three labs'.
fn labs_text(lab: Option<&Lab>) -> String {
    let one = |l: &Lab| {
        format!(
            "<p class=\"lab\"><b>Lab {}: {}.</b> {}. Goals: {}.</p>\n",
            l.n,
            escape(l.title),
            l.time,
            escape(l.goals)
        )
    };
    match lab {
        Some(l) => {
            let primer = if l.primer {
                ""
            } else {
                "<p>The primer and its glossary open lab 1: read them first.</p>\n"
            };
            one(l) + primer
        }
        None => LABS.iter().map(one).collect(),
    }
}

/// A chapter's number in the whole handout, which each lab keeps, so that
/// "Exercise 3.1" is the same exercise in every file.
fn chapter_number(package: &str) -> usize {
    catalog::chapters()
        .iter()
        .position(|p| *p == package)
        .unwrap_or(0)
        + 1
}

/// The table of contents: the primer, then each chapter's title.
fn contents(root: &Path, chapters: &[&str], primer: bool) -> String {
    let mut h = String::from("<nav><h2>Contents</h2>");
    if primer {
        let md = fs::read_to_string(root.join(PRIMER)).unwrap_or_default();
        h += &format!(
            "<p><a href=\"#primer\">{}</a></p>",
            inline(&read_readme(&md, &[]).title)
        );
    }
    h += "<ol>\n";
    for p in chapters {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap_or_default();
        // Numbered as in the whole handout, as the exercises are.
        h += &format!(
            "<li value=\"{}\"><a href=\"#{p}\">{}</a></li>\n",
            chapter_number(p),
            inline(&read_readme(&md, &[]).title)
        );
    }
    h + "</ol></nav>\n"
}

/// The primer, whole.
fn primer_section(root: &Path) -> String {
    let md = fs::read_to_string(root.join(PRIMER)).unwrap_or_default();
    let title = read_readme(&md, &[]).title;
    let body: Vec<&str> = md.lines().skip(1).collect();
    format!(
        "<section class=\"primer\" id=\"primer\">\n<h2>{}</h2>\n{}</section>\n",
        inline(&title),
        markdown(&body.join("\n"))
    )
}

/// Writes the handouts into `out`: each lab's student and teacher
/// editions (`lab1.html`, `lab1-teacher.html`, ...), all three in one
/// file (`handout.html`, `handout-teacher.html`), and the captures and
/// transcripts they point to; returns the combined student edition's path.
pub fn write(report: &LabReport, out: &Path) -> Result<PathBuf, String> {
    if let Some(qp) = same_qp_numbers(report) {
        return Err(format!(
            "handout: both hosts' QPs are numbered {qp} in ibv_sockets_pingpong's run: its \
             capture cannot tell which QP the server sends to"
        ));
    }
    check_numbers(report)?;
    check_steps(report)?;
    let pcaps = out.join("pcaps");
    fs::create_dir_all(&pcaps).map_err(|e| format!("{}: {e}", pcaps.display()))?;
    for s in catalog::handout_scenarios() {
        let from = report.dir.join(format!("{}.pcap", s.name));
        if from.exists() {
            fs::copy(&from, pcaps.join(format!("{}.pcap", s.name)))
                .map_err(|e| format!("{}: {e}", from.display()))?;
        }
    }
    write_transcripts(report, out)?;
    write_standins(out)?;
    let put = |name: String, text: String| -> Result<PathBuf, String> {
        let file = out.join(name);
        fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(file)
    };
    for ed in [Edition::Student, Edition::Teacher] {
        for lab in &LABS {
            put(
                ed.file(&format!("lab{}", lab.n)),
                edition_html(report, ed, Some(lab)),
            )?;
        }
        put(ed.file("handout"), edition_html(report, ed, None))?;
    }
    Ok(out.join(Edition::Student.file("handout")))
}

/// What a placeholder of [`numbers`] asks of the capture of `own` (or of
/// the scenario it names) in `report`'s run: `None` when the run has no
/// such capture, as a partial run may not.
fn capture_number(
    report: &LabReport,
    own: &str,
    q: &numbers::Query,
) -> Option<Result<String, String>> {
    let pcap = report
        .dir
        .join(format!("{}.pcap", q.scenario.unwrap_or(own)));
    if !pcap.is_file() {
        return None;
    }
    Some(pcap_number(&pcap, q))
}

/// What `q` says of the capture `pcap`.
fn pcap_number(pcap: &Path, q: &numbers::Query) -> Result<String, String> {
    let per = match q.per {
        Some(f) => cached_values(pcap, f, q.field)?,
        None => Vec::new(),
    };
    numbers::value(q, &cached_values(pcap, q.filter, q.field)?, &per)
}

/// [`crate::capture::field_values`], each asked of tshark once: a handout
/// fills the same answers for each lab, each edition and the check.
fn cached_values(pcap: &Path, filter: &str, field: &str) -> Result<Vec<String>, String> {
    type Asked = std::collections::HashMap<(PathBuf, String, String), Result<Vec<String>, String>>;
    static ASKED: std::sync::OnceLock<std::sync::Mutex<Asked>> = std::sync::OnceLock::new();
    let key = (pcap.to_path_buf(), filter.to_string(), field.to_string());
    let asked = ASKED.get_or_init(Default::default);
    if let Some(got) = asked.lock().map_err(|e| e.to_string())?.get(&key) {
        return got.clone();
    }
    let got = crate::capture::field_values(pcap, filter, field);
    asked
        .lock()
        .map_err(|e| e.to_string())?
        .insert(key, got.clone());
    got
}

/// `text` (an answer about `own`'s run, in Markdown) with its numbers from
/// the captures: a number the run has no capture for says so, and an
/// answer whose numbers cannot be read (which [`check_numbers`] refuses
/// first) shows its checked numbers as stated and nothing more.
fn wire_numbers(report: &LabReport, own: &str, text: &str) -> String {
    let answer = |q: &numbers::Query| capture_number(report, own, q).transpose();
    numbers::fill(text, &answer).unwrap_or_else(|_| numbers::unfilled(text))
}

/// Every answer's numbers (the exercises' and the READMEs' "check
/// yourself") read from the captures `report`'s run has: the first that
/// cannot be read, or a README's number its capture does not bear out.
fn check_numbers(report: &LabReport) -> Result<(), String> {
    let root = base::workspace::workspace_root();
    let check = |own: &str, text: &str| {
        let answer = |q: &numbers::Query| capture_number(report, own, q).transpose();
        numbers::fill(text, &answer)
            .map(|_| ())
            .map_err(|e| format!("handout: {own}'s answer: {e}"))
    };
    for s in catalog::handout_scenarios() {
        if let Some(e) = s.exercise {
            check(&s.name, e.explain)?;
        }
    }
    for p in catalog::chapters() {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap_or_default();
        for (_, body) in read_readme(&md, &[CHAPTER_SECTIONS[4]]).sections {
            check(p, &body)?;
        }
    }
    Ok(())
}

/// The QP number both hosts' ibv_sockets_pingpong printed (`qp num: N`),
/// when they printed the same: two hosts that ran the same steps from
/// a fresh boot, which the lab's client VM avoids (`QP_OFFSET`).
fn same_qp_numbers(report: &LabReport) -> Option<String> {
    let o = &report
        .outcomes
        .iter()
        .find(|j| j.name() == "ibv_sockets_pingpong")?
        .outcome;
    let qp = |side: &Option<crate::model::SideOutcome>| {
        side.as_ref()?
            .stdout
            .lines()
            .find_map(|l| Some(l.trim().strip_prefix("qp num: ")?.to_string()))
    };
    let (server, client) = (qp(&o.server)?, qp(&o.client)?);
    (server == client).then_some(server)
}

/// Where a handout's exercises find the stand-in peers' scripts, beside
/// it, as in the workspace's `lab/`.
const STANDINS: &str = "standins/";

/// Copies the stand-in peers' scripts (the pyverbs programs some
/// exercises run against the real programs) beside the handout.
fn write_standins(out: &Path) -> Result<(), String> {
    let from = base::workspace::workspace_root().join("lab").join(STANDINS);
    let to = out.join(STANDINS);
    fs::create_dir_all(&to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = fs::read_dir(&from).map_err(|e| format!("{}: {e}", from.display()))?;
    for e in entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "py"))
    {
        fs::copy(e.path(), to.join(e.file_name()))
            .map_err(|err| format!("{}: {err}", e.path().display()))?;
    }
    Ok(())
}

/// Writes each side's whole stdout where a shortened transcript links to it.
fn write_transcripts(report: &LabReport, out: &Path) -> Result<(), String> {
    let dir = out.join("transcripts");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Only the table's names become file names.
    for o in report
        .outcomes
        .iter()
        .filter(|j| j.scenario.is_some())
        .map(|j| &j.outcome)
    {
        // Every side, whole, its errors and exit status after its
        // output: the exercises' checks point to them.
        for (host, side) in [("hostA", &o.server), ("hostB", &o.client)] {
            if let Some(side) = side {
                let file = out.join(whole_stdout(&o.scenario, host));
                let exit = side
                    .exit
                    .map_or("no exit status".to_string(), |c| format!("exit {c}"));
                let text = format!(
                    "{}--- its errors (stderr) ---\n{}--- {exit} ---\n",
                    side.stdout, side.stderr
                );
                fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
            }
        }
    }
    Ok(())
}

/// Writes the instructor's key, `out/key.html`, apart from the handout
/// that students get; returns its path.
pub fn write_key(report: &LabReport, out: &Path) -> Result<PathBuf, String> {
    let file = out.join("key.html");
    fs::write(&file, key_html(report)).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(file)
}

/// Prints `html` to `pdf` with headless Chromium.
pub fn pdf(html: &Path, pdf: &Path) -> Result<(), String> {
    crate::base::browser::chromium(
        html,
        &[
            format!("--print-to-pdf={}", pdf.display()),
            "--no-pdf-header-footer".into(),
        ],
    )?;
    if fs::metadata(pdf).map(|m| m.len()).unwrap_or(0) == 0 {
        return Err(format!("chromium wrote no {}", pdf.display()));
    }
    Ok(())
}

/// Opens the handout in headless Chromium and looks at what it rendered:
/// the DOM after layout (every chapter, a ladder per pair, the
/// transcripts), a screenshot (a picture of the page, not a blank one) and
/// a PDF print (a page per chapter at least). Every way it falls short.
pub fn check_in_chromium(html: &Path) -> Vec<String> {
    let dir = html.parent().unwrap_or(Path::new("."));
    let mut failures = check_dom(html);
    failures.extend(check_screenshot(html, dir));
    failures.extend(check_print(html, dir));
    failures.extend(check_teacher(dir));
    failures.extend(check_labs(dir));
    failures.extend(check_supplied(html, dir));
    failures
}

/// Every capture and transcript the student's edition points to, there
/// beside it.
fn check_supplied(html: &Path, dir: &Path) -> Vec<String> {
    let text = fs::read_to_string(html).unwrap_or_default();
    supplied(&text)
        .into_iter()
        .filter(|f| !dir.join(f).is_file())
        .map(|f| format!("the handout points to {f}, which is not beside it"))
        .collect()
}

/// The files under `pcaps/`, `transcripts/` and `standins/` that `html`
/// names.
pub fn supplied(html: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for dir in ["pcaps/", "transcripts/", STANDINS] {
        for (at, _) in html.match_indices(dir) {
            let name: String = html[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "/._-".contains(*c))
                .collect();
            let name = name.trim_end_matches('.').to_string();
            if name.len() > dir.len() && !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

/// What Chromium rendered of the student's combined edition: its
/// chapters and notes, no answer, its ladders and what every handout has.
fn check_dom(html: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let worked = |s: &&Scenario| !READING_NOTES.contains(&s.package);
    let pairs = catalog::all()
        .iter()
        .filter(worked)
        .filter(|s| s.pair)
        .count();
    let chapters_worked = catalog::chapters().len() - READING_NOTES.len();
    match crate::base::browser::chromium(html, &["--dump-dom".into()]) {
        Err(e) => failures.push(e),
        Ok(dom) => {
            let chapters = dom.matches("<section class=\"chapter\"").count();
            if chapters != chapters_worked {
                failures.push(format!(
                    "{chapters} chapters rendered, {chapters_worked} expected (and {} notes)",
                    READING_NOTES.len()
                ));
            }
            if dom.contains("class=\"answer\"") {
                failures.push("an exercise's answer is in the student edition".into());
            }
            let ladders = dom.matches("<svg").count();
            if ladders < pairs {
                failures.push(format!(
                    "{ladders} ladders rendered, at least {pairs} expected (one per pair)"
                ));
            }
            for want in [
                "hostA$ rc_example",
                "RC RDMA Read Request",
                "Exercise 1.1",
                "<b>Check it yourself:</b> ",
                "Reading note: ",
                "<table>",
            ] {
                if !dom.contains(want) {
                    failures.push(format!("the rendered page has no `{want}`"));
                }
            }
        }
    }
    failures
}

/// A screenshot of the page: a picture, not a blank one.
fn check_screenshot(html: &Path, dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let png = dir.join("handout.png");
    match crate::base::browser::chromium(
        html,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,2400".into(),
        ],
    ) {
        Err(e) => failures.push(e),
        Ok(_) => {
            let bytes = fs::read(&png).unwrap_or_default();
            // The IHDR chunk: width and height, big-endian, at 16 and 20.
            let dims = (bytes.len() > 24 && bytes.starts_with(b"\x89PNG")).then(|| {
                let be = |i: usize| {
                    u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]])
                };
                (be(16), be(20))
            });
            if dims != Some((1200, 2400)) {
                failures.push(format!("the screenshot is not a 1200x2400 PNG: {dims:?}"));
            }
            // A blank or near-blank page compresses to a few KiB; the first
            // screenful of text and tables does not.
            if bytes.len() < 100_000 {
                failures.push(format!(
                    "the screenshot is nearly blank ({} bytes)",
                    bytes.len()
                ));
            }
        }
    }
    failures
}

/// The page printed to PDF: a title page and a page a chapter at least,
/// the print's checks ([`check_pdf`]), and no answer in its text.
fn check_print(html: &Path, dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let pdf_file = dir.join("handout.pdf");
    match pdf(html, &pdf_file) {
        Err(e) => failures.push(e),
        Ok(()) => {
            let bytes = fs::read(&pdf_file).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            let pages = text.matches("/Type /Page").count() - text.matches("/Type /Pages").count();
            if !bytes.starts_with(b"%PDF") || pages < catalog::chapters().len() + 1 {
                failures.push(format!(
                    "the PDF has {pages} page(s); a title page and one per chapter at least were expected"
                ));
            }
            let html_text = fs::read_to_string(html).unwrap_or_default();
            failures.extend(check_pdf(&pdf_file, pages, &headings(&html_text)));
            for answer in leaked(&pdf_text(&pdf_file), &answer_openings()) {
                failures.push(format!("the student's PDF holds an answer: `{answer}`"));
            }
        }
    }
    failures
}

/// The most pages a lab's student edition may print to: about twenty,
/// for a lab of about two hours.
pub const LAB_PAGES_MAX: usize = 26;

/// Each lab's student edition printed (`labN.pdf`): at most
/// [`LAB_PAGES_MAX`] pages, and the print's checks ([`check_pdf`]).
fn check_labs(dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    for lab in &LABS {
        let html = dir.join(Edition::Student.file(&format!("lab{}", lab.n)));
        let pdf_file = dir.join(format!("lab{}.pdf", lab.n));
        if let Err(e) = pdf(&html, &pdf_file) {
            failures.push(e);
            continue;
        }
        let pages = pdf_pages(&pdf_file);
        println!("handout check: lab {} prints to {pages} pages", lab.n);
        if pages > LAB_PAGES_MAX {
            failures.push(format!(
                "lab {} prints to {pages} pages, more than {LAB_PAGES_MAX}",
                lab.n
            ));
        }
        let html_text = fs::read_to_string(&html).unwrap_or_default();
        failures.extend(
            check_pdf(&pdf_file, pages, &headings(&html_text))
                .into_iter()
                .map(|f| format!("lab {}: {f}", lab.n)),
        );
    }
    failures
}

/// The teacher's combined edition beside the student's: every worked
/// exercise's answer open.
fn check_teacher(dir: &Path) -> Vec<String> {
    let file = dir.join(Edition::Teacher.file("handout"));
    let text = fs::read_to_string(&file).unwrap_or_default();
    let want = catalog::all()
        .iter()
        .filter(|s| !READING_NOTES.contains(&s.package) && s.exercise.is_some())
        .count();
    let open = text.matches("<details class=\"answer\" open>").count();
    if open == want {
        Vec::new()
    } else {
        vec![format!(
            "{}: {open} answers open, {want} expected",
            file.display()
        )]
    }
}

/// The number of pages of a PDF.
fn pdf_pages(pdf_file: &Path) -> usize {
    let bytes = fs::read(pdf_file).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    text.matches("/Type /Page")
        .count()
        .saturating_sub(text.matches("/Type /Pages").count())
}

/// A PDF's text, as poppler's `pdftotext` reads it.
fn pdf_text(pdf_file: &Path) -> String {
    Command::new("pdftotext")
        .arg(pdf_file)
        .arg("-")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The opening words of every answer of the worked chapters: each
/// exercise's and each "check yourself" question's.
pub fn answer_openings() -> Vec<String> {
    let root = base::workspace::workspace_root();
    let worked = catalog::all()
        .iter()
        .filter(|s| !READING_NOTES.contains(&s.package));
    let mut answers: Vec<String> = worked
        .filter_map(|s| s.exercise)
        .map(|e| opening(&inline(e.explain)))
        .collect();
    for p in catalog::chapters()
        .iter()
        .filter(|p| !READING_NOTES.contains(p))
    {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap_or_default();
        let check = read_readme(&md, &[CHAPTER_SECTIONS[4]]);
        for (_, body) in &check.sections {
            for part in markdown(body).split("<details>").skip(1) {
                let inside = part.split("</details>").next().unwrap_or("");
                let answer = inside.split("</summary>").nth(1).unwrap_or(inside);
                answers.push(opening(answer));
            }
        }
    }
    answers.retain(|a| a.split(' ').count() >= 4);
    answers
}

/// The text of `html`: its tags gone, its entities read.
pub fn plain_text(html: &str) -> String {
    let mut plain = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => plain.push(c),
            _ => {}
        }
    }
    plain
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The first eight words of `html`'s text.
fn opening(html: &str) -> String {
    plain_text(html)
        .split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The answers of `openings` that `text` (a student's PDF) holds, its
/// lines joined as one.
pub fn leaked(text: &str, openings: &[String]) -> Vec<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    openings
        .iter()
        .filter(|o| flat.contains(o.as_str()))
        .cloned()
        .collect()
}

/// The texts of a page's headings (`h2` to `h4`), tags and entities gone.
fn headings(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for level in ["<h2", "<h3", "<h4"] {
        for part in html.split(level).skip(1) {
            let inner = part.split_once('>').map_or("", |(_, r)| r);
            let text = inner.split("</h").next().unwrap_or("");
            out.push(plain_text(text).trim().to_string());
        }
    }
    out
}

/// Whether the last line of text on a page (`pdftotext` of it) is a
/// heading: a heading stranded at the foot of a page, its text on the next.
pub fn ends_with_heading(page: &str, headings: &[String]) -> Option<String> {
    let last = page.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    headings
        .iter()
        .find(|h| !h.is_empty() && last == h.as_str())
        .cloned()
}

/// The print's checks on the PDF, read with poppler's `pdftotext`: no page
/// ends with a heading, and the ladders' smallest text (their `time,
/// frames` column header, at the notes' size) is 8 pt or more.
fn check_pdf(pdf: &Path, pages: usize, headings: &[String]) -> Vec<String> {
    let mut failures = Vec::new();
    for n in 1..=pages {
        let page = n.to_string();
        let text = Command::new("pdftotext")
            .args(["-layout", "-f", &page, "-l", &page])
            .arg(pdf)
            .arg("-")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        if let Some(h) = ends_with_heading(&text, headings) {
            failures.push(format!("page {n} of the PDF ends with the heading `{h}`"));
        }
    }
    failures.extend(half_empty_pages(pdf, pages, headings));
    let bbox = Command::new("pdftotext")
        .args(["-bbox"])
        .arg(pdf)
        .arg("-")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    match smallest_ladder_text(&bbox) {
        None => failures.push("the PDF has no ladder text (`frames`) that pdftotext finds".into()),
        Some(pt) if pt < 8.0 => failures.push(format!(
            "the ladders' smallest text is {pt:.1} pt in the PDF, less than 8"
        )),
        Some(_) => {}
    }
    failures
}

/// The pages under half full that do not end a chapter (the next page
/// starts with a chapter's title, `headings` holds them) and are not the
/// last: each rendered in grey by poppler's `pdftoppm`, its fill the
/// lowest row with ink.
fn half_empty_pages(pdf: &Path, pages: usize, headings: &[String]) -> Vec<String> {
    let dir = match crate::base::tmp::private_tempdir("rdma-examples-handout-pages-", "pdftoppm") {
        Ok(d) => d,
        Err(e) => return vec![e],
    };
    let prefix = dir.path().join("p");
    let ok = Command::new("pdftoppm")
        .args(["-r", "20", "-gray"])
        .arg(pdf)
        .arg(&prefix)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return vec!["pdftoppm could not render the PDF".into()];
    }
    let mut files: Vec<PathBuf> = fs::read_dir(dir.path())
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let first_line = |n: usize| {
        let page = n.to_string();
        Command::new("pdftotext")
            .args(["-f", &page, "-l", &page])
            .arg(pdf)
            .arg("-")
            .output()
            .map(|o| {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                text.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate().take(pages.saturating_sub(1)) {
        let fill = fs::read(f).ok().and_then(|b| page_fill(&b)).unwrap_or(1.0);
        // A title may wrap: the next page's first line begins it.
        let next = first_line(i + 2);
        let chapter_ends = !next.is_empty() && headings.iter().any(|h| h.starts_with(&next));
        if fill < 0.5 && !chapter_ends {
            out.push(format!(
                "page {} of the PDF is {:.0}% full and ends no chapter",
                i + 1,
                fill * 100.0
            ));
        }
    }
    out
}

/// How far down a page its ink goes (0 to 1), from a binary PGM (`P5`).
pub fn page_fill(pgm: &[u8]) -> Option<f64> {
    let text = String::from_utf8_lossy(&pgm[..pgm.len().min(64)]).into_owned();
    let mut fields = text.split_ascii_whitespace();
    if fields.next()? != "P5" {
        return None;
    }
    let w: usize = fields.next()?.parse().ok()?;
    let h: usize = fields.next()?.parse().ok()?;
    let _max = fields.next()?;
    let body = pgm.len().checked_sub(w * h)?;
    let px = &pgm[body..];
    let last = (0..h)
        .rev()
        .find(|y| px[y * w..(y + 1) * w].iter().any(|&v| v < 200))?;
    Some((last + 1) as f64 / h as f64)
}

/// The smallest height, in points, of the word `frames` that follows
/// `time,` in `pdftotext -bbox` output: the ladders' column header, set at
/// their smallest size.
pub fn smallest_ladder_text(bbox: &str) -> Option<f64> {
    let words: Vec<(&str, f64)> = bbox
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let attr = |name: &str| -> Option<f64> {
                let at = l.find(&format!("{name}=\""))? + name.len() + 2;
                l[at..].split('"').next()?.parse().ok()
            };
            let word = l.split('>').nth(1)?.split('<').next()?;
            Some((word, attr("yMax")? - attr("yMin")?))
        })
        .collect();
    words
        .windows(2)
        .filter(|w| w[0].0 == "time," && w[1].0 == "frames")
        .map(|w| w[1].1)
        .reduce(f64::min)
}

#[cfg(test)]
mod tests;

mod numbers;
