//! Slow links, from perftest's figures of each pair (`mesh --perf`): a
//! link's bandwidth against the run's median (a share of it, or a floor
//! in Gb/s) and its latency against the median's multiple. Only ratios
//! within one run are judged, so that the same rule holds on real NICs
//! and under emulation, where the absolute numbers mean nothing.

use super::trust;
use super::units::gbps_text;
use crate::catalog::perf::{bandwidth, figure, LAT_KEY, SEND_LAT, WRITE_BW, WRITE_BW_BACK};
use crate::model::mesh::{PairCell, PerfLimits, ScenarioResult, SideReport};
use crate::stats::median;

/// What perftest measured of one link.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    /// `ib_write_bw`'s bandwidth, in Gb/s (its bytes completed over its
    /// duration): the lesser of the two ways where both were measured.
    pub gbps: Option<f64>,
    /// `ib_send_lat`'s typical latency, in usec.
    pub usec: Option<f64>,
    /// Whether they were measured again alone, after the rounds.
    pub alone: bool,
    /// The lesser link rate of its ports, in Gb/s, when known.
    pub rate: Option<f64>,
    /// Whether only one host is behind its bandwidth (a direction whose
    /// receiver counted nothing, or whose sender reported nothing of its
    /// own): judged for its own link, never another's yardstick.
    pub one_sided_gbps: bool,
    /// Whether only one side reported its latency: likewise.
    pub one_sided_usec: bool,
}

/// The figures of a record from before the hosts reported their own
/// sides, from its transcripts: the client's, which holds both ways (the
/// passive side's perftest prints its peer's report), the lesser
/// bandwidth of the two. A figure no port could give is refused.
fn read(results: &[ScenarioResult], rate: Option<f64>) -> Figures {
    let log = |name: &str| {
        results
            .iter()
            .find(|r| r.scenario == name)
            .and_then(|r| r.client_log.as_deref())
    };
    let ways = [log(WRITE_BW), log(WRITE_BW_BACK)];
    let gbps = ways
        .into_iter()
        .flatten()
        .filter_map(bandwidth)
        .filter(|g| trust::possible_gbps(*g, rate))
        .min_by(f64::total_cmp);
    let usec = log(SEND_LAT).and_then(|l| figure(l, LAT_KEY));
    Figures {
        gbps,
        usec: usec.filter(|u| *u > 0.0),
        rate,
        ..Figures::default()
    }
}

/// The figures of `results` and the hosts' own `reports` of them: from
/// the reports where the hosts gave theirs ([`trust::measured`]), else
/// (a record from before they did) from the transcripts.
fn read_cell(cell: &PairCell, results: &[ScenarioResult], reports: &[SideReport]) -> Figures {
    let rate = cell.rate_gbps;
    if cell.reports.is_empty() && cell.alone_reports.is_empty() {
        return read(results, rate);
    }
    let c = trust::measured(cell.pair, reports, rate);
    Figures {
        gbps: c.gbps,
        usec: c.usec,
        alone: false,
        rate,
        one_sided_gbps: c.one_sided_gbps,
        one_sided_usec: c.one_sided_usec,
    }
}

/// A pair's figures in its round, beside the round's other pairs.
pub fn in_round(cell: &PairCell) -> Figures {
    read_cell(cell, &cell.results, &cell.reports)
}

/// A pair's figures: those measured alone where there are, else its
/// round's.
pub fn figures(cell: &PairCell) -> Figures {
    let round = in_round(cell);
    let alone = read_cell(cell, &cell.alone, &cell.alone_reports);
    let (g, u) = (alone.gbps.is_some(), alone.usec.is_some());
    Figures {
        gbps: if g { alone.gbps } else { round.gbps },
        usec: if u { alone.usec } else { round.usec },
        alone: g || u,
        rate: cell.rate_gbps,
        one_sided_gbps: if g {
            alone.one_sided_gbps
        } else {
            round.one_sided_gbps
        },
        one_sided_usec: if u {
            alone.one_sided_usec
        } else {
            round.one_sided_usec
        },
    }
}

/// The medians of some links.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Medians {
    /// The median bandwidth, in Gb/s.
    pub gbps: Option<f64>,
    /// The median latency, in usec.
    pub usec: Option<f64>,
}

