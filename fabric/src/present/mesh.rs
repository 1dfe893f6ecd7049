//! A mesh run shown: the N x N matrix and the diagnosis for the terminal,
//! one HTML page, JUnit XML and JSON Lines.
//!
//! Every string from a host (its name, its doctor's findings, the
//! programs' output) is the host's own text: escaped for the terminal
//! with `base::text`, for the page by its template (`maud`, in `page`),
//! for XML with the JUnit report's escaper.

use crate::base::text::{escape_controls, escaped};
use crate::judge::finding::{Finding, FindingKind};
use crate::model::mesh::{Joined, MeshRun, PairCell, Verdict};
use crate::present::xml::{secs, xml_escape, Case, FAILURE_TYPE, FINDING_TYPE};
use std::fmt::Write as _;

/// Column labels longer than this make the matrix label its columns by
/// rank, with a legend.
const MAX_COLUMN_LABEL: usize = 8;

/// The most characters of a host's name a label shows.
const MAX_NAME: usize = 32;

/// Each cell of the N x N matrix, row-major: the pair of row and column,
/// when scheduled. Built once, so that a large mesh is not searched per
/// cell.
fn grid(run: &MeshRun) -> Vec<Option<&PairCell>> {
    let n = run.hosts.len();
    let mut grid = vec![None; n * n];
    for c in &run.cells {
        let (a, b) = (c.pair.server, c.pair.client);
        if a < n && b < n {
            grid[a * n + b] = Some(c);
            grid[b * n + a] = Some(c);
        }
    }
    grid
}

/// The mark of a pair's verdict in the matrix.
fn mark(v: &Verdict) -> char {
    match v {
        Verdict::Pass => '.',
        Verdict::Fail => 'X',
        Verdict::Skip => 's',
        Verdict::NotRun(_) | Verdict::PortHeld(_) => '?',
    }
}

/// A host's name for the terminal: up to its first dot (the domain says
/// nothing in a matrix), at most [`MAX_NAME`] characters, escaped.
fn short_name(run: &MeshRun, rank: usize) -> String {
    let name = run.name(rank);
    let short = match name.split_once('.') {
        Some((host, _)) if !host.is_empty() => host,
        _ => &name,
    };
    escaped(short, MAX_NAME)
}

/// Where `mesh` writes its reports, each where asked.
#[derive(Debug, Clone, Default)]
pub struct ReportFiles {
    /// `--junit FILE`.
    pub junit: Option<std::path::PathBuf>,
    /// `--json FILE`.
    pub json: Option<std::path::PathBuf>,
    /// `--html FILE`.
    pub html: Option<std::path::PathBuf>,
    /// The run's dir, which holds the transcripts (`pairs/`): the page
    /// links to them from wherever it is written; `None`, beside it.
    pub transcripts: Option<std::path::PathBuf>,
}

/// The run diagnosed, its matrix and diagnosis printed, its reports
/// written; whether everything passed with nothing to say.
pub fn report(run: &MeshRun, files: &ReportFiles) -> Result<bool, String> {
    let findings = crate::judge::mesh::diagnose(run);
    print!("{}", matrix_text(run, &findings));
    let write = |path: &Option<std::path::PathBuf>, text: String| -> Result<(), String> {
        match path {
            Some(p) => std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display())),
            None => Ok(()),
        }
    };
    write(&files.junit, junit(run, &findings))?;
    write(&files.json, json_lines(run, &findings))?;
    let prefix = match (&files.html, &files.transcripts) {
        (Some(page), Some(dir)) => link_prefix(page, dir),
        _ => String::new(),
    };
    write(&files.html, html_linked(run, &findings, &prefix))?;
    let all_passed = run.cells.iter().all(|c| c.verdict() != Verdict::Fail)
        && run
            .mcast
            .iter()
            .all(|m| m.receivers.iter().all(|(_, v)| *v != Verdict::Fail));
    // A doctor's finding on any host is a finding of the diagnosis, so the
    // status follows from the diagnosis alone.
    Ok(findings.is_empty() && all_passed)
}

