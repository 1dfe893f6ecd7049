//! A mesh run as JUnit XML (`--junit`): a suite a pair on each rail, a
//! case a scenario, and a suite of each host's doctor.

use super::*;

/// A `<testsuite>` of `cases` named `name`, with its counts.
pub(super) fn suite(xml: &mut String, name: &str, cases: &[Case]) {
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let skipped = cases.iter().filter(|c| c.skipped.is_some()).count();
    let _ = writeln!(
        xml,
        r#"  <testsuite name="{}" tests="{}" failures="{failures}" errors="0" skipped="{skipped}" time="{}">"#,
        xml_escape(name),
        cases.len(),
        secs(0)
    );
    for c in cases {
        c.write(xml);
    }
    xml.push_str("  </testsuite>\n");
}

/// A test case of a verdict: a failure whose message is `detail`, or
/// skipped with its reason (the detail of a skip).
pub(super) fn case(
    classname: String,
    name: String,
    v: &Verdict,
    detail: &str,
    out: String,
) -> Case {
    let failure = (*v == Verdict::Fail).then(|| {
        let message = if detail.is_empty() { "failed" } else { detail };
        (message.to_string(), FAILURE_TYPE, detail.to_string())
    });
    let skipped = match v {
        Verdict::Skip => Some(detail.to_string()),
        Verdict::NotRun(why) | Verdict::PortHeld(why) => Some(format!("not run: {why}")),
        _ => None,
    };
    Case {
        classname,
        name,
        time: secs(0),
        failure,
        skipped,
        out,
    }
}

/// The run as JUnit XML: a `<testsuite>` per pair (`server-client`, by
/// host name) with a test case per scenario (both sides' transcripts in
/// `<system-out>`), `doctor` with a case per host (failed when it has
/// findings or did not take part), `multicast` with a case per receiver
/// of each round, and `diagnosis`, one case failed with every finding.
/// The model has no times: every time is zero.
pub fn junit(run: &MeshRun, findings: &[Finding]) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for c in &run.cells {
        let mut name = format!("{}-{}", run.name(c.pair.server), run.name(c.pair.client));
        if c.rail > 0 {
            name += &format!(" {}", run.rail_name(c.rail));
        }
        let cases: Vec<Case> = c
            .results
            .iter()
            .map(|r| {
                let out = format!(
                    "server ({}):\n{}\nclient ({}):\n{}\n",
                    run.name(c.pair.server),
                    r.server_log.as_deref().unwrap_or("(no transcript)"),
                    run.name(c.pair.client),
                    r.client_log.as_deref().unwrap_or("(no transcript)")
                );
                case(
                    format!("mesh.{name}"),
                    r.scenario.clone(),
                    &r.verdict,
                    &r.detail,
                    out,
                )
            })
            .collect();
        suite(&mut xml, &name, &cases);
    }
    suite(&mut xml, "doctor", &doctor_cases(run));
    let mcast: Vec<Case> = run
        .mcast
        .iter()
        .flat_map(|m| {
            m.receivers.iter().map(move |(r, v)| {
                let name = format!(
                    "{} -> {} ({})",
                    run.name(m.sender),
                    run.name(*r),
                    m.scenario
                );
                let detail = format!("{} did not get every message", run.name(*r));
                case("multicast".into(), name, v, &detail, String::new())
            })
        })
        .collect();
    suite(&mut xml, "multicast", &mcast);
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    let diagnosis = Case {
        classname: "diagnosis".into(),
        name: "diagnosis".into(),
        time: secs(0),
        failure: texts
            .first()
            .map(|first| (first.to_string(), FINDING_TYPE, texts.join("\n"))),
        skipped: None,
        out: String::new(),
    };
    suite(&mut xml, "diagnosis", &[diagnosis]);
    xml + "</testsuites>\n"
}

/// The doctor's case of each host.
pub(super) fn doctor_cases(run: &MeshRun) -> Vec<Case> {
    run.hosts
        .iter()
        .map(|h| {
            let mut problems = h.findings.clone();
            if h.joined != Joined::Joined {
                problems.insert(0, joined_words(&h.joined));
            }
            Case {
                classname: "doctor".into(),
                name: h.name.clone(),
                time: secs(0),
                failure: problems
                    .first()
                    .map(|first| (first.clone(), FINDING_TYPE, problems.join("\n"))),
                skipped: None,
                out: format!(
                    "rank {}, {} on {}, MTU {}, GID type {}, subnet {}\n",
                    h.rank,
                    h.rdma_addr,
                    h.netdev,
                    h.mtu.map_or_else(|| "unknown".into(), |m| m.to_string()),
                    h.gid_type.as_deref().unwrap_or("unknown"),
                    h.subnet.as_deref().unwrap_or("unknown")
                ),
            }
        })
        .collect()
}
