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
    /// The paper it prints on (`--paper`).
    pub paper: Paper,
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
    let html = write(report, out, what.paper)?;
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
    let looks_right = !what.check || checked(&html, what.paper);
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
fn checked(html: &Path, paper: Paper) -> bool {
    let failures = check_in_chromium(html, paper);
    for f in &failures {
        println!("handout check: {f}");
    }
    if failures.is_empty() {
        println!("handout check: Chromium renders every chapter and ladder, and prints it");
    }
    failures.is_empty()
}

/// Markdown to HTML (the README's tables and code blocks included).
/// Inline code of up to [`SHORT_CODE`] characters is `code.short`, which
/// print keeps on one line: an option never breaks after its dash.
fn markdown(md: &str) -> String {
    use pulldown_cmark::{html, Event, Options, Parser};
    let events = Parser::new_ext(md, Options::ENABLE_TABLES).map(|e| match e {
        Event::Code(c) if c.chars().count() <= SHORT_CODE => {
            Event::InlineHtml(format!("<code class=\"short\">{}</code>", escape(&c)).into())
        }
        e => e,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    local_links_as_text(&out)
}

/// The longest inline code kept on one line: an option with its value
/// (`-l msg_length`), never so long that a line could not hold it.
const SHORT_CODE: usize = 24;

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

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
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
        goals: "read an RDMA program's steps (device, PD, MR, CQ, QP, its moves to RTR and RTS) \
                against its packets; tell a SEND from an RDMA Read and Write on the wire; follow \
                PSNs, acknowledgements and resends",
        chapters: &["rc_example", "ibv_sockets_pingpong"],
        primer: true,
    },
    Lab {
        n: 2,
        title: "The connection manager and a shared receive queue",
        goals: "follow rdma_cm's events and the CM messages behind them on the wire, \
                when a connection is made and when it cannot be; see what a shared \
                receive queue changes, and how a program keeps it from running empty",
        chapters: &["rdmacm_client_server", "srq"],
        primer: false,
    },
    Lab {
        n: 3,
        title: "UD multicast, and a note on path migration",
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
    let gives = match ed {
        Edition::Student => all_gives(&chapter_asked(report, package)),
        Edition::Teacher => Vec::new(),
    };
    h += &chapter_runs(package, addrs, &find, &gives);
    h += &exercises(report, package, addrs, ed);
    if let Some((head, body)) = readme
        .sections
        .iter()
        .find(|(head, _)| head.starts_with(CHAPTER_SECTIONS[4]))
    {
        h += &format!(
            "<h3>{}</h3>\n{}",
            escape(head),
            check_yourself(
                &markdown(&wire_numbers(report, package, &without_markers(body))),
                ed
            )
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

/// The chapter's pairs as the lab ran them: both transcripts, the ladder
/// and, in the teacher's edition, the wire facts; `gives` (the student's
/// edition's) blanked in them.
fn chapter_runs<'a>(
    package: &str,
    addrs: &Addrs,
    find: &impl Fn(&Scenario) -> Option<&'a Judged>,
    gives: &[String],
) -> String {
    let ed = match gives {
        [] => Edition::Teacher,
        _ => Edition::Student,
    };
    let mut h = String::new();
    let all = catalog::all();
    for s in all.iter().filter(|s| s.package == package && s.pair) {
        h += &format!(
            "<h3>The lab's run: {}</h3>\n<p>Host A is the server (192.0.2.1), host B the client (192.0.2.2): two VMs on one wire, Soft-RoCE on each.</p>\n",
            s.name
        );
        h += &runs(s, find(s).map(|j| &j.outcome), gives);
        h += &wire_part(s, find(s), addrs, ed, gives);
    }
    h
}

/// The chapter's exercises, numbered: each question and a place for the
/// prediction, then in the student's edition a step to check it, in the
/// teacher's the answer, open, with the run and packets behind it.
fn exercises(report: &LabReport, package: &str, addrs: &Addrs, ed: Edition) -> String {
    let find = |s: &Scenario| report.outcomes.iter().find(|j| j.name() == s.name);
    let list = numbered(package);
    if list.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h3>Exercises</h3>\n");
    for n in &list {
        let (s, e) = (n.scenario, &n.exercise);
        h += &format!(
            "<div class=\"exercise\">\n<h4>Exercise {}</h4>\n<p>{}</p>\n<p><b>Predict:</b> {}</p>\n{ROOM}\n",
            n.number(),
            inline(e.question),
            inline(e.predict),
        );
        let captured = captured_in(report, s);
        if ed == Edition::Student {
            h += &check_step(n, captured);
            h += OBSERVED;
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
            h += &runs(s, find(s).map(|j| &j.outcome), &[]);
            if captured {
                h += &wire_part(s, find(s), addrs, ed, &[]);
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

/// One ruled line to write on: a border, which prints where a
/// background may not.
macro_rules! rule {
    () => {
        "<div class=\"rule\"></div>"
    };
}

/// A box of `class` with five ruled lines, 1.6 in.: room to write.
macro_rules! ruled {
    ($class:literal) => {
        concat!(
            "<div class=\"",
            $class,
            "\">",
            rule!(),
            rule!(),
            rule!(),
            rule!(),
            rule!(),
            "</div>"
        )
    };
}

/// Ruled room for a student's prediction.
const ROOM: &str = ruled!("prediction");

/// Ruled room for a student's answer to a question.
const ANSWER_ROOM: &str = ruled!("room");

/// Ruled lines for what the student saw on checking a prediction.
const OBSERVED: &str = concat!(
    "<div class=\"observed\"><b>What you saw:</b>",
    rule!(),
    rule!(),
    rule!(),
    "</div>"
);

/// A handout of `report` (a two-host run with capture of
/// [`scenarios`]) in edition `ed`: one lab, or (`None`) all three in one
/// file, with the README sections read from the workspace.
pub fn edition_html(report: &LabReport, ed: Edition, lab: Option<&Lab>) -> String {
    edition_on(report, ed, lab, Paper::default())
}

/// [`edition_html`] printed on `paper`.
pub fn edition_on(report: &LabReport, ed: Edition, lab: Option<&Lab>, paper: Paper) -> String {
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
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n<style>{STYLE}{}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        paper.css(),
        t = escape(&title)
    );
    h += &intro(report, ed);
    h += &labs_text(lab, &|l| lab_time(report, &root, &addrs, l));
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

/// Lab `l`'s time as its front page says it, estimated from its
/// student's edition ([`timing`]): the legend and the primer count with
/// its first chapter.
fn lab_time(report: &LabReport, root: &Path, addrs: &Addrs, l: &Lab) -> String {
    let of = |p: &&str| timing::Estimate::of(&chapter(report, p, root, addrs, Edition::Student));
    let mut first = timing::Estimate::of(&markdown(LEGEND));
    if l.primer {
        first = first.plus(timing::Estimate::of(&primer_section(root)));
    }
    let mut chapters = l.chapters.iter();
    if let Some(p) = chapters.next() {
        first = first.plus(of(p));
    }
    let rest = chapters
        .map(of)
        .fold(timing::Estimate::default(), timing::Estimate::plus);
    timing::time_text(first, rest)
}

/// The combined student edition: every lab in one file.
pub fn html(report: &LabReport) -> String {
    edition_html(report, Edition::Student, None)
}

/// Writes the handouts into `out`: each lab's student and teacher
/// editions (`lab1.html`, `lab1-teacher.html`, ...), all three in one
/// file (`handout.html`, `handout-teacher.html`), and the captures and
/// transcripts they point to; returns the combined student edition's path.
pub fn write(report: &LabReport, out: &Path, paper: Paper) -> Result<PathBuf, String> {
    if let Some(qp) = same_qp_numbers(report) {
        return Err(format!(
            "handout: both hosts' QPs are numbered {qp} in ibv_sockets_pingpong's run: its \
             capture cannot tell which QP the server sends to"
        ));
    }
    check_numbers(report)?;
    check_steps(report)?;
    check_leaks(report)?;
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
    write_checks(report, out)?;
    let put = |name: String, text: String| -> Result<PathBuf, String> {
        let file = out.join(name);
        fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(file)
    };
    for ed in [Edition::Student, Edition::Teacher] {
        for lab in &LABS {
            put(
                ed.file(&format!("lab{}", lab.n)),
                edition_on(report, ed, Some(lab), paper),
            )?;
        }
        put(ed.file("handout"), edition_on(report, ed, None, paper))?;
    }
    Ok(out.join(Edition::Student.file("handout")))
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

/// Writes the instructor's key, `out/key.html`, apart from the handout
/// that students get; returns its path.
pub fn write_key(report: &LabReport, out: &Path) -> Result<PathBuf, String> {
    let file = out.join("key.html");
    fs::write(&file, key_html(report)).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(file)
}

mod captured;
mod checks;
mod chromium;
mod edition;
mod front;
mod layout;
mod leaks;
mod numbers;
mod paper;
mod style;
mod timing;
mod transcripts;
mod wire;

use captured::*;
use checks::*;
pub use chromium::*;
use edition::*;
use front::*;
use leaks::*;
pub use paper::Paper;
use style::STYLE;
use transcripts::*;
use wire::*;

#[cfg(test)]
mod tests;
