//! Slow links, from perftest's figures of each pair (`mesh --perf`): a
//! link's bandwidth against the run's median (a share of it, or a floor
//! in Gb/s) and its latency against the median's multiple. Only ratios
//! within one run are judged, so that the same rule holds on real NICs
//! and under emulation, where the absolute numbers mean nothing.

use crate::base::stats::median;
use crate::catalog::perf::{figure, BW_KEY, LAT_KEY, SEND_LAT, WRITE_BW, WRITE_BW_BACK};
use crate::model::mesh::{PairCell, PerfLimits, ScenarioResult};

/// What perftest measured of one link.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    /// `ib_write_bw`'s average bandwidth, in Gb/s: the lesser of the two
    /// ways where both were measured.
    pub gbps: Option<f64>,
    /// `ib_send_lat`'s typical latency, in usec.
    pub usec: Option<f64>,
    /// Whether they were measured again alone, after the rounds.
    pub alone: bool,
}

/// The figures in `results`: the clients' reports, the lesser bandwidth
/// of the two ways.
fn read(results: &[ScenarioResult]) -> (Option<f64>, Option<f64>) {
    let of = |name: &str, key: &str| {
        results
            .iter()
            .find(|r| r.scenario == name)
            .and_then(|r| r.client_log.as_deref())
            .and_then(|log| figure(log, key))
    };
    let ways = [of(WRITE_BW, BW_KEY), of(WRITE_BW_BACK, BW_KEY)];
    let gbps = ways.into_iter().flatten().min_by(f64::total_cmp);
    (gbps, of(SEND_LAT, LAT_KEY))
}

/// A pair's figures: those measured alone where there are, else its
/// round's.
pub fn figures(cell: &PairCell) -> Figures {
    let (gbps, usec) = read(&cell.results);
    let (alone_gbps, alone_usec) = read(&cell.alone);
    Figures {
        gbps: alone_gbps.or(gbps),
        usec: alone_usec.or(usec),
        alone: alone_gbps.is_some() || alone_usec.is_some(),
    }
}

/// The run's median link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Medians {
    /// The median bandwidth, in Gb/s.
    pub gbps: Option<f64>,
    /// The median latency, in usec.
    pub usec: Option<f64>,
}

/// The medians of `links`, over those measured.
pub fn medians(links: &[Figures]) -> Medians {
    let mut gbps: Vec<f64> = links.iter().filter_map(|f| f.gbps).collect();
    let mut usec: Vec<f64> = links.iter().filter_map(|f| f.usec).collect();
    Medians {
        gbps: median(&mut gbps),
        usec: median(&mut usec),
    }
}

/// What about `link` falls short of `limits`, each in words with its
/// numbers; empty when nothing does.
pub fn shortfall(link: &Figures, m: &Medians, limits: &PerfLimits) -> Vec<String> {
    let mut short = Vec::new();
    if let (Some(bw), Some(med)) = (link.gbps, m.gbps) {
        if bw < limits.min_bw_ratio * med {
            short.push(format!(
                "{bw:.2} Gb/s, median {med:.2} Gb/s ({:.0}%)",
                100.0 * bw / med
            ));
        }
    }
    if let (Some(bw), Some(floor)) = (link.gbps, limits.min_gbps) {
        if bw < floor {
            short.push(format!("{bw:.2} Gb/s, under --min-gbps {floor}"));
        }
    }
    if let (Some(lat), Some(med)) = (link.usec, m.usec) {
        if lat > limits.max_lat_ratio * med {
            short.push(format!(
                "{lat:.1} usec, median {med:.1} usec ({:.1}x)",
                lat / med
            ));
        }
    }
    short
}

/// The indices of `cells` whose figures fall short: the suspects to
/// measure again alone.
pub fn suspects(cells: &[PairCell], limits: &PerfLimits) -> Vec<usize> {
    let links: Vec<Figures> = cells.iter().map(figures).collect();
    let m = medians(&links);
    (0..links.len())
        .filter(|&i| !shortfall(&links[i], &m, limits).is_empty())
        .collect()
}

#[cfg(test)]
mod tests;
