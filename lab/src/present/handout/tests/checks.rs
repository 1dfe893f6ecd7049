//! The check steps: each names a line that was printed, a script case
//! that exists, and what it asks of the capture.

use super::*;

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

/// Each lab's script of check steps has a case an exercise, by the
/// number the page prints; a captured exercise's case runs the step's
/// tshark command, quoted word by word, and the student's step names the
/// case; the script is valid sh and refuses an exercise it lacks.
#[test]
fn each_labs_script_has_a_case_an_exercise_that_its_step_names() {
    let report = rendered_report();
    let lab = &LABS[0];
    let script = checks_script(&report, lab);
    let mut numbers = Vec::new();
    for package in lab.chapters {
        for e in numbered(package) {
            assert!(script.contains(&format!("\n{})\n", e.number())), "{script}");
            numbers.push(e.number());
        }
    }
    assert!(numbers.len() >= 4, "{numbers:?}");
    let rc = numbered("rc_example")
        .into_iter()
        .find(|e| e.scenario.name == "rc_example")
        .expect("rc_example's exercise");
    assert!(
        script.contains("\ttshark -r pcaps/rc_example.pcap -Y '"),
        "{script}"
    );
    let student = edition_html(&report, Edition::Student, Some(lab));
    let named = format!("<code>sh checks/lab1.sh {}</code>", rc.number());
    assert!(student.contains(&named), "{named}");
    // The page's files include the script, which the page check looks for.
    assert!(supplied(&student).contains(&"checks/lab1.sh".to_string()));
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("checks")).unwrap();
    let file = dir.path().join("checks/lab1.sh");
    fs::write(&file, &script).unwrap();
    let syntax = std::process::Command::new("sh")
        .arg("-n")
        .arg(&file)
        .status()
        .unwrap();
    assert!(syntax.success());
    let out = std::process::Command::new("sh")
        .arg(&file)
        .arg("9.9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let usage = String::from_utf8_lossy(&out.stderr);
    assert!(
        usage.contains(&format!(
            "usage: sh checks/lab1.sh EXERCISE, one of: {}",
            numbers.join(" ")
        )),
        "{usage}"
    );
}