/// The run as text for the terminal: the N x N matrix (`.` pass, `X`
/// fail, `?` not run, `s` skipped, `-` self, blank not scheduled), the
/// failing pairs with their failed scenarios, and the diagnosis.
pub fn matrix_text(run: &MeshRun, findings: &[Finding]) -> String {
    let first = run.rail_view(0);
    let mut out =
        rail_text(&first) + &multicast_text(&first) + &doctor_text(&first) + &devices_text(run);
    for rail in 1..run.rails.len() {
        out += &format!("\n{}:\n", capitalised(&run.rail_name(rail)));
        out += &rail_text(&run.rail_view(rail));
    }
    out + &baseline_text(run) + &diagnosis_text(run, findings)
}

/// `text` with its first letter in capitals.
fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// One rail's matrix ([`MeshRun::rail_view`]), its failing pairs and its
/// measurements.
fn rail_text(run: &MeshRun) -> String {
    let n = run.hosts.len();
    let names: Vec<String> = (0..n).map(|r| short_name(run, r)).collect();
    let by_rank = names.iter().any(|s| s.chars().count() > MAX_COLUMN_LABEL);
    let columns: Vec<String> = if by_rank {
        (0..n).map(|r| r.to_string()).collect()
    } else {
        names.clone()
    };
    let rows: Vec<String> = if by_rank {
        names
            .iter()
            .enumerate()
            .map(|(r, s)| format!("{r} {s}"))
            .collect()
    } else {
        names.clone()
    };
    let width = columns.iter().map(|c| c.chars().count()).max().unwrap_or(1) + 1;
    let row_width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let mut out = format!(
        "Mesh of {} ({}): {}\n\n",
        plural(n, "host"),
        escape_controls(&run.pattern_name),
        tally(run)
    );
    out += &format!("{:row_width$}", "");
    for c in &columns {
        out += &format!("{c:>width$}");
    }
    out.push('\n');
    let grid = grid(run);
    for (a, row) in rows.iter().enumerate() {
        out += &format!("{row:<row_width$}");
        for b in 0..n {
            let m = match grid[a * n + b] {
                _ if a == b => '-',
                Some(c) => mark(&c.verdict()),
                None => ' ',
            };
            out += &format!("{m:>width$}");
        }
        out.push('\n');
    }
    out += "\n. pass  X fail  ? not run  s skipped  - self  (blank) not scheduled\n";
    if by_rank {
        let legend: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(r, s)| format!("{r} = {s}"))
            .collect();
        out += &format!("columns: {}\n", legend.join(", "));
    }
    out + &failing_pairs(run) + &perf_text(run)
}

/// With `--perf`: how many links were measured and their medians; each
/// link's figures are in the JSON and the page.
fn perf_text(run: &MeshRun) -> String {
    use crate::judge::{perf, units};
    if run.perf.is_none() {
        return String::new();
    }
    let links: Vec<perf::Figures> = run.cells.iter().map(perf::figures).collect();
    let m = perf::round_medians(&run.cells);
    let measured = links.iter().filter(|f| f.gbps.is_some()).count();
    let alone = links.iter().filter(|f| f.alone).count();
    let none = || "none".to_string();
    format!(
        "\nMeasured: {} of {}, median {} (ib_write_bw), {} (ib_send_lat); {} again alone; \
         each link's figures in --json and --html\n",
        plural(measured, "link"),
        run.cells.len(),
        m.gbps.map_or_else(none, units::gbps_text),
        m.usec.map_or_else(none, |u| format!("{u:.1} usec")),
        alone
    )
}

/// Each host's doctor's findings, as the lab prints them before its
/// pairs; nothing when no doctor found anything.
fn doctor_text(run: &MeshRun) -> String {
    let mut out = String::new();
    for h in run.hosts.iter().filter(|h| !h.findings.is_empty()) {
        for f in &h.findings {
            out += &format!("  {}: {}\n", short_name(run, h.rank), escape_controls(f));
        }
    }
    if out.is_empty() {
        out
    } else {
        format!("\nDoctor findings:\n{out}")
    }
}

