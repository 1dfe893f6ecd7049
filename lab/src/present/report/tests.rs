#[test]
fn format_characters_are_shown_in_xml_and_html() {
    assert_eq!(xml_escape("rc_\u{202e}x\u{200b}"), "rc_\\u{202e}x\\u{200b}");
    assert_eq!(xml_text("a\n\u{2066}b"), "a\n\\u{2066}b");
}

use super::*;
use crate::model;
use crate::model::{Mode, Outcome, Skip};
use crate::results::HostInfo;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Output no program should print, and a report must still carry:
/// markup, entities, quotes, a NUL byte, other control characters, a
/// non-character, a CR and some non-ASCII text.
const NASTY: &str =
    "a <b> & \"c\" 'd'\0 bell\x07 esc\x1b[31m\x1b[0m del\x7f\r\nnon-char\u{fffe}\u{ffff} é ü 漢\n";

/// `NASTY` as an XML reader gives it back: the forbidden characters gone.
const NASTY_READ: &str = "a <b> & \"c\" 'd' bell esc[31m[0m del\x7f\r\nnon-char é ü 漢\n";

fn side(exit: i32, ms: u64, stdout: &str, stderr: &str) -> SideOutcome {
    SideOutcome {
        exit: Some(exit),
        elapsed_ms: Some(ms),
        stdout: stdout.into(),
        stderr: stderr.into(),
        cannot_start: None,
    }
}

/// The stdout a side's expected lines describe, every wildcard a "1".
fn expected_stdout(patterns: &[String]) -> String {
    patterns
        .iter()
        .map(|p| p.replace('*', "1") + "\n")
        .collect()
}

/// A report with a passing pair (`rc_example`), a failing one (`srq`,
/// its client missing, its server's output garbage), a skipped
/// scenario, and the doctor's `findings`.
fn report(findings: &[&str]) -> LabReport {
    let rc = catalog::find("rc_example").expect("rc_example is a scenario");
    assert!(catalog::find("srq").is_some(), "srq is a scenario");
    let passing = Outcome {
        scenario: rc.name.clone(),
        server: Some(side(
            0,
            1234,
            &(expected_stdout(&rc.server_expect.stdout) + NASTY),
            "",
        )),
        client: Some(side(0, 987, &expected_stdout(&rc.client_expect.stdout), "")),
        leftover: String::new(),
        capture: None,
    };
    let failing = Outcome {
        scenario: "srq".into(),
        server: Some(side(1, 20, NASTY, NASTY)),
        client: None,
        leftover: "qp 17 <pid 99>\n".into(),
        capture: None,
    };
    LabReport {
        dir: PathBuf::from("/nonexistent/lab/run"),
        outcomes: crate::capture::verdict::judge_all(vec![passing, failing], None, false),
        notes: vec!["client agent: died & <gone>\0".into()],
        elapsed: Duration::from_millis(61_250),
        vms: None,
        addrs: None,
        captured: false,
        mode: Mode::SingleHost,
        skipped: vec![Skip {
            scenario: "mckey_device_removed".into(),
            reason: "needs <a VM> & \"root\"".into(),
        }],
        findings: findings.iter().map(|f| f.to_string()).collect(),
        hosts: vec![HostInfo {
            role: "both".into(),
            dev: "rxe0".into(),
            port: 1,
            link_layer: Some("Ethernet".into()),
            gid_index: Some(1),
            gid_type: Some("RoCE v2".into()),
            active_mtu: None,
        }],
    }
}

const FINDINGS: &[&str] = &[
    "rxe0: no GID of type RoCE v2 <fix it>",
    "ulimit -l is 64 KiB & too low",
];

/// A path of its own, in a fresh private dir that lives as long as
/// the guard: the tests run at once.
fn temp_file(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    (dir, file)
}

fn xmllint(args: &[&str]) -> std::process::Output {
    match Command::new("xmllint").args(args).output() {
        Ok(out) => out,
        Err(e) => panic!(
            "cannot run xmllint ({e}): the JUnit schema check needs it; \
             install libxml2-utils (apt-get install libxml2-utils)"
        ),
    }
}

