use super::*;
use crate::model::mesh::{Pair, Verdict};

fn measured(gbps: f64, usec: f64) -> Vec<ScenarioResult> {
    let r = |name: &str, log: String| ScenarioResult {
        scenario: name.into(),
        verdict: Verdict::Pass,
        detail: String::new(),
        server_log: None,
        client_log: Some(log),
    };
    vec![
        r(WRITE_BW, format!("=== client ===\nBW_average: {gbps},\n")),
        r(SEND_LAT, format!("=== client ===\nt_typical: {usec},\n")),
    ]
}

fn cell(server: usize, client: usize, gbps: f64, usec: f64) -> PairCell {
    PairCell {
        pair: Pair { server, client },
        round: 0,
        results: measured(gbps, usec),
        counters: Vec::new(),
        alone: Vec::new(),
    }
}

#[test]
fn a_link_below_half_the_median_or_twice_its_latency_falls_short() {
    let cells = vec![
        cell(0, 1, 7.8, 2.0),
        cell(2, 3, 7.9, 2.1),
        cell(0, 2, 0.9, 2.0),
        cell(1, 3, 7.7, 9.0),
        cell(0, 3, 7.8, 2.0),
    ];
    let limits = PerfLimits::default();
    assert_eq!(suspects(&cells, &limits), [2, 3]);
    let links: Vec<Figures> = cells.iter().map(figures).collect();
    let m = medians(&links);
    assert_eq!(
        shortfall(&links[2], &m, &limits),
        ["0.90 Gb/s, median 7.80 Gb/s (12%)"]
    );
    assert_eq!(
        shortfall(&links[3], &m, &limits),
        ["9.0 usec, median 2.0 usec (4.5x)"]
    );
    let floor = PerfLimits {
        min_gbps: Some(7.85),
        ..limits
    };
    assert_eq!(suspects(&cells, &floor), [0, 2, 3, 4]);
}

#[test]
fn a_link_is_as_fast_as_its_slower_way() {
    let mut c = cell(0, 1, 7.8, 2.0);
    c.results.push(ScenarioResult {
        client_log: Some("BW_average: 0.70,\n".into()),
        ..c.results[0].clone()
    });
    c.results[2].scenario = WRITE_BW_BACK.into();
    assert_eq!(figures(&c).gbps, Some(0.7));
}

#[test]
fn a_measurement_taken_again_alone_replaces_the_rounds() {
    let mut c = cell(0, 2, 0.9, 2.0);
    assert!(!figures(&c).alone);
    c.alone = measured(7.5, 2.2);
    assert_eq!(
        figures(&c),
        Figures {
            gbps: Some(7.5),
            usec: Some(2.2),
            alone: true
        }
    );
}

#[test]
fn a_link_without_figures_is_never_short() {
    let mut c = cell(0, 1, 1.0, 1.0);
    c.results.clear();
    let m = Medians {
        gbps: Some(8.0),
        usec: Some(2.0),
    };
    assert!(shortfall(&figures(&c), &m, &PerfLimits::default()).is_empty());
}