/// The hosts whose devices are on other rails than most hosts', said
/// (not found: the rails pair ports by subnet); nothing when none is.
fn devices_text(run: &MeshRun) -> String {
    let lines = crate::judge::rails::device_order(run);
    if lines.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("\nDevices named otherwise (each rail pairs the ports on its subnet):\n");
    for l in lines {
        out += &format!("  {}\n", escape_controls(&l));
    }
    out
}

/// With a baseline: its date, how many links were compared with it, and
/// what could not be (its findings are the diagnosis's); nothing without.
fn baseline_text(run: &MeshRun) -> String {
    let Some(base) = &run.baseline else {
        return String::new();
    };
    let mut out = format!(
        "\nBaseline: {} links measured on {} (rdma-lab {}), each link also judged against its own\n",
        base.links.iter().filter(|l| l.gbps.is_some()).count(),
        escape_controls(&base.date),
        escape_controls(&base.version)
    );
    for note in crate::judge::baseline::judge(run).1 {
        out += &format!("  {}\n", escape_controls(&note));
    }
    out
}

/// Each multicast round: who sent, and each receiver's mark; nothing when
/// there was none.
fn multicast_text(run: &MeshRun) -> String {
    if run.mcast.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "
Multicast (one host sends, every other receives at once):
",
    );
    for m in &run.mcast {
        let receivers: Vec<String> = m
            .receivers
            .iter()
            .map(|(r, v)| format!("{} {}", short_name(run, *r), mark(v)))
            .collect();
        out += &format!(
            "  {} from {}: {}\n",
            escaped(&m.scenario, 60),
            short_name(run, m.sender),
            receivers.join(", ")
        );
    }
    out
}

/// How many pairs there were, failed and did not run.
fn tally(run: &MeshRun) -> String {
    let count = |f: fn(&Verdict) -> bool| run.cells.iter().filter(|c| f(&c.verdict())).count();
    format!(
        "{}, {} failing, {} not run",
        plural(run.cells.len(), "pair"),
        count(|v| *v == Verdict::Fail),
        count(|v| matches!(v, Verdict::NotRun(_) | Verdict::PortHeld(_)))
    )
}

/// The failing pairs, each with its failed scenarios; nothing when none.
fn failing_pairs(run: &MeshRun) -> String {
    let failing: Vec<&PairCell> = run
        .cells
        .iter()
        .filter(|c| c.verdict() == Verdict::Fail)
        .collect();
    if failing.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nFailing pairs (server - client):\n");
    for c in failing {
        let scenarios: Vec<String> = c.failed().iter().map(|s| escaped(s, 60)).collect();
        out += &format!(
            "  {} - {}: {}\n",
            short_name(run, c.pair.server),
            short_name(run, c.pair.client),
            scenarios.join(", ")
        );
    }
    out
}

/// The diagnosis: each finding's text, or that all passed (or none ran).
fn diagnosis_text(run: &MeshRun, findings: &[Finding]) -> String {
    let mut out = String::from("\nDiagnosis:\n");
    if findings.is_empty() {
        let ran = run.cells.iter().any(|c| c.verdict().ran());
        out += if ran {
            "  every pair passed\n"
        } else {
            "  no pair ran\n"
        };
    }
    for f in findings {
        out += &format!("  - {}\n", escape_controls(&f.text).replace('\n', " "));
    }
    out
}

/// `n` and the noun, plural when `n` is not one.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The CSS class of a verdict in the HTML heatmaps.
fn class(v: &Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
        Verdict::Skip => "skip",
        Verdict::NotRun(_) | Verdict::PortHeld(_) => "notrun",
    }
}

/// A verdict in words, for a tooltip or a report.
fn verdict_words(v: &Verdict) -> String {
    match v {
        Verdict::Pass => "passed".into(),
        Verdict::Fail => "failed".into(),
        Verdict::Skip => "skipped".into(),
        Verdict::NotRun(why) | Verdict::PortHeld(why) => format!("not run: {why}"),
    }
}

