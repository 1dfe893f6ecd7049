//! The diagnosis of a mesh run: from the pairs' verdicts to the host, the
//! link or the fabric an administrator should look at.
//!
//! Only pairs that ran (passed or failed) between two hosts that took part
//! count. A host that never joined, died, or joined to say it cannot take
//! part is reported once as such (the last with its reason and its
//! doctor's findings), and none of its pairs count against anyone: a pair
//! that failed because its peer died says nothing about the peer's
//! partner. The rest, in order: every pair failed (the fabric); a host
//! that fails with most of its peers while the others pass among
//! themselves (the host); a failing pair of otherwise good hosts (the
//! link); each host's doctor findings that no finding above has named
//! (a finding of the run, passed pairs or not); and the multicast
//! rounds.

use crate::model::mesh::{Joined, MeshHost, MeshRun, Pair, Verdict};

use super::finding::{Finding, FindingKind};

/// The findings of `run`: rail 0's (missing hosts first, then the fabric,
/// hosts and links, then multicast), then each other rail's, judged as a
/// run of its own and named by its rail and the hosts' devices there;
/// none when everything passed. A host that fails on a rail past 0 and
/// not on rail 0 is its NIC there, not the host.
pub fn diagnose(run: &MeshRun) -> Vec<Finding> {
    let first = run.rail_view(0);
    let mut findings = diagnose_rail(&first);
    // A host is well on rail 0 when each of its pairs there ran and
    // passed, and no finding there names it.
    let well = |rank: usize| {
        let mine: Vec<&crate::model::mesh::PairCell> =
            first.cells.iter().filter(|c| c.pair.has(rank)).collect();
        !mine.is_empty()
            && mine.iter().all(|c| c.verdict() == Verdict::Pass)
            && !findings.iter().any(|f| f.kind.ranks().contains(&rank))
    };
    let well: Vec<bool> = (0..run.hosts.len()).map(well).collect();
    for rail in 1..run.rails.len() {
        let view = run.rail_view(rail);
        for f in diagnose_rail(&view) {
            // Who is missing, or cannot take part, is said once, on rail 0.
            if matches!(
                f.kind,
                FindingKind::Missing { .. } | FindingKind::CannotTakePart { .. }
            ) {
                continue;
            }
            // A host that fails on rail 0 too is named there, once: its
            // other rails are a line of that finding, not findings of their
            // own (the host, not each of its NICs).
            if let FindingKind::HostFault { rank } = f.kind {
                let on_rail_0 = findings
                    .iter_mut()
                    .find(|g| g.rail == 0 && g.kind == FindingKind::HostFault { rank });
                if let Some(g) = on_rail_0 {
                    g.text += &format!(" It fails on {} too.", run.rail_name(rail));
                    continue;
                }
            }
            let nic = match f.kind {
                FindingKind::HostFault { rank } | FindingKind::SlowHost { rank }
                    if well.get(rank).copied().unwrap_or(false) =>
                {
                    let stop = if f.text.ends_with('.') { "" } else { "." };
                    format!(
                        "{stop} It passes on rail 0: its NIC on {}, not the host.",
                        run.rail_name(rail)
                    )
                }
                _ => String::new(),
            };
            findings.push(Finding {
                text: format!("{}: {}{nic}", run.rail_name(rail), f.text),
                rail,
                ..f
            });
        }
    }
    findings.extend(crate::judge::baseline::judge(run).0);
    findings
}

/// The findings of one rail's run ([`MeshRun::rail_view`]).
fn diagnose_rail(run: &MeshRun) -> Vec<Finding> {
    let mesh = Mesh::new(run);
    let mut findings = mesh.missing();
    findings.extend(mesh.rails());
    findings.extend(mesh.pairs());
    // A fabric-wide finding quotes every doctor already, with its hosts.
    if !findings.iter().any(|f| f.kind == FindingKind::FabricWide) {
        let named: Vec<usize> = findings.iter().flat_map(|f| f.kind.ranks()).collect();
        findings.extend(mesh.doctors(&named));
    }
    findings.extend(mesh.lossy());
    findings.extend(mesh.slow());
    findings.extend(crate::judge::trust::findings(run, &|r| mesh.label(r)));
    findings.extend(mesh.multicast());
    findings
}

