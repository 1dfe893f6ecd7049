use super::*;

#[test]
fn readme_sections_are_cut_at_their_headings_not_in_code() {
    let md = "# x: the title\n\nIntro.\n\n## What it demonstrates\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Options\n\nno\n\n## Running it on two hosts\n\n```\n## not a heading\n$ x\n```\n";
    let r = read_readme(md, &["What it demonstrates", "Running it"]);
    assert_eq!(r.title, "x: the title");
    assert_eq!(r.intro.trim(), "Intro.");
    assert_eq!(r.sections.len(), 2);
    assert!(r.sections[0].1.contains("| 1 | 2 |"));
    assert_eq!(r.sections[1].0, "Running it on two hosts");
    assert!(r.sections[1].1.contains("## not a heading"));
    assert!(markdown(&r.sections[0].1).contains("<td>2</td>"));
}

#[test]
fn every_example_readme_has_what_the_handout_takes() {
    let root = base::workspace::workspace_root();
    for p in catalog::chapters() {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap();
        let r = read_readme(&md, &CHAPTER_SECTIONS);
        assert!(r.title.starts_with(p), "{p}: title {}", r.title);
        let names: Vec<&str> = r.sections.iter().map(|(h, _)| h.as_str()).collect();
        assert_eq!(r.sections.len(), CHAPTER_SECTIONS.len(), "{p}: {names:?}");
        assert!(r.sections[2].1.contains("|---"), "{p}: a step table");
        let check = &r.sections[4].1;
        assert!(
            check.matches("<details><summary>Answer</summary>").count() >= 3,
            "{p}: questions, each with its answer collapsed"
        );
        assert!(
            catalog::all().iter().any(|s| s.package == *p && s.pair),
            "{p}: a pair"
        );
    }
}

#[test]
fn every_example_has_an_exercise() {
    for p in catalog::chapters() {
        assert!(
            catalog::all()
                .iter()
                .any(|s| s.package == *p && s.exercise.is_some()),
            "{p} has no exercise"
        );
    }
}

/// docs/wire.md shows rc_example's ladder: the one the ladder
/// code draws from the recorded capture, not an older drawing.
#[test]
fn the_readme_ladder_is_drawn_from_the_recorded_capture() {
    let frames = crate::capture::parse(include_str!("../../../tests/data/rc_example.tsv"));
    let packets = &crate::capture::cut(&frames)[0].packets;
    let addrs = crate::model::Mode::TwoHosts.addrs().expect("two hosts");
    let drawn = crate::capture::ladder::text(
        "rc_example",
        &crate::capture::ladder::rungs(packets, &addrs, None),
        &addrs,
    );
    let readme =
        fs::read_to_string(base::workspace::workspace_root().join("docs/wire.md")).unwrap();
    let start = readme
        .find("--- rc_example: on the wire ---")
        .expect("docs/wire.md shows rc_example's ladder");
    let end = start + readme[start..].find("```").expect("in a code block");
    assert_eq!(
        &readme[start..end],
        drawn,
        "paste the ladder drawn from the fixture into docs/wire.md"
    );
}

/// The handout of a run that captured rc_example only (the recorded
/// fixture) and printed nothing: every chapter's README sections and
/// exercises, and rc_example's ladder.
pub(super) fn rendered() -> String {
    html(&rendered_report())
}

/// [`rendered`]'s teacher edition, all three labs in one file.
pub(super) fn teacher() -> String {
    edition_html(&rendered_report(), Edition::Teacher, None)
}

/// A report of a run that captured rc_example only (the recorded
/// fixture).
pub(super) fn rendered_report() -> LabReport {
    let frames = crate::capture::parse(include_str!("../../../tests/data/rc_example.tsv"));
    let packets = crate::capture::cut(&frames).remove(0).packets;
    let addrs = crate::model::Mode::TwoHosts.addrs();
    let outcome = Outcome {
        scenario: "rc_example".into(),
        server: None,
        client: None,
        leftover: String::new(),
        capture: Some(packets),
    };
    LabReport {
        dir: PathBuf::from("/nonexistent/lab/run"),
        outcomes: crate::capture::verdict::judge_all(vec![outcome], addrs.as_ref(), true),
        notes: Vec::new(),
        elapsed: std::time::Duration::ZERO,
        vms: None,
        addrs,
        captured: true,
        mode: crate::model::Mode::TwoHosts,
        skipped: Vec::new(),
        findings: Vec::new(),
        hosts: Vec::new(),
    }
}

