//! Each exercise's check step: the tshark command that lists its
//! capture's packets, what the AETH fields mean, and the line to find in
//! the programs' output; each checked against the run before it is
//! printed.

use super::*;
use crate::base::text::shell_quote;

/// An exercise as the handout numbers it: `Exercise {chapter}.{k}`.
pub(super) struct Numbered<'a> {
    /// Its chapter's number in the whole handout.
    pub chapter: usize,
    /// Its number within the chapter, from 1.
    pub k: usize,
    /// Its scenario.
    pub scenario: &'a Scenario,
    /// The exercise.
    pub exercise: Exercise,
}

impl Numbered<'_> {
    /// `1.3`: what the page prints after "Exercise" and the script takes.
    pub fn number(&self) -> String {
        format!("{}.{}", self.chapter, self.k)
    }
}

/// The exercises of `package`'s chapter, numbered as the page prints them.
pub(super) fn numbered(package: &str) -> Vec<Numbered<'static>> {
    let chapter = chapter_number(package);
    catalog::all()
        .iter()
        .filter(|s| s.package == package)
        .filter_map(|s| s.exercise.map(|e| (s, e)))
        .enumerate()
        .map(|(n, (scenario, exercise))| Numbered {
            chapter,
            k: n + 1,
            scenario,
            exercise,
        })
        .collect()
}

/// The script beside the handout that runs the check steps of lab `n`'s
/// exercises (`sh checks/lab1.sh 1.3`), relative to the handout's dir.
pub(super) fn script_path(n: usize) -> String {
    format!("{CHECKS}lab{n}.sh")
}

/// Where the scripts of the check steps go, beside the handout.
pub(super) const CHECKS: &str = "checks/";

/// The lab that holds `package`'s chapter.
fn lab_of(package: &str) -> Option<&'static Lab> {
    LABS.iter().find(|l| l.chapters.contains(&package))
}

/// A check step's tshark command, each option with its value, as the page
/// prints it and the script runs it (the script quotes each word).
fn tshark_words(s: &Scenario, c: &Check) -> Vec<(&'static str, String)> {
    let mut words = vec![
        ("-r", format!("pcaps/{}.pcap", s.name)),
        ("-Y", c.filter.to_string()),
        ("-T", "fields".to_string()),
    ];
    for f in ["frame.number", "ip.src", "_ws.col.Info"]
        .iter()
        .chain(c.fields)
    {
        words.push(("-e", f.to_string()));
    }
    words
}

/// The transcripts a check step sends the student to: the client's
/// (hostB), then the server's (hostA), those of the sides the scenario has.
fn transcripts_of(s: &Scenario) -> Vec<String> {
    [("hostB", s.client.is_some()), ("hostA", s.server.is_some())]
        .iter()
        .filter(|x| x.1)
        .map(|x| whole_stdout(&s.name, x.0))
        .collect()
}

/// The step that checks an exercise's prediction on what the handout
/// supplies: the capture, with the script's case (and the tshark command
/// it runs) that lists its packets, and the transcript, with a line the
/// run printed.
pub(super) fn check_step(e: &Numbered, captured: bool) -> String {
    let (s, c) = (e.scenario, &e.exercise.check);
    let mut ways = Vec::new();
    let mut command = String::new();
    if captured && !c.filter.is_empty() {
        let words: Vec<String> = std::iter::once("tshark".to_string())
            .chain(tshark_words(s, c).iter().map(|(o, v)| match *o {
                "-Y" => format!("{o} '{v}'"),
                _ => format!("{o} {v}"),
            }))
            .collect();
        // Each option with its value unbroken: a printed line breaks only
        // between them, never at a hyphen, so the command types as shown.
        command = format!(
            "<code class=\"cmd\">{}</code>",
            words
                .iter()
                .map(|w| format!("<span>{}</span>", escape(w)))
                .collect::<Vec<_>>()
                .join(" ")
        );
        ways.push(format!(
            "list the packets with {}, which runs {COMMAND}{}",
            script_case(e),
            field_notes(c.fields)
        ));
    }
    let files: Vec<String> = transcripts_of(s).iter().map(|f| format!("`{f}`")).collect();
    let whose = if files.len() == 1 {
        "the program's output"
    } else {
        "each program's output"
    };
    let shows = format!(
        " ({} prints {}, whole when short)",
        script_case(e),
        if files.len() == 1 { "it" } else { "them" }
    );
    ways.push(format!(
        "in {whose}, {}, find the line with `{}`{shows}: {}",
        files.join(" and "),
        c.line,
        c.look
    ));
    format!(
        "<p class=\"check\"><b>Check it yourself:</b> {}.</p>\n",
        inline(&capitalised(&ways.join("; then "))).replace(COMMAND, &command)
    )
}

