//! What the terminal shows of a lab run: each outcome's transcripts and
//! ladder, then a PASS or FAIL line per scenario grouped by example, the
//! fault matrix's rows, the hosts, the doctor's findings and the notes.
//! It reads the verdicts the run stored and judges nothing.

use crate::base::text::escape_controls;
use crate::capture::verdict::OnWire;
use crate::model::{self, Addrs, SideOutcome};
use crate::results::report::{Judged, LabReport};

/// One side's transcript as printed on the terminal.
fn side_text(name: &str, label: &str, side: Option<&SideOutcome>) -> String {
    match side {
        None => format!("=== {name}: {label}: no result ===\n"),
        // What the program wrote, which may be what its peer sent.
        Some(side) => escape_controls(&crate::results::side_transcript(
            &format!("{name}: {label}"),
            side,
        )),
    }
}

/// Prints both sides' transcripts of every outcome, each followed by its
/// packet ladder when the run recorded the wire.
pub fn print_transcripts(outcomes: &[Judged], addrs: Option<&Addrs>) {
    for j in outcomes {
        let (o, s) = (&j.outcome, j.scenario);
        if s.is_none_or(|s| s.server.is_some()) {
            print!("{}", side_text(&o.scenario, "server", o.server.as_ref()));
        }
        if s.is_none_or(|s| s.client.is_some()) {
            print!("{}", side_text(&o.scenario, "client", o.client.as_ref()));
        }
        if let (Some(rungs), Some(addrs)) = (&j.rungs, addrs) {
            // Drawn from packets, which a peer writes.
            print!(
                "{}",
                escape_controls(&crate::capture::ladder::text(&o.scenario, rungs, addrs))
            );
        }
        println!();
    }
}

/// The `ladder` command's text of one scenario's capture: its ladder, a
/// pair's ladder faults, and its wire facts' verdicts; and whether all of
/// them held.
pub fn ladder_text(name: &str, wire: &OnWire, addrs: &Addrs) -> (String, bool) {
    let mut out = crate::capture::ladder::text(name, &wire.rungs, addrs);
    for fault in &wire.faults {
        out += &format!("{fault}\n");
    }
    let failed: Vec<&String> = wire.facts.iter().flat_map(|(_, f)| f).collect();
    if !wire.facts.is_empty() {
        if failed.is_empty() {
            out += &format!("wire facts: all {} hold\n", wire.facts.len());
        } else {
            let failed: Vec<&str> = failed.iter().map(|f| f.as_str()).collect();
            out += &format!("wire facts: {}\n", failed.join("; "));
        }
    }
    out.push('\n');
    (out, wire.faults.is_empty() && failed.is_empty())
}

/// Prints a PASS/FAIL line per scenario, grouped by example, with each
/// example's fault matrix rows counted, then `N passed, N failed`; returns
/// the number failed.
pub fn print_summary(report: &LabReport) -> usize {
    let (mut passed, mut failed) = (0, 0);
    for (package, outcomes) in by_example(&report.outcomes) {
        println!("{package}:");
        let mut rows: Vec<(model::Fault, usize, usize)> = Vec::new();
        for j in outcomes {
            let ok = j.passed();
            if ok {
                passed += 1;
                println!("  PASS {}", j.name());
            } else {
                failed += 1;
                // The failures quote the programs' lines.
                let failures = escape_controls(&j.failures.join("; "));
                println!("  FAIL {}: {failures}", j.name());
            }
            if let Some(fault) = j.scenario.and_then(|s| s.fault) {
                match rows.iter_mut().find(|r| r.0 == fault) {
                    Some(r) => (r.1, r.2) = (r.1 + usize::from(ok), r.2 + 1),
                    None => rows.push((fault, usize::from(ok), 1)),
                }
            }
        }
        if !rows.is_empty() {
            rows.sort();
            let rows: Vec<String> = rows
                .iter()
                .map(|(f, ok, all)| format!("{} {ok}/{all}", f.label()))
                .collect();
            println!("  fault matrix: {}", rows.join(", "));
        }
    }
    for s in &report.skipped {
        println!(
            "  SKIP {}: {}",
            escape_controls(&s.scenario),
            escape_controls(&s.reason)
        );
    }
    // The hosts, findings and notes come from the agents' files, some
    // from a peer host; the kernel's name from a file in the VM.
    for h in &report.hosts {
        println!("{}", escape_controls(&h.to_string()));
    }
    if report.findings.is_empty() {
        println!("doctor: no findings");
    }
    for f in &report.findings {
        println!("doctor: {}", escape_controls(f));
    }
    for n in &report.notes {
        println!("note: {}", escape_controls(n));
    }
    if let Some(v) = &report.vms {
        println!(
            "VMs: {}, kernel {}, {}",
            v.accel,
            escape_controls(&v.kernel),
            v.boot_text()
        );
    }
    let skipped = if report.skipped.is_empty() {
        String::new()
    } else {
        format!(", {} skipped", report.skipped.len())
    };
    println!(
        "{passed} passed, {failed} failed{skipped} ({:.1} s)",
        report.elapsed.as_secs_f64()
    );
    if report.dir.exists() {
        println!("results kept in {}", report.dir.display());
    }
    if report.captured {
        println!(
            "captures: {}/<scenario>.pcap, the whole run in {}",
            report.dir.display(),
            crate::capture::WIRE_PCAP
        );
    }
    failed
}

/// The outcomes grouped by their scenario's package, in order of first
/// appearance (a scenario that is not known goes under its own name).
fn by_example(outcomes: &[Judged]) -> Vec<(&str, Vec<&Judged>)> {
    let mut groups: Vec<(&str, Vec<&Judged>)> = Vec::new();
    for j in outcomes {
        // A scenario of no example (the doctor's, an independent peer's)
        // goes under the first word of its name.
        let package = match j.scenario.map(|s| s.package) {
            Some(p) if !p.is_empty() => p,
            _ => j.name().split('_').next().unwrap_or(j.name()),
        };
        match groups.iter_mut().find(|g| g.0 == package) {
            Some(g) => g.1.push(j),
            None => groups.push((package, vec![j])),
        }
    }
    groups
}

#[cfg(test)]
mod tests;
