//! A mesh host's own word on its side of a pair ([`SideReport`]): what
//! its perftest reported and what its port received over each
//! measurement, read from its own result dir and sent in its own `done`.
//! The peer side's `done` carries both sides' transcripts, which that
//! host alone wrote; this is what the coordinator has of each direction
//! from the host that sent it and from the host that received it, neither
//! written by the other ([`crate::judge::trust`]).

use super::messages::{Assignment, REPORT_MAX};
use super::MeshHostConfig;
use crate::base::rundir::Dir;
use crate::catalog;
use crate::guest::counters;
use crate::model::mesh::{Measure, SideReport};
use crate::results::{read_in, result_file};
use std::time::Duration;

/// The most lines kept of a side's perftest report: its results are a
/// dozen, after its test's description.
const REPORT_LINES: usize = 64;

/// Whether `line` reads as a line of perftest's report, `key: value` or
/// `"key": value` with a key of letters, digits and `_`; the table's lines
/// have no such key.
fn is_report_line(line: &str) -> bool {
    line.split_once(':').is_some_and(|(key, _)| {
        let key = key.trim().trim_matches('"');
        !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The report in a side's stdout: its last [`REPORT_LINES`] report lines
/// ([`is_report_line`]), at most [`REPORT_MAX`] bytes, cut at a line.
pub fn report_lines(stdout: &str) -> String {
    let lines: Vec<&str> = stdout.lines().filter(|l| is_report_line(l)).collect();
    let mut kept = String::new();
    for line in lines.iter().rev().take(REPORT_LINES) {
        if kept.len() + line.len() + 1 > REPORT_MAX {
            break;
        }
        kept.insert_str(0, &format!("{line}\n"));
    }
    kept
}

/// This host's port's active MTU in bytes, as `ibv_devinfo` gives it.
fn port_mtu(dev: &str, port: u32) -> Option<u32> {
    let text = crate::guest::sys::output("ibv_devinfo", &["-d", dev, "-i", &port.to_string()])?;
    crate::guest::doctor::parse_mtus(&text).0
}

/// This host's side of pair `a`, whose result dir is `out`: each
/// measurement its side ran, its report and what its port received
/// meanwhile, and how long (`elapsed`) its port's counters of the pair
/// were read over.
pub fn own(cfg: &MeshHostConfig, a: &Assignment, out: &Dir, elapsed: Duration) -> SideReport {
    let side = a.role.as_str();
    let measured: Vec<&String> = (a.scenarios.iter())
        .filter(|n| catalog::perf_runs().iter().any(|p| p.name == **n))
        .collect();
    let mtu = (!measured.is_empty())
        .then(|| port_mtu(&cfg.dev, cfg.ib_port))
        .flatten();
    let measures = measured
        .into_iter()
        .filter_map(|name| {
            let stdout = read_in(out, &result_file(name, side, "stdout"))?;
            Some(Measure {
                scenario: name.clone(),
                report: report_lines(&stdout),
                received: counters::parse_rises(
                    &read_in(out, &result_file(name, side, "counters")).unwrap_or_default(),
                ),
                mtu,
            })
        })
        .collect();
    SideReport {
        rank: cfg.rank,
        measures,
        elapsed_ms: Some(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)),
    }
}

#[cfg(test)]
mod tests;
