//! Each measured link against its own figure in a baseline (`mesh --perf
//! --baseline FILE`, [`crate::model::baseline`]), as well as against its
//! rail's median: a whole rail that got slower alike moves its median
//! with it, where its earlier figures stay put.

use crate::judge::mesh::{Finding, FindingKind};
use crate::judge::perf::{figures, gbps_number, gbps_text};
use crate::model::baseline::Baseline;
use crate::model::mesh::{MeshRun, PerfLimits};
use std::collections::HashMap;

/// A baseline's figures by rail and host names (in name order).
type Index<'a> = HashMap<(usize, &'a str, &'a str), f64>;

/// What the baseline says of `run`: its findings (each link under
/// `min_bw_ratio` of its own earlier figure; a rail whose every compared
/// link is, two or more, as one finding: the fabric, not a host) and its
/// notes (what was compared, what could not be: links or rails that the
/// baseline does not have, options that differ). Nothing without a
/// baseline or measurements.
pub fn judge(run: &MeshRun) -> (Vec<Finding>, Vec<String>) {
    let (Some(base), Some(limits)) = (&run.baseline, &run.perf) else {
        return (Vec::new(), Vec::new());
    };
    let index: Index = base
        .links
        .iter()
        .filter_map(|l| Some(((l.rail, l.hosts[0].as_str(), l.hosts[1].as_str()), l.gbps?)))
        .collect();
    let mut notes = differences(base, limits);
    let mut findings = Vec::new();
    for rail in 0..run.rails.len().max(1) {
        let Some(then_rail) = base_rail(run, base, rail) else {
            notes.push(format!(
                "{}: not in the baseline ({}), not judged against it",
                run.rail_name(rail),
                base.date
            ));
            continue;
        };
        let (f, missing) = judge_rail(run, base, &index, limits, rail, then_rail);
        findings.extend(f);
        if missing > 0 {
            notes.push(format!(
                "{}: {missing} measured {} not in the baseline ({}), not judged against it",
                run.rail_name(rail),
                if missing == 1 { "link" } else { "links" },
                base.date
            ));
        }
    }
    (findings, notes)
}

/// The baseline's index of `run`'s rail `rail`: rail 0 is rail 0, any
/// other the one on the same subnet.
fn base_rail(run: &MeshRun, base: &Baseline, rail: usize) -> Option<usize> {
    if rail == 0 {
        return Some(0);
    }
    let subnet = run.rails.get(rail).copied().flatten()?.to_string();
    base.rails
        .iter()
        .position(|r| r.as_deref() == Some(subnet.as_str()))
}

/// Rail `rail`'s findings against the baseline's rail `then_rail`, and
/// how many of its measured links the baseline lacks.
fn judge_rail(
    run: &MeshRun,
    base: &Baseline,
    index: &Index,
    limits: &PerfLimits,
    rail: usize,
    then_rail: usize,
) -> (Vec<Finding>, usize) {
    let mut compared = Vec::new();
    let mut missing = 0;
    for c in run.cells.iter().filter(|c| c.rail == rail) {
        let Some(now) = figures(c).gbps else { continue };
        let (a, b) = (run.name(c.pair.server), run.name(c.pair.client));
        let key = if a <= b {
            (then_rail, a.as_str(), b.as_str())
        } else {
            (then_rail, b.as_str(), a.as_str())
        };
        match index.get(&key) {
            Some(&then) => compared.push((c.pair, now, then)),
            None => missing += 1,
        }
    }
    let below: Vec<_> = compared
        .iter()
        .filter(|(_, now, then)| *now < then * limits.min_bw_ratio)
        .collect();
    let pct = |now: f64, then: f64| (now / then * 100.0).round();
    if compared.len() >= 2 && below.len() == compared.len() {
        let shares: Vec<f64> = below.iter().map(|(_, n, t)| pct(*n, *t)).collect();
        let (lo, hi) = shares
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), s| (lo.min(*s), hi.max(*s)));
        let text = format!(
            "{}: every link at {lo}-{hi}% of its baseline ({}): the fabric, not a host",
            run.rail_name(rail),
            base.date
        );
        let f = Finding {
            kind: FindingKind::RailBelowBaseline,
            text,
            rail,
        };
        return (vec![f], missing);
    }
    let findings = below
        .iter()
        .map(|(pair, now, then)| Finding {
            kind: FindingKind::BelowBaseline {
                a: pair.server.min(pair.client),
                b: pair.server.max(pair.client),
            },
            text: format!(
                "{} - {} on {}: {}, baseline {} ({}%)",
                run.name(pair.server),
                run.name(pair.client),
                run.rail_name(rail),
                gbps_text(*now),
                gbps_number(*then),
                pct(*now, *then)
            ),
            rail,
        })
        .collect();
    (findings, missing)
}

/// Why `base` cannot be `run`'s baseline: its rails are not the run's
/// (another layout, whose links are not these); `None` when it can be.
pub fn refusal(run: &MeshRun, base: &Baseline) -> Option<String> {
    let ours: Vec<Option<String>> = run.rails.iter().map(|r| r.map(|s| s.to_string())).collect();
    let shown = |rails: &[Option<String>]| -> String {
        let words: Vec<&str> = rails.iter().skip(1).flatten().map(String::as_str).collect();
        if words.is_empty() {
            "rail 0 only".into()
        } else {
            format!("rail 0 and {}", words.join(", "))
        }
    };
    let (mut a, mut b) = (base.rails.clone(), ours.clone());
    a.sort();
    b.sort();
    (a != b).then(|| {
        format!(
            "its rails ({}) are not this run's ({}): save a baseline from a run on these rails",
            shown(&base.rails),
            shown(&ours)
        )
    })
}

/// What differs between the baseline's run and `run` that the comparison
/// holds through, in words: the QP timeout.
fn differences(base: &Baseline, limits: &PerfLimits) -> Vec<String> {
    let mut notes = Vec::new();
    if base.qp_timeout != limits.qp_timeout {
        let t = |q: Option<u8>| q.map_or_else(|| "perftest's own".to_string(), |q| q.to_string());
        notes.push(format!(
            "the baseline was measured with QP timeout {}, this run with {}",
            t(base.qp_timeout),
            t(limits.qp_timeout)
        ));
    }
    notes
}

#[cfg(test)]
mod tests;
