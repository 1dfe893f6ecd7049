//! Judging a run: every way an outcome falls short of its scenario.

use crate::model::{
    count, expand, glob_match, has_line, Addrs, Expect, Outcome, Scenario, Side, SideOutcome,
    StderrLines, TIMED_OUT,
};

fn check_side(
    label: &str,
    expect: &Expect,
    side: Option<&SideOutcome>,
    timeout_secs: u32,
    addrs: Option<&Addrs>,
    failures: &mut Vec<String>,
) {
    let Some(side) = side else {
        failures.push(format!("{label}: no result (never ran, or the VM died)"));
        return;
    };
    if let Some(why) = never_started(expect, side) {
        failures.push(format!("{label}: {why}"));
        return;
    }
    match side.exit {
        None => failures.push(format!("{label}: no exit status (killed with the VM?)")),
        Some(TIMED_OUT) if expect.exit != TIMED_OUT => failures.push(format!(
            "{label}: timed out after {timeout_secs} s (exit 124)"
        )),
        Some(code) if code != expect.exit => failures.push(format!(
            "{label}: exit status {code}, expected {}",
            expect.exit
        )),
        Some(_) => {}
    }
    failures.extend(late(label, expect, side));
    let expanded =
        |ps: &[String]| -> Vec<String> { ps.iter().filter_map(|p| expand(p, addrs)).collect() };
    let stdout = expanded(&expect.stdout);
    let stdout: Vec<&str> = stdout.iter().map(String::as_str).collect();
    failures.extend(
        missing_in_order(&side.stdout, &stdout)
            .into_iter()
            .map(|f| format!("{label}: stdout {f}")),
    );
    for p in expanded(&expect.stderr) {
        if !has_line(&side.stderr, &p) {
            failures.push(format!("{label}: stderr has no line matching `{p}`"));
        }
    }
    let one_of = expanded(&expect.stderr_one_of);
    if !one_of.is_empty() && !one_of.iter().any(|p| has_line(&side.stderr, p)) {
        failures.push(format!(
            "{label}: stderr has no line matching any of `{}`",
            one_of.join("`, `")
        ));
    }
    let want_lines = match (expect.stderr_lines, expect.exit) {
        (StderrLines::Exactly(n), _) => Some(n),
        (StderrLines::ByExit, 0) => Some(0),
        (StderrLines::ByExit, 1) => Some(1),
        _ => None,
    };
    let got_lines = side.stderr.lines().count();
    if let StderrLines::AtMost(n) = expect.stderr_lines {
        if got_lines > n {
            failures.push(format!(
                "{label}: stderr has {got_lines} lines, expected at most {n}"
            ));
        }
    }
    if want_lines.is_some_and(|n| n != got_lines) {
        failures.push(format!(
            "{label}: stderr has {got_lines} lines, expected {}",
            want_lines.unwrap_or_default()
        ));
    }
    for (stream, text, counts) in [
        ("stdout", &side.stdout, &expect.stdout_counts),
        ("stderr", &side.stderr, &expect.stderr_counts),
    ] {
        for (p, want) in counts {
            let Some(p) = expand(p, addrs) else { continue };
            let got = count(text, &p);
            if got != *want {
                failures.push(format!(
                    "{label}: {stream} has {got} lines matching `{p}`, expected {want}"
                ));
            }
        }
    }
}

/// The failure of a side that ended later than its scenario allows.
fn late(label: &str, expect: &Expect, side: &SideOutcome) -> Option<String> {
    let secs = expect.within_secs?;
    match side.elapsed_ms {
        Some(ms) if ms < u64::from(secs) * 1000 => None,
        Some(ms) => Some(format!(
            "{label}: took {:.1} s, must end within {secs} s",
            ms as f64 / 1000.0
        )),
        None => Some(format!("{label}: no run time, must end within {secs} s")),
    }
}

