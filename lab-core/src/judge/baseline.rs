//! Each measured link against its own figure in a baseline (`mesh --perf
//! --baseline FILE`, [`crate::model::baseline`]), as well as against its
//! rail's median: a whole rail that got slower alike moves its median
//! with it, where its earlier figures stay put.

use crate::judge::finding::{Finding, FindingKind};
use crate::judge::perf::figures;
use crate::judge::units::{gbps_number, gbps_text};
use crate::model::baseline::Baseline;
use crate::model::mesh::{MeshRun, PairCell, PerfLimits};
use std::collections::HashMap;

/// A run's baseline at hand: each of its links' figures by rail and host
/// names (in name order), and the baseline's rail of each of the run's
/// rails (rail 0 is rail 0, any other the one on the same subnet).
pub struct Earlier<'a> {
    /// The baseline.
    pub base: &'a Baseline,
    figures: HashMap<(usize, &'a str, &'a str), f64>,
    rails: Vec<Option<usize>>,
}

impl<'a> Earlier<'a> {
    /// `run`'s baseline at hand, when it has one.
    pub fn of(run: &'a MeshRun) -> Option<Earlier<'a>> {
        let base = run.baseline.as_ref()?;
        let figures = base
            .links
            .iter()
            .filter_map(|l| Some(((l.rail, l.hosts[0].as_str(), l.hosts[1].as_str()), l.gbps?)))
            .collect();
        let rails = (0..run.rails.len().max(1))
            .map(|rail| base_rail(run, base, rail))
            .collect();
        Some(Earlier {
            base,
            figures,
            rails,
        })
    }

    /// Whether the baseline has `run`'s rail `rail`.
    pub fn has_rail(&self, rail: usize) -> bool {
        self.rails.get(rail).copied().flatten().is_some()
    }

    /// The baseline's bandwidth of `c`'s link, in Gb/s, when it has one.
    pub fn gbps(&self, run: &MeshRun, c: &PairCell) -> Option<f64> {
        let then_rail = self.rails.get(c.rail).copied().flatten()?;
        let (a, b) = (run.name(c.pair.server), run.name(c.pair.client));
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        self.figures
            .get(&(then_rail, a.as_str(), b.as_str()))
            .copied()
    }
}

/// What the baseline says of `run`: its findings (each link under
/// `min_bw_ratio` of its own earlier figure; a rail whose every compared
/// link is, two or more, as one finding: the fabric, not a host) and its
/// notes (what could not be compared: links or rails that the baseline
/// does not have, options that differ). Nothing without a baseline or
/// measurements.
pub fn judge(run: &MeshRun) -> (Vec<Finding>, Vec<String>) {
    let (Some(earlier), Some(limits)) = (Earlier::of(run), &run.perf) else {
        return (Vec::new(), Vec::new());
    };
    let date = &earlier.base.date;
    let mut notes = differences(earlier.base, limits);
    notes.extend(new_hosts(run, earlier.base));
    let mut findings = Vec::new();
    for rail in 0..run.rails.len().max(1) {
        if !earlier.has_rail(rail) {
            notes.push(format!(
                "{}: not in the baseline ({date}), not judged against it",
                run.rail_name(rail)
            ));
            continue;
        }
        let (f, missing) = judge_rail(run, &earlier, limits, rail);
        findings.extend(f);
        if missing > 0 {
            notes.push(format!(
                "{}: {missing} measured {} not in the baseline ({date}), not judged against it",
                run.rail_name(rail),
                if missing == 1 { "link" } else { "links" },
            ));
        }
    }
    (findings, notes)
}

/// Each host measured in `run` that no link of `base` names, in words: a
/// host added since, whose links have nothing to be judged against.
fn new_hosts(run: &MeshRun, base: &Baseline) -> Vec<String> {
    let mut ranks: Vec<usize> = run
        .cells
        .iter()
        .filter(|c| figures(c).gbps.is_some())
        .flat_map(|c| [c.pair.server, c.pair.client])
        .collect();
    ranks.sort_unstable();
    ranks.dedup();
    ranks
        .into_iter()
        .map(|r| run.name(r))
        .filter(|name| !base.links.iter().any(|l| l.hosts.contains(name)))
        .map(|name| {
            format!(
                "{name}: not in the baseline ({}), its links not judged against it",
                base.date
            )
        })
        .collect()
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

/// Rail `rail`'s findings against the baseline, and how many of its
/// measured links the baseline lacks.
fn judge_rail(
    run: &MeshRun,
    earlier: &Earlier,
    limits: &PerfLimits,
    rail: usize,
) -> (Vec<Finding>, usize) {
    let mut compared = Vec::new();
    let mut missing = 0;
    for c in run.cells.iter().filter(|c| c.rail == rail) {
        let Some(now) = figures(c).gbps else { continue };
        match earlier.gbps(run, c) {
            Some(then) => compared.push((c.pair, now, then)),
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
            earlier.base.date
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