/// The pair's wire facts are listed in words, each with its verdict
/// on the capture, so a student knows what to look for.
#[test]
fn each_wire_fact_is_said_in_words_with_its_verdict() {
    let h = teacher();
    let facts = crate::catalog::find("rc_example").unwrap().wire;
    assert!(facts.len() >= 5, "{}", facts.len());
    for f in facts {
        let li = format!(
            "<li class=\"holds\">{}: <b>holds</b></li>",
            inline(&f.to_string())
        );
        assert!(h.contains(&li), "{li}");
    }
    assert!(!h.contains("<li class=\"fails\">"));
    // The student's edition says what to look for, not that it holds.
    assert!(!rendered().contains("<ul class=\"facts\">"));
}

/// Each exercise of a worked chapter asks, leaves room for a prediction
/// and, in the student's edition, ends in a step to check it, with no
/// answer anywhere, not even collapsed; the teacher's edition and the
/// instructor's key have every answer open.
#[test]
fn the_student_edition_has_no_answers_and_the_teachers_has_them_all() {
    let h = rendered();
    let worked = |s: &&crate::model::Scenario| !READING_NOTES.contains(&s.package);
    let n = catalog::all()
        .iter()
        .filter(worked)
        .filter(|s| s.exercise.is_some())
        .count();
    assert!(n >= 6, "{n} exercises");
    assert_eq!(h.matches("<div class=\"exercise\">").count(), n);
    assert_eq!(h.matches(ROOM).count(), n);
    assert_eq!(ROOM.matches(rule!()).count(), 5, "1.6 in. of ruled room");
    assert_eq!(h.matches("<b>Check it yourself:</b> ").count(), n);
    assert!(!h.contains("class=\"answer\""));
    // No answer collapsed either: the only collapsed part is the ladder's
    // table of headers, on screen (it prints open).
    assert_eq!(
        h.matches("<details").count(),
        h.matches("<details class=\"anatomy screen\">").count(),
        "no answer collapsed either"
    );
    assert!(h.contains("<h4>Exercise 1.1</h4>"), "numbered per chapter");
    for s in catalog::all().iter().filter(worked) {
        if let Some(e) = s.exercise {
            assert!(
                !plain_text(&h).contains(&opening(&inline(e.explain))),
                "{}'s answer",
                s.name
            );
        }
    }
    // rc_example's captured exercise points to its capture, with tshark.
    // with its own filter, and names the line to find.
    let e = catalog::find("rc_example")
        .and_then(|s| s.exercise)
        .unwrap();
    assert!(
        plain_text(&h).contains(&format!(
            "tshark -r pcaps/rc_example.pcap -Y '{}' -T fields",
            e.check.filter
        )),
        "{h}"
    );
    // Printed, it breaks between options only.
    assert!(h.contains("<span>-e frame.number</span> <span>-e ip.src</span>"));
    let line = inline(&format!("`{}`", e.check.line));
    assert!(h.contains(&format!("find the line with {line}")), "{line}");
    let t = teacher();
    assert_eq!(t.matches("<details class=\"answer\" open>").count(), n);
    assert!(!t.contains("Check it yourself"));
    let report = rendered_report();
    let key = key_html(&report);
    let all = catalog::all()
        .iter()
        .filter(|s| s.exercise.is_some())
        .count();
    assert_eq!(key.matches("<details class=\"answer\" open>").count(), all);
    // An answer's numbers are its capture's (none here): its opening.
    let key_text = plain_text(&key);
    for s in catalog::all() {
        if let Some(e) = s.exercise {
            assert!(
                key_text.contains(&opening(&inline(e.explain))),
                "{}",
                s.name
            );
        }
    }
}

