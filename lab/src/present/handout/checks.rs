//! Each exercise's check step: the tshark command that lists its
//! capture's packets, what the AETH fields mean, and the line to find in
//! the programs' output; each checked against the run before it is
//! printed.

use super::*;

/// The step that checks an exercise's prediction on what the handout
/// supplies: the capture, with the tshark command that lists its packets,
/// and the transcript, with a line the run printed.
pub(super) fn check_step(s: &Scenario, c: &Check, captured: bool) -> String {
    let mut ways = Vec::new();
    let mut command = String::new();
    if captured && !c.filter.is_empty() {
        let mut words = vec![
            "tshark".to_string(),
            format!("-r pcaps/{}.pcap", s.name),
            format!("-Y '{}'", c.filter),
            "-T fields".to_string(),
        ];
        for f in ["frame.number", "ip.src", "_ws.col.Info"]
            .iter()
            .chain(c.fields)
        {
            words.push(format!("-e {f}"));
        }
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
            "list the packets, {COMMAND}{}",
            field_notes(c.fields)
        ));
    }
    let sides = [("hostB", s.client.is_some()), ("hostA", s.server.is_some())];
    let files: Vec<String> = sides
        .iter()
        .filter(|x| x.1)
        .map(|x| format!("`{}`", whole_stdout(&s.name, x.0)))
        .collect();
    let whose = if files.len() == 1 {
        "the program's output"
    } else {
        "each program's output"
    };
    ways.push(format!(
        "in {whose}, {}, find the line with `{}`: {}",
        files.join(" and "),
        c.line,
        c.look
    ));
    format!(
        "<p class=\"check\"><b>Check it yourself:</b> {}.</p>\n",
        inline(&capitalised(&ways.join("; then "))).replace(COMMAND, &command)
    )
}

/// Where a check step's tshark command goes in its Markdown, which the
/// command's own HTML replaces.
pub(super) const COMMAND: &str = "TSHARK-COMMAND";

/// What the values of the fields a check step lists mean, where the
/// primer does not say.
pub(super) const FIELD_NOTES: &[(&str, &str)] = &[
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
