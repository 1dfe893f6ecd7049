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

/// The stages' own crates: the lab's, and the agent's and the core's
/// below it (whose modules sit at the same paths, `crate::guest`, ...).
const STAGE_CRATES: &[&str] = &["lab", "fabric", "lab-agent", "lab-core"];

#[test]
fn every_stage_imports_only_earlier_stages() {
    let mut files = Vec::new();
    for krate in STAGE_CRATES {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(krate)
            .join("src");
        let mut own = Vec::new();
        sources(&root, &root, &mut own);
        assert!(own.len() > 10, "read {} files of {krate}", own.len());
        // A crate's root (lib.rs) is above its stages, as the lab's is.
        files.extend(own);
    }
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
        .filter(|m| {
            ![
                "rdma-core-sys",
                "hints",
                "common",
                "lab-core",
                "lab-agent",
                "fabric",
                "lab",
                "xtask",
            ]
            .contains(&m.as_str())
        })
        .collect()
}

/// ARCHITECTURE.md's "Adding an example" names every place an example
/// goes, and every example of the workspace is in each place a test can
/// see: its README and host tests, its entry in `catalog::EXAMPLES` (whose
/// binaries must be the crate's binary targets), its catalog file, the
/// top-level README's row and docs/real-hosts.md's line.
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
    for file in [
        "lab-core/src/catalog/mod.rs",
        "README.md",
        "docs/real-hosts.md",
    ] {
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
            root.join(format!("lab-core/src/catalog/{e}.rs")).is_file(),
            "lab-core/src/catalog/{e}.rs"
        );
        assert!(
            registered.contains(&e.as_str()),
            "catalog::EXAMPLES has {e}"
        );
    }
}

/// The files that `text` (the file `rel`, under a crate's `src/`)
/// declares as test modules: each `mod NAME;` whose attributes above it
/// say `cfg(test)`, at its `#[path]` or where Rust looks for it.
fn declared_test_files(rel: &Path, text: &str) -> Vec<PathBuf> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let dir = rel.parent().unwrap_or(Path::new(""));
    let stem = rel
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    // A crate root (lib.rs, main.rs, a binary under bin/) or a mod.rs
    // keeps its modules in its own folder.
    let root = ["lib", "main", "mod"].contains(&stem.as_str()) || dir.ends_with("bin");
    let mut found = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(name) = l
            .strip_prefix("pub(crate) mod ")
            .or_else(|| l.strip_prefix("mod "))
            .and_then(|r| r.strip_suffix(';'))
        else {
            continue;
        };
        let attrs: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take_while(|a| a.starts_with("#[") || a.starts_with("///"))
            .copied()
            .collect();
        if !attrs
            .iter()
            .any(|a| a.contains("cfg(test)") || a.contains("cfg(all(test"))
        {
            continue;
        }
        let path = attrs.iter().find_map(|a| {
            a.strip_prefix("#[path = \"")?
                .strip_suffix("\"]")
                .map(PathBuf::from)
        });
        found.push(match (path, root) {
            (Some(p), _) => dir.join(p),
            (None, true) => dir.join(format!("{name}.rs")),
            (None, false) => dir.join(&stem).join(format!("{name}.rs")),
        });
    }
    found
}

/// The lines of `text` that hold a test: `#[test]` or `proptest!`.
fn test_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start();
            l.contains("#[test]") || l.starts_with("proptest!")
        })
        .map(|(i, _)| i)
        .collect()
}

/// The tests of `files` (under one `src/`) that are not in a file of their
/// own that a `#[cfg(test)] mod NAME;` declares.
fn tests_not_beside(files: &[(PathBuf, String)]) -> Vec<String> {
    let declared: Vec<PathBuf> = files
        .iter()
        .flat_map(|(rel, text)| declared_test_files(rel, text))
        .collect();
    let mut found = Vec::new();
    for (rel, text) in files {
        if declared.contains(rel) {
            continue;
        }
        for i in test_lines(text) {
            found.push(format!("{}:{}", rel.display(), i + 1));
        }
    }
    found
}

