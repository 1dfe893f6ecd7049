use super::*;
use crate::catalog::perf::WRITE_BW;
use crate::model::baseline::BaseLink;
use crate::model::mesh::{testkit, Pair, PairCell, Pattern, ScenarioResult, Verdict};

/// A measured pair on `rail` at `gbps`.
fn measured(pair: Pair, rail: usize, gbps: f64) -> PairCell {
    PairCell {
        rail,
        pair,
        round: 0,
        results: vec![ScenarioResult {
            scenario: WRITE_BW.into(),
            verdict: Verdict::Pass,
            detail: String::new(),
            server_log: None,
            client_log: Some(format!("=== client ===\nBW_average: {gbps},\n")),
            unstarted: None,
        }],
        counters: Vec::new(),
        alone: Vec::new(),
        rate_gbps: None,
        reports: Vec::new(),
        alone_reports: Vec::new(),
    }
}

/// Four hosts on the ring and two rails, each link at `gbps(rail, pair)`.
fn run(gbps: impl Fn(usize, Pair) -> f64) -> MeshRun {
    let mut run = testkit::run(4, Pattern::Ring, |_, _| false);
    let pairs: Vec<Pair> = run.cells.iter().map(|c| c.pair).collect();
    run.rails = vec![
        None,
        Some(crate::model::rails::Subnet::of(
            "198.51.100.0".parse().unwrap(),
            24,
        )),
    ];
    run.perf = Some(PerfLimits::default());
    run.cells = (0..2)
        .flat_map(|rail| pairs.iter().map(move |p| (rail, *p)))
        .map(|(rail, p)| measured(p, rail, gbps(rail, p)))
        .collect();
    run
}

/// Every link of [`run`]'s at 10 Gb/s on 2026-11-20.
fn baseline() -> Baseline {
    let healthy = run(|_, _| 10.0);
    let links = healthy
        .cells
        .iter()
        .map(|c| {
            let mut hosts = [healthy.name(c.pair.server), healthy.name(c.pair.client)];
            hosts.sort();
            BaseLink {
                rail: c.rail,
                hosts,
                gbps: Some(10.0),
            }
        })
        .collect();
    Baseline {
        date: "2026-11-20".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        rails: vec![None, Some("198.51.100.0/24".into())],
        qp_timeout: None,
        links,
    }
}

fn with_baseline(mut run: MeshRun) -> MeshRun {
    run.baseline = Some(baseline());
    run
}

#[test]
fn a_fabric_as_fast_as_its_baseline_has_nothing_to_say() {
    let (findings, notes) = judge(&with_baseline(run(|_, _| 9.0)));
    assert!(
        findings.is_empty() && notes.is_empty(),
        "{findings:?} {notes:?}"
    );
}

#[test]
fn a_rail_slower_alike_is_the_fabric_which_only_the_baseline_sees() {
    let slower = run(|rail, _| if rail == 1 { 4.8 } else { 10.0 });
    // The median moved with every link: no ratio to it sees anything.
    assert!(crate::judge::mesh::diagnose(&slower).is_empty());
    let found = crate::judge::mesh::diagnose(&with_baseline(slower));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, FindingKind::RailBelowBaseline);
    assert_eq!(found[0].rail, 1);
    assert_eq!(
        found[0].text,
        "rail 1 (198.51.100.0/24): every link at 48-48% of its baseline (2026-11-20): the \
         fabric, not a host"
    );
}

#[test]
fn one_link_under_its_baseline_is_named_with_both_figures() {
    let one = run(|rail, p| {
        if rail == 0 && p.has(2) && p.has(3) {
            3.0
        } else {
            10.0
        }
    });
    let (findings, _) = judge(&with_baseline(one));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].kind, FindingKind::BelowBaseline { a: 2, b: 3 });
    assert!(
        findings[0]
            .text
            .ends_with(" on rail 0: 3.00 Gb/s, baseline 10.00 (30%)"),
        "{}",
        findings[0].text
    );
}

#[test]
fn links_the_baseline_lacks_are_said_not_judged() {
    let mut base = baseline();
    base.links
        .retain(|l| !(l.rail == 0 && l.hosts == ["node0", "node1"]));
    base.qp_timeout = Some(20);
    let mut slow = run(|_, p| if p.has(0) && p.has(1) { 1.0 } else { 10.0 });
    slow.baseline = Some(base);
    let (findings, notes) = judge(&slow);
    // node0 - node1 on rail 1 only: rail 0's is not in the baseline.
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].rail, 1);
    assert_eq!(
        notes,
        [
            "the baseline was measured with QP timeout 20, this run with perftest's own",
            "rail 0: 1 measured link not in the baseline (2026-11-20), not judged against it"
        ]
    );
}

#[test]
fn a_host_the_baseline_lacks_is_named_once() {
    let mut base = baseline();
    base.links
        .retain(|l| !l.hosts.contains(&"node3".to_string()));
    let mut grown = run(|_, _| 10.0);
    grown.baseline = Some(base);
    let (findings, notes) = judge(&grown);
    assert!(findings.is_empty(), "{findings:?}");
    // node3's two links on each rail are counted with their rail; the
    // host is said by name, once.
    assert_eq!(
        notes,
        [
            "node3: not in the baseline (2026-11-20), its links not judged against it",
            "rail 0: 2 measured links not in the baseline (2026-11-20), not judged against it",
            "rail 1 (198.51.100.0/24): 2 measured links not in the baseline (2026-11-20), not \
             judged against it",
        ]
    );
}

#[test]
fn a_baseline_of_other_rails_is_refused() {
    let mut base = baseline();
    assert_eq!(refusal(&run(|_, _| 10.0), &base), None);
    base.rails = vec![None];
    assert_eq!(
        refusal(&run(|_, _| 10.0), &base).unwrap(),
        "its rails (rail 0 only) are not this run's (rail 0 and 198.51.100.0/24): save a \
         baseline from a run on these rails"
    );
}
