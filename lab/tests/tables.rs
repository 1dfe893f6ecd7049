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

/// Where a line begins: in code, inside a string literal (a raw one with
/// its number of `#`s), or inside a block comment (nested this deep).
#[derive(Clone, Copy, PartialEq)]
enum At {
    Code,
    Str,
    Raw(usize),
    Block(usize),
}

/// The length of a char literal at the start of `b` (`'x'`, `'"'`,
/// `'\''`, `'\u{1F600}'`), or 0 for a lifetime or a label.
fn char_literal(b: &[u8]) -> usize {
    match b {
        [b'\'', b'\\', rest @ ..] => rest
            .iter()
            .skip(1)
            .position(|c| *c == b'\'')
            .map_or(0, |end| end + 4),
        [b'\'', c, b'\'', ..] if *c != b'\'' => 3,
        _ => std::str::from_utf8(b)
            .ok()
            .and_then(|t| t[1..].chars().next().map(|c| (c, c.len_utf8())))
            .filter(|(_, n)| b.get(1 + n) == Some(&b'\''))
            .map_or(0, |(_, n)| n + 2),
    }
}

/// The `#`s of a raw string opening at the start of `b` (`r"`, `r#"`,
/// `br##"`), if one opens there.
fn raw_opening(b: &[u8]) -> Option<usize> {
    let b = b.strip_prefix(b"b").unwrap_or(b).strip_prefix(b"r")?;
    let hashes = b.iter().take_while(|c| **c == b'#').count();
    (b.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// Where the next line begins, after `line` began at `at`.
fn after(line: &str, mut at: At) -> At {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        match at {
            At::Str if rest[0] == b'\\' => i += 1,
            At::Str if rest[0] == b'"' => at = At::Code,
            At::Raw(n)
                if rest[0] == b'"'
                    && rest[1..].iter().take(n).filter(|c| **c == b'#').count() == n =>
            {
                at = At::Code;
                i += n;
            }
            At::Block(d) if rest.starts_with(b"*/") => {
                at = if d == 1 { At::Code } else { At::Block(d - 1) };
                i += 1;
            }
            At::Block(d) if rest.starts_with(b"/*") => {
                at = At::Block(d + 1);
                i += 1;
            }
            At::Code if rest.starts_with(b"//") => return at,
            At::Code if rest.starts_with(b"/*") => {
                at = At::Block(1);
                i += 1;
            }
            At::Code if !ident_before && raw_opening(rest).is_some() => {
                let n = raw_opening(rest).unwrap_or(0);
                at = At::Raw(n);
                // Past `r`, the `#`s and the quote (and a `b`).
                i += usize::from(rest[0] == b'b') + 1 + n;
            }
            At::Code if rest[0] == b'\'' => i += char_literal(rest).saturating_sub(1),
            At::Code if rest[0] == b'"' => at = At::Str,
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missed = Vec::new();
    let mut checked = 0;
    let files = ["lab", "lab-agent", "lab-core"]
        .iter()
        .flat_map(|krate| sources(&root.join(krate).join("src")));
    for file in files {
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
fn strings_chars_and_comments_hide_no_field_after_them() {
    for before in [
        "let c = '\"';",
        "let c = '\\'';",
        "let c = '\\\\';",
        "let c = '\\u{1F600}';",
        "let s = r\"C:\\\";",
        "let s = r##\"a \"# b\"##;",
        "let s = br#\"x\"#;",
        "/* a \" in a comment */",
        "/* one\n \" two /* nested */ */",
        "fn f<'a>(x: &'a str) {}",
        "let s = \"a // b\";",
    ] {
        let text = format!("{before}\nS {{\n    field: 1,\n}}\n");
        let last = text.lines().count() - 2;
        assert_eq!(field_lines(&text).last(), Some(&last), "{before}");
    }
    // A field inside a string or a comment is no field.
    assert!(field_lines("let s = \"\nfield: 1,\n\";\n").is_empty());
    assert!(field_lines("/*\nfield: 1,\n*/\n").is_empty());
    assert!(field_lines("let s = r#\"\nfield: 1,\n\"#;\n").is_empty());
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
