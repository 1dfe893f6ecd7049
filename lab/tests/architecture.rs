//! The lab's stages import only their own and earlier ones
//! ([`rdma_lab::STAGES`]): this reads every `crate::` path of the crate's
//! own source, outside comments, and names each that runs against the
//! order, so that the layering stays true after the next feature.

use rdma_lab::{MAY_NOT_KNOW, STAGES};
use std::path::{Path, PathBuf};

/// The stage of a source file: the folder under `src/` it is in, or the
/// file's own name for one at the top (`cli.rs`). `lib.rs` and `main.rs`
/// are the crate's root, above every stage.
fn stage_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    match first.strip_suffix(".rs") {
        Some("lib" | "main") => None,
        Some(stem) => Some(stem.to_string()),
        None => Some(first),
    }
}

/// The stages a line names: each `crate::NAME`, and each name of a
/// `crate::{a, b::c}` group.
fn named_stages(line: &str) -> Vec<String> {
    let code = match line.find("//") {
        Some(at) => &line[..at],
        None => line,
    };
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let body = group.split('}').next().unwrap_or("");
            names.extend(body.split(',').filter_map(|n| {
                let n = n.trim().split("::").next()?.trim();
                (!n.is_empty()).then(|| n.to_string())
            }));
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

/// Every edge of `files` (a path under `src/` and its text) that runs
/// against `stages`, or names no stage, as one line each.
fn violations(files: &[(PathBuf, String)], stages: &[&str]) -> Vec<String> {
    let rank = |s: &str| stages.iter().position(|x| *x == s);
    let mut found = Vec::new();
    for (rel, text) in files {
        let Some(stage) = stage_of(rel) else { continue };
        let Some(own) = rank(&stage) else {
            found.push(format!("{}: `{stage}` is not a stage", rel.display()));
            continue;
        };
        // A multi-line `use crate::{...}` is read as one line.
        let joined = text.replace(",\n", ", ").replace("{\n", "{");
        for (n, line) in joined.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for target in named_stages(line) {
                match rank(&target) {
                    Some(t) if t <= own => {}
                    Some(_) => found.push(format!(
                        "{}:{}: `{stage}` imports `{target}`, a later stage",
                        rel.display(),
                        n + 1
                    )),
                    None => found.push(format!(
                        "{}:{}: `crate::{target}` is not a stage",
                        rel.display(),
                        n + 1
                    )),
                }
            }
        }
    }
    found
}

