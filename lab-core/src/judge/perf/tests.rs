use super::*;
use crate::model::mesh::{Pair, Verdict};

fn reports(gbps: f64, usec: f64) -> Vec<ScenarioResult> {
    let r = |name: &str, log: String| ScenarioResult {
        scenario: name.into(),
        verdict: Verdict::Pass,
        detail: String::new(),
        server_log: None,
        client_log: Some(log),
        unstarted: None,
    };
    vec![
        r(WRITE_BW, format!("=== client ===\nBW_average: {gbps},\n")),
        r(SEND_LAT, format!("=== client ===\nt_typical: {usec},\n")),
    ]
}

fn cell(server: usize, client: usize, gbps: f64, usec: f64) -> PairCell {
    PairCell {
        rail: 0,
        pair: Pair { server, client },
        round: 0,
        results: reports(gbps, usec),
        counters: Vec::new(),
        alone: Vec::new(),
        rate_gbps: None,
        reports: Vec::new(),
        alone_reports: Vec::new(),
    }
}

#[test]
fn a_link_below_half_the_others_median_or_twice_its_latency_falls_short() {
    let cells = vec![
        cell(0, 1, 7.8, 2.0),
        cell(2, 3, 7.9, 2.1),
        cell(0, 2, 0.9, 2.0),
        cell(1, 3, 7.7, 9.0),
        cell(0, 3, 7.8, 2.0),
    ];
    let limits = PerfLimits::default();
    let found = slow(&cells, &limits);
    assert!(found.hosts.is_empty(), "{found:?}");
    let said = |of, words: &str| Shortfall {
        of,
        words: words.to_string(),
    };
    assert_eq!(
        found.links,
        [
            (
                2,
                vec![said(
                    Measure::Bandwidth,
                    "0.900 Gb/s, median 7.80 Gb/s (12%)"
                )]
            ),
            (
                3,
                vec![said(Measure::Latency, "9.0 usec, median 2.0 usec (4.5x)")]
            ),
        ]
    );
    // What the heatmaps colour is read from the kind, not the words.
    assert_eq!(found.named(), (vec![2], vec![3]));
    assert_eq!(suspects(&cells, &limits), [2, 3]);
}

/// Every link of four or of three hosts, host `slow`'s with a tenth of
/// the bandwidth and `lat` times the latency.
fn fabric(n: usize, slow: usize, lat: f64) -> Vec<PairCell> {
    let mut cells = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            let bad = a == slow || b == slow;
            let (g, u) = if bad { (0.8, 2.0 * lat) } else { (8.0, 2.0) };
            cells.push(cell(a, b, g, u));
        }
    }
    cells
}

#[test]
fn a_host_slow_with_every_peer_is_judged_against_the_links_without_it() {
    let limits = PerfLimits::default();
    for n in [3, 4, 8] {
        let found = slow(&fabric(n, 2, 1.0), &limits);
        let hosts: Vec<usize> = found.hosts.iter().map(|(h, _)| *h).collect();
        assert_eq!(hosts, [2], "{n} hosts: {found:?}");
        assert_eq!(found.hosts[0].1.len(), n - 1);
        assert!(found.hosts[0].1[0].1[0]
            .words
            .contains("0.800 Gb/s, median 8.00 Gb/s (10%)"));
        assert!(found.links.is_empty(), "{n} hosts: {found:?}");
        // Latency alone, three times the others'.
        let mut lat = fabric(n, 1, 3.0);
        for c in &mut lat {
            c.results[0] = reports(8.0, 0.0).remove(0);
        }
        let found = slow(&lat, &limits);
        let hosts: Vec<usize> = found.hosts.iter().map(|(h, _)| *h).collect();
        assert_eq!(hosts, [1], "{n} hosts, latency: {found:?}");
        assert!(found.hosts[0].1[0].1[0].words.contains("(3.0x)"));
    }
    // A healthy fabric: nothing.
    let healthy = fabric(4, 9, 1.0);
    assert_eq!(slow(&healthy, &limits), Slow::default());
}

#[test]
fn a_slow_link_is_measured_again_before_a_slow_hosts_links() {
    let mut cells = fabric(8, 2, 1.0);
    // And one slow link among the others.
    let at = cells.iter().position(|c| c.pair.joins(5, 6)).unwrap();
    cells[at] = cell(5, 6, 0.5, 2.0);
    let s = suspects(&cells, &PerfLimits::default());
    assert_eq!(s.len(), 1 + 7, "{s:?}");
    assert_eq!(s[0], at);
    assert!(s[1..].iter().all(|&i| cells[i].pair.has(2)));
}

