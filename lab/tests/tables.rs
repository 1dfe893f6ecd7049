//! rustfmt formats every line of the lab's code, tables included: rustfmt
//! leaves a whole item as it was when one of its lines cannot be made to
//! fit (a long string literal), so `cargo fmt --check` passed a field
//! mis-indented on purpose inside each of the old scenario tables. This
//! test mis-indents every field of every file and asks rustfmt to put
//! each one back.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every `.rs` file below `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Where a line begins: in code, or inside a string literal.
#[derive(Clone, Copy, PartialEq)]
enum At {
    Code,
    Str,
    Raw,
}

/// Where the next line begins, after `line` began at `at`: a plain string
/// (escapes skipped), a raw string (`r#"` to `"#`), or code, whose `//`
/// comments end the line.
fn after(line: &str, mut at: At) -> At {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match at {
            At::Str if b[i] == b'\\' => i += 1,
            At::Str if b[i] == b'"' => at = At::Code,
            At::Raw if b[i..].starts_with(b"\"#") => at = At::Code,
            At::Code if b[i..].starts_with(b"//") => return at,
            At::Code if b[i..].starts_with(b"r#\"") => {
                at = At::Raw;
                i += 2;
            }
            // A char literal: '"' is not a string.
            At::Code if b[i..].starts_with(b"'\"'") => i += 2,
            At::Code if b[i] == b'"' => at = At::Str,
            _ => {}
        }
        i += 1;
    }
    at
}

/// The numbers of the lines that are a struct field of code (`name: ...`),
/// not a line inside a string literal.
fn field_lines(text: &str) -> Vec<usize> {
    let mut at = At::Code;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let field = t.split_once(": ").is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        });
        if at == At::Code && field {
            out.push(i);
        }
        at = after(line, at);
    }
    out
}

/// What rustfmt makes of `text`.
fn rustfmt(text: &str) -> String {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rustfmt runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("rustfmt");
    assert!(
        out.status.success(),
        "rustfmt: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The lines rustfmt did not put back, of `text` with `lines` indented by
/// three more spaces.
fn not_put_back(text: &str, lines: &[usize]) -> Vec<String> {
    let moved: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| match lines.contains(&i) {
            true => format!("   {l}\n"),
            false => format!("{l}\n"),
        })
        .collect();
    let formatted = rustfmt(&moved);
    let fixed: Vec<&str> = formatted.lines().collect();
    let orig: Vec<&str> = text.lines().collect();
    if fixed.len() != orig.len() {
        return vec![format!(
            "{} lines where there were {}",
            fixed.len(),
            orig.len()
        )];
    }
    lines
        .iter()
        .filter(|&&i| fixed[i] != orig[i])
        .map(|&i| format!("{}: {}", i + 1, orig[i].trim()))
        .collect()
}

#[test]
fn rustfmt_puts_back_every_field_of_the_lab() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missed = Vec::new();
    let mut checked = 0;
    for file in sources(&src) {
        let text = std::fs::read_to_string(&file).expect("read");
        let lines = field_lines(&text);
        checked += lines.len();
        for l in not_put_back(&text, &lines) {
            missed.push(format!("{}:{l}", file.display()));
        }
    }
    // The catalog alone has well over a thousand fields.
    assert!(checked > 1000, "only {checked} fields found");
    assert!(
        missed.is_empty(),
        "rustfmt does not format these lines (a line of their item is too long to fit?):\n{}",
        missed.join("\n")
    );
}

#[test]
fn a_field_rustfmt_cannot_reach_is_found() {
    let long = "x".repeat(120);
    let text =
        format!("fn f() -> S {{\n    S {{\n        a: 1,\n        b: \"{long}\",\n    }}\n}}\n");
    assert_eq!(field_lines(&text), vec![2, 3]);
    assert_eq!(not_put_back(&text, &[2]), vec!["3: a: 1,".to_string()]);
    let short = format!(
        "fn f() -> S {{\n    S {{\n        a: 1,\n        b: \"{}\",\n    }}\n}}\n",
        "x".repeat(80)
    );
    assert!(not_put_back(&short, &[2, 3]).is_empty());
}