/// Every edge of `files` that a rule of `rules` forbids, as one line each.
fn unknown_edges(files: &[(PathBuf, String)], rules: &[(&str, &str, &str)]) -> Vec<String> {
    let mut found = Vec::new();
    for (rel, text) in files {
        let Some(stage) = stage_of(rel) else { continue };
        let joined = text.replace(",\n", ", ").replace("{\n", "{");
        for (n, line) in joined.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for target in named_stages(line) {
                if let Some((_, _, why)) =
                    rules.iter().find(|(s, t, _)| *s == stage && *t == target)
                {
                    found.push(format!(
                        "{}:{}: `{stage}` imports `{target}`, which it may not know: {why}",
                        rel.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    found
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<(PathBuf, String)>) {
    for e in std::fs::read_dir(dir).expect("src/ reads").flatten() {
        let path = e.path();
        if path.is_dir() {
            sources(&path, root, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let rel = path.strip_prefix(root).expect("under src/").to_path_buf();
            out.push((rel, std::fs::read_to_string(&path).expect("reads")));
        }
    }
}

#[test]
fn every_stage_imports_only_earlier_stages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    assert!(files.len() > 40, "read {} files", files.len());
    // Every folder of src/ is a stage.
    for (rel, _) in &files {
        if let Some(stage) = stage_of(rel) {
            assert!(STAGES.contains(&stage.as_str()), "{}", rel.display());
        }
    }
    let found = violations(&files, STAGES);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn an_edge_against_the_order_is_named() {
    let files = vec![
        (
            PathBuf::from("model/scenario.rs"),
            "//! Names crate::host in a comment: not an edge.\n\
             use crate::base::text;\n\
             use crate::{\n    catalog,\n    model,\n};\n\
             fn f() { crate::host::lab::run(); }\n"
                .to_string(),
        ),
        (
            PathBuf::from("host/lab.rs"),
            "use crate::model::Scenario;\nuse crate::hints;\n".to_string(),
        ),
    ];
    assert_eq!(
        violations(&files, STAGES),
        [
            "model/scenario.rs:3: `model` imports `catalog`, a later stage",
            "model/scenario.rs:4: `model` imports `host`, a later stage",
            "host/lab.rs:2: `crate::hints` is not a stage",
        ]
    );
}

/// No stage imports what it may not know ([`MAY_NOT_KNOW`]), and
/// ARCHITECTURE.md states every rule the test checks.
#[test]
fn no_stage_imports_what_it_may_not_know() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    let found = unknown_edges(&files, MAY_NOT_KNOW);
    assert!(found.is_empty(), "{}", found.join("\n"));
    let arch = std::fs::read_to_string(root.join("../../ARCHITECTURE.md")).expect("reads");
    for (stage, other, _) in MAY_NOT_KNOW {
        let rule = format!("`{stage}` does not import `{other}`");
        assert!(arch.contains(&rule), "ARCHITECTURE.md: {rule}");
    }
}

#[test]
fn an_edge_a_rule_forbids_is_named() {
    let files = vec![
        (
            PathBuf::from("present/report.rs"),
            "use crate::results::report::LabReport;\n\
             // crate::host in a comment\n\
             fn f() { crate::host::setup::ensure_print_tools(true); }\n"
                .to_string(),
        ),
        (
            PathBuf::from("capture/mod.rs"),
            "use crate::{model, guest::control};\n".to_string(),
        ),
    ];
    assert_eq!(
        unknown_edges(&files, MAY_NOT_KNOW)
            .iter()
            .map(|l| l.split(", which").next().unwrap_or(""))
            .collect::<Vec<_>>(),
        [
            "present/report.rs:3: `present` imports `host`",
            "capture/mod.rs:1: `capture` imports `guest`",
        ]
    );
}

/// The workspace's example crates: its members but the support crates.
fn examples(root: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("reads");
    let members = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("members = ["))
        .expect("a one-line members list");
    members
        .trim_end_matches(']')
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !["rdma-core-sys", "hints", "common", "lab", "xtask"].contains(&m.as_str()))
        .collect()
}

/// ARCHITECTURE.md's "Adding an example" names every place an example
/// goes, and every example of the workspace is in each place a test can
/// see: its README and host tests, its entry in `catalog::EXAMPLES` (whose
/// binaries `copied_binaries_*` checks against the built ones), its
/// catalog file, the top-level README's row and docs/real-hosts.md's line.
#[test]
fn every_example_is_where_adding_an_example_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let arch = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("reads");
    let section = arch
        .split("### Adding an example")
        .nth(1)
        .expect("the section")
        .split("\n## ")
        .next()
        .unwrap_or("");
    let places = (1..=20)
        .take_while(|n| section.contains(&format!("\n{n}. ")))
        .count();
    assert!(section.contains("Four places"), "{section}");
    assert_eq!(places, 4, "the section's list");
    for file in ["lab/src/catalog/mod.rs", "README.md", "docs/real-hosts.md"] {
        assert!(section.contains(file), "the section names {file}");
    }
    let readme = std::fs::read_to_string(root.join("README.md")).expect("reads");
    let copy = std::fs::read_to_string(root.join("docs/real-hosts.md")).expect("reads");
    let binaries = rdma_lab::catalog::binaries().join(" ");
    assert!(
        copy.lines().any(|l| l == binaries),
        "docs/real-hosts.md has the line {binaries}"
    );
    let examples = examples(&root);
    let registered = rdma_lab::catalog::chapters();
    assert_eq!(
        registered.len(),
        examples.len(),
        "{registered:?} {examples:?}"
    );
    for e in &examples {
        let dir = root.join(e);
        assert!(dir.join("README.md").is_file(), "{e}/README.md");
        assert!(dir.join("tests/host.rs").is_file(), "{e}/tests/host.rs");
        assert!(
            readme.contains(&format!("[`{e}`]")),
            "README's table has {e}"
        );
        assert!(
            root.join(format!("lab/src/catalog/{e}.rs")).is_file(),
            "lab/src/catalog/{e}.rs"
        );
        assert!(
            registered.contains(&e.as_str()),
            "catalog::EXAMPLES has {e}"
        );
    }
}

/// Lines of `text` that open an inline test module: a `mod NAME {` whose
/// attributes say `#[cfg(test)]`.
fn inline_test_modules(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    (0..lines.len())
        .filter(|&i| {
            let l = lines[i].trim_start();
            let opens = l.ends_with('{') && l.split_whitespace().any(|w| w == "mod");
            let attrs = lines[..i].iter().rev().take_while(|a| {
                a.trim_start().starts_with("#[") || a.trim_start().starts_with("///")
            });
            opens && attrs.into_iter().any(|a| a.contains("cfg(test)"))
        })
        .collect()
}

/// One test layout, as ARCHITECTURE.md states it: a file's unit tests in
/// a sibling file (`foo.rs`'s in `foo/tests.rs`), never inline.
#[test]
fn unit_tests_live_beside_their_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("reads");
    let members = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("members = ["))
        .expect("a one-line members list");
    let mut found = Vec::new();
    let mut read = 0;
    for m in members.trim_end_matches(']').split(',') {
        let src = root.join(m.trim().trim_matches('"')).join("src");
        let mut files = Vec::new();
        sources(&src, &src, &mut files);
        for (rel, text) in files {
            read += 1;
            for i in inline_test_modules(&text) {
                found.push(format!("{}/{}:{}", src.display(), rel.display(), i + 1));
            }
        }
    }
    assert!(read > 100, "read {read} files");
    assert!(
        found.is_empty(),
        "inline test modules:\n{}",
        found.join("\n")
    );
    let planted = "fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    assert_eq!(inline_test_modules(planted), [3]);
    assert!(inline_test_modules("#[cfg(test)]\nmod tests;\n").is_empty());
}
