use super::*;
use crate::present::handout::tests::rendered_report;

/// The script's `show` prints a short output whole and numbered (the
/// events in their order, the errors, the exit status), of a long one
/// only its lines with the step's words and its exit status, and never
/// fails the case, not even on a missing file.
#[test]
fn show_prints_a_short_output_whole_and_a_long_ones_lines() {
    let dir = tempfile::tempdir().unwrap();
    let short = "address resolved.\nroute resolved.\n--- its errors (stderr) ---\n\
                 on_event: unexpected event\n--- exit 1 ---\n";
    let long = (0..40).map(|i| format!("line {i}\n")).collect::<String>()
        + "on_event: x\n--- exit 0 ---\n";
    fs::write(dir.path().join("short.txt"), short).unwrap();
    fs::write(dir.path().join("long.txt"), long).unwrap();
    let script = format!(
        "{}show on_event short.txt long.txt gone.txt\n",
        show_function()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("== short.txt\n1:address resolved.\n2:route resolved.\n"),
        "{said}"
    );
    assert!(said.contains("\n5:--- exit 1 ---\n== long.txt\n"), "{said}");
    assert!(
        said.contains("\n41:on_event: x\n42:--- exit 0 ---\n"),
        "{said}"
    );
    assert!(!said.contains("line 3"), "{said}");
    assert!(out.stdout.is_empty());
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
    let named = format!(
        "<code class=\"short\">sh checks/lab1.sh {}</code>",
        rc.number()
    );
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