/// A long transcript shows its first and last lines, and says how
/// many it left out and where they all are.
#[test]
fn a_long_transcript_is_shortened_with_a_link_to_the_whole() {
    let out: String = (1..=100).map(|i| format!("recv count: {i}\n")).collect();
    let side = SideOutcome {
        exit: Some(0),
        elapsed_ms: Some(1),
        stdout: out,
        ..SideOutcome::default()
    };
    let cmd = Cmd::new("srq", &["-s"]);
    let keep = ["recv count: 50".to_string()];
    let h = transcript("srq", "hostA", &cmd, Some(&side), &keep, &[]);
    let gap = |n: usize| {
        format!(
            "<span class=\"gap\">({n} more lines: all 100 in <a href=\"transcripts/srq.hostA.txt\">transcripts/srq.hostA.txt</a>)</span>"
        )
    };
    // The first 10, the kept line, the last 6, and the gaps between.
    assert!(
        h.contains(&format!("recv count: 10\n{}\nrecv count: 50\n", gap(39))),
        "{h}"
    );
    assert!(
        h.contains(&format!("recv count: 50\n{}\nrecv count: 95\n", gap(44))),
        "{h}"
    );
    assert!(!h.contains("recv count: 11\n") && h.contains("recv count: 100\n(exit 0)"));
    let short = SideOutcome {
        stdout: "one\ntwo\n".into(),
        ..side
    };
    let h = transcript("srq", "hostA", &cmd, Some(&short), &[], &[]);
    assert!(
        h.contains("one\ntwo\n(exit 0)") && !h.contains("gap"),
        "{h}"
    );
}

/// The primer comes before chapter 1, and each chapter frames its
/// lab: goals and prerequisites first, the questions to check oneself
/// and what the manual's program gets wrong last.
#[test]
fn the_handout_has_its_primer_and_each_chapter_its_frame() {
    let h = teacher();
    let primer = h.find("<section class=\"primer\"").expect("a primer");
    let first = h.find("<section class=\"chapter\"").unwrap();
    assert!(primer < first);
    for heading in ["RoCE v2", "BTH", "AETH", "Queue pair states"] {
        assert!(
            h[primer..first].contains(heading),
            "the primer covers {heading}"
        );
    }
    for p in catalog::chapters()
        .iter()
        .filter(|p| !READING_NOTES.contains(p))
    {
        let at = h
            .find(&format!("<section class=\"chapter\" id=\"{p}\">"))
            .unwrap();
        let end = at + h[at..].find("</section>").unwrap();
        let ch = &h[at..end];
        let pos = |t: &str| ch.find(t).unwrap_or_else(|| panic!("{p}: no {t}"));
        assert!(
            pos("<h3>Learning goals</h3>") < pos("<h3>What it demonstrates</h3>"),
            "{p}"
        );
        assert!(
            pos("<h3>Before you start</h3>") < pos("<h3>What it demonstrates</h3>"),
            "{p}"
        );
        assert!(
            pos("<h3>Exercises</h3>") < pos("<h3>Check yourself</h3>"),
            "{p}"
        );
        assert!(
            pos("<h3>Check yourself</h3>") < pos("<aside class=\"manual\">"),
            "{p}"
        );
    }
}

/// The names of the source documents' files in `text`: three digits,
/// `_`, sixteen hex digits, `.txt` (`002_4568353e3e00e8fb.txt`).
fn seed_file_names(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let at = |i: usize| {
        let name = b.get(i..i + 24)?;
        let ok = name[..3].iter().all(u8::is_ascii_digit)
            && name[3] == b'_'
            && name[4..20].iter().all(u8::is_ascii_hexdigit)
            && &name[20..] == b".txt";
        ok.then(|| String::from_utf8_lossy(name).into_owned())
    };
    (0..b.len()).filter_map(at).collect()
}

#[test]
fn the_handout_names_no_source_file() {
    assert_eq!(
        seed_file_names("(`002_4568353e3e00e8fb.txt`) and 12_ab.txt"),
        ["002_4568353e3e00e8fb.txt"]
    );
    assert_eq!(seed_file_names(&rendered()), Vec::<String>::new());
}

#[test]
fn the_handout_says_what_roce_carries_instead_of_a_grh() {
    let h = rendered();
    assert!(
        !h.to_lowercase().contains("every packet needs a grh"),
        "RoCE v2 puts no GRH on the wire"
    );
    assert!(h.contains("no GRH goes on the wire"));
    assert!(h.contains("UDP to port 4791"));
}

