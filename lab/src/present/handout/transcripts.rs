//! The programs' output as the handout shows it: each side's transcript,
//! shortened around the lines the scenario expects, and the whole of it
//! beside the handout.

use super::*;

/// How many lines of a side's output the handout prints whole; a longer
/// one shows its first and last lines and links to the whole.
pub(super) const TRANSCRIPT_LINES: usize = 24;

/// Where [`write`] puts the whole stdout of one side of a scenario.
pub(super) fn whole_stdout(scenario: &str, host: &str) -> String {
    format!("transcripts/{scenario}.{host}.txt")
}

/// A stretch of a shortened transcript: lines kept, or how many were left
/// out.
pub(super) enum Piece {
    /// Lines as the program printed them.
    Lines(String),
    /// This many lines left out.
    Gap(usize),
}

/// `stdout` as the handout prints it: whole, or its first and last lines
/// and every line that matches one of `keep` (the lines the lab expects
/// of it, which say what the run is about), with how many lines each gap
/// leaves out.
pub(super) fn shortened(stdout: &str, keep: &[String]) -> Vec<Piece> {
    let lines: Vec<&str> = stdout.lines().collect();
    let (head, tail) = (10, 6);
    let kept: Vec<bool> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            lines.len() <= TRANSCRIPT_LINES
                || i < head
                || i + tail >= lines.len()
                || keep.iter().any(|p| glob_match(p, l.trim_end()))
        })
        .collect();
    let mut out: Vec<Piece> = Vec::new();
    for (line, k) in lines.iter().zip(&kept) {
        match (out.last_mut(), k) {
            (Some(Piece::Lines(text)), true) => {
                text.push_str(line);
                text.push('\n');
            }
            (Some(Piece::Gap(n)), false) => *n += 1,
            (_, true) => out.push(Piece::Lines(format!("{line}\n"))),
            (_, false) => out.push(Piece::Gap(1)),
        }
    }
    out
}

pub(super) fn transcript(
    scenario: &str,
    host: &str,
    cmd: &Cmd,
    side: Option<&SideOutcome>,
    keep: &[String],
    gives: &[String],
) -> String {
    let link = whole_stdout(scenario, host);
    let mut h = escape(&format!("{host}$ {}\n", command_line(cmd, &lab_params())));
    let Some(o) = side else {
        h += "(no result: the lab did not run it)\n";
        return format!("<pre class=\"transcript\">{h}</pre>\n");
    };
    let all = o.stdout.lines().count();
    for piece in shortened(&o.stdout, keep) {
        h += &match piece {
            Piece::Lines(text) => escape(&blanked(&text, gives)),
            Piece::Gap(n) => format!(
                "<span class=\"gap\">({n} more {}: all {all} in <a href=\"{link}\">{link}</a>)</span>\n",
                if n == 1 { "line" } else { "lines" }
            ),
        };
    }
    let mut rest = String::new();
    for line in o.stderr.lines() {
        rest += line;
        rest += "\n";
    }
    match o.exit {
        Some(model::TIMED_OUT) => rest += "(killed by timeout: exit 124)\n",
        Some(c) => rest += &format!("(exit {c})\n"),
        None => rest += "(no exit status)\n",
    }
    h += &escape(&blanked(&rest, gives));
    format!("<pre class=\"transcript\">{h}</pre>\n")
}

/// The lines the lab expects of one side, their addresses filled in as
/// the two-host lab has them: the lines a shortened transcript keeps.
pub(super) fn expected_lines(patterns: &[String]) -> Vec<String> {
    let addrs = model::Mode::TwoHosts.addrs();
    patterns
        .iter()
        .filter_map(|p| model::expand(p, addrs.as_ref()))
        .collect()
}

/// Both sides' transcripts of `s`'s run, `gives` blanked in them (the
/// student's edition's give-aways).
pub(super) fn runs(s: &Scenario, o: Option<&Outcome>, gives: &[String]) -> String {
    let mut h = String::from("<div class=\"sides\">\n");
    if let Some(cmd) = &s.server {
        h += &transcript(
            &s.name,
            "hostA",
            cmd,
            o.and_then(|o| o.server.as_ref()),
            &expected_lines(&s.server_expect.stdout),
            gives,
        );
    }
    if let Some(cmd) = &s.client {
        h += &transcript(
            &s.name,
            "hostB",
            cmd,
            o.and_then(|o| o.client.as_ref()),
            &expected_lines(&s.client_expect.stdout),
            gives,
        );
    }
    h + "</div>\n"
}

/// Writes each side's whole stdout where a shortened transcript links to it.
pub(super) fn write_transcripts(report: &LabReport, out: &Path) -> Result<(), String> {
    let dir = out.join("transcripts");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Only the table's names become file names.
    for o in report
        .outcomes
        .iter()
        .filter(|j| j.scenario.is_some())
        .map(|j| &j.outcome)
    {
        // Every side, whole, its errors and exit status after its
        // output: the exercises' checks point to them.
        for (host, side) in [("hostA", &o.server), ("hostB", &o.client)] {
            if let Some(side) = side {
                let file = out.join(whole_stdout(&o.scenario, host));
                let exit = side
                    .exit
                    .map_or("no exit status".to_string(), |c| format!("exit {c}"));
                let text = format!(
                    "{}--- its errors (stderr) ---\n{}--- {exit} ---\n",
                    side.stdout, side.stderr
                );
                fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
            }
        }
    }
    Ok(())
}
