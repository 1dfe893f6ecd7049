//! Reads a baseline ([`Baseline`]) from a mesh run's JSON Lines report
//! (`--json`, or `--save-baseline`'s, the same lines): its `run` line
//! says which tool, when and on which rails, its `link` lines the
//! figures. Every value is bounded as it is read.

use crate::model::baseline::{BaseLink, Baseline};
use serde_json::Value;
use std::path::Path;

/// The most bytes of a baseline file: a report of every link of a large
/// fabric, measured.
pub const MAX_BYTES: u64 = 1 << 30;

/// The most links a baseline may hold: a fabric of 1,024 hosts measured
/// all-pairs on 16 rails is about 8.4 million; more is not a report.
pub const LINKS_MAX: usize = 10_000_000;

/// The most bytes of a host name or a rail's name kept from a baseline.
const NAME_MAX: usize = 255;

/// Why a file is not a baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaselineError {
    /// A line that is not a JSON object (its number, from 1).
    NotJson(usize),
    /// No `run` line: not a mesh run's report (or one from before the
    /// reports had it).
    NoRunLine,
    /// A `run` line of another tool or without a version.
    NotOurs,
    /// Made by another version of the fabric tool, whose figures may not
    /// be this one's.
    OtherVersion(String),
    /// Its run was not measured (`--perf`): no link has a figure.
    NotMeasured,
    /// More links than [`LINKS_MAX`].
    TooLarge,
}

impl std::fmt::Display for BaselineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BaselineError::NotJson(n) => write!(f, "line {n} is not a JSON object"),
            BaselineError::NoRunLine => write!(
                f,
                "not a mesh run's JSON report (no \"run\" line): give --json's or --save-baseline's file"
            ),
            BaselineError::NotOurs => write!(f, "its \"run\" line is not rdma-fabric's"),
            BaselineError::OtherVersion(v) => write!(
                f,
                "made by rdma-fabric {v}, not {}: save a baseline with this version",
                env!("CARGO_PKG_VERSION")
            ),
            BaselineError::NotMeasured => write!(f, "its run was not measured (--perf): no figure"),
            BaselineError::TooLarge => write!(f, "more than {LINKS_MAX} links"),
        }
    }
}

/// `text` cut to at most [`NAME_MAX`] bytes, at a character.
fn kept(text: &str) -> String {
    let mut end = text.len().min(NAME_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The baseline in a mesh run's JSON Lines report `text`.
pub fn from_json_lines(text: &str) -> Result<Baseline, BaselineError> {
    let mut run: Option<Baseline> = None;
    let mut links = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value = serde_json::from_str(line).map_err(|_| BaselineError::NotJson(i + 1))?;
        if !v.is_object() {
            return Err(BaselineError::NotJson(i + 1));
        }
        match v["type"].as_str() {
            Some("run") => run = Some(run_line(&v)?),
            Some("link") => {
                if links.len() >= LINKS_MAX {
                    return Err(BaselineError::TooLarge);
                }
                links.extend(link_line(&v));
            }
            _ => {}
        }
    }
    let mut base = run.ok_or(BaselineError::NoRunLine)?;
    if !links.iter().any(|l: &BaseLink| l.gbps.is_some()) {
        return Err(BaselineError::NotMeasured);
    }
    base.links = links;
    Ok(base)
}

/// The `tool` of a report whose lines this module reads: the fabric tool
/// that writes them, and `rdma-lab`, which wrote the same lines before the
/// fabric tool was a binary of its own (its `mesh` is the fabric's).
pub const TOOLS: [&str; 2] = ["rdma-fabric", "rdma-lab"];

/// A report's `run` line, its links to come.
fn run_line(v: &Value) -> Result<Baseline, BaselineError> {
    if !TOOLS.iter().any(|t| v["tool"] == *t) {
        return Err(BaselineError::NotOurs);
    }
    let version = v["version"].as_str().ok_or(BaselineError::NotOurs)?;
    if version != env!("CARGO_PKG_VERSION") {
        return Err(BaselineError::OtherVersion(kept(version)));
    }
    let rails = v["rails"]
        .as_array()
        .map(|r| r.iter().map(|s| s.as_str().map(kept)).collect())
        .unwrap_or_else(|| vec![None]);
    Ok(Baseline {
        date: kept(v["date"].as_str().unwrap_or("an unknown date")),
        version: version.to_string(),
        rails,
        qp_timeout: v["qp_timeout"].as_u64().and_then(|t| u8::try_from(t).ok()),
        links: Vec::new(),
    })
}

/// A report's `link` line, when it names its rail and both hosts.
fn link_line(v: &Value) -> Option<BaseLink> {
    let mut hosts = [
        kept(v["server_name"].as_str()?),
        kept(v["client_name"].as_str()?),
    ];
    hosts.sort();
    Some(BaseLink {
        rail: usize::try_from(v["rail"].as_u64()?).ok()?,
        hosts,
        gbps: v["gbps"].as_f64().filter(|g| g.is_finite() && *g > 0.0),
    })
}

/// Reads the baseline at `path`, at most [`MAX_BYTES`]; why not in one
/// line that names the file.
pub fn read(path: &Path) -> Result<Baseline, String> {
    let text = super::read_at_most(path, MAX_BYTES)?;
    from_json_lines(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
