//! JUnit XML's pieces that the fabric's report and the lab's share: a test
//! case, the escaping of arbitrary program output, and the time format.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// The `type` of a scenario's `<failure>`: every failure is an expectation
/// of the scenario that the run did not meet.
pub const FAILURE_TYPE: &str = "unmet expectation";

/// The `type` of the doctor's `<failure>`.
pub const FINDING_TYPE: &str = "doctor finding";

/// Milliseconds as seconds with three decimals, the form JUnit readers
/// (and the Surefire time pattern of Jenkins' schema) take.
pub fn secs(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// `s` as XML 1.0 attribute text: the five special characters escaped,
/// and the characters XML 1.0 forbids dropped (the control characters but
/// tab, newline and carriage return, U+FFFE and U+FFFF; Rust's `char` has
/// no surrogates), since a program's output is arbitrary and one NUL byte
/// would make the whole report unreadable. Tab, newline and carriage
/// return go as character references: a parser turns them into spaces in
/// an attribute, and a raw CR into LF anywhere.
pub fn xml_escape(s: &str) -> String {
    escape(s, false)
}

/// Text content: as [`xml_escape`], but with newlines kept as they are, so
/// that the transcripts stay readable in the file itself.
pub fn xml_text(s: &str) -> String {
    escape(s, true)
}

/// `s` as a report may hold it, before its markup is escaped: the
/// characters XML 1.0 forbids dropped (the control characters but tab,
/// newline and carriage return, U+FFFE and U+FFFF), since a program's
/// output is arbitrary; a direction override or a zero-width character,
/// which would make a page read other than it is, shown as `\u{...}`, as
/// on the terminal. The mesh's page gives it to its template, which
/// escapes the markup; [`xml_escape`] and [`xml_text`] escape it here.
pub fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => {}
            c if crate::base::text::is_invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// [`xml_escape`] or [`xml_text`], as `raw_newlines` says.
fn escape(s: &str, raw_newlines: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in shown(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' if raw_newlines => out.push('\n'),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out
}

/// A `<testcase>` with its optional failure or skip element and its
/// `<system-out>`.
pub struct Case {
    /// The suite's grouping of the case: a package, or the mesh's kind.
    pub classname: String,
    /// The case's own name.
    pub name: String,
    /// Its time, as [`secs`] gives it.
    pub time: String,
    /// `(message, type, text)`.
    pub failure: Option<(String, &'static str, String)>,
    /// Why it was skipped, if it was.
    pub skipped: Option<String>,
    /// Its transcript, the `<system-out>`.
    pub out: String,
}

impl Case {
    /// Appends the test case to `xml`, indented for a `<testsuite>`.
    pub fn write(&self, xml: &mut String) {
        let _ = writeln!(
            xml,
            r#"    <testcase classname="{}" name="{}" time="{}">"#,
            xml_escape(&self.classname),
            xml_escape(&self.name),
            self.time
        );
        if let Some((message, ty, text)) = &self.failure {
            let _ = writeln!(
                xml,
                r#"      <failure message="{}" type="{ty}">{}</failure>"#,
                xml_escape(message),
                xml_text(text)
            );
        }
        if let Some(reason) = &self.skipped {
            let _ = writeln!(xml, r#"      <skipped message="{}"/>"#, xml_escape(reason));
        }
        let _ = writeln!(
            xml,
            "      <system-out>{}</system-out>",
            xml_text(&self.out)
        );
        xml.push_str("    </testcase>\n");
    }
}

/// What is wrong with the JUnit file `file` by the schema `schema` (the
/// tests' is Jenkins', `fabric/tests/data/junit.xsd`), as `xmllint
/// --schema` says it; empty when it is valid. A machine without
/// xmllint gets that as a failure, not a pass: the check must not vanish
/// silently where libxml2-utils is missing.
pub fn validate_junit(file: &Path, schema: &Path) -> Vec<String> {
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(schema)
        .arg(file)
        .output();
    match out {
        Err(e) => vec![format!(
            "cannot run xmllint ({e}) to check {} against the JUnit schema: install libxml2-utils",
            file.display()
        )],
        Ok(out) if out.status.success() => Vec::new(),
        Ok(out) => {
            let mut failures = vec![format!(
                "{} is not valid by {} ({})",
                file.display(),
                schema.display(),
                out.status
            )];
            failures.extend(
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string),
            );
            failures
        }
    }
}
