//! The lab's reports for CI: JUnit XML, which Jenkins, GitLab and GitHub's
//! test reporters read, and JSON Lines, one object per scenario, for
//! scripts. Both say what the summary says (PASS/FAIL/skipped per
//! scenario, the doctor's findings) and carry both sides' transcripts, so
//! a failure can be read in the CI's page without the result dir.

use crate::catalog;
use crate::model::{Outcome, SideOutcome};
use crate::results::report::{Judged, LabReport};
use crate::results::side_transcript;
use rdma_fabric::present::xml::{secs, xml_escape, xml_text, Case, FAILURE_TYPE, FINDING_TYPE};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The name (and classname) of the doctor's test case and JSON line.
const DOCTOR: &str = "doctor";

/// Both sides' transcripts of an outcome, and what it left in the kernel:
/// each side that its scenario has (both, for a scenario this build does
/// not know), a side without a result saying so, as the lab's own
/// transcript does.
fn transcript(j: &Judged) -> String {
    let (o, s) = (&j.outcome, j.scenario);
    let mut out = String::new();
    for (label, declared, side) in [
        ("server", s.is_none_or(|s| s.server.is_some()), &o.server),
        ("client", s.is_none_or(|s| s.client.is_some()), &o.client),
    ] {
        match side {
            Some(side) => out.push_str(&side_transcript(label, side)),
            None if declared => {
                let _ = writeln!(out, "=== {label}: no result ===");
            }
            None => {}
        }
    }
    if !o.leftover.is_empty() {
        out.push_str("--- left in the kernel ---\n");
        out.push_str(&o.leftover);
        if !o.leftover.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The package a scenario belongs to; a name this build does not know
/// stands for itself, as in the lab's summary.
fn package_of(name: &str) -> &str {
    catalog::find(name).map_or(name, |s| s.package)
}

/// The package of a judged outcome's scenario, as [`package_of`] says it.
fn judged_package(j: &Judged) -> &str {
    j.scenario.map_or(j.name(), |s| s.package)
}

/// The slower side's wall time in milliseconds: the pair's time, as the
/// sides run at once. `None` when neither side reported one.
fn wall_ms(o: &Outcome) -> Option<u64> {
    [&o.server, &o.client]
        .into_iter()
        .filter_map(|s| s.as_ref()?.elapsed_ms)
        .max()
}

/// The run as JUnit XML: one `<testsuite>` named after the mode, a test
/// case per outcome (classname its package, time its slower side's), one
/// per skipped scenario, and always one for the doctor (failed when it
/// found anything), each with both sides' transcripts in `<system-out>`;
/// the notes, problems outside any scenario, in the suite's
/// `<system-err>`. It depends on the report alone (no clock, no host name),
/// so one run always gives the same document.
pub fn junit(report: &LabReport) -> String {
    let mut cases = Vec::new();
    for j in &report.outcomes {
        let (o, failures) = (&j.outcome, &j.failures);
        cases.push(Case {
            classname: judged_package(j).to_string(),
            name: o.scenario.clone(),
            time: secs(wall_ms(o).unwrap_or(0)),
            failure: failures
                .first()
                .map(|first| (first.clone(), FAILURE_TYPE, failures.join("\n"))),
            skipped: None,
            out: transcript(j),
        });
    }
    for s in &report.skipped {
        cases.push(Case {
            classname: package_of(&s.scenario).to_string(),
            name: s.scenario.clone(),
            time: secs(0),
            failure: None,
            skipped: Some(s.reason.clone()),
            out: format!("not run: {}\n", s.reason),
        });
    }
    let hosts: String = if report.hosts.is_empty() {
        "no host information\n".into()
    } else {
        report.hosts.iter().map(|h| h.to_string() + "\n").collect()
    };
    cases.push(Case {
        classname: DOCTOR.into(),
        name: DOCTOR.into(),
        time: secs(0),
        failure: report
            .findings
            .first()
            .map(|first| (first.clone(), FINDING_TYPE, report.findings.join("\n"))),
        skipped: None,
        out: hosts,
    });

    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let skipped = cases.iter().filter(|c| c.skipped.is_some()).count();
    let elapsed_ms = u64::try_from(report.elapsed.as_millis()).unwrap_or(u64::MAX);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    let _ = writeln!(
        xml,
        r#"  <testsuite name="{}" tests="{}" failures="{failures}" errors="0" skipped="{skipped}" time="{}">"#,
        xml_escape(&format!("rdma-examples lab ({})", report.mode.label())),
        cases.len(),
        secs(elapsed_ms)
    );
    let mut props = vec![("mode", report.mode.label().to_string())];
    if let Some(v) = &report.vms {
        props.push(("accel", v.accel.to_string()));
        props.push(("kernel", v.kernel.clone()));
        props.push(("boot_s", format!("{:.1}", v.boot.as_secs_f64())));
    }
    xml.push_str("    <properties>\n");
    for (name, value) in props {
        let _ = writeln!(
            xml,
            r#"      <property name="{name}" value="{}"/>"#,
            xml_escape(&value)
        );
    }
    xml.push_str("    </properties>\n");
    for c in &cases {
        c.write(&mut xml);
    }
    if !report.notes.is_empty() {
        let notes: String = report.notes.iter().map(|n| format!("{n}\n")).collect();
        let _ = writeln!(xml, "    <system-err>{}</system-err>", xml_text(&notes));
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

/// A side as JSON, or null when it has no result.
fn side_json(side: &Option<SideOutcome>) -> Value {
    match side {
        Some(s) => json!({
            "exit": s.exit,
            "elapsed_ms": s.elapsed_ms,
            "stdout": s.stdout,
            "stderr": s.stderr,
        }),
        None => Value::Null,
    }
}

/// What one JSON line says of a scenario (or of the doctor).
struct Line<'a> {
    scenario: &'a str,
    status: &'static str,
    failures: &'a [String],
    skip_reason: Option<&'a str>,
    wall_ms: Option<u64>,
    server: &'a Option<SideOutcome>,
    client: &'a Option<SideOutcome>,
}

impl Line<'_> {
    /// The line's object as one line of text; the mode and the hosts go on
    /// every line, so that each line stands on its own.
    fn render(&self, report: &LabReport, example: &str) -> String {
        let hosts: Vec<Value> = report
            .hosts
            .iter()
            .map(|h| {
                json!({
                    "role": h.role,
                    "dev": h.dev,
                    "port": h.port,
                    "link_layer": h.link_layer,
                    "gid_index": h.gid_index,
                    "gid_type": h.gid_type,
                    "active_mtu": h.active_mtu,
                })
            })
            .collect();
        let mut text = json!({
            "scenario": self.scenario,
            "example": example,
            "status": self.status,
            "failures": self.failures,
            "skip_reason": self.skip_reason,
            // Whole milliseconds: the f64 prints as the same three decimals.
            "wall_time_s": self.wall_ms.map(|ms| ms as f64 / 1000.0),
            "server": side_json(self.server),
            "client": side_json(self.client),
            "mode": report.mode.label(),
            "hosts": hosts,
        })
        .to_string();
        text.push('\n');
        text
    }
}

/// `passed` when there is nothing wrong, `failed` otherwise.
fn status(failures: &[String]) -> &'static str {
    if failures.is_empty() {
        "passed"
    } else {
        "failed"
    }
}

/// The run as JSON Lines: one object per outcome, per skipped scenario and
/// one for the doctor (`"scenario": "doctor"`, its findings as its
/// failures), each with `scenario`, `example` (the package), `status`
/// (`passed`, `failed` or `skipped`), `failures`, `skip_reason`,
/// `wall_time_s` (the slower side's; null when no side reported a time),
/// `server` and `client` (`exit`, `elapsed_ms`, `stdout`, `stderr`, or
/// null), `mode` and `hosts`.
pub fn json_lines(report: &LabReport) -> String {
    let mut out = String::new();
    for j in &report.outcomes {
        let (o, failures) = (&j.outcome, &j.failures);
        let line = Line {
            scenario: &o.scenario,
            status: status(failures),
            failures,
            skip_reason: None,
            wall_ms: wall_ms(o),
            server: &o.server,
            client: &o.client,
        };
        out += &line.render(report, judged_package(j));
    }
    for s in &report.skipped {
        let line = Line {
            scenario: &s.scenario,
            status: "skipped",
            failures: &[],
            skip_reason: Some(&s.reason),
            wall_ms: None,
            server: &None,
            client: &None,
        };
        out += &line.render(report, package_of(&s.scenario));
    }
    let doctor = Line {
        scenario: DOCTOR,
        status: status(&report.findings),
        failures: &report.findings,
        skip_reason: None,
        wall_ms: None,
        server: &None,
        client: &None,
    };
    out += &doctor.render(report, DOCTOR);
    out
}

/// Writes the JUnit report to `junit` and the JSON Lines to `json`, each
/// when given, creating their directories; an error names the file.
pub fn write(report: &LabReport, junit: Option<&Path>, json: Option<&Path>) -> Result<(), String> {
    let put = |path: &Path, text: String| {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    if let Some(p) = junit {
        put(p, self::junit(report))?;
    }
    if let Some(p) = json {
        put(p, json_lines(report))?;
    }
    Ok(())
}

/// The JUnit schema the reports are checked against: Jenkins' (the xUnit
/// plugin's `junit-10.xsd`), which CI readers follow.
pub fn junit_schema() -> PathBuf {
    crate::base::workspace::workspace_root().join("fabric/tests/data/junit.xsd")
}

/// What is wrong with the JUnit file `file` by [`junit_schema`]; empty
/// when it is valid (`rdma_fabric::present::xml::validate_junit`).
pub fn validate_junit(file: &Path) -> Vec<String> {
    rdma_fabric::present::xml::validate_junit(file, &junit_schema())
}

#[cfg(test)]
mod tests;