/// The medians of `cells` as measured in their rounds (each beside its
/// round's other pairs), which the diagnosis judges by.
pub fn round_medians(cells: &[PairCell]) -> Medians {
    medians(&cells.iter().map(in_round).collect::<Vec<_>>())
}

/// The medians of `links`, over those measured with both hosts behind
/// the figure: one host alone cannot move another link's yardstick.
pub fn medians(links: &[Figures]) -> Medians {
    let vouched = |f: Option<f64>, one_sided: bool| f.filter(|_| !one_sided);
    let mut gbps: Vec<f64> = links
        .iter()
        .filter_map(|f| vouched(f.gbps, f.one_sided_gbps))
        .collect();
    let mut usec: Vec<f64> = links
        .iter()
        .filter_map(|f| vouched(f.usec, f.one_sided_usec))
        .collect();
    Medians {
        gbps: median(&mut gbps),
        usec: median(&mut usec),
    }
}

/// A measured link: its two hosts' ranks and its figures.
pub type Measured = (usize, usize, Figures);

/// The most links whose yardsticks are found one by one; a larger run
/// measures each against the whole run's medians, from which a link's
/// neighbours differ by a few per cent at most.
pub const EXACT_MAX: usize = 2000;

/// The medians of the links of `links` that `keep` keeps.
fn medians_of(links: &[Measured], keep: impl Fn(&Measured) -> bool) -> Medians {
    let kept: Vec<Figures> = links.iter().filter(|l| keep(l)).map(|l| l.2).collect();
    medians(&kept)
}

/// What a shortfall is about: what the heatmaps colour it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Bandwidth: against the median, the link's rate or `--min-gbps`.
    Bandwidth,
    /// Latency, against the median.
    Latency,
}

/// One way a link falls short: what it is about, and the words a report
/// says it in, with its numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortfall {
    /// What it is about.
    pub of: Measure,
    /// Said with its numbers: `20.00 Gb/s, median 40.00 Gb/s (50%)`.
    pub words: String,
}