/// `` `sh checks/labN.sh X.Y` ``: the case of `e`'s lab's script that runs
/// its check step.
fn script_case(e: &Numbered) -> String {
    lab_of(e.scenario.package)
        .map(|l| format!("`sh {} {}`", script_path(l.n), e.number()))
        .unwrap_or_default()
}

/// Lab `lab`'s script of check steps: a case an exercise, which lists its
/// capture's packets (where the run captured any) on its output and the
/// lines of its transcripts that its step sends the student to on its
/// errors, so that a pipe after it (`| cut -f2 | sort | uniq -c`) counts
/// packets only. Run from anywhere; it reads the files beside the
/// handout. Every word is quoted: nothing of a scenario is pasted into
/// the script as code.
pub(super) fn checks_script(report: &LabReport, lab: &Lab) -> String {
    let mut cases = String::new();
    let mut numbers = Vec::new();
    // A reading note prints no exercise, so its script has no case.
    for package in worked(lab) {
        for e in numbered(package) {
            let (s, c) = (e.scenario, &e.exercise.check);
            let mut body = Vec::new();
            if !c.filter.is_empty() && captured_in(report, s) {
                let words: Vec<String> = std::iter::once("tshark".to_string())
                    .chain(
                        tshark_words(s, c)
                            .into_iter()
                            .flat_map(|(o, v)| [o.to_string(), v])
                            .map(|w| shell_quote(&w)),
                    )
                    .collect();
                body.push(words.join(" "));
            }
            let files: Vec<String> = transcripts_of(s).iter().map(|f| shell_quote(f)).collect();
            body.push(format!("show {} {}", shell_quote(c.line), files.join(" ")));
            cases += &format!("{})\n\t{}\n\t;;\n", e.number(), body.join("\n\t"));
            numbers.push(e.number());
        }
    }
    format!(
        "#!/bin/sh\n# Lab {n}'s check steps: sh {path} EXERCISE ({list}).\n# Each lists the \
         packets its step names (on its output) and the programs'\n# output (on its errors: a \
         pipe after it counts packets only), from the\n# files beside the handout.\nset -u\n\
         cd \"$(dirname \"$0\")/..\" || exit 1\n{show}case \"${{1:-}}\" in\n{cases}*)\n\t\
         echo \"usage: sh {path} EXERCISE, one of: {list}\" >&2\n\texit 1\n\t;;\nesac\n",
        n = lab.n,
        path = script_path(lab.n),
        list = numbers.join(" "),
        show = show_function(),
    )
}

/// The script's function that shows each program's output, numbered: a
/// short one (as many lines as the handout prints whole) all of it, the
/// events in their order; a long one its lines with the step's words and
/// its exit status.
fn show_function() -> String {
    format!(
        "# show WORDS FILE...: each file, numbered; a long one only its lines with\n# WORDS \
         and its exit status.\nshow() {{\n\twords=$1\n\tshift\n\tfor f in \"$@\"; do\n\t\t\
         echo \"== $f\"\n\t\tif [ \"$(wc -l <\"$f\")\" -le {TRANSCRIPT_LINES} ]; then\n\t\t\t\
         grep -n '' \"$f\"\n\t\telse\n\t\t\tgrep -n -F -e \"$words\" -e '--- exit' \
         \"$f\"\n\t\tfi\n\tdone >&2\n\treturn 0\n}}\n"
    )
}

/// `lab`'s chapters that print exercises: all but its reading notes.
fn worked(lab: &Lab) -> impl Iterator<Item = &&'static str> {
    lab.chapters.iter().filter(|p| !READING_NOTES.contains(p))
}

/// Whether `report` captured `s`'s run.
pub(super) fn captured_in(report: &LabReport, s: &Scenario) -> bool {
    report
        .outcomes
        .iter()
        .find(|j| j.name() == s.name)
        .is_some_and(|j| j.outcome.capture.as_ref().is_some_and(|c| !c.is_empty()))
}

/// Writes each lab's script of check steps into `out/checks/`, then runs
/// the case of each exercise that `report` ran there, and refuses the
/// handout where one does not list the packets its step names or find
/// its line.
pub(super) fn write_checks(report: &LabReport, out: &Path) -> Result<(), String> {
    let dir = out.join(CHECKS);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for lab in &LABS {
        let file = out.join(script_path(lab.n));
        fs::write(&file, checks_script(report, lab))
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let ran = |e: &Numbered| report.outcomes.iter().any(|j| j.name() == e.scenario.name);
        for package in worked(lab) {
            for e in numbered(package).iter().filter(|e| ran(e)) {
                run_case(report, out, lab, e)?;
            }
        }
    }
    Ok(())
}