#[test]
fn the_handout_ladder_says_what_a_read_request_asks_for_and_a_syn_ack() {
    let h = rendered();
    assert!(
        h.contains("RC RDMA Read Request QP 0x13 PSN 0 (reads 21 B)"),
        "a Read Request carries no payload"
    );
    assert!(!h.contains("RC RDMA Read Request QP 0x13 PSN 0 21 B"));
    assert!(h.contains("TCP :19875 SYN/ACK"));
}

#[test]
fn the_handout_says_what_it_cannot_show() {
    let h = teacher();
    // Timings of emulated hosts, where the ping-pong's appear.
    let pingpong = &h[h.find("id=\"ibv_sockets_pingpong\"").unwrap()..];
    let exercise = &pingpong[pingpong.find("Add -n 100").unwrap()..];
    let exercise = &exercise[..exercise.find("</h4>").unwrap()];
    assert!(exercise.contains("say nothing about RDMA performance"));
    // No pointers to what the handout does not have.
    assert!(!pingpong.contains("benchmark below"));
    assert!(!pingpong.contains("parse_summary"));
    // apm opens with why it shows no migration on RoCE.
    let apm = &h[h.find("id=\"apm\"").unwrap()..];
    let intro = &apm[apm.find("<p>").unwrap()..];
    let intro = &intro[..intro.find("</p>").unwrap()];
    for want in [
        "no path migration to see",
        "alternate path",
        "InfiniBand",
        "QP path migrated",
    ] {
        assert!(
            intro.contains(want),
            "apm's first paragraph: no `{want}` in {intro}"
        );
    }
}

#[test]
fn commands_read_as_typed() {
    let cmd = Cmd::new(
        "rc_example",
        &["-d", "{dev}", "-g", "{gid_idx}", "{server_ip}", "a b"],
    );
    assert_eq!(
        command_line(&cmd, &lab_params()),
        "rc_example -d rxe0 -g 1 192.0.2.1 'a b'"
    );
}
/// A stand-in's inline script is shown as the file it comes from.
#[test]
fn a_stand_ins_command_names_its_file_not_its_script() {
    let s = crate::catalog::find("rc_example_rnr_nak").expect("declared");
    let line = command_line(s.client.as_ref().unwrap(), &lab_params());
    assert_eq!(
        line,
        "python3 lab/standins/rc_example_peer.py rnr 192.0.2.1 rxe0 1"
    );
}

/// The words the labs use without saying what they are, each defined in
/// the primer's glossary, which comes before the primer's first section:
/// a student meets each definition before the word.
#[test]
fn the_primer_defines_its_words_before_it_uses_them() {
    let root = crate::base::workspace::workspace_root();
    let primer = std::fs::read_to_string(root.join(PRIMER)).unwrap();
    let glossary = primer
        .find("## Words used in the labs")
        .expect("a glossary");
    let first = primer
        .find("## The verbs objects")
        .expect("the first section");
    assert!(glossary < first);
    let rows = &primer[glossary..first];
    for word in [
        "LID",
        "GID",
        "GID index",
        "GID type",
        "subnet manager",
        "MAD",
        "IPoIB",
        "PSN",
        "MSN",
        "credit",
        "P_Key",
        "Q_Key",
        "RNR",
        "go-back-N",
        "SGE",
        "event channel",
        "service ID",
        "TCG",
    ] {
        assert!(rows.contains(&format!("| **{word}** |")), "{word}");
    }
    assert!(!primer.contains("31\n  means none is given"));
}

/// Code in a table or a block is not shrunk twice: the box is already
/// 0.85 of the text, and 0.85 of that printed at 7.2 pt.
#[test]
fn code_in_a_table_or_a_block_is_not_shrunk_twice() {
    assert!(STYLE
        .contains("code, pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 0.85em; }"));
    assert!(STYLE.contains("pre code, td code, th code { font-size: 1em; }"));
    assert!(STYLE.contains("body { max-width: none; margin: 0; font-size: 10pt; }"));
    // On paper a table longer than a page splits between rows, with its
    // header again, and a transcript longer than a page leaves at least
    // three lines on each side of a break (the print's check finds a
    // block split that would fit on a page).
    assert!(STYLE.contains(
        "tr, tbody.lead { break-inside: avoid; } thead { display: table-header-group; }"
    ));
    assert!(STYLE.contains("pre { break-inside: avoid; orphans: 3; widows: 3; }"));
}

