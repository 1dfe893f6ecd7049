//! A run's outcomes judged once, with what only the wire can show: the
//! scenario's expectations (`judge::check`), each wire fact on the
//! packets, the packets a capture must hold, and a pair's ladder (it fits
//! on a screen and explains each arrow). The host calls it when it has
//! read a run; everything after reads the [`Judged`] it made.

use crate::model::{Addrs, Outcome, Packet, PacketFact, Rung, Scenario};
use crate::results::report::Judged;
use crate::{catalog, judge};

/// What a scenario's packets show, judged once: its ladder, what is wrong
/// with a pair's ladder (it must fit on a screen and explain each arrow),
/// and each of its wire facts with how it fell short (empty: it holds).
#[derive(Debug, Clone)]
pub struct OnWire {
    /// The ladder.
    pub rungs: Vec<Rung>,
    /// The ladder's faults, for a pair; none for another scenario.
    pub faults: Vec<String>,
    /// Each wire fact of the scenario, and its failures.
    pub facts: Vec<(&'static PacketFact, Vec<String>)>,
}

/// `packets` of the scenario `s` (`None`: not one of this lab's), judged.
pub fn on_wire(s: Option<&'static Scenario>, packets: &[Packet], addrs: &Addrs) -> OnWire {
    let rungs = super::ladder::rungs(packets, addrs, s);
    let faults = match s {
        Some(s) if s.pair => super::ladder::faults(&rungs),
        _ => Vec::new(),
    };
    let facts = s.map_or(&[][..], |s| s.wire);
    let facts = facts
        .iter()
        .map(|f| {
            (
                f,
                judge::packets::check(std::slice::from_ref(f), packets, addrs),
            )
        })
        .collect();
    OnWire {
        rungs,
        faults,
        facts,
    }
}

/// `o` judged: its scenario, every way it fell short of it (empty means
/// PASS), its wire facts' verdicts and its ladder.
pub fn judge(o: Outcome, addrs: Option<&Addrs>, captured: bool) -> Judged {
    let scenario = catalog::find(&o.scenario);
    let wire = match (&o.capture, addrs) {
        (Some(packets), Some(addrs)) => Some(on_wire(scenario, packets, addrs)),
        _ => None,
    };
    let failures = match scenario {
        None => vec!["unknown scenario".into()],
        Some(s) => {
            let mut failures = judge::check(s, &o, addrs);
            if captured && !s.wire.is_empty() && o.capture.is_none() {
                failures.push("wire: the capture has none of its packets".into());
            }
            failures.extend(wire.iter().flat_map(|w| w.faults.iter().cloned()));
            failures
        }
    };
    let (rungs, facts) = match wire {
        Some(w) => (Some(w.rungs), w.facts),
        None => (None, Vec::new()),
    };
    Judged {
        outcome: o,
        scenario,
        failures,
        facts,
        rungs,
    }
}

/// Every outcome of a run judged, in order.
pub fn judge_all(outcomes: Vec<Outcome>, addrs: Option<&Addrs>, captured: bool) -> Vec<Judged> {
    outcomes
        .into_iter()
        .map(|o| judge(o, addrs, captured))
        .collect()
}