/// One test layout, as ARCHITECTURE.md states it: a file's unit tests in
/// a file of their own beside it (`foo.rs`'s in `foo/tests.rs`), declared
/// `#[cfg(test)] mod tests;`, never inline, whatever the inline module
/// looks like.
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
        read += files.len();
        for f in tests_not_beside(&files) {
            found.push(format!("{}/{f}", src.display()));
        }
    }
    assert!(read > 100, "read {read} files");
    assert!(
        found.is_empty(),
        "tests not beside their file:\n{}",
        found.join("\n")
    );
}

#[test]
fn an_inline_test_in_any_form_is_found() {
    let file = |rel: &str, text: &str| (PathBuf::from(rel), text.to_string());
    let beside = [
        file("a.rs", "fn f() {}\n\n#[cfg(test)]\nmod tests;\n"),
        file("a/tests.rs", "use super::*;\n\n#[test]\nfn t() {}\n"),
        file(
            "bin/b.rs",
            "#[cfg(test)]\n#[path = \"b/tests.rs\"]\nmod tests;\n",
        ),
        file("bin/b/tests.rs", "#[test]\nfn t() {}\n"),
        file("c/mod.rs", "/// Props.\n#[cfg(test)]\nmod properties;\n"),
        file("c/properties.rs", "proptest! {}\n"),
    ];
    assert!(
        tests_not_beside(&beside).is_empty(),
        "{:?}",
        tests_not_beside(&beside)
    );
    for inline in [
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n",
        "#[cfg(test)] mod tests { #[test] fn t() {} }\n",
        "#[cfg(all(test, unix))]\n\nmod tests { // why\n    #[test]\n    fn t() {}\n}\n",
        "mod tests {\n    #[test]\n    fn t() {}\n}\n",
        "#[test]\nfn loose() {}\n",
    ] {
        assert!(
            !tests_not_beside(&[file("d.rs", inline)]).is_empty(),
            "{inline}"
        );
    }
    // A test module declared but kept elsewhere than Rust looks is found.
    let astray = [
        file("e.rs", "#[cfg(test)]\nmod tests;\n"),
        file("tests.rs", "#[test]\nfn t() {}\n"),
    ];
    assert_eq!(tests_not_beside(&astray), ["tests.rs:1"]);
}

/// What the fabric tool may not know: the lab above it, and what only the
/// lab does (the source tree, cargo, the VMs, a browser). Its crate graph
/// keeps the lab out (the lab depends on it); these are the rest.
const FABRIC_MAY_NOT_NAME: &[&str] = &[
    "rdma_lab::",
    "CARGO_MANIFEST_DIR",
    "Command::new(\"cargo\")",
    "Command::new(\"vng\")",
    "Command::new(\"tshark\")",
    "browser::",
    "handout::",
    "setup::",
    "vm::",
    "workspace::",
];

/// The fabric's own source (not its tests): every file and the words of
/// [`FABRIC_MAY_NOT_NAME`] it names.
fn fabric_names(files: &[(PathBuf, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (rel, text) in files {
        if rel.ends_with("tests.rs") {
            continue;
        }
        for word in FABRIC_MAY_NOT_NAME {
            if text.contains(word) {
                found.push(format!("{}: {word}", rel.display()));
            }
        }
    }
    found
}

#[test]
fn the_fabric_tool_knows_no_lab_and_no_source_tree() {
    let fabric = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fabric");
    let root = fabric.join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    assert!(files.len() > 10, "read {} files", files.len());
    let found = fabric_names(&files);
    assert!(found.is_empty(), "{}", found.join("\n"));
    let manifest = std::fs::read_to_string(fabric.join("Cargo.toml")).unwrap();
    for dep in ["rdma-lab =", "rdma-lab.workspace", "pulldown-cmark"] {
        assert!(!manifest.contains(dep), "fabric/Cargo.toml: {dep}");
    }
}

#[test]
fn a_word_the_fabric_may_not_name_is_named() {
    let files = vec![(
        PathBuf::from("host/x.rs"),
        "fn f() { let _ = std::process::Command::new(\"cargo\"); }\n".to_string(),
    )];
    assert_eq!(fabric_names(&files), ["host/x.rs: Command::new(\"cargo\")"]);
}
