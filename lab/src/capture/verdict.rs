//! A run's outcomes judged once, with what only the wire can show: the
//! scenario's expectations (`judge::check`), the packets a capture must
//! hold, and a pair's ladder (it fits on a screen and explains each
//! arrow). The host calls it when it has read a run; everything after
//! reads the verdicts it stored ([`LabReport::failures`]).

use crate::model::{Addrs, Outcome};
use crate::results::report::LabReport;
use crate::{catalog, judge};

/// Every way `o` fell short of its scenario; empty means PASS.
pub fn failures(o: &Outcome, addrs: Option<&Addrs>, captured: bool) -> Vec<String> {
    let Some(s) = catalog::find(&o.scenario) else {
        return vec!["unknown scenario".into()];
    };
    let mut failures = judge::check(s, o, addrs);
    if captured && !s.wire.is_empty() && o.capture.is_none() {
        failures.push("wire: the capture has none of its packets".into());
    }
    if let (true, Some(packets), Some(addrs)) = (s.pair, &o.capture, addrs) {
        let rungs = super::ladder::rungs(packets, addrs, Some(s));
        failures.extend(super::ladder::faults(&rungs));
    }
    failures
}

/// `report` with every outcome judged ([`LabReport::failures`]).
pub fn judged(mut report: LabReport) -> LabReport {
    report.failures = report
        .outcomes
        .iter()
        .map(|o| failures(o, report.addrs.as_ref(), report.captured))
        .collect();
    report
}