/// Why `side` never started, unless its scenario expects just that: a
/// program that never started says nothing of what it was to test, so its
/// path and the system's reason are the whole story.
fn never_started(expect: &Expect, side: &SideOutcome) -> Option<String> {
    side.not_started()
        .filter(|_| ![126, 127].contains(&expect.exit))
}

/// The patterns that do not match lines of `text` in the given order: each
/// must match a line after the one the previous pattern matched.
pub fn missing_in_order(text: &str, patterns: &[&str]) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut failures = Vec::new();
    let mut next = 0;
    let mut prev: Option<&str> = None;
    for p in patterns {
        match lines[next..].iter().position(|l| glob_match(p, l)) {
            Some(i) => {
                next += i + 1;
                prev = Some(p);
            }
            None => failures.push(match prev {
                Some(prev) if has_line(text, p) => {
                    format!("has `{p}` only before `{prev}`, not after it")
                }
                _ => format!("has no line matching `{p}`"),
            }),
        }
    }
    failures
}

/// Every way `outcome` falls short of `scenario` when run with these
/// addresses (`None`: unknown, see [`expand`]); empty means PASS.
pub fn check(scenario: &Scenario, outcome: &Outcome, addrs: Option<&Addrs>) -> Vec<String> {
    let mut failures = Vec::new();
    for (side, cmd, got) in [
        (Side::Server, &scenario.server, &outcome.server),
        (Side::Client, &scenario.client, &outcome.client),
    ] {
        if cmd.is_some() {
            failures.extend(check_one_side(scenario, side, got.as_ref(), addrs));
        }
    }
    if let Some(verify) = scenario.verify {
        failures.extend(verify(outcome));
    }
    if let (Some(packets), Some(addrs)) = (&outcome.capture, addrs) {
        failures.extend(crate::judge::packets::check(scenario.wire, packets, addrs));
    }
    if let Some(first) = outcome.leftover.lines().next() {
        failures.push(format!(
            "left {} object(s) in the kernel after both sides ended, first: {first}",
            outcome.leftover.lines().count()
        ));
    }
    failures
}

/// Every way one side of `scenario` (`got`, its result, if any) falls
/// short of that side's expectations, worded as [`check`] words it: a
/// mesh's multicast round runs one sender and many receivers, each judged
/// on its own, and a serving host judges its own side alone, whatever its
/// peer says of the other.
pub fn check_one_side(
    scenario: &Scenario,
    side: Side,
    got: Option<&SideOutcome>,
    addrs: Option<&Addrs>,
) -> Vec<String> {
    let (label, expect) = match side {
        Side::Server => ("server", &scenario.server_expect),
        Side::Client => ("client", &scenario.client_expect),
    };
    let mut failures = Vec::new();
    check_side(
        label,
        expect,
        got,
        scenario.timeout_secs,
        addrs,
        &mut failures,
    );
    failures
}

/// The failure [`check`] reports for the first side of `outcome` that
/// never started where its scenario expects it to, when one did not
/// (`client: could not start PATH: REASON`): what the mesh's diagnosis
/// tells apart from a fault of the path.
pub fn unstarted(scenario: &Scenario, outcome: &Outcome) -> Option<String> {
    [
        (Side::Server, &scenario.server, &outcome.server),
        (Side::Client, &scenario.client, &outcome.client),
    ]
    .into_iter()
    .filter(|(_, cmd, _)| cmd.is_some())
    .find_map(|(side, _, got)| unstarted_side(scenario, side, got.as_ref()))
}

/// [`unstarted`] of one side alone.
pub fn unstarted_side(
    scenario: &Scenario,
    side: Side,
    got: Option<&SideOutcome>,
) -> Option<String> {
    let (label, expect) = match side {
        Side::Server => ("server", &scenario.server_expect),
        Side::Client => ("client", &scenario.client_expect),
    };
    never_started(expect, got?).map(|why| format!("{label}: {why}"))
}

pub mod baseline;
pub mod finding;
pub mod loss;
pub mod mesh;
pub mod packets;
pub mod perf;
pub mod rails;
pub mod trust;
pub mod units;

#[cfg(test)]
mod tests;