/// A run whose two hosts numbered their QPs alike gives no handout: its
/// capture could not say which QP the server sends to.
#[test]
fn a_run_whose_hosts_numbered_their_qps_alike_is_refused() {
    let side = |qp: u32| SideOutcome {
        exit: Some(0),
        elapsed_ms: Some(1),
        stdout: format!("[OK] create qp.\n\tqp num: {qp}\n"),
        ..SideOutcome::default()
    };
    let mut report = rendered_report();
    let run = |server: u32, client: u32| Outcome {
        scenario: "ibv_sockets_pingpong".into(),
        server: Some(side(server)),
        client: Some(side(client)),
        leftover: String::new(),
        capture: None,
    };
    report.outcomes = crate::capture::verdict::judge_all(vec![run(19, 19)], None, false);
    assert_eq!(same_qp_numbers(&report).as_deref(), Some("19"));
    let out = tempfile::tempdir().unwrap();
    let e = write(&report, out.path(), Paper::A4).unwrap_err();
    assert!(e.contains("both hosts' QPs are numbered 19"), "{e}");
    report.outcomes = crate::capture::verdict::judge_all(vec![run(19, 22)], None, false);
    assert_eq!(same_qp_numbers(&report), None);
}

/// Three labs, every chapter in one of them, each a student's and a
/// teacher's file; a lab without the primer sends its reader to lab 1;
/// APM is a note to read, with no exercise and no run.
#[test]
fn three_labs_hold_every_chapter_once() {
    let mut all: Vec<&str> = LABS
        .iter()
        .flat_map(|l| l.chapters.iter().copied())
        .collect();
    all.sort_unstable();
    let mut want = catalog::chapters().to_vec();
    want.sort_unstable();
    assert_eq!(all, want);
    let report = rendered_report();
    for lab in &LABS {
        let h = edition_html(&report, Edition::Student, Some(lab));
        assert!(h.contains(&format!("<h1>rdma-examples, lab {}: ", lab.n)));
        assert!(
            h.contains(&format!("<b>Lab {}: {}.</b> About ", lab.n, lab.title))
                && h.contains("words a minute"),
            "each lab says its time and how it was estimated"
        );
        assert_eq!(h.contains("<section class=\"primer\""), lab.primer);
        assert_eq!(
            !h.contains("The primer and its glossary open lab 1"),
            lab.primer
        );
        for p in catalog::chapters() {
            assert_eq!(
                h.contains(&format!(" id=\"{p}\">")),
                lab.chapters.contains(p),
                "lab {}: {p}",
                lab.n
            );
        }
    }
    let h = rendered();
    let apm = &h[h
        .find("<section class=\"chapter note\" id=\"apm\">")
        .unwrap()..];
    let apm = &apm[..apm.find("</section>").unwrap()];
    assert!(apm.contains("<h2>Reading note: "));
    assert!(!apm.contains("Exercise"));
    assert!(!apm.contains("<svg"));
    assert!(!apm.contains("<table>"), "a note of one page: prose only");
    assert_eq!(Edition::Teacher.file("lab2"), "lab2-teacher.html");
}

/// The student's "check yourself" questions keep no answer.
#[test]
fn check_yourself_answers_are_cut_for_students_and_open_for_teachers() {
    let body = "<ol><li>Why?</li></ol>\n<details><summary>Answer</summary>\n<p>Because.</p>\n</details>\n<p>Next.</p>\n";
    assert_eq!(
        check_yourself(body, Edition::Student),
        format!("<ol><li>Why?</li></ol>\n{ANSWER_ROOM}\n<p>Next.</p>\n")
    );
    assert!(check_yourself(body, Edition::Teacher).contains("<details open><summary>"));
}