/// The CSS class of a finding.
fn finding_class(k: &FindingKind) -> &'static str {
    match k {
        FindingKind::HostFault { .. } => "host",
        FindingKind::LinkFault { .. } => "link",
        FindingKind::Lossy { .. } => "lossy",
        FindingKind::Slow { .. }
        | FindingKind::SlowHost { .. }
        | FindingKind::BelowBaseline { .. }
        | FindingKind::RailBelowBaseline => "slow",
        FindingKind::FabricWide => "fabric",
        FindingKind::Missing { .. } | FindingKind::CannotTakePart { .. } => "missing",
        FindingKind::Doctor { .. } => "doctor",
        FindingKind::Rail { .. } => "rail",
        FindingKind::Multicast { .. } => "mcast",
        FindingKind::ImpossibleReport { .. } => "impossible",
    }
}

const STYLE: &str = "
body { font-family: 'DejaVu Sans', sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
td, th { border: 1px solid #bbb; padding: .2em .4em; text-align: center; }
th { background: #f4f4f4; font-weight: normal; }
.matrix td { width: 1.6em; }
td a { color: inherit; text-decoration: none; }
.pass { background: #bfe5bf; } .fail { background: #f2a0a0; font-weight: bold; }
.skip { background: #e8e8c0; } .notrun { background: #d0d0d0; } .self { background: #555; }
.none { background: #fff; }
.diagnosis li { margin: .3em 0; } .diagnosis .ok { color: #2a602a; }
li.fabric, li.host, li.link, li.impossible { color: #a00; }
li.missing, li.mcast, li.doctor { color: #8a5a00; }
.hosts td { text-align: left; }
pre { white-space: pre-wrap; }
";

/// The run as one self-contained HTML page (inline CSS, no script, no
/// external resource): the diagnosis on top, the N x N matrix as a
/// heatmap, each cell linking to its pair's row of the second heatmap,
/// pairs by scenario, whose cells link to both sides' transcripts at
/// [`transcript_path`] (relative links: the coordinator writes the
/// transcripts there, beside the page), the multicast rounds and the hosts.
pub fn html(run: &MeshRun, findings: &[Finding]) -> String {
    html_linked(run, findings, "")
}

/// The run's dir as a page at `page` links to it: the relative path from
/// the page's dir, ending in `/` (empty when the page is in it), both
/// taken from the working directory, as the command line gave them.
pub fn link_prefix(page: &std::path::Path, dir: &std::path::Path) -> String {
    use std::path::Component;
    let cwd = std::env::current_dir().unwrap_or_default();
    let parts = |p: &std::path::Path| {
        let mut v: Vec<std::ffi::OsString> = Vec::new();
        for c in cwd.join(p).components() {
            match c {
                Component::ParentDir => {
                    v.pop();
                }
                Component::Normal(n) => v.push(n.to_os_string()),
                _ => {}
            }
        }
        v
    };
    let mut from = parts(page);
    from.pop();
    let to = parts(dir);
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut rel: Vec<String> = vec!["..".to_string(); from.len() - common];
    rel.extend(
        to[common..]
            .iter()
            .map(|n| n.to_string_lossy().into_owned()),
    );
    rel.iter().map(|r| format!("{r}/")).collect()
}

/// How a host took part, in words.
fn joined_words(j: &Joined) -> String {
    match j {
        Joined::Joined => "joined".into(),
        Joined::NeverJoined { waited_secs } => format!("never joined (waited {waited_secs} s)"),
        Joined::Died { during } => format!("died during {during}"),
        Joined::CannotRun { why } => format!("cannot take part: {why}"),
    }
}

mod grid;
mod heatmaps;
mod json;
mod junit;
mod page;

pub use json::json_lines;
pub use junit::junit;
pub use page::html_linked;

#[cfg(test)]
mod tests;
