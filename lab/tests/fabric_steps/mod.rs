//! Checks a fabric step ([`rdma_lab::catalog::fabric::Step`]) against
//! what its mesh run printed and its JSON report: the fabric test's live
//! runs and the recorded runs replayed are held to the same declaration.
#![allow(dead_code)] // Each test binary uses a part of it.

use rdma_lab::catalog::fabric::{Named, Step};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// What a run printed, its exit status, and its JSON Lines report.
pub struct Shown {
    /// Its standard output and error.
    pub out: String,
    /// Its exit status.
    pub status: Option<i32>,
    /// Its JSON Lines report, parsed.
    pub json: Vec<Value>,
}

/// `rdma-lab mesh --replay RECORD --json ...`: the record judged and shown
/// again, as rank 0 showed it.
pub fn replay(record: &Path, scratch: &Path) -> Shown {
    let json = scratch.join("replay.json");
    // A replay that fails writes none: never read an earlier one's.
    let _ = std::fs::remove_file(&json);
    let out = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .arg("mesh")
        .arg("--replay")
        .arg(record)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("rdma-lab runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    Shown {
        out: text,
        status: out.status.code(),
        json: json_lines(&json),
    }
}

/// A JSON Lines file's objects (none when it is missing).
pub fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The findings of a JSON report, as declared: kind, ranks, rail.
fn findings(json: &[Value]) -> Vec<(String, Vec<usize>, usize)> {
    let mut found: Vec<(String, Vec<usize>, usize)> = json
        .iter()
        .filter(|v| v["type"] == "finding")
        .map(|v| {
            let ranks = v["ranks"].as_array().map_or(Vec::new(), |r| {
                r.iter()
                    .filter_map(|x| x.as_u64())
                    .map(|x| x as usize)
                    .collect()
            });
            let kind = v["kind"].as_str().unwrap_or("").to_string();
            (kind, ranks, v["rail"].as_u64().unwrap_or(0) as usize)
        })
        .collect();
    found.sort();
    found
}

/// The declared findings in the same form.
fn declared(named: &[Named]) -> Vec<(String, Vec<usize>, usize)> {
    let mut d: Vec<_> = named
        .iter()
        .map(|n| (n.kind.to_string(), n.ranks.to_vec(), n.rail))
        .collect();
    d.sort();
    d
}

/// Every way `shown` falls short of `step` (`live`: also what only a
/// live run prints).
pub fn shortfalls(step: &Step, shown: &Shown, live: bool) -> Vec<String> {
    let name = step.name;
    let mut bad = Vec::new();
    if shown.status != Some(step.status) {
        bad.push(format!(
            "{name}: exit {:?}, not {}",
            shown.status, step.status
        ));
    }
    let live_says = if live { step.live_says } else { &[] };
    for p in step.says.iter().chain(live_says) {
        if !shown.out.contains(p) {
            bad.push(format!("{name}: no `{p}`"));
        }
    }
    for p in step.never_says {
        if shown.out.contains(p) {
            bad.push(format!("{name}: `{p}` said"));
        }
    }
    let (mut found, want) = (findings(&shown.json), declared(step.findings));
    let maybe = declared(step.may_also);
    found.retain(|f| want.contains(f) || !maybe.contains(f));
    if found != want {
        bad.push(format!("{name}: findings {found:?}, declared {want:?}"));
    }
    if step.links_a_rail > 0 {
        bad.extend(links(step, &shown.json));
    }
    bad
}

/// A measured run's links: on each rail every link once, each with its
/// bandwidth (the messages it completed in its 2 s: none is 0, a figure
/// too, of a link that a fault stalled) and its counters, and all but one
/// with a latency (perftest's own timing, which an emulated CPU's clock
/// may throw off).
fn links(step: &Step, json: &[Value]) -> Vec<String> {
    let links: Vec<&Value> = json.iter().filter(|v| v["type"] == "link").collect();
    let rails = links
        .iter()
        .filter_map(|l| l["rail"].as_u64())
        .max()
        .map_or(0, |m| m + 1);
    let mut bad = Vec::new();
    if rails == 0 {
        bad.push(format!("{}: no link measured", step.name));
    }
    for rail in 0..rails {
        let on: Vec<&&Value> = links.iter().filter(|l| l["rail"] == rail).collect();
        let with = |figure: &str, least: f64| {
            on.iter()
                .filter(|l| l[figure].as_f64().is_some_and(|g| g >= least))
                .count()
        };
        let counted = on
            .iter()
            .filter(|l| l["counters"].as_array().is_some_and(|c| !c.is_empty()))
            .count();
        let n = step.links_a_rail;
        let (gbps, usec) = (with("gbps", 0.0), with("usec", f64::MIN_POSITIVE));
        if on.len() != n || gbps != n || usec + 1 < n || counted != n {
            bad.push(format!(
                "{}: rail {rail}: {} links, {gbps} with Gb/s, {usec} with usec, {counted} with \
                 counters, of {n}",
                step.name,
                on.len(),
            ));
        }
    }
    bad
}