/// An arrow's IPv4 and UDP lines are shown where they first appear in
/// its ladder's table, not on every row; the header row repeats on each
/// printed page.
#[test]
fn a_ladders_table_says_ipv4_and_udp_once() {
    let h = rendered();
    let start = h.find("<table class=\"anatomy\"><thead>").expect("a table");
    let table = &h[start..start + h[start..].find("</table>").unwrap()];
    let rows = table.matches("<tr><td>").count();
    assert!(rows >= 8, "{rows} rows");
    let ipv4: Vec<&str> = table.split("IPv4: ").skip(1).collect();
    assert!(
        !ipv4.is_empty() && ipv4.len() <= 2,
        "{} IPv4 lines",
        ipv4.len()
    );
    assert!(table.matches("UDP: ").count() <= 4);
}

/// The build's check that no answer states a count, a PSN, a frame or a
/// QP number by hand: each comes from its capture ([`numbers`]).
#[test]
fn no_answer_states_a_capture_number_by_hand() {
    let mut by_hand = Vec::new();
    for s in catalog::all() {
        if let Some(e) = s.exercise {
            for n in numbers::hand_written(e.explain) {
                by_hand.push(format!("{}'s exercise: {n}", s.name));
            }
        }
    }
    let root = base::workspace::workspace_root();
    for p in catalog::chapters() {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap();
        for (_, body) in read_readme(&md, &[CHAPTER_SECTIONS[4]]).sections {
            for n in numbers::hand_written(&body) {
                by_hand.push(format!("{p}'s README, check yourself: {n}"));
            }
        }
    }
    assert!(by_hand.is_empty(), "{by_hand:#?}");
}

/// A check step that points at a line no program of the run printed
/// gives no handout: the student would look for it in vain.
#[test]
fn a_check_step_whose_line_was_not_printed_is_refused() {
    let e = catalog::find("rc_example_rnr_nak")
        .and_then(|s| s.exercise)
        .unwrap();
    let side = |stdout: &str| SideOutcome {
        exit: Some(1),
        elapsed_ms: Some(1),
        stdout: stdout.to_string(),
        ..SideOutcome::default()
    };
    let mut report = rendered_report();
    let run = |stdout: &str| Outcome {
        scenario: "rc_example_rnr_nak".into(),
        server: Some(side(stdout)),
        client: Some(side("")),
        leftover: String::new(),
        capture: None,
    };
    report.outcomes =
        crate::capture::verdict::judge_all(vec![run("test result is 1\n")], None, false);
    let out = tempfile::tempdir().unwrap();
    let err = write(&report, out.path(), Paper::A4).unwrap_err();
    assert!(err.contains(e.check.line), "{err}");
    report.outcomes = crate::capture::verdict::judge_all(
        vec![run(&format!("{} 0xd\n", e.check.line))],
        None,
        false,
    );
    write(&report, out.path(), Paper::A4).unwrap();
}

/// The student's chapter shows the manual's step and its C calls, not
/// the port's Rust function, and not the project's own lab tool.
#[test]
fn a_student_reads_the_steps_and_c_calls_without_the_rust() {
    let md = "| step | function in `src/main.rs` | verbs |\n|---|---|---|\n\
              | 7.1.4 resources_create | `common::x` | `ibv_open_device` |\n";
    let html = without_column(&markdown(md), "function");
    assert!(
        html.contains("<th>step</th>") && html.contains("<th>verbs</th>"),
        "{html}"
    );
    assert!(
        html.contains("<code class=\"short\">ibv_open_device</code>"),
        "{html}"
    );
    assert!(
        !html.contains("function") && !html.contains("common::x"),
        "{html}"
    );
    assert_eq!(html.matches("<tr>").count(), 2, "{html}");
    // A table without the column is left as it was.
    assert_eq!(without_column(&markdown(md), "nothing"), markdown(md));
    // A step's detail that answers a question is the teacher's alone.
    let detail = "| step | calls |\n|---|---|\n\
                  | post_sends | `ibv_post_send`: SEND_WITH_IMM<span class=\"answer\">, imm = `htonl(qp_num)`</span>, UD AH |\n";
    let cut = without_answers(&markdown(detail));
    assert!(cut.contains("SEND_WITH_IMM, UD AH</td>"), "{cut}");
    assert!(!cut.contains("htonl") && !cut.contains("answer"), "{cut}");
    // A span inside the marked one is cut with it.
    let nested = "a<span class=\"answer\">b<span>c</span>d</span>e <span>f</span>";
    assert_eq!(without_answers(nested), "ae <span>f</span>");
    let running = "Build: `cargo build`.\n\n**Soft-RoCE:** `cargo xtask lab x` runs it.\n\n\
                   ```\n$ a\n\n$ cargo xtask lab x\n\n$ b\n```\n\n\
                   Give the address of the RDMA netdev (not `127.0.0.1`). Start the\n\
                   receiver first. `cargo xtask doctor` checks\nthe route.\n";
    let kept = for_students(running);
    assert!(
        kept.contains("Build") && !kept.contains("Soft-RoCE:"),
        "{kept}"
    );
    assert!(
        kept.contains("```\n$ a\n\n$ cargo xtask lab x\n\n$ b\n```"),
        "a code block is kept whole: {kept}"
    );
    // Only the sentence about the lab's tool goes, not its paragraph.
    assert!(
        kept.contains(
            "Give the address of the RDMA netdev (not `127.0.0.1`). Start the\nreceiver first."
        ),
        "{kept}"
    );
    assert!(!kept.contains("doctor"), "{kept}");
}