/// One thing the doctor saw on a host, read from its record.
type Fact = fn(&MeshHost) -> Option<String>;

/// A pair that ran between two hosts that took part.
struct Ran<'a> {
    pair: Pair,
    /// The scenarios that failed; empty when it passed.
    failed: Vec<&'a str>,
    /// Of those failures, the programs that never started
    /// ([`crate::model::mesh::ScenarioResult::unstarted`]), not a fault of the path.
    unstarted: Vec<&'a str>,
}

/// The run with what the rules ask of it at hand.
struct Mesh<'a> {
    run: &'a MeshRun,
    /// Whether each host took part, by rank.
    joined: Vec<bool>,
    ran: Vec<Ran<'a>>,
}

/// The rules' thresholds. A host fault takes more than half of the pairs
/// the host ran failing, and at least this many: one failing pair alone
/// is as much its peer's.
const HOST_MIN_FAILS: usize = 2;

/// At most this many names in a list of peers; the rest are counted.
const MAX_NAMES: usize = 8;

impl<'a> Mesh<'a> {
    fn new(run: &'a MeshRun) -> Self {
        let joined: Vec<bool> = run
            .hosts
            .iter()
            .map(|h| h.joined == Joined::Joined)
            .collect();
        let took_part = |r: usize| joined.get(r).copied().unwrap_or(false);
        let ran = run
            .cells
            .iter()
            .filter(|c| took_part(c.pair.server) && took_part(c.pair.client))
            .filter(|c| c.verdict().ran())
            .map(|c| Ran {
                pair: c.pair,
                failed: c.failed(),
                unstarted: c
                    .results
                    .iter()
                    .filter(|r| r.verdict == Verdict::Fail)
                    .filter_map(|r| r.unstarted.as_deref())
                    .collect(),
            })
            .collect();
        Mesh { run, joined, ran }
    }

    /// How a host is named in a finding: its name, with its rank when the
    /// name is empty or another host's too.
    fn label(&self, rank: usize) -> String {
        let name = self.run.name(rank);
        let shared = self.run.hosts.iter().filter(|h| h.name == name).count() > 1;
        if name.is_empty() || shared {
            format!("{name} (rank {rank})").trim_start().to_string()
        } else {
            name
        }
    }

