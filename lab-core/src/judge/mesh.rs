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
    /// The details of those failures that are a program that never
    /// started (`could not start PATH: REASON`), not a fault of the path.
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
                    .filter(|r| r.verdict == Verdict::Fail && r.detail.contains(NOT_STARTED))
                    .map(|r| r.detail.as_str())
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

    /// Where to look when many pairs fail: what every host shares, unless
    /// every failure is a program that never started, which is said
    /// instead; with some such failures, they are said as well.
    fn fabric_hint(&self) -> String {
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
    fn unstarted_note(r: &[&Ran]) -> String {
        r.iter()
            .flat_map(|r| r.unstarted.first())
            .next()
            .map_or(String::new(), |first| {
                format!(" A program never started there, not a network fault: {first}.")
            })
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

    /// What the doctor sees differ between `a` and `b`: MTU, GID type and
    /// subnet, each with why it matters; or that nothing does.
    fn differences(&self, a: usize, b: usize) -> String {
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
    fn odd_one_out(&self, rank: usize) -> String {
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
    fn doctor(&self, rank: usize, whose: &str) -> String {
        let findings = self.host(rank).map_or(&[][..], |h| &h.findings[..]);
        if findings.is_empty() {
            format!("{whose} doctor found nothing.")
        } else {
            format!("{whose} doctor found: {}.", findings.join("; "))
        }
    }

    /// The doctors' findings on the hosts of `ranks` that have any, as
    /// sentences after a finding's text; nothing when none has any.
    fn doctors_if_any(&self, ranks: &[usize]) -> String {
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
    fn doctors_summed(&self) -> String {
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
    fn names(&self, ranks: impl Iterator<Item = usize>) -> String {
        let all: Vec<usize> = ranks.collect();
        let mut shown: Vec<String> = all.iter().take(MAX_NAMES).map(|&r| self.label(r)).collect();
        if all.len() > MAX_NAMES {
            shown.push(format!("{} more", all.len() - MAX_NAMES));
        }
        shown.join(", ")
    }

    /// One finding per pair whose hosts' counters show it lost several
    /// times the share of its packets the links beside it did
    /// ([`crate::judge::loss`]), with every loss counter that rose: a
    /// lossy link, named even when its scenarios passed.
    fn lossy(&self) -> Vec<Finding> {
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
    fn slow(&self) -> Vec<Finding> {
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
                let mut by_peer: Vec<(usize, &Vec<String>)> = mine
                    .iter()
                    .map(|(i, why)| {
                        let l = &links[*i];
                        (if l.0 == *h { l.1 } else { l.0 }, why)
                    })
                    .collect();
                by_peer.sort_unstable_by_key(|(peer, _)| *peer);
                let each: Vec<String> = by_peer
                    .iter()
                    .map(|(peer, why)| format!("{}: {}", self.label(*peer), why.join("; ")))
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
                    why.join("; ")
                ),
            });
        }
        found
    }

    /// One finding per multicast receiver that missed messages, naming
    /// its senders; one per sender whose messages no receiver got.
    fn multicast(&self) -> Vec<Finding> {
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
    fn nothing_received(&self, sender: usize, scenario: &str, receivers: usize) -> Finding {
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

/// How a verdict's detail says that a program never started
/// ([`crate::model::not_started`]).
const NOT_STARTED: &str = "could not start ";

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

#[cfg(test)]
mod tests;
