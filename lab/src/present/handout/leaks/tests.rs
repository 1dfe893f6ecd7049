use super::*;

/// A chapter of one table, one exercise and one "check yourself"
/// question, with `before` where a student reads it first.
fn page(before: &str, cell: &str) -> String {
    format!(
        "<p>{before}</p>\n<section class=\"chapter\" id=\"x\">\n<table><tr><td>{cell}</td></tr></table>\n\
         <h4>Exercise 1.1</h4><p>What is the pad?</p>\n<h3>Check yourself</h3>\n<ol>\n<li>Why start at 0?</li>\n</ol>\n\
         <p>Both sides start at 0 (after the question: allowed).</p>\n</section>\n"
    )
}

fn asked(name: &str, at: Place, phrases: &[&str], values: &[&str]) -> Asked {
    Asked {
        package: "x".into(),
        name: name.into(),
        at,
        phrases: phrases.iter().map(|s| s.to_string()).collect(),
        values: values.iter().map(|s| s.to_string()).collect(),
    }
}

fn questions() -> Vec<Asked> {
    vec![
        asked(
            "Exercise 1.1",
            Place::Text("<h4>Exercise 1.1</h4>".into()),
            &[],
            &["pad 3 B"],
        ),
        asked(
            "Check yourself 1.1",
            Place::CheckYourself(1),
            &["both sides start at 0"],
            &[],
        ),
    ]
}

/// The planted leaks the check must find: a table cell with the value a
/// question asks, and a primer sentence with an answer's words, each in
/// any case and across line breaks; nothing once they are gone, and an
/// answer after its question is no leak.
#[test]
fn a_planted_answer_before_its_question_is_found() {
    let clean = page("A primer.", "BTH: pad ___ B");
    assert_eq!(leaks(&clean, &questions()), Vec::<String>::new());
    let cell = leaks(
        &page("A primer.", "BTH: opcode 4, pad 3 B, P_Key"),
        &questions(),
    );
    assert_eq!(cell.len(), 1, "{cell:?}");
    assert!(
        cell[0].starts_with("Exercise 1.1: \"pad 3 B\" before it"),
        "{cell:?}"
    );
    let primer = leaks(
        &page(
            "No PSN is exchanged: Both sides\nstart at 0.",
            "BTH: pad ___",
        ),
        &questions(),
    );
    assert_eq!(primer.len(), 1, "{primer:?}");
    assert!(primer[0].starts_with("Check yourself 1.1"), "{primer:?}");
}

/// A value of a run is of that run's chapter: the same number in an
/// earlier chapter (another run's QP) is no leak; and a question the
/// chapter does not ask where the check looks for it is named.
#[test]
fn a_value_counts_in_its_chapter_and_a_lost_question_is_named() {
    let other = page("Another chapter's BTH: pad 3 B.", "BTH: pad ___");
    assert_eq!(leaks(&other, &questions()), Vec::<String>::new());
    let lost = page("A primer.", "x").replace("<h4>Exercise 1.1</h4>", "<h4>Exercise 1.9</h4>");
    assert_eq!(
        leaks(&lost, &questions()),
        vec!["Exercise 1.1: not found in its chapter".to_string()]
    );
    assert!(leaks("<p>no such chapter</p>", &questions()).is_empty());
}

/// A stand-in's docstring that says what the fault does is found.
#[test]
fn a_planted_docstring_is_found() {
    let q = vec![asked(
        "Exercise 1.3",
        Place::CheckYourself(1),
        &["meets an RNR NAK"],
        &[],
    )];
    let planted = vec![(
        "standins/peer.py".to_string(),
        "\"\"\"a client that posts no receive: the server's SEND\n      meets an RNR NAK\"\"\""
            .to_string(),
    )];
    assert_eq!(
        standin_leaks(&planted, &q),
        vec!["Exercise 1.3: \"meets an RNR NAK\" in standins/peer.py".to_string()]
    );
    assert!(standin_leaks(&[("a".into(), "a client".into())], &q).is_empty());
}

/// A value is blanked from its first digit to the end of its word, words
/// whole, in any case; the rest of the line stays.
#[test]
fn a_give_away_is_blanked_to_its_name() {
    let gives = [
        "pad 3 B".to_string(),
        "QP 0x13".to_string(),
        "no verb call".to_string(),
    ];
    for (line, student) in [
        (
            "BTH: opcode 4, pad 3 B, dest QP 0x13, PSN 0",
            "BTH: opcode 4, pad ___ B, dest QP ___, PSN 0",
        ),
        (
            "RC Acknowledge qp 0x13 PSN 1",
            "RC Acknowledge qp ___ PSN 1",
        ),
        ("QP 0x131 is not QP 0x13", "QP 0x131 is not QP ___"),
        ("transport: No verb call.", "transport: ___."),
        ("a spad 3 B", "a spad 3 B"),
    ] {
        assert_eq!(blanked(line, &gives), student);
    }
    let rung = Rung {
        time: 0.0,
        from: None,
        label: "RC RDMA Read Response Only".into(),
        note: String::new(),
        count: 1,
        frames: (1, 1),
        headers: vec!["BTH: pad 3 B".into()],
        cause: Some("the server's transport: no verb call, no receive"),
    };
    let student = &blank_rungs(std::slice::from_ref(&rung), &gives)[0];
    assert_eq!(
        student.cause,
        Some(BLANK),
        "a cause that answers is blank whole"
    );
    assert_eq!(student.headers, vec!["BTH: pad ___ B".to_string()]);
    let packets = ["(98 packets)".to_string()];
    assert_eq!(
        blanked("1× RC Send (98 packets) from", &packets),
        "1× RC Send (___ packets) from"
    );
    assert_eq!(blank_rungs(std::slice::from_ref(&rung), &[])[0], rung);
}

/// A README question's give-aways are read from the comment after it and
/// kept out of what the handout prints.
#[test]
fn a_readme_question_declares_its_give_aways_in_a_comment() {
    let body = "1. Why 24?\n   Say why.\n<!-- gives away: pad 3 B | 16 bytes more -->\n\n<details>x</details>\n\n\
                2. And?\n\n<details>y</details>\n";
    assert_eq!(
        readme_questions(body),
        vec![
            vec!["pad 3 B".to_string(), "16 bytes more".to_string()],
            vec![]
        ]
    );
    assert!(!without_markers(body).contains("gives away"));
    assert!(without_markers(body).contains("2. And?"));
}

/// Every worked chapter's every question declares what would give it
/// away, and the labs' student editions, rendered from the recorded
/// capture, give none away before they ask it: the READMEs, the primer
/// and rc_example's ladder, without a VM.
#[test]
fn no_student_edition_gives_an_answer_before_its_question() {
    let report = super::super::tests::rendered_report();
    let mut all = Vec::new();
    for p in catalog::chapters()
        .iter()
        .filter(|p| !READING_NOTES.contains(p))
    {
        let asked = chapter_asked(&report, p);
        assert!(asked.len() >= 3, "{p}: {asked:?}");
        for a in &asked {
            assert!(
                !(a.phrases.is_empty() && a.values.is_empty()),
                "{}: declares no give-away",
                a.name
            );
        }
        all.extend(asked);
    }
    for lab in &LABS {
        let html = edition_html(&report, Edition::Student, Some(lab));
        assert_eq!(leaks(&html, &all), Vec::<String>::new(), "lab {}", lab.n);
        assert!(!html.contains(MARKER));
    }
    assert_eq!(standin_leaks(&standin_texts(), &all), Vec::<String>::new());
}
