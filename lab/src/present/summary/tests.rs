use super::*;

#[test]
fn a_transcript_shows_the_programs_escape_sequences_escaped() {
    let side = SideOutcome {
        exit: Some(0),
        elapsed_ms: None,
        stdout: "got \x1b]0;pwned\x07 from the peer\n\tnext\n".into(),
        stderr: "\u{9b}2J\n".into(),
        cannot_start: None,
    };
    assert_eq!(
        side_text("rc_example", "server", Some(&side)),
        "=== rc_example: server (exit 0) ===\n--- stdout ---\n\
         got \\x1b]0;pwned\\x07 from the peer\n\tnext\n--- stderr ---\n\\u{9b}2J\n"
    );
}

#[test]
fn outcomes_are_grouped_by_example_in_order() {
    let o = |name: &str| crate::model::Outcome {
        scenario: name.into(),
        server: None,
        client: None,
        leftover: String::new(),
        capture: None,
    };
    let outcomes = [
        o("srq"),
        o("mc_memlock"),
        o("srq_memlock"),
        o("mckey"),
        o("nosuch"),
    ];
    let judged = crate::capture::verdict::judge_all(outcomes.to_vec(), None, false);
    let groups: Vec<(&str, Vec<&str>)> = by_example(&judged)
        .into_iter()
        .map(|(p, js)| (p, js.iter().map(|j| j.name()).collect()))
        .collect();
    assert_eq!(
        groups,
        [
            ("srq", vec!["srq", "srq_memlock"]),
            ("mckey", vec!["mc_memlock", "mckey"]),
            ("nosuch", vec!["nosuch"]),
        ]
    );
}
