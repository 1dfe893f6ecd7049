//! How the diagnosis of a mesh run words what it blames: how two hosts
//! differ, the odd one out, each host's doctor, lists of names.

use super::*;

impl<'a> Mesh<'a> {
    /// Where to look when many pairs fail: what every host shares, unless
    /// every failure is a program that never started, which is said
    /// instead; with some such failures, they are said as well.
    pub(super) fn fabric_hint(&self) -> String {
        let failing: Vec<&Ran> = self.ran.iter().filter(|r| !r.failed.is_empty()).collect();
        let unstarted: Vec<&str> = failing.iter().flat_map(|r| r.unstarted.clone()).collect();
        let Some(first) = unstarted.first() else {
            return FABRIC_HINT.to_string();
        };
        let all = failing.iter().all(|r| r.unstarted.len() == r.failed.len());
        let said = format!(
            "{} of the failures are programs that never started, not the network (first: {first})",
            unstarted.len()
        );
        if all {
            format!("Every failure is a program that never started, not the network: {first}.")
        } else {
            format!("{FABRIC_HINT} {said}.")
        }
    }

    /// What `r`'s failures say of programs that never started, as a
    /// sentence after a finding's text; nothing when none did.
    pub(super) fn unstarted_note(r: &[&Ran]) -> String {
        r.iter()
            .flat_map(|r| r.unstarted.first())
            .next()
            .map_or(String::new(), |first| {
                format!(" A program never started there, not a network fault: {first}.")
            })
    }

    /// What the doctor sees differ between `a` and `b`: MTU, GID type and
    /// subnet, each with why it matters; or that nothing does.
    pub(super) fn differences(&self, a: usize, b: usize) -> String {
        let (Some(ha), Some(hb)) = (self.host(a), self.host(b)) else {
            return "nothing the doctor sees differs".into();
        };
        let shown = |v: Option<String>| v.unwrap_or_else(|| "unknown".into());
        let facts = [
            (
                "MTU",
                ha.mtu.map(|m| m.to_string()),
                hb.mtu.map(|m| m.to_string()),
                "RoCE's path MTU must fit both, and a larger frame is dropped on the way",
            ),
            (
                "GID type",
                ha.gid_type.clone(),
                hb.gid_type.clone(),
                "RoCE v1 and v2 do not talk to each other",
            ),
            (
                "subnet",
                ha.subnet.clone(),
                hb.subnet.clone(),
                "RoCE v2 between them must be routed, and RoCE v1 cannot cross",
            ),
        ];
        let mut differ = Vec::new();
        let mut same = Vec::new();
        for (what, va, vb, why) in facts {
            if va == vb {
                same.push(format!("{what} {}", shown(va)));
            } else {
                differ.push(format!(
                    "{what} differs, {} on {} and {} on {} ({why})",
                    shown(va),
                    self.label(a),
                    shown(vb),
                    self.label(b)
                ));
            }
        }
        if differ.is_empty() {
            format!(
                "nothing the doctor sees differs ({}): look at the path between them (a \
                 switch port, a cable, a firewall rule for UDP 4791 on one side)",
                same.join(", ")
            )
        } else {
            differ.join("; ")
        }
    }

    /// What the doctor saw on `rank` that differs from what every other
    /// joined host shares (its MTU, GID type, subnet), as a sentence; ""
    /// when nothing does, or the others do not agree among themselves.
    pub(super) fn odd_one_out(&self, rank: usize) -> String {
        let Some(me) = self.host(rank) else {
            return String::new();
        };
        let others: Vec<&MeshHost> = self
            .run
            .hosts
            .iter()
            .filter(|h| h.rank != rank && h.joined == Joined::Joined)
            .collect();
        let facts: [(&str, Fact); 3] = [
            ("MTU", |h| h.mtu.map(|m| m.to_string())),
            ("GID type", |h| h.gid_type.clone()),
            ("subnet", |h| h.subnet.clone()),
        ];
        let shown = |v: Option<String>| v.unwrap_or_else(|| "unknown".into());
        let mut differ = Vec::new();
        for (what, get) in facts {
            let theirs = others.first().map(|h| get(h));
            let agree = theirs
                .as_ref()
                .is_some_and(|t| others.iter().all(|h| get(h) == *t));
            if let (true, Some(t)) = (agree, theirs) {
                if get(me) != t {
                    differ.push(format!(
                        "its {what} is {}, every other host's {}",
                        shown(get(me)),
                        shown(t)
                    ));
                }
            }
        }
        if differ.is_empty() {
            String::new()
        } else {
            format!("Unlike the others: {}. ", differ.join("; "))
        }
    }

    /// The doctor's findings on `rank`, as a sentence about `whose`
    /// doctor (`Its`, `node1's`).
    pub(super) fn doctor(&self, rank: usize, whose: &str) -> String {
        let findings = self.host(rank).map_or(&[][..], |h| &h.findings[..]);
        if findings.is_empty() {
            format!("{whose} doctor found nothing.")
        } else {
            format!("{whose} doctor found: {}.", findings.join("; "))
        }
    }

    /// The doctors' findings on the hosts of `ranks` that have any, as
    /// sentences after a finding's text; nothing when none has any.
    pub(super) fn doctors_if_any(&self, ranks: &[usize]) -> String {
        ranks
            .iter()
            .filter(|&&r| self.host(r).is_some_and(|h| !h.findings.is_empty()))
            .map(|&r| {
                let whose = format!("{}'s", self.label(r));
                format!(". {}", self.doctor(r, &whose).trim_end_matches('.'))
            })
            .collect()
    }

    /// Every distinct doctor finding of the hosts that took part, with the
    /// hosts it was found on.
    pub(super) fn doctors_summed(&self) -> String {
        let mut found: Vec<(&str, Vec<usize>)> = Vec::new();
        let hosts = self.run.hosts.iter().filter(|h| self.joined[h.rank]);
        for (rank, f) in hosts.flat_map(|h| h.findings.iter().map(move |f| (h.rank, f))) {
            match found.iter_mut().find(|(seen, _)| seen == f) {
                Some((_, on)) => on.push(rank),
                None => found.push((f, vec![rank])),
            }
        }
        if found.is_empty() {
            return "No host's doctor found anything.".into();
        }
        let listed: Vec<String> = found
            .iter()
            .map(|(f, on)| format!("{f} (on {})", self.names(on.iter().copied())))
            .collect();
        format!("The doctors found: {}.", listed.join("; "))
    }

    /// The labels of `ranks`, at most [`MAX_NAMES`], then how many more.
    pub(super) fn names(&self, ranks: impl Iterator<Item = usize>) -> String {
        let all: Vec<usize> = ranks.collect();
        let mut shown: Vec<String> = all.iter().take(MAX_NAMES).map(|&r| self.label(r)).collect();
        if all.len() > MAX_NAMES {
            shown.push(format!("{} more", all.len() - MAX_NAMES));
        }
        shown.join(", ")
    }
}