#[test]
fn a_bandwidth_shows_the_digits_that_matter() {
    assert_eq!(gbps_text(7.8), "7.80 Gb/s");
    assert_eq!(gbps_text(0.24), "0.240 Gb/s");
    assert_eq!(gbps_text(0.009366), "0.00937 Gb/s");
    assert_eq!(gbps_text(0.0000001), "0.000000 Gb/s");
    assert_eq!(gbps_text(0.0), "0.00 Gb/s");
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

/// A link measured again alone is judged by that, against the rounds'
/// yardstick: its alone figures (faster than any round's) move no other
/// link's yardstick, and a zero bandwidth (perftest's empty measuring
/// window) is no figure.
#[test]
fn a_link_measured_again_alone_is_judged_by_it_against_the_rounds() {
    let limits = PerfLimits::default();
    let mut cells = vec![
        cell(0, 1, 0.02, 7000.0),
        cell(2, 3, 0.02, 7000.0),
        cell(0, 2, 0.008, 7000.0),
        cell(1, 3, 0.02, 7000.0),
        cell(0, 3, 0.02, 10000.0),
        cell(1, 2, 0.02, 7000.0),
    ];
    assert_eq!(suspects(&cells, &limits), [2]);
    // Alone, it is as fast as the others, and far quicker: named for
    // nothing, and (0, 3), 1.4 times the rounds' latency, neither.
    cells[2].alone = reports(0.03, 1000.0);
    assert_eq!(slow(&cells, &limits), Slow::default());
    // Alone, still slow: named, with its alone figures.
    cells[2].alone = reports(0.007, 7000.0);
    let s = slow(&cells, &limits);
    assert_eq!(s.links.len(), 1, "{s:?}");
    assert!(s.links[0].1[0]
        .words
        .starts_with("0.00700 Gb/s, median 0.0200 Gb/s"));
    // A zero bandwidth is no figure: the link is measured again alone.
    cells[2].results = reports(0.0, 7000.0);
    cells[2].alone.clear();
    assert_eq!(figures(&cells[2]).gbps, None);
    assert_eq!(suspects(&cells, &limits), [2]);
}

#[test]
fn a_measurement_taken_again_alone_replaces_the_rounds() {
    let mut c = cell(0, 2, 0.9, 2.0);
    assert!(!figures(&c).alone);
    c.alone = reports(7.5, 2.2);
    assert_eq!(
        figures(&c),
        Figures {
            gbps: Some(7.5),
            usec: Some(2.2),
            alone: true,
            rate: None,
            ..Figures::default()
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

/// With `--min-rate-ratio`, a link under that share of its ports' link
/// rate falls short with its numbers, though it matches the others'.
#[test]
fn a_link_under_a_share_of_its_link_rate_falls_short() {
    let at = |s, c, gbps, rate| PairCell {
        rate_gbps: rate,
        ..cell(s, c, gbps, 2.0)
    };
    let cells = vec![
        at(0, 1, 20.0, Some(100.0)),
        at(2, 3, 20.0, Some(25.0)),
        at(0, 2, 20.0, None),
    ];
    let limits = PerfLimits {
        min_rate_ratio: Some(0.5),
        ..PerfLimits::default()
    };
    let slow = slow(&cells, &limits);
    assert!(slow.hosts.is_empty(), "{slow:?}");
    assert_eq!(
        slow.links,
        vec![(
            0,
            vec![Shortfall {
                of: Measure::Bandwidth,
                words: "20.00 Gb/s, link rate 100.00 Gb/s (20%)".to_string()
            }]
        )]
    );
    // Without the limit, nothing.
    assert!(super::slow(&cells, &PerfLimits::default()).links.is_empty());
}

/// A recorded run's transcripts with figures no port gives (past the
/// ports' rate, below zero, past any number) refuse them: the liar's
/// links are not measured, and no honest host's yardstick moves. On the
/// judge before it, each of these named an honest host slow.
#[test]
fn a_transcripts_figures_no_port_gives_make_no_yardstick() {
    let limits = PerfLimits::default();
    for lie in [
        "BW_average: 3200,\n",
        "MsgSize: 1000000,\nn_iterations: -2000,\n",
        "MsgSize: 1e308,\nn_iterations: 2000,\n",
    ] {
        let mut cells = fabric(4, 9, 1.0);
        for c in cells.iter_mut() {
            c.rate_gbps = Some(100.0);
            if c.pair.has(3) {
                c.results[0].client_log = Some(lie.into());
            }
        }
        assert_eq!(slow(&cells, &limits), Slow::default(), "{lie}");
        let liars: Vec<bool> = cells.iter().map(|c| figures(c).gbps.is_none()).collect();
        let on_3: Vec<bool> = cells.iter().map(|c| c.pair.has(3)).collect();
        assert_eq!(liars, on_3, "{lie}");
    }
}

/// A figure only one host stands behind (its receiver counted nothing)
/// is judged for its own link, and is in no other link's median: the
/// liar whose peer's session failed cannot raise the yardstick.
#[test]
fn a_figure_one_host_stands_behind_makes_no_yardstick() {
    use crate::model::mesh::{Measure, SideReport};
    let own = |rank: usize, gbps: f64| SideReport {
        rank,
        measures: vec![Measure {
            scenario: WRITE_BW.into(),
            report: format!("BW_average: {gbps},\n"),
            ..Measure::default()
        }],
        elapsed_ms: None,
    };
    let mut cells = fabric(4, 9, 1.0);
    for c in cells.iter_mut().filter(|c| c.pair.has(3)) {
        // Host 3 says its link moved 80 Gb/s; its peer ran nothing.
        let peer = c.pair.other(3);
        c.reports = vec![
            own(3, 80.0),
            SideReport {
                rank: peer,
                ..SideReport::default()
            },
        ];
    }
    let figures: Vec<Figures> = cells.iter().map(figures).collect();
    let on_3: Vec<&Figures> = (cells.iter().zip(&figures))
        .filter(|(c, _)| c.pair.has(3))
        .map(|(_, f)| f)
        .collect();
    assert!(on_3.iter().all(|f| f.one_sided_gbps), "{on_3:?}");
    assert_eq!(medians(&figures).gbps, Some(8.0));
    assert_eq!(slow(&cells, &PerfLimits::default()), Slow::default());
}