/// [`validate_junit`]'s verdict on `xml`: `Err` with its messages. A
/// missing xmllint fails here, with what to install.
fn validate(xml: &str, name: &str) -> Result<(), String> {
    let (_dir, file) = temp_file(name);
    fs::write(&file, xml).unwrap();
    let failures = validate_junit(&file);
    if let Some(f) = failures.iter().find(|f| f.contains("cannot run xmllint")) {
        panic!("{f}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// The string value of an XPath expression over `xml`, as a reader
/// of the document would get it.
fn xpath(xml: &str, name: &str, expr: &str) -> String {
    let (_dir, file) = temp_file(name);
    fs::write(&file, xml).unwrap();
    let out = xmllint(&["--xpath", expr, file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "xmllint --xpath {expr}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // xmllint ends what it prints with a newline of its own.
    let mut text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.pop(), Some('\n'), "xmllint --xpath {expr}");
    text
}

#[test]
fn the_fixture_has_a_pass_and_a_failure() {
    let r = report(FINDINGS);
    assert_eq!(r.outcomes[0].failures, Vec::<String>::new());
    assert!(!r.outcomes[1].failures.is_empty());
}

#[test]
fn escape_drops_what_xml_forbids() {
    assert_eq!(
        xml_escape("<a href=\"x\">&'\0\x01\x1f\t\n\r\u{fffe}\u{ffff}\u{fffd}é"),
        "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&#9;&#10;&#13;\u{fffd}é"
    );
    assert_eq!(xml_text("a\tb\nc\r\n\x0b"), "a&#9;b\nc&#13;\n");
}

#[test]
fn junit_passes_the_jenkins_schema() {
    for (name, findings) in [("with-findings", FINDINGS), ("clean", &[][..])] {
        let xml = junit(&report(findings));
        if let Err(e) = validate(&xml, &format!("{name}.xml")) {
            panic!("{name}: the JUnit report is not valid:\n{e}\n{xml}");
        }
    }
}

#[test]
fn the_schema_check_can_fail() {
    let xml = junit(&report(FINDINGS));
    let nameless = xml.replacen(r#" name="rc_example""#, "", 1);
    assert_ne!(nameless, xml);
    assert!(validate(&nameless, "nameless.xml").is_err());
    let countless = xml.replacen(r#" failures="2""#, "", 1);
    assert_ne!(countless, xml);
    assert!(validate(&countless, "countless.xml").is_err());
}

#[test]
fn junit_counts_and_cases() {
    let r = report(FINDINGS);
    let xml = junit(&r);
    let suite = |attr: &str| xpath(&xml, "counts.xml", &format!("string(//testsuite/@{attr})"));
    assert_eq!(suite("name"), "rdma-examples lab (single host)");
    // Two outcomes, one skipped scenario, the doctor.
    assert_eq!(suite("tests"), "4");
    assert_eq!(suite("failures"), "2");
    assert_eq!(suite("errors"), "0");
    assert_eq!(suite("skipped"), "1");
    assert_eq!(suite("time"), "61.250");
    let case = |name: &str, what: &str| {
        xpath(
            &xml,
            "cases.xml",
            &format!("string(//testcase[@name='{name}']/{what})"),
        )
    };
    assert_eq!(case("rc_example", "@classname"), "rc_example");
    assert_eq!(case("rc_example", "@time"), "1.234");
    assert_eq!(
        xpath(
            &xml,
            "n.xml",
            "count(//testcase[@name='rc_example']/failure)"
        ),
        "0"
    );
    let failures = &r.outcomes[1].failures;
    assert_eq!(case("srq", "@classname"), "srq");
    assert_eq!(case("srq", "@time"), "0.020");
    assert_eq!(case("srq", "failure/@message"), failures[0]);
    assert_eq!(case("srq", "failure/@type"), "unmet expectation");
    assert_eq!(case("srq", "failure"), failures.join("\n"));
    assert_eq!(
        case("mckey_device_removed", "skipped/@message"),
        "needs <a VM> & \"root\""
    );
    assert_eq!(case("mckey_device_removed", "@classname"), "mckey");
    assert_eq!(case("doctor", "@classname"), "doctor");
    assert_eq!(case("doctor", "failure/@message"), FINDINGS[0]);
    assert_eq!(case("doctor", "failure"), FINDINGS.join("\n"));
    assert!(case("doctor", "system-out")
        .contains("this host (both sides): rxe0 port 1 (Ethernet), GID index 1 (RoCE v2)"));
    assert_eq!(
        xpath(&xml, "err.xml", "string(//testsuite/system-err)"),
        "client agent: died & <gone>\n"
    );

    let clean = junit(&report(&[]));
    assert_eq!(
        xpath(&clean, "clean.xml", "count(//testcase[@name='doctor'])"),
        "1",
        "the doctor's case is always there"
    );
    assert_eq!(
        xpath(
            &clean,
            "clean.xml",
            "count(//testcase[@name='doctor']/failure)"
        ),
        "0"
    );
}

#[test]
fn junit_carries_both_transcripts_as_read() {
    let r = report(FINDINGS);
    let xml = junit(&r);
    let out = |name: &str| {
        xpath(
            &xml,
            "out.xml",
            &format!("string(//testcase[@name='{name}']/system-out)"),
        )
    };
    let rc = out("rc_example");
    assert!(rc.starts_with("=== server (exit 0, 1.23 s) ===\n--- stdout ---\n"));
    assert!(rc.contains(NASTY_READ), "{rc:?}");
    assert!(rc.contains("=== client (exit 0, 0.99 s) ===\n--- stdout ---\n"));
    assert!(
        !rc.contains("--- stderr ---"),
        "an empty stream is left out"
    );
    let srq = out("srq");
    assert_eq!(
        srq,
        format!(
            "=== server (exit 1, 0.02 s) ===\n--- stdout ---\n{NASTY_READ}--- stderr ---\n{NASTY_READ}\
             === client: no result ===\n--- left in the kernel ---\nqp 17 <pid 99>\n"
        )
    );
}

#[test]
fn transcript_of_a_side() {
    let timed_out = SideOutcome {
        exit: Some(model::TIMED_OUT),
        elapsed_ms: None,
        stdout: "partial".into(),
        stderr: String::new(),
        cannot_start: None,
    };
    assert_eq!(
        side_transcript("client", &timed_out),
        "=== client (exit 124 (timed out)) ===\n--- stdout ---\npartial\n"
    );
    let silent = SideOutcome {
        exit: None,
        elapsed_ms: Some(1500),
        stdout: String::new(),
        stderr: "gone\n".into(),
        cannot_start: None,
    };
    assert_eq!(
        side_transcript("server", &silent),
        "=== server (no exit status, 1.50 s) ===\n--- stderr ---\ngone\n"
    );
}

#[test]
fn json_lines_parse_and_say_each_status() {
    let r = report(FINDINGS);
    let text = json_lines(&r);
    assert!(text.ends_with('\n'));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let by = |name: &str| {
        lines
            .iter()
            .find(|v| v["scenario"] == name)
            .unwrap_or_else(|| panic!("no line for {name}"))
    };
    assert_eq!(lines.len(), 4);
    for v in &lines {
        assert_eq!(v["mode"], "single host");
        assert_eq!(
            v["hosts"],
            json!([{
                "role": "both", "dev": "rxe0", "port": 1,
                "link_layer": "Ethernet", "gid_index": 1,
                "gid_type": "RoCE v2", "active_mtu": null,
            }])
        );
    }

    let rc = by("rc_example");
    assert_eq!(rc["example"], "rc_example");
    assert_eq!(rc["status"], "passed");
    assert_eq!(rc["failures"], json!([]));
    assert_eq!(rc["skip_reason"], Value::Null);
    assert_eq!(rc["wall_time_s"], json!(1.234));
    assert_eq!(rc["server"]["exit"], 0);
    assert_eq!(rc["server"]["elapsed_ms"], 1234);
    assert_eq!(rc["client"]["elapsed_ms"], 987);
    // JSON keeps every character: the output exactly as printed.
    assert!(rc["server"]["stdout"].as_str().unwrap().ends_with(NASTY));

    let srq = by("srq");
    assert_eq!(srq["status"], "failed");
    assert_eq!(srq["failures"], json!(r.outcomes[1].failures));
    assert_eq!(srq["server"]["exit"], 1);
    assert_eq!(srq["server"]["stderr"], NASTY);
    assert_eq!(srq["client"], Value::Null);
    assert_eq!(srq["wall_time_s"], json!(0.02));

    let skipped = by("mckey_device_removed");
    assert_eq!(skipped["status"], "skipped");
    assert_eq!(skipped["example"], "mckey");
    assert_eq!(skipped["skip_reason"], "needs <a VM> & \"root\"");
    assert_eq!(skipped["failures"], json!([]));
    assert_eq!(skipped["wall_time_s"], Value::Null);
    assert_eq!(skipped["server"], Value::Null);

    let doctor = by("doctor");
    assert_eq!(doctor["example"], "doctor");
    assert_eq!(doctor["status"], "failed");
    assert_eq!(doctor["failures"], json!(FINDINGS));

    let clean = json_lines(&report(&[]));
    let doctor: Value = serde_json::from_str(clean.lines().last().unwrap()).unwrap();
    assert_eq!(doctor["scenario"], "doctor");
    assert_eq!(doctor["status"], "passed");
}

#[test]
fn write_puts_both_files_and_names_a_bad_path() {
    let r = report(FINDINGS);
    let (_tmp, dir) = temp_file("write");
    let (xml, jsonl) = (dir.join("deep/junit.xml"), dir.join("lab.jsonl"));
    write(&r, Some(&xml), Some(&jsonl)).unwrap();
    assert_eq!(fs::read_to_string(&xml).unwrap(), junit(&r));
    assert_eq!(fs::read_to_string(&jsonl).unwrap(), json_lines(&r));
    write(&r, None, None).unwrap();
    // A file where a directory must be.
    let bad = jsonl.join("x.xml");
    let e = write(&r, Some(&bad), None).unwrap_err();
    assert!(e.contains(&jsonl.display().to_string()), "{e}");
}