/// `why`'s words, one after another, as a finding says them.
pub fn said(why: &[Shortfall]) -> String {
    why.iter()
        .map(|s| s.words.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// What about `link` falls short of `limits` against the yardstick `m`,
/// each with its numbers; empty when nothing does.
pub fn shortfall(link: &Figures, m: &Medians, limits: &PerfLimits) -> Vec<Shortfall> {
    let mut short = Vec::new();
    let bandwidth = |words: String| Shortfall {
        of: Measure::Bandwidth,
        words,
    };
    if let (Some(bw), Some(med)) = (link.gbps, m.gbps) {
        if bw < limits.min_bw_ratio * med {
            short.push(bandwidth(format!(
                "{}, median {} ({:.0}%)",
                gbps_text(bw),
                gbps_text(med),
                100.0 * bw / med
            )));
        }
    }
    if let (Some(bw), Some(rate), Some(share)) = (link.gbps, link.rate, limits.min_rate_ratio) {
        if bw < share * rate {
            short.push(bandwidth(format!(
                "{}, link rate {} ({:.0}%)",
                gbps_text(bw),
                gbps_text(rate),
                100.0 * bw / rate
            )));
        }
    }
    if let (Some(bw), Some(floor)) = (link.gbps, limits.min_gbps) {
        if bw < floor {
            short.push(bandwidth(format!(
                "{}, under --min-gbps {floor}",
                gbps_text(bw)
            )));
        }
    }
    if let (Some(lat), Some(med)) = (link.usec, m.usec) {
        if lat > limits.max_lat_ratio * med {
            short.push(Shortfall {
                of: Measure::Latency,
                words: format!("{lat:.1} usec, median {med:.1} usec ({:.1}x)", lat / med),
            });
        }
    }
    short
}

/// A link of a slow host: its index and what about it falls short.
pub type Short = (usize, Vec<Shortfall>);

/// The slow hosts and links of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slow {
    /// Each host whose every measured link (two or more) falls short of
    /// the links that do not touch it, with each of its links' index and
    /// shortfall.
    pub hosts: Vec<(usize, Vec<Short>)>,
    /// Each other link that falls short of the median of every other
    /// link, with its shortfall.
    pub links: Vec<Short>,
}

impl Slow {
    /// The links named for their bandwidth, and those named for their
    /// latency, by index: what the heatmaps colour red.
    pub fn named(&self) -> (Vec<usize>, Vec<usize>) {
        let all = self
            .hosts
            .iter()
            .flat_map(|(_, mine)| mine.iter())
            .chain(self.links.iter());
        let (mut bw, mut lat) = (Vec::new(), Vec::new());
        for (i, why) in all {
            if why.iter().any(|w| w.of == Measure::Bandwidth) {
                bw.push(*i);
            }
            if why.iter().any(|w| w.of == Measure::Latency) {
                lat.push(*i);
            }
        }
        (bw, lat)
    }

    /// The links to measure again alone: each slow link first, so that
    /// one slow host's many links do not crowd them out of the
    /// coordinator's bound, then each slow host's.
    pub fn suspects(&self) -> Vec<usize> {
        let mut all: Vec<usize> = self.links.iter().map(|(i, _)| *i).collect();
        for (_, mine) in &self.hosts {
            for (i, _) in mine {
                if !all.contains(i) {
                    all.push(*i);
                }
            }
        }
        all
    }
}

/// The slow hosts and links among `links`. A slow host is judged against
/// the links without it, so that its own links do not make its
/// yardstick: with four hosts, half of all links are one host's. Any
/// other link is judged against every other link: the two pairs of one
/// emulated round share the CPU unevenly, so one link beside it would
/// be a noisy yardstick.
///
/// The yardsticks come from `links` (the rounds' figures, so that a link
/// measured again alone, faster than any round, moves no other link's);
/// each link's own figures are `own`'s at the same index (alone where it
/// was measured again). A link is named only when its own figures fall
/// short.
pub fn judge(links: &[Measured], own: &[Measured], limits: &PerfLimits) -> Slow {
    let own = |i: usize| own.get(i).unwrap_or(&links[i]);
    let measured = |l: &Measured| l.2.gbps.is_some() || l.2.usec.is_some();
    let mut hosts: Vec<usize> = links.iter().flat_map(|l| [l.0, l.1]).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut slow = Slow::default();
    for h in hosts {
        let touches = |l: &Measured| l.0 == h || l.1 == h;
        let m = medians_of(links, |l| !touches(l));
        let mine: Vec<Short> = (0..links.len())
            .filter(|&i| touches(&links[i]) && measured(own(i)))
            .map(|i| (i, shortfall(&own(i).2, &m, limits)))
            .collect();
        if mine.len() >= 2 && mine.iter().all(|(_, why)| !why.is_empty()) {
            slow.hosts.push((h, mine));
        }
    }
    let whole = medians_of(links, |_| true);
    for (i, l) in links.iter().enumerate() {
        if slow.hosts.iter().any(|(h, _)| l.0 == *h || l.1 == *h) {
            continue;
        }
        let m = if links.len() > EXACT_MAX {
            whole
        } else {
            let mut others: Vec<Figures> = links.iter().map(|o| o.2).collect();
            others.remove(i);
            medians(&others)
        };
        let why = shortfall(&own(i).2, &m, limits);
        if !why.is_empty() {
            slow.links.push((i, why));
        }
    }
    slow
}

/// The measured links of `cells`, in their order, by `of` (their
/// figures [`in_round`], or their best, [`figures`]).
pub fn measured(cells: &[PairCell], of: fn(&PairCell) -> Figures) -> Vec<Measured> {
    cells
        .iter()
        .map(|c| (c.pair.server, c.pair.client, of(c)))
        .collect()
}

/// The slow hosts and links of `cells`: each judged by its best figures
/// against the rounds' ([`judge`]).
pub fn slow(cells: &[PairCell], limits: &PerfLimits) -> Slow {
    judge(
        &measured(cells, in_round),
        &measured(cells, figures),
        limits,
    )
}

/// The indices of `cells` whose rounds' figures fall short, then of
/// those with a figure missing that other links have (perftest's empty
/// window on a starved host): the suspects to measure again alone.
pub fn suspects(cells: &[PairCell], limits: &PerfLimits) -> Vec<usize> {
    let round = measured(cells, in_round);
    let mut all = judge(&round, &round, limits).suspects();
    let m = medians(&round.iter().map(|l| l.2).collect::<Vec<_>>());
    for (i, l) in round.iter().enumerate() {
        let missing =
            (m.gbps.is_some() && l.2.gbps.is_none()) || (m.usec.is_some() && l.2.usec.is_none());
        if missing && !all.contains(&i) {
            all.push(i);
        }
    }
    all
}

#[cfg(test)]
mod tests;