    fn host(&self, rank: usize) -> Option<&'a MeshHost> {
        self.run.hosts.get(rank)
    }

    /// One finding per host that never joined or died.
    fn missing(&self) -> Vec<Finding> {
        let mut findings = Vec::new();
        for h in self.run.hosts.iter().filter(|h| h.joined != Joined::Joined) {
            let pairs = self.run.cells.iter().filter(|c| c.pair.has(h.rank)).count();
            let mut kind = FindingKind::Missing { rank: h.rank };
            let text = match &h.joined {
                Joined::Joined => continue,
                Joined::CannotRun { why } => {
                    kind = FindingKind::CannotTakePart { rank: h.rank };
                    format!(
                        "{} cannot take part: {why}. Its {} did not run, and count against no \
                         one. {}",
                        self.label(h.rank),
                        plural(pairs, "pair"),
                        self.doctor(h.rank, "Its")
                    )
                }
                Joined::NeverJoined { waited_secs } => format!(
                    "{} never joined (waited {waited_secs} s for it): its {} did not run, \
                     and count against no one; is its agent running, and can it reach the \
                     coordinator?",
                    self.label(h.rank),
                    plural(pairs, "pair")
                ),
                Joined::Died { during } => format!(
                    "{} died during {during}: its {} count against no one (those after it \
                     did not run); look at its agent's log and the host's kernel log",
                    self.label(h.rank),
                    plural(pairs, "pair")
                ),
            };
            findings.push(Finding {
                kind,
                text,
                rail: 0,
            });
        }
        findings
    }

    /// The rails' findings among the hosts that took part and said which
    /// ports they have.
    fn rails(&self) -> Vec<Finding> {
        let told: Vec<&MeshHost> = self
            .run
            .hosts
            .iter()
            .filter(|h| self.joined[h.rank] && !h.ports.is_empty())
            .collect();
        let names: Vec<String> = told.iter().map(|h| self.label(h.rank)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let ports: Vec<(String, Vec<_>)> = told
            .iter()
            .zip(&names)
            .map(|(h, n)| (n.to_string(), h.ports.clone()))
            .collect();
        crate::judge::rails::findings(&names, &crate::model::rails::rails(&ports))
            .into_iter()
            .map(|(at, text)| Finding {
                rail: 0,
                kind: FindingKind::Rail {
                    rank: told[at].rank,
                },
                text,
            })
            .collect()
    }

    /// One finding per host that took part whose doctor found something
    /// and that no finding in `named` names: what the examples will meet
    /// there, whether its pairs passed or not.
    fn doctors(&self, named: &[usize]) -> Vec<Finding> {
        self.run
            .hosts
            .iter()
            .filter(|h| self.joined[h.rank] && !h.findings.is_empty() && !named.contains(&h.rank))
            .map(|h| {
                let mine: Vec<&Ran> = self.ran.iter().filter(|r| r.pair.has(h.rank)).collect();
                let failed = mine.iter().filter(|r| !r.failed.is_empty()).count();
                let pairs = match (mine.len(), failed) {
                    (0, _) => "none of its pairs ran".to_string(),
                    (n, 0) => format!("its {} passed anyway", plural(n, "pair")),
                    (n, f) => format!("{f} of its {} failed", plural(n, "pair")),
                };
                Finding {
                    rail: 0,
                    kind: FindingKind::Doctor { rank: h.rank },
                    text: format!(
                        "{}'s doctor found: {} ({pairs}): the examples meet it there, so fix \
                         it there",
                        self.label(h.rank),
                        h.findings.join("; ")
                    ),
                }
            })
            .collect()
    }

    /// The findings of the pairs that ran: one for the fabric, or the
    /// hosts and the links to blame.
    fn pairs(&self) -> Vec<Finding> {
        let failing = self.ran.iter().filter(|r| !r.failed.is_empty()).count();
        if failing == 0 {
            return Vec::new();
        }
        let hosts = self.hosts_that_ran();
        if hosts.len() == 2 {
            return self.two_hosts(hosts[0], hosts[1]);
        }
        if failing == self.ran.len() {
            return vec![self.all_failed()];
        }
        let blamed = self.blame_hosts(hosts.len());
        let others: Vec<&Ran> = self
            .ran
            .iter()
            .filter(|r| !blamed.iter().any(|&b| r.pair.has(b)))
            .collect();
        let others_failing = others.iter().filter(|r| !r.failed.is_empty()).count();
        if 2 * blamed.len() > hosts.len() || 2 * others_failing >= others.len().max(1) {
            return vec![self.widespread(failing, hosts.len())];
        }
        let mut findings: Vec<Finding> = blamed
            .iter()
            .map(|&h| self.host_fault(h, others_failing, others.len()))
            .collect();
        // The links by rank, not by round, so that a host's links are together.
        let mut links: Vec<&&Ran> = others.iter().filter(|r| !r.failed.is_empty()).collect();
        links.sort_by_key(|r| ordered(r.pair));
        findings.extend(links.into_iter().map(|r| self.link_fault(r)));
        findings
    }

    /// The ranks of the hosts of the pairs that ran, in order.
    fn hosts_that_ran(&self) -> Vec<usize> {
        let mut seen = vec![false; self.run.hosts.len()];
        for r in &self.ran {
            seen[r.pair.server] = true;
            seen[r.pair.client] = true;
        }
        (0..seen.len()).filter(|&h| seen[h]).collect()
    }

    /// Each host's pairs that ran: `(peer, failed scenarios)`, by rank.
    fn by_host(&self) -> Vec<Vec<(usize, &Ran<'a>)>> {
        let mut by_host = vec![Vec::new(); self.run.hosts.len()];
        for r in &self.ran {
            by_host[r.pair.server].push((r.pair.client, r));
            by_host[r.pair.client].push((r.pair.server, r));
        }
        by_host
    }

    /// The hosts to blame, one at a time: the one with the most failing
    /// pairs not yet explained by a host already blamed, while those are
    /// more than half of its unexplained pairs and at least
    /// [`HOST_MIN_FAILS`]. Blaming one at a time lets two bad hosts both
    /// be found: each one's failures with the other are explained by
    /// whichever is blamed first. It stops past half of the `hosts` that
    /// ran, which is no longer a few bad hosts.
    fn blame_hosts(&self, hosts: usize) -> Vec<usize> {
        let by_host = self.by_host();
        let mut blamed: Vec<usize> = Vec::new();
        while 2 * blamed.len() <= hosts {
            let mut best: Option<(usize, usize, usize)> = None;
            for (h, pairs) in by_host.iter().enumerate() {
                if blamed.contains(&h) {
                    continue;
                }
                let open = pairs.iter().filter(|(peer, _)| !blamed.contains(peer));
                let (mut ran, mut failed) = (0, 0);
                for (_, r) in open {
                    ran += 1;
                    failed += usize::from(!r.failed.is_empty());
                }
                if 2 * failed <= ran || failed < HOST_MIN_FAILS {
                    continue;
                }
                // More failures first; on a tie, the larger share of its
                // pairs (f/r > bf/br), then the lower rank.
                let better = match best {
                    None => true,
                    Some((_, bf, br)) => failed > bf || (failed == bf && failed * br > bf * ran),
                };
                if better {
                    best = Some((h, failed, ran));
                }
            }
            match best {
                Some((h, _, _)) => blamed.push(h),
                None => break,
            }
        }
        blamed
    }

    /// A host fault: how many of its peers failed, which, the scenarios
    /// and the doctor's findings on it.
    fn host_fault(&self, rank: usize, others_failing: usize, others: usize) -> Finding {
        let mine: Vec<&Ran> = self.ran.iter().filter(|r| r.pair.has(rank)).collect();
        let failing: Vec<&&Ran> = mine.iter().filter(|r| !r.failed.is_empty()).collect();
        let mut peers: Vec<usize> = failing.iter().map(|r| r.pair.other(rank)).collect();
        peers.sort_unstable();
        let peers = self.names(peers.into_iter());
        let how_many = if failing.len() == mine.len() {
            format!("every one of its {} ({peers})", plural(mine.len(), "peer"))
        } else {
            format!("{} of its {} peers ({peers})", failing.len(), mine.len())
        };
        let others = if others == 0 {
            "it is in every pair that ran".to_string()
        } else if others_failing == 0 {
            "the pairs among the other hosts pass".to_string()
        } else {
            format!(
                "the pairs among the other hosts mostly pass ({} of {others})",
                others - others_failing
            )
        };
        Finding {
            rail: 0,
            kind: FindingKind::HostFault { rank },
            text: format!(
                "{} fails with {how_many}, while {others}: look at {} itself. Failed: {}. {}{}{}",
                self.label(rank),
                self.label(rank),
                scenario_counts(failing.iter().map(|r| &r.failed)),
                self.odd_one_out(rank),
                self.doctor(rank, "Its"),
                Self::unstarted_note(&failing.iter().map(|r| **r).collect::<Vec<_>>())
            ),
        }
    }

    /// A failing pair of two hosts that are otherwise good: its link.
    fn link_fault(&self, r: &Ran) -> Finding {
        let (a, b) = ordered(r.pair);
        Finding {
            rail: 0,
            kind: FindingKind::LinkFault { a, b },
            text: format!(
                "the link between {} and {} fails ({}), though both pass with their other \
                 peers: {}{}{}",
                self.label(a),
                self.label(b),
                r.failed.join(", "),
                self.differences(a, b),
                self.doctors_if_any(&[a, b]),
                Self::unstarted_note(&[r])
            ),
        }
    }

    /// With two hosts only, a failure is the pair's, and cannot be pinned
    /// on either host.
    fn two_hosts(&self, a: usize, b: usize) -> Vec<Finding> {
        let failed: Vec<&Ran> = self.ran.iter().filter(|r| !r.failed.is_empty()).collect();
        if failed.is_empty() {
            return Vec::new();
        }
        let text = format!(
            "{} and {} fail together (failed: {}). With only two hosts a failure cannot be \
             pinned on either one: it is one of the two, the link between them, or the fabric; \
             add a third host to tell which. {}. {} {}{}",
            self.label(a),
            self.label(b),
            failed[0].failed.join(", "),
            capitalised(&self.differences(a, b)),
            self.doctor(a, &format!("{}'s", self.label(a))),
            self.doctor(b, &format!("{}'s", self.label(b))),
            Self::unstarted_note(&failed)
        );
        vec![Finding {
            rail: 0,
            kind: FindingKind::LinkFault { a, b },
            text,
        }]
    }

    /// Every pair that ran failed: the fabric, said once.
    fn all_failed(&self) -> Finding {
        let mut text = format!(
            "every pair that ran failed ({} of {}; failed: {}): the fault is fabric-wide, not one \
             host's or one link's. {} {}",
            self.ran.len(),
            self.ran.len(),
            scenario_counts(self.ran.iter().map(|r| &r.failed)),
            self.fabric_hint(),
            self.doctors_summed()
        );
        let hosts = self.hosts_that_ran();
        if let Some(&common) = hosts
            .iter()
            .find(|&&h| self.ran.iter().all(|r| r.pair.has(h)))
        {
            text += &format!(
                " Every pair included {}, so it may be that host instead: an all-pairs run \
                 tells them apart.",
                self.label(common)
            );
        }
        Finding {
            rail: 0,
            kind: FindingKind::FabricWide,
            text,
        }
    }

    /// Most pairs failed, over most hosts: no few hosts or links to blame.
    fn widespread(&self, failing: usize, hosts: usize) -> Finding {
        Finding {
            rail: 0,
            kind: FindingKind::FabricWide,
            text: format!(
                "{failing} of the {} pairs that ran failed, spread over the {hosts} hosts: no \
                 one host or link explains them, so the fault is likely fabric-wide (failed: {}). \
                 {} {}",
                self.ran.len(),
                scenario_counts(self.ran.iter().map(|r| &r.failed)),
                self.fabric_hint(),
                self.doctors_summed()
            ),
        }
    }
}

/// What every host shares, where a fabric-wide failure comes from.
const FABRIC_HINT: &str = "Look at what every host shares: UDP port 4791 (RoCE v2) blocked by \
     a firewall on every host or in the switches, a GID policy the hosts do not share (GID \
     type, IPv4 or IPv6 GIDs), or no RDMA device at all.";

/// The pair's ranks, lower first.
fn ordered(p: Pair) -> (usize, usize) {
    (p.server.min(p.client), p.server.max(p.client))
}

/// `n` and the noun, plural when `n` is not one.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `s` with its first letter upper case.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// The failed scenarios of some pairs, each with how many pairs failed it,
/// in the order first seen: `rc_example (3 pairs), mckey (1 pair)`.
fn scenario_counts<'a, 'b: 'a>(failed: impl Iterator<Item = &'a Vec<&'b str>>) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in failed.flatten() {
        match counts.iter_mut().find(|(seen, _)| seen == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    let listed: Vec<String> = counts
        .iter()
        .map(|(s, n)| format!("{s} ({})", plural(*n, "pair")))
        .collect();
    listed.join(", ")
}

mod measured;
mod words;

#[cfg(test)]
mod tests;
