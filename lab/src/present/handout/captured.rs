//! The numbers an answer states, from its capture: each query run with
//! tshark on the run's pcap (cached per run), and the handout refused
//! where a stated number is not the capture's.

use super::*;

/// What a placeholder of [`numbers`] asks of the capture of `own` (or of
/// the scenario it names) in `report`'s run: `None` when the run has no
/// such capture, as a partial run may not.
pub(super) fn capture_number(
    report: &LabReport,
    own: &str,
    q: &numbers::Query,
) -> Option<Result<String, String>> {
    let pcap = report
        .dir
        .join(format!("{}.pcap", q.scenario.unwrap_or(own)));
    if !pcap.is_file() {
        return None;
    }
    Some(pcap_number(&pcap, q))
}

/// What `q` says of the capture `pcap`.
pub(super) fn pcap_number(pcap: &Path, q: &numbers::Query) -> Result<String, String> {
    let per = match q.per {
        Some(f) => cached_values(pcap, f, q.field)?,
        None => Vec::new(),
    };
    numbers::value(q, &cached_values(pcap, q.filter, q.field)?, &per)
}

/// [`crate::capture::field_values`], each asked of tshark once: a handout
/// fills the same answers for each lab, each edition and the check.
pub(super) fn cached_values(pcap: &Path, filter: &str, field: &str) -> Result<Vec<String>, String> {
    type Asked = std::collections::HashMap<(PathBuf, String, String), Result<Vec<String>, String>>;
    static ASKED: std::sync::OnceLock<std::sync::Mutex<Asked>> = std::sync::OnceLock::new();
    let key = (pcap.to_path_buf(), filter.to_string(), field.to_string());
    let asked = ASKED.get_or_init(Default::default);
    if let Some(got) = asked.lock().map_err(|e| e.to_string())?.get(&key) {
        return got.clone();
    }
    let got = crate::capture::field_values(pcap, filter, field);
    asked
        .lock()
        .map_err(|e| e.to_string())?
        .insert(key, got.clone());
    got
}

/// `text` (an answer about `own`'s run, in Markdown) with its numbers from
/// the captures: a number the run has no capture for says so, and an
/// answer whose numbers cannot be read (which [`check_numbers`] refuses
/// first) shows its checked numbers as stated and nothing more.
pub(super) fn wire_numbers(report: &LabReport, own: &str, text: &str) -> String {
    let answer = |q: &numbers::Query| capture_number(report, own, q).transpose();
    numbers::fill(text, &answer).unwrap_or_else(|_| numbers::unfilled(text))
}

/// Every answer's numbers (the exercises' and the READMEs' "check
/// yourself") read from the captures `report`'s run has: the first that
/// cannot be read, or a README's number its capture does not bear out.
pub(super) fn check_numbers(report: &LabReport) -> Result<(), String> {
    let root = base::workspace::workspace_root();
    let check = |own: &str, text: &str| {
        let answer = |q: &numbers::Query| capture_number(report, own, q).transpose();
        numbers::fill(text, &answer)
            .map(|_| ())
            .map_err(|e| format!("handout: {own}'s answer: {e}"))
    };
    for s in catalog::handout_scenarios() {
        if let Some(e) = s.exercise {
            check(&s.name, e.explain)?;
        }
    }
    for p in catalog::chapters() {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap_or_default();
        for (_, body) in read_readme(&md, &[CHAPTER_SECTIONS[4]]).sections {
            check(p, &body)?;
        }
    }
    Ok(())
}

/// The QP number both hosts' ibv_sockets_pingpong printed (`qp num: N`),
/// when they printed the same: two hosts that ran the same steps from
/// a fresh boot, which the lab's client VM avoids (`QP_OFFSET`).
pub(super) fn same_qp_numbers(report: &LabReport) -> Option<String> {
    let o = &report
        .outcomes
        .iter()
        .find(|j| j.name() == "ibv_sockets_pingpong")?
        .outcome;
    let qp = |side: &Option<crate::model::SideOutcome>| {
        side.as_ref()?
            .stdout
            .lines()
            .find_map(|l| Some(l.trim().strip_prefix("qp num: ")?.to_string()))
    };
    let (server, client) = (qp(&o.server)?, qp(&o.client)?);
    (server == client).then_some(server)
}
