//! The documentation's links hold: every relative link of README.md,
//! ARCHITECTURE.md, docs/ and each example's README names a file that
//! exists, and a link to a heading (`FILE#anchor`, `#anchor`) names a
//! heading that file has (GitHub's anchors: lower case, spaces as `-`,
//! punctuation dropped).

use std::path::{Path, PathBuf};

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every Markdown file the test reads.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for dir in [root.join("docs"), root.to_path_buf()] {
        for e in std::fs::read_dir(&dir).expect("reads").flatten() {
            let p = e.path();
            if dir == root && p.is_dir() {
                for f in std::fs::read_dir(&p).into_iter().flatten().flatten() {
                    let f = f.path();
                    let name = f
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned();
                    if name.starts_with("README") && name.ends_with(".md") && !p.ends_with("target")
                    {
                        files.push(f);
                    }
                }
            } else if dir != root && p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files
}

/// The targets of a Markdown text's inline links, outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Inline code spans hold no links.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        for (at, _) in plain.match_indices("](") {
            let rest = &plain[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_string());
            }
        }
    }
    out
}

/// GitHub's anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// Every broken link of `file`, as one line each.
fn broken(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("reads");
    let dir = file.parent().expect("a dir");
    let mut found = Vec::new();
    for l in links(&text) {
        if l.starts_with("http://") || l.starts_with("https://") || l.starts_with("mailto:") {
            continue;
        }
        let (path, frag) = l.split_once('#').unwrap_or((l.as_str(), ""));
        let target = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        if !target.exists() {
            found.push(format!("{}: `{l}`: no such file", file.display()));
            continue;
        }
        if !frag.is_empty() && target.extension().is_some_and(|x| x == "md") {
            let t = std::fs::read_to_string(&target).unwrap_or_default();
            if !anchors(&t).contains(&frag.to_string()) {
                found.push(format!("{}: `{l}`: no such heading", file.display()));
            }
        }
    }
    found
}

#[test]
fn every_link_of_the_documentation_holds() {
    let files = markdown_files(&root());
    assert!(files.len() > 12, "{files:?}");
    let found: Vec<String> = files.iter().flat_map(|f| broken(f)).collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_broken_link_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("a.md");
    std::fs::write(dir.path().join("b.md"), "# Real heading\n").unwrap();
    std::fs::write(
        &md,
        "[ok](b.md) [ok](b.md#real-heading) [gone](c.md) [bad](b.md#nope) `[code](x.md)`\n",
    )
    .unwrap();
    let found = broken(&md);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("`c.md`: no such file"));
    assert!(found[1].contains("`b.md#nope`: no such heading"));
}

/// README.md is a front door: the two commands, what each use looks like,
/// and links; the rest is in docs/, each page beginning with a command.
#[test]
fn the_readme_is_short_and_each_page_begins_with_a_command() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("reads");
    assert!(readme.lines().count() < 150, "README.md has grown long");
    for e in std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
    {
        let text = std::fs::read_to_string(e.path()).expect("reads");
        let first_block = text.split("```").nth(1).unwrap_or("");
        assert!(
            text.find("```").is_some_and(|at| at < 400) && !first_block.trim().is_empty(),
            "{} does not begin with a command",
            e.path().display()
        );
        assert!(
            readme.contains(&format!("(docs/{})", e.file_name().to_string_lossy())),
            "README.md links {}",
            e.path().display()
        );
    }
}
