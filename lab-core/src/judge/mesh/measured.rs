//! The diagnosis's rules on what was measured and received beside the
//! pairs' verdicts: lossy and slow links (`--perf`) and the multicast
//! rounds.

use super::*;

impl<'a> Mesh<'a> {
    /// One finding per pair whose hosts' counters show it lost several
    /// times the share of its packets the links beside it did
    /// ([`crate::judge::loss`]), with every loss counter that rose: a
    /// lossy link, named even when its scenarios passed.
    pub(super) fn lossy(&self) -> Vec<Finding> {
        use crate::judge::loss::{self, Link};
        use crate::judge::trust::{self, RECEIVED_PACKETS};
        let judged: Vec<_> = self.run.cells.iter().map(trust::loss).collect();
        let links: Vec<Link> = (self.run.cells.iter().zip(&judged))
            .map(|(c, j)| (c.pair.server, c.pair.client, j.0))
            .collect();
        let yards: Vec<loss::Yard> = judged.iter().map(|j| j.1).collect();
        let mut found = Vec::new();
        for (at, usual) in loss::judged(&links, &yards) {
            let (cell, tally) = (&self.run.cells[at], &links[at].2);
            let (a, b) = (
                cell.pair.server.min(cell.pair.client),
                cell.pair.server.max(cell.pair.client),
            );
            // The loss counters, but those refused as not true.
            let refused: Vec<usize> = judged[at].2.iter().map(|i| i.rank).collect();
            let counts_packets = |n: &str| loss::SENT.contains(&n) || RECEIVED_PACKETS.contains(&n);
            let rose: Vec<String> = cell
                .counters
                .iter()
                .filter(|(r, n, _)| !refused.contains(r) && !counts_packets(n))
                .map(|(r, n, v)| format!("{}'s {n} +{v}", self.label(*r)))
                .collect();
            let passed = match cell.verdict() {
                Verdict::Pass => "its scenarios passed anyway",
                Verdict::Fail => "its scenarios failed",
                _ => "its scenarios did not all run",
            };
            found.push(Finding {
                rail: 0,
                kind: FindingKind::Lossy { a, b },
                text: format!(
                    "{} - {}: {} while their pair ran ({}; {passed}): a lossy link between them",
                    self.label(a),
                    self.label(b),
                    loss::compared(tally, &usual),
                    rose.join(", ")
                ),
            });
        }
        found
    }

    /// With `--perf`: one finding per host whose every measured link (two
    /// or more) falls short ([`crate::judge::perf::judge`]), then one per
    /// other link that does, each with its numbers.
    pub(super) fn slow(&self) -> Vec<Finding> {
        use crate::judge::perf;
        let Some(limits) = &self.run.perf else {
            return Vec::new();
        };
        let links = perf::measured(&self.run.cells, perf::figures);
        let slow = perf::slow(&self.run.cells, limits);
        let mut found: Vec<Finding> = slow
            .hosts
            .iter()
            .map(|(h, mine)| {
                let mut by_peer: Vec<(usize, &Vec<perf::Shortfall>)> = mine
                    .iter()
                    .map(|(i, why)| {
                        let l = &links[*i];
                        (if l.0 == *h { l.1 } else { l.0 }, why)
                    })
                    .collect();
                by_peer.sort_unstable_by_key(|(peer, _)| *peer);
                let each: Vec<String> = by_peer
                    .iter()
                    .map(|(peer, why)| format!("{}: {}", self.label(*peer), perf::said(why)))
                    .collect();
                Finding {
                    rail: 0,
                    kind: FindingKind::SlowHost { rank: *h },
                    text: format!(
                        "{} is slow with every one of its {} measured peers ({}; each median \
                         of the links without it): its NIC, its cable or its switch port",
                        self.label(*h),
                        mine.len(),
                        each.join("; ")
                    ),
                }
            })
            .collect();
        for (i, why) in &slow.links {
            let l = &links[*i];
            let (a, b) = (l.0.min(l.1), l.0.max(l.1));
            let again = if l.2.alone {
                ", measured again alone"
            } else {
                ""
            };
            found.push(Finding {
                rail: 0,
                kind: FindingKind::Slow { a, b },
                text: format!(
                    "{} - {}: {}{again}: a slow link between them",
                    self.label(a),
                    self.label(b),
                    perf::said(why)
                ),
            });
        }
        found
    }

    /// One finding per multicast receiver that missed messages, naming
    /// its senders; one per sender whose messages no receiver got.
    pub(super) fn multicast(&self) -> Vec<Finding> {
        let took_part = |r: usize| self.joined.get(r).copied().unwrap_or(false);
        let mut findings = Vec::new();
        // Each receiver that missed messages: (rank, [(sender, scenario)]).
        let mut missed: Vec<(usize, Vec<(usize, &str)>)> = Vec::new();
        for m in self.run.mcast.iter().filter(|m| took_part(m.sender)) {
            let ran: Vec<(usize, bool)> = m
                .receivers
                .iter()
                .filter(|(r, v)| took_part(*r) && v.ran())
                .map(|(r, v)| (*r, *v == Verdict::Fail))
                .collect();
            if !ran.is_empty() && ran.iter().all(|(_, failed)| *failed) {
                findings.push(self.nothing_received(m.sender, &m.scenario, ran.len()));
                continue;
            }
            for &(r, _) in ran.iter().filter(|(_, failed)| *failed) {
                match missed.iter_mut().find(|(seen, _)| *seen == r) {
                    Some((_, from)) => from.push((m.sender, &m.scenario)),
                    None => missed.push((r, vec![(m.sender, &m.scenario)])),
                }
            }
        }
        findings.extend(missed.into_iter().map(|(r, from)| {
            let senders = self.names(from.iter().map(|(s, _)| *s));
            let mut scenarios: Vec<&str> = from.iter().map(|(_, sc)| *sc).collect();
            scenarios.dedup();
            Finding {
                rail: 0,
                kind: FindingKind::Multicast { rank: r },
                text: format!(
                    "{} did not get every multicast message from {senders} ({}), while other \
                     receivers did: the group is not forwarded toward {} (missing IGMP \
                     snooping or multicast routing on its way, or its switch port not \
                     joined)",
                    self.label(r),
                    scenarios.join(", "),
                    self.label(r)
                ),
            }
        }));
        findings
    }

    /// No receiver got `sender`'s multicast.
    pub(super) fn nothing_received(
        &self,
        sender: usize,
        scenario: &str,
        receivers: usize,
    ) -> Finding {
        let who = if receivers == 1 {
            "its one receiver did not get it: either host or the fabric between them".into()
        } else {
            format!(
                "none of its {receivers} receivers got all of it: the sender's multicast does \
                 not leave it, or the fabric forwards the group to no one (IGMP snooping \
                 without a querier, multicast not routed)"
            )
        };
        Finding {
            rail: 0,
            kind: FindingKind::Multicast { rank: sender },
            text: format!("{}'s multicast ({scenario}): {who}", self.label(sender)),
        }
    }
}