/// Runs exercise `e`'s case of `lab`'s script in `out`: it must exit 0
/// and print the first frame its filter matches (where captured) and its
/// line.
fn run_case(report: &LabReport, out: &Path, lab: &Lab, e: &Numbered) -> Result<(), String> {
    let (s, c) = (e.scenario, &e.exercise.check);
    let ran = std::process::Command::new("sh")
        .arg(out.join(script_path(lab.n)))
        .arg(e.number())
        .output()
        .map_err(|err| format!("sh: {err}"))?;
    let text = String::from_utf8_lossy(&ran.stdout);
    let said = String::from_utf8_lossy(&ran.stderr);
    let mut missing = Vec::new();
    if !ran.status.success() {
        missing.push(format!("its exit status {}", ran.status));
    }
    if !said.contains(c.line) {
        missing.push(format!("the line with `{}`", c.line));
    }
    if !c.filter.is_empty() && captured_in(report, s) {
        let pcap = out.join(format!("pcaps/{}.pcap", s.name));
        let first = crate::capture::field_values(&pcap, c.filter, "frame.number")?;
        if let Some(f) = first.first() {
            if !text
                .lines()
                .any(|l| l.split('\t').next() == Some(f.as_str()))
            {
                missing.push(format!("frame {f}"));
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "handout: `sh {} {}` printed no {}",
            script_path(lab.n),
            e.number(),
            missing.join(", no ")
        ))
    }
}

/// Where a check step's tshark command goes in its Markdown, which the
/// command's own HTML replaces.
pub(super) const COMMAND: &str = "TSHARK-COMMAND";

/// What the values of the fields a check step lists mean, where the
/// primer does not say.
pub(super) const FIELD_NOTES: &[(&str, &str)] = &[
    (
        "infiniband.cm.rej.reason",
        "a ConnectReject's reason, from the IB spec's table of them: 1 no QP, 3 no \
         resources, 4 timeout, 6 invalid communication ID, 8 invalid service ID, 10 stale \
         connection, 28 the consumer's own reject",
    ),
    (
        "infiniband.aeth.syndrome.opcode",
        "the AETH's kind: 0 an ACK, 1 an RNR NAK, 3 a NAK",
    ),
    (
        "infiniband.aeth.syndrome.error_code",
        "a NAK's reason: 0 PSN sequence error, 1 invalid request, 2 remote access error, \
         3 remote operational error",
    ),
    (
        "infiniband.aeth.syndrome.timer",
        "an RNR NAK's timer code (how long to wait before trying again)",
    ),
    (
        "infiniband.aeth.syndrome.credit_count",
        "an ACK's credit code",
    ),
];

/// The notes of [`FIELD_NOTES`] for `fields`, as a parenthesis.
pub(super) fn field_notes(fields: &[&str]) -> String {
    let notes: Vec<String> = fields
        .iter()
        .filter_map(|f| FIELD_NOTES.iter().find(|(n, _)| n == f))
        .map(|(n, what)| format!("`{}` is {what}", n.rsplit('.').next().unwrap_or(n)))
        .collect();
    if notes.is_empty() {
        return String::new();
    }
    format!(" ({})", notes.join("; "))
}

/// Every check step of the handout's exercises against `report`'s run:
/// the first whose filter matches no frame of its capture, or whose line
/// no transcript of the run has.
pub(super) fn check_steps(report: &LabReport) -> Result<(), String> {
    for s in catalog::handout_scenarios() {
        let (Some(e), Some(j)) = (
            s.exercise,
            report.outcomes.iter().find(|j| j.name() == s.name),
        ) else {
            continue;
        };
        let c = e.check;
        let pcap = report.dir.join(format!("{}.pcap", s.name));
        if !c.filter.is_empty() && pcap.is_file() {
            let found = crate::capture::field_values(&pcap, c.filter, "frame.number")?;
            if found.is_empty() {
                return Err(format!(
                    "handout: {}'s check step lists no packet: `{}` matches nothing in {}",
                    s.name,
                    c.filter,
                    pcap.display()
                ));
            }
        }
        let printed = [&j.outcome.server, &j.outcome.client]
            .iter()
            .filter_map(|side| side.as_ref())
            .any(|side| side.stdout.contains(c.line) || side.stderr.contains(c.line));
        if !printed {
            return Err(format!(
                "handout: {}'s check step looks for a line with `{}`, which no program of the \
                 run printed",
                s.name, c.line
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