/// A README's link to another file of the repository is its text in the
/// handout, where that file is not; what the handout supplies stays.
#[test]
fn links_to_the_repository_become_text() {
    let html = markdown(
        "[README-mc.md](README-mc.md), [the pcap](pcaps/mc.pcap), [rdma-core](https://github.com/linux-rdma/rdma-core), [up](#mckey)",
    );
    assert!(
        html.contains("<p>README-mc.md, <a href=\"pcaps/mc.pcap\">the pcap</a>"),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"https://github.com/linux-rdma/rdma-core\">"),
        "{html}"
    );
    assert!(html.contains("<a href=\"#mckey\">up</a>"), "{html}");
}

/// What the build's numbers and check steps name exists: a placeholder's
/// other scenario is one the lab runs, and a check step's filter can be
/// pasted between single quotes.
#[test]
fn the_answers_placeholders_and_check_steps_name_what_exists() {
    let root = base::workspace::workspace_root();
    let mut texts: Vec<String> = catalog::all()
        .iter()
        .filter_map(|s| s.exercise)
        .map(|e| e.explain.to_string())
        .collect();
    for p in catalog::chapters() {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap();
        texts.extend(
            read_readme(&md, &[CHAPTER_SECTIONS[4]])
                .sections
                .into_iter()
                .map(|s| s.1),
        );
    }
    let mut found = 0;
    for t in &texts {
        for spec in numbers::placeholders(t) {
            let q = numbers::parse(spec).unwrap().unwrap();
            if let Some(other) = q.scenario {
                assert!(
                    catalog::find(other).is_some(),
                    "{{{spec}}}: no scenario {other}"
                );
            }
            found += 1;
        }
    }
    assert!(found >= 20, "only {found} placeholders");
    for s in catalog::all() {
        if let Some(e) = s.exercise {
            assert!(
                !e.check.filter.contains('\''),
                "{}: {}",
                s.name,
                e.check.filter
            );
        }
    }
}

/// A table's first two rows print together: a body of their own that
/// print keeps whole; a table of two rows or fewer is left as it is.
#[test]
fn a_tables_first_rows_are_kept_together() {
    let md = "| a | b |\n|---|---|\n| 1 | x |\n| 2 | y |\n| 3 | z |\n";
    let kept = first_rows_kept(&markdown(md));
    let lead = kept.split("<tbody class=\"lead\">").nth(1).unwrap();
    let (lead, after) = lead.split_once("</tbody>").unwrap();
    assert_eq!(lead.matches("<tr>").count(), 2, "{kept}");
    assert!(
        lead.contains("<td>1</td>") && lead.contains("<td>2</td>"),
        "{kept}"
    );
    assert!(
        after.contains("<tbody><tr>\n<td>3</td>") || after.contains("<td>3</td>"),
        "{kept}"
    );
    assert_eq!(kept.matches("<tbody").count(), 2, "{kept}");
    assert_eq!(kept.matches("</tbody>").count(), 2, "{kept}");
    let short = markdown("| a |\n|---|\n| 1 |\n| 2 |\n");
    assert_eq!(first_rows_kept(&short), short);
}
