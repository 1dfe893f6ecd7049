//! A mesh run as JSON Lines (`--json`, and `--save-baseline`'s
//! baseline): one object a line, each with its `type`, every value the
//! run's own (a host's text as it gave it: JSON escapes it).

use crate::judge::finding::{Finding, FindingKind};
use crate::model::mesh::{Joined, MeshRun, PairCell, Verdict};
use serde_json::{json, Value};

/// A verdict as JSON: its status (`passed`, `failed`, `skipped`,
/// `not_run`) and its reason, null unless skipped or not run.
fn status(v: &Verdict, detail: &str) -> (&'static str, Value) {
    match v {
        Verdict::Pass => ("passed", Value::Null),
        Verdict::Fail => ("failed", Value::Null),
        Verdict::Skip => ("skipped", json!(detail)),
        Verdict::NotRun(why) | Verdict::PortHeld(why) => ("not_run", json!(why)),
    }
}

/// The run as JSON Lines, each object with its `type`: `pair` (one per
/// pair and scenario: ranks and names, round, status, reason, detail,
/// both transcripts), `host` (its device, the doctor's facts and
/// findings, how it took part), `multicast` (one per receiver of each
/// round), `link` (the counters that rose on both hosts while a pair
/// ran) and `finding` (its kind, ranks and text). Every line names the
/// pattern, so each stands on its own.
pub fn json_lines(run: &MeshRun, findings: &[Finding]) -> String {
    let mut lines: Vec<Value> = vec![run_json(run)];
    for c in &run.cells {
        for r in &c.results {
            let (status, reason) = status(&r.verdict, &r.detail);
            lines.push(json!({
                "type": "pair",
                "round": c.round,
                "rail": c.rail,
                "server": c.pair.server,
                "server_name": run.name(c.pair.server),
                "client": c.pair.client,
                "client_name": run.name(c.pair.client),
                "scenario": r.scenario,
                "status": status,
                "reason": reason,
                "detail": r.detail,
                "server_log": r.server_log,
                "client_log": r.client_log,
            }));
        }
        if !c.counters.is_empty() || run.perf.is_some() {
            lines.push(link_json(run, c));
        }
    }
    lines.extend(run.hosts.iter().map(|h| {
        let (joined, waited, during, cannot) = match &h.joined {
            Joined::Joined => ("joined", None, None, None),
            Joined::NeverJoined { waited_secs } => ("never_joined", Some(*waited_secs), None, None),
            Joined::Died { during } => ("died", None, Some(during.as_str()), None),
            Joined::CannotRun { why } => ("cannot_run", None, None, Some(why.as_str())),
        };
        json!({
            "type": "host", "rank": h.rank, "name": h.name, "rdma_addr": h.rdma_addr,
            "rail_devs": run.rail_devs(h.rank),
            "netdev": h.netdev, "mtu": h.mtu, "gid_type": h.gid_type, "subnet": h.subnet,
            "findings": h.findings, "joined": joined, "waited_secs": waited,
            "died_during": during, "cannot_run": cannot,
        })
    }));
    for m in &run.mcast {
        for (r, v) in &m.receivers {
            let (status, reason) = status(v, "");
            lines.push(json!({
                "type": "multicast", "scenario": m.scenario,
                "sender": m.sender, "sender_name": run.name(m.sender),
                "receiver": r, "receiver_name": run.name(*r),
                "status": status, "reason": reason,
            }));
        }
    }
    lines.extend(findings.iter().map(finding_json));
    let pattern = json!(run.pattern_name);
    let mut out = String::new();
    for mut line in lines {
        line["pattern"] = pattern.clone();
        out += &line.to_string();
        out.push('\n');
    }
    out
}

/// The report's `run` line: which tool wrote it and when, on which rails
/// and with which QP timeout its links were measured: what a baseline
/// made of this report ([`crate::results::baseline`]) is checked by.
fn run_json(run: &MeshRun) -> Value {
    let rails: Vec<Option<String>> = run.rails.iter().map(|r| r.map(|s| s.to_string())).collect();
    json!({
        "type": "run", "tool": crate::results::baseline::TOOLS[0], "version": env!("CARGO_PKG_VERSION"),
        "date": crate::base::text::today(), "hosts": run.hosts.len(), "rails": rails,
        "measured": run.perf.is_some(), "qp_timeout": run.perf.and_then(|p| p.qp_timeout),
        "baseline": run.baseline.as_ref().map(|b| &b.date),
    })
}

/// A pair's `link` line: the counters each host read rise while it ran,
/// and, with `--perf`, its figures (Gb/s, usec, whether measured again
/// alone).
fn link_json(run: &MeshRun, c: &PairCell) -> Value {
    let f = crate::judge::perf::figures(c);
    let counters: Vec<Value> = c
        .counters
        .iter()
        .map(|(r, n, v)| json!({"rank": r, "name": run.name(*r), "counter": n, "rose": v}))
        .collect();
    json!({
        "type": "link", "round": c.round, "rail": c.rail,
        "server": c.pair.server, "server_name": run.name(c.pair.server),
        "client": c.pair.client, "client_name": run.name(c.pair.client),
        "counters": counters,
        "gbps": f.gbps, "usec": f.usec, "alone": f.alone, "rate_gbps": c.rate_gbps,
        "ran_on": ran_on_json(run, c),
    })
}

/// Where each side's measurements of pair `c` ran, as perftest's own
/// process said (its CPU list and its memory policy, `null` where it
/// said none), those of its first run and of its run alone: `rank`,
/// `name`, `scenario`, `cpus`, `memory`.
fn ran_on_json(run: &MeshRun, c: &PairCell) -> Vec<Value> {
    use crate::catalog::perf::{memory_of, ran_on};
    c.reports
        .iter()
        .chain(&c.alone_reports)
        .flat_map(|side| side.measures.iter().map(move |m| (side.rank, m)))
        .filter_map(|(rank, m)| {
            let cpus = ran_on(&m.report)?;
            Some(json!({
                "rank": rank, "name": run.name(rank), "scenario": m.scenario, "cpus": cpus,
                "memory": memory_of(&m.report),
            }))
        })
        .collect()
}

/// A finding as JSON: its kind in snake case, its ranks, its text.
fn finding_json(f: &Finding) -> Value {
    let (kind, ranks) = match f.kind {
        FindingKind::HostFault { rank } => ("host_fault", vec![rank]),
        FindingKind::LinkFault { a, b } => ("link_fault", vec![a, b]),
        FindingKind::Lossy { a, b } => ("lossy", vec![a, b]),
        FindingKind::Slow { a, b } => ("slow", vec![a, b]),
        FindingKind::SlowHost { rank } => ("slow_host", vec![rank]),
        FindingKind::FabricWide => ("fabric_wide", vec![]),
        FindingKind::Missing { rank } => ("missing", vec![rank]),
        FindingKind::CannotTakePart { rank } => ("cannot_take_part", vec![rank]),
        FindingKind::Doctor { rank } => ("doctor", vec![rank]),
        FindingKind::Rail { rank } => ("rail", vec![rank]),
        FindingKind::Multicast { rank } => ("multicast", vec![rank]),
        FindingKind::ImpossibleReport { rank } => ("impossible_report", vec![rank]),
        FindingKind::BelowBaseline { a, b } => ("below_baseline", vec![a, b]),
        FindingKind::RailBelowBaseline => ("rail_below_baseline", vec![]),
    };
    json!({"type": "finding", "kind": kind, "ranks": ranks, "text": f.text, "rail": f.rail})
}
