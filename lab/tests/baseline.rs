//! `mesh --baseline` on recorded runs (`lab/tests/data/fabric/`). The
//! fabric's own (`record-baseline.sh`): a healthy run saved as the
//! baseline, then every NIC of rail 1 throttled alike, whose record keeps
//! the baseline and is held to its declaration with the other records
//! (`tests/recorded.rs`); here, without its baseline it names nothing,
//! since the rail's median moved with its links. And the healthy
//! fabric's record saved as a baseline through the CLI (`--replay
//! --save-baseline`), then judged with rail 1 at two-fifths of its
//! bandwidth. A baseline of other rails is refused in one line.

mod fabric_steps;

use fabric_steps::{json_lines, replay};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The healthy fabric's record, both rails measured all-pairs.
fn healthy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fabric/srun.record.json")
}

/// `rdma-lab mesh ARGS`.
fn mesh(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .arg("mesh")
        .args(args)
        .output()
        .expect("rdma-lab runs")
}

/// Each `n_iterations: N,` line in `v`'s strings at `share` of `N`: the
/// messages a link completed in its 2 s, in its transcripts and each
/// side's report alike.
fn scaled(v: &mut Value, share: f64) {
    match v {
        Value::String(s) if s.contains("n_iterations") => {
            let lines: Vec<String> = s
                .lines()
                .map(|l| match l.trim().strip_prefix("n_iterations:") {
                    Some(n) => {
                        let n: f64 = n.trim().trim_end_matches(',').parse().unwrap();
                        format!("n_iterations: {},", (n * share).round())
                    }
                    None => l.to_string(),
                })
                .collect();
            *s = lines.join("\n");
        }
        Value::Array(a) => a.iter_mut().for_each(|x| scaled(x, share)),
        Value::Object(o) => o.values_mut().for_each(|x| scaled(x, share)),
        _ => {}
    }
}

/// The healthy record with rail `rail`'s every link at `share`.
fn slowed(rail: u64, share: f64, at: &Path) -> PathBuf {
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(healthy()).unwrap()).unwrap();
    for cell in record["run"]["cells"].as_array_mut().unwrap() {
        if cell["rail"] == rail {
            scaled(cell, share);
        }
    }
    let path = at.join("slowed.record.json");
    std::fs::write(&path, record.to_string()).unwrap();
    path
}

/// The healthy fabric's record saved as a baseline in `dir`, through
/// the CLI.
fn saved_baseline(dir: &Path) -> PathBuf {
    let base = dir.join("baseline.json");
    let saved = mesh(&[
        Path::new("--replay"),
        &healthy(),
        Path::new("--save-baseline"),
        &base,
    ]);
    assert_eq!(saved.status.code(), Some(0), "{saved:?}");
    base
}

#[test]
fn the_throttled_rails_record_names_nothing_without_its_baseline() {
    let scratch = tempfile::tempdir().unwrap();
    let path = healthy().with_file_name("rail_throttled.record.json");
    let mut record: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        record["run"]["baseline"].is_object(),
        "the record keeps its baseline"
    );
    record["run"]["baseline"] = Value::Null;
    let altered = scratch.path().join("unjudged.record.json");
    std::fs::write(&altered, record.to_string()).unwrap();
    let shown = replay(&altered, scratch.path());
    assert_eq!(shown.status, Some(0), "{}", shown.out);
    assert!(shown.out.contains("every pair passed"), "{}", shown.out);
}

#[test]
fn a_rail_slower_alike_is_named_only_against_its_baseline() {
    let scratch = tempfile::tempdir().unwrap();
    let base = saved_baseline(scratch.path());
    let slowed = slowed(1, 0.4, scratch.path());
    let plain = replay(&slowed, scratch.path());
    assert_eq!(plain.status, Some(0), "{}", plain.out);
    assert!(plain.out.contains("every pair passed"), "{}", plain.out);
    let json = scratch.path().join("judged.json");
    let judged = mesh(&[
        Path::new("--replay"),
        &slowed,
        Path::new("--baseline"),
        &base,
        Path::new("--json"),
        &json,
    ]);
    let out = String::from_utf8_lossy(&judged.stdout);
    assert_eq!(judged.status.code(), Some(1), "{out}");
    let findings: Vec<Value> = json_lines(&json)
        .into_iter()
        .filter(|v| v["type"] == "finding")
        .collect();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["kind"], "rail_below_baseline");
    assert_eq!(findings[0]["rail"], 1);
    let text = findings[0]["text"].as_str().unwrap();
    let shares: Vec<f64> = text
        .strip_prefix("rail 1 (198.51.100.0/24): every link at ")
        .and_then(|t| t.split_once("% of its baseline ("))
        .map(|(range, _)| range.split('-').map(|p| p.parse().unwrap()).collect())
        .unwrap_or_default();
    assert!(
        shares.len() == 2 && shares.iter().all(|s| (38.0..=42.0).contains(s)),
        "{text}"
    );
    assert!(text.ends_with("): the fabric, not a host"), "{text}");
    assert!(out.contains("\nBaseline: "), "{out}");
}

#[test]
fn a_baseline_of_other_rails_is_refused_in_one_line() {
    let scratch = tempfile::tempdir().unwrap();
    let base = saved_baseline(scratch.path());
    let text = std::fs::read_to_string(&base).unwrap();
    let one_rail = text.replacen(
        r#""rails":[null,"198.51.100.0/24"]"#,
        r#""rails":[null]"#,
        1,
    );
    assert_ne!(one_rail, text, "the run line names both rails");
    std::fs::write(&base, one_rail).unwrap();
    let refused = mesh(&[
        Path::new("--replay"),
        &healthy(),
        Path::new("--baseline"),
        &base,
    ]);
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(": its rails (rail 0 only) are not this run's (rail 0 and 198.51.100.0/24)"),
        "{err}"
    );
    // Not a report at all: refused before anything is judged.
    std::fs::write(&base, "{}\n").unwrap();
    let not = mesh(&[
        Path::new("--replay"),
        &healthy(),
        Path::new("--baseline"),
        &base,
    ]);
    assert_eq!(not.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&not.stderr).contains("no \"run\" line"));
}

#[test]
fn the_page_gives_each_links_baseline_and_where_its_perftest_ran() {
    let scratch = tempfile::tempdir().unwrap();
    let html = scratch.path().join("page.html");
    let throttled = healthy().with_file_name("rail_throttled.record.json");
    let shown = mesh(&[
        Path::new("--replay"),
        &throttled,
        Path::new("--html"),
        &html,
    ]);
    assert_eq!(shown.status.code(), Some(1), "{shown:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("% of its baseline ("), "the finding");
    assert!(page.contains(" Gb/s; baseline 0.0"), "a cell's baseline");
    assert!(
        page.contains("; perftest on CPUs: node0 0, node"),
        "where it ran"
    );
}
