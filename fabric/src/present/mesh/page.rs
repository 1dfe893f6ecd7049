//! The mesh's HTML page, through `maud`: every value a host sent (its
//! name, its doctor's findings, the programs' details) goes through the
//! template's one escaper; `xml::shown` before it only drops what a page
//! may not hold and shows what would make it read other than it is.

use super::grid::{anchor, html_grid};
use super::{
    capitalised, class, finding_class, heatmaps, joined_words, mark, plural, tally, verdict_words,
    STYLE,
};
use crate::judge::finding::Finding;
use crate::model::mesh::{transcript_path, MeshRun, PairCell, Verdict};
use crate::present::xml::shown;
use maud::{html, Markup, PreEscaped, DOCTYPE};

/// The page ([`super::html`]), its links to the transcripts starting with
/// `prefix` (the run's dir as the page sees it, [`super::link_prefix`]).
pub fn html_linked(run: &MeshRun, findings: &[Finding], prefix: &str) -> String {
    let title = format!(
        "rdma-fabric mesh: {} ({})",
        plural(run.hosts.len(), "host"),
        run.pattern_name
    );
    let first = run.rail_view(0);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (shown(&title)) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { (shown(&title)) }
                p { (shown(&tally(run))) }
                (diagnosis(findings))
                (rail_part(&first, run, prefix))
                @for rail in 1..run.rails.len() {
                    section.rail {
                        h2 { (shown(&capitalised(&run.rail_name(rail)))) }
                        (rail_part(&run.rail_view(rail), run, prefix))
                    }
                }
                (html_mcast(&first))
                (html_hosts(run))
            }
        }
    };
    page.into_string()
}

/// The diagnosis, on top: each finding, or that every pair passed.
fn diagnosis(findings: &[Finding]) -> Markup {
    html! {
        section.diagnosis {
            h2 { "Diagnosis" }
            @if findings.is_empty() {
                p.ok { "every pair passed" }
            } @else {
                ul {
                    @for f in findings {
                        li class=(finding_class(&f.kind)) { (shown(&f.text)) }
                    }
                }
            }
        }
    }
}

/// One rail's part of the page (`view`, a rail's view of `whole`): its
/// matrix, its measured heatmaps and its pairs by scenario.
fn rail_part(view: &MeshRun, whole: &MeshRun, prefix: &str) -> Markup {
    html! {
        (html_matrix(view))
        (heatmaps::html_perf(view, whole))
        (html_scenarios(view, prefix))
    }
}

/// The N x N heatmap: columns by rank (a host's name in its tooltip), rows
/// by rank and name.
fn html_matrix(run: &MeshRun) -> Markup {
    html_grid(run, "Pairs", &|c| {
        let v = c.verdict();
        let tip = format!(
            "{} (server) and {} (client), round {}: {}",
            run.name(c.pair.server),
            run.name(c.pair.client),
            c.round,
            verdict_words(&v)
        );
        Some((class(&v), tip, mark(&v).to_string()))
    })
}

/// Every scenario a pair ran, in the order first seen.
fn scenario_names(run: &MeshRun) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for r in run.cells.iter().flat_map(|c| &c.results) {
        if !names.contains(&r.scenario.as_str()) {
            names.push(&r.scenario);
        }
    }
    names
}

/// The heatmap of pairs by scenario: a row a pair, a column a scenario,
/// each cell linking to both sides' transcripts, its detail as tooltip.
fn html_scenarios(run: &MeshRun, prefix: &str) -> Markup {
    let names = scenario_names(run);
    html! {
        h2 { "Pairs by scenario" }
        table.scenarios {
            tr {
                th { "server - client" }
                @for s in &names { th { (shown(s)) } }
            }
            @for c in &run.cells {
                tr id=(anchor(c)) {
                    th { (shown(&run.name(c.pair.server))) " - " (shown(&run.name(c.pair.client))) }
                    @for s in &names { (scenario_cell(c, s, prefix)) }
                }
            }
        }
    }
}

/// A pair's cell of the scenario `s`: its verdict's class, its detail as
/// tooltip, both sides' transcripts; blank when the pair did not run it.
fn scenario_cell(c: &PairCell, s: &str, prefix: &str) -> Markup {
    let Some(r) = c.results.iter().find(|r| r.scenario == s) else {
        return html! { td.none {} };
    };
    let tip = match &r.verdict {
        Verdict::Fail | Verdict::Skip if !r.detail.is_empty() => r.detail.clone(),
        v => verdict_words(v),
    };
    let link = |side: &str| {
        shown(&format!(
            "{prefix}{}",
            transcript_path(c.pair, c.rail, s, side)
        ))
    };
    html! {
        td class=(class(&r.verdict)) title=(shown(&tip)) {
            a href=(link("server")) { "server" } " " a href=(link("client")) { "client" }
        }
    }
}

/// The multicast rounds: a row a sender, a cell a receiver; nothing when
/// there were none.
fn html_mcast(run: &MeshRun) -> Markup {
    if run.mcast.is_empty() {
        return html! {};
    }
    html! {
        h2 { "Multicast" }
        table.matrix {
            tr {
                th { "sender" }
                @for r in 0..run.hosts.len() { th title=(shown(&run.name(r))) { (r) } }
            }
            @for m in &run.mcast {
                tr {
                    th { (shown(&run.name(m.sender))) " (" (shown(&m.scenario)) ")" }
                    @for r in 0..run.hosts.len() {
                        @match m.receivers.iter().find(|(rank, _)| *rank == r) {
                            _ if r == m.sender => td.self {},
                            Some((_, v)) => td class=(class(v)) title=(shown(&verdict_words(v))) { (mark(v)) },
                            None => td.none {},
                        }
                    }
                }
            }
        }
    }
}

/// The hosts: each one's device, the doctor's facts and findings.
fn html_hosts(run: &MeshRun) -> Markup {
    let unknown = || "unknown".to_string();
    let heads = [
        "rank",
        "name",
        "RDMA address",
        "netdev",
        "MTU",
        "GID type",
        "subnet",
        "took part",
        "doctor",
    ];
    html! {
        h2 { "Hosts" }
        table.hosts {
            tr { @for h in heads { th { (h) } } }
            @for host in &run.hosts {
                tr {
                    td { (host.rank) }
                    td { (shown(&host.name)) }
                    td { (shown(&host.rdma_addr)) }
                    td { (shown(&host.netdev)) }
                    td { (host.mtu.map_or_else(unknown, |m| m.to_string())) }
                    td { (shown(&host.gid_type.clone().unwrap_or_else(unknown))) }
                    td { (shown(&host.subnet.clone().unwrap_or_else(unknown))) }
                    td { (shown(&joined_words(&host.joined))) }
                    td {
                        @if host.findings.is_empty() { "found nothing" }
                        @else { (shown(&host.findings.join("; "))) }
                    }
                }
            }
        }
    }
}
