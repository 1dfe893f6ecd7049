//! The measured heatmaps of a mesh's page (`--perf`): each link's
//! bandwidth and latency coloured by its ratio to the median, its title
//! with its figures, its baseline's where there is one, and the CPUs each
//! side's perftest ran on.

use super::grid::html_grid;
use crate::model::mesh::{MeshRun, PairCell};
use maud::{html, Markup};
use std::fmt::Write as _;

/// With `--perf`: a heatmap of each pair's bandwidth and one of its
/// latency of `run` (a rail's view of `whole`): red where the diagnosis
/// names the link (or its host) for it, amber a fifth or more off the
/// rounds' median, else green; a bandwidth's title also gives its
/// baseline's figure and ratio, where `whole` has a baseline, and where
/// each side's perftest ran.
pub(super) fn html_perf(run: &MeshRun, whole: &MeshRun) -> Markup {
    use crate::judge::{perf, units};
    let Some(limits) = run.perf else {
        return html! {};
    };
    // The rounds' medians, and red for what the diagnosis names.
    let m = perf::round_medians(&run.cells);
    let (bw_named, lat_named) = perf::slow(&run.cells, &limits).named();
    let pairs = |list: Vec<usize>| -> std::collections::HashSet<(usize, usize)> {
        let p = |i: usize| run.cells[i].pair;
        list.into_iter()
            .map(|i| (p(i).server, p(i).client))
            .collect()
    };
    let (bw_named, lat_named) = (pairs(bw_named), pairs(lat_named));
    let named = |set: &std::collections::HashSet<(usize, usize)>, c: &PairCell| {
        set.contains(&(c.pair.server, c.pair.client))
    };
    let figures = |c: &PairCell| perf::figures(c);
    let earlier = crate::judge::baseline::Earlier::of(whole);
    let tip = |c: &PairCell, what: String| {
        let again = if figures(c).alone {
            ", measured again alone"
        } else {
            ""
        };
        format!(
            "{} - {}: {what}{again}",
            run.name(c.pair.server),
            run.name(c.pair.client)
        )
    };
    let bw = html_grid(run, "Bandwidth (ib_write_bw, Gb/s)", &|c| {
        let (v, med) = (figures(c).gbps?, m.gbps?);
        let class = match () {
            () if named(&bw_named, c) => "fail",
            () if v < 0.8 * med => "skip",
            () => "pass",
        };
        let mut what = format!("{}, median {}", units::gbps_text(v), units::gbps_text(med));
        if let Some(then) = earlier.as_ref().and_then(|e| e.gbps(whole, c)) {
            let _ = write!(
                what,
                "; baseline {} ({:.0}%)",
                units::gbps_text(then),
                v / then * 100.0
            );
        }
        what += &ran_on_words(whole, c);
        Some((class, tip(c, what), units::gbps_number(v)))
    });
    let lat = html_grid(run, "Latency (ib_send_lat, usec)", &|c| {
        let (v, med) = (figures(c).usec?, m.usec?);
        let class = match () {
            () if named(&lat_named, c) => "fail",
            () if v > 1.25 * med => "skip",
            () => "pass",
        };
        let what = format!("{v:.1} usec, median {med:.1} usec");
        Some((class, tip(c, what), format!("{v:.1}")))
    });
    html! { (bw) (lat) }
}

/// Where each side's perftest of `c`'s link ran, as its own process said
/// (its first measurement's CPU list, and its memory policy where it is
/// not the default), for a heatmap cell's title;
/// nothing where no side said.
fn ran_on_words(whole: &MeshRun, c: &PairCell) -> String {
    let words: Vec<String> = c
        .reports
        .iter()
        .filter_map(|side| {
            let (m, cpus) = side
                .measures
                .iter()
                .find_map(|m| Some((m, crate::catalog::perf::ran_on(&m.report)?)))?;
            let memory = crate::catalog::perf::memory_of(&m.report)
                .filter(|p| p != "default")
                .map_or_else(String::new, |p| format!(" (memory {p})"));
            Some(format!("{} {cpus}{memory}", whole.name(side.rank)))
        })
        .collect();
    if words.is_empty() {
        String::new()
    } else {
        format!("; perftest on CPUs: {}", words.join(", "))
    }
}
