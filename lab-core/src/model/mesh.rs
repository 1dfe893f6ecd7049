//! A fabric smoke test (`rdma-lab mesh`): which pairs of N hosts run the
//! two-host lockstep in which round, and the plain data a mesh run
//! produced, which the judge diagnoses and the presenter draws.
//!
//! Hosts are named by their rank, `0..n`. Nothing here knows how a round
//! is carried out: the coordinator fills a [`MeshRun`] in.

/// Which pairs of hosts a mesh run tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Every unordered pair of hosts once: the whole fabric.
    AllPairs,
    /// Each host with its neighbours `i` and `i + 1 mod n`: a quick pass
    /// that touches every host twice.
    Ring,
    /// One host (the rank given) with every other: is it reachable by all?
    Star(usize),
}

impl Pattern {
    /// The pattern's name as a report shows it (and [`Pattern::parse`]
    /// reads it back): `all-pairs`, `ring`, `star:C`.
    pub fn name(&self) -> String {
        match self {
            Pattern::AllPairs => "all-pairs".into(),
            Pattern::Ring => "ring".into(),
            Pattern::Star(c) => format!("star:{c}"),
        }
    }

    /// A pattern from its [`Pattern::name`]; an error says what is accepted.
    pub fn parse(s: &str) -> Result<Pattern, UnknownPattern> {
        match s {
            "all-pairs" => Ok(Pattern::AllPairs),
            "ring" => Ok(Pattern::Ring),
            _ => s
                .strip_prefix("star:")
                .and_then(|c| c.parse().ok())
                .map(Pattern::Star)
                .ok_or_else(|| UnknownPattern(s.to_string())),
        }
    }
}

/// Two hosts that run the lockstep together: `server` is the serving
/// agent (it runs each scenario's server side), `client` the peer agent.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Pair {
    /// The rank of the serving agent's host.
    pub server: usize,
    /// The rank of the peer agent's host.
    pub client: usize,
}

impl Pair {
    /// Whether `rank` is one of the pair's hosts.
    pub fn has(&self, rank: usize) -> bool {
        self.server == rank || self.client == rank
    }

    /// The pair's other host than `rank` (the client when `rank` is neither).
    pub fn other(&self, rank: usize) -> usize {
        if self.client == rank {
            self.server
        } else {
            self.client
        }
    }

    /// Whether the pair joins `a` and `b`, in either role.
    pub fn joins(&self, a: usize, b: usize) -> bool {
        (self.server, self.client) == (a, b) || (self.server, self.client) == (b, a)
    }
}

/// The rounds of a mesh run of `n` hosts: in a round no host appears
/// twice, so its pairs can run in parallel. Fewer than two hosts have no
/// rounds. A star whose centre is not one of the `n` hosts is an error
/// (rather than an empty schedule, which would pass silently).
///
/// - `AllPairs`: the circle method, every unordered pair once, in `n - 1`
///   rounds for even `n` and `n` for odd `n` (a host sits out each round).
///   Who serves goes by the pair's distance around the circle, so each
///   host serves `(n - 1) / 2` pairs, or one more.
/// - `Ring`: the edges `(i, i + 1 mod n)`, each once, `i` serving: two
///   rounds for even `n >= 4`, three for odd `n >= 3` (an odd cycle cannot
///   be split in two), one for `n = 2`.
/// - `Star(c)`: `c` with each other host, one a round (`n - 1` rounds),
///   serving every other round so both of its roles are tried.
pub fn schedule(n: usize, pattern: Pattern) -> Result<Vec<Vec<Pair>>, CentreNotAHost> {
    if let Pattern::Star(c) = pattern {
        if c >= n {
            return Err(CentreNotAHost {
                centre: c,
                hosts: n,
            });
        }
    }
    if n < 2 {
        return Ok(Vec::new());
    }
    Ok(match pattern {
        Pattern::AllPairs => all_pairs(n),
        Pattern::Ring => ring(n),
        Pattern::Star(c) => star(n, c),
    })
}

/// A pattern's name that is none ([`Pattern::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mesh pattern `{0}`: expected all-pairs, ring or star:RANK")]
pub struct UnknownPattern(pub String);

message_of!(UnknownPattern);

/// A star whose centre is not one of the hosts ([`schedule`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the star's centre, host {centre}, is not one of the {hosts} hosts (ranks 0 to {})",
    hosts.saturating_sub(1)
)]
pub struct CentreNotAHost {
    /// The centre's rank.
    pub centre: usize,
    /// How many hosts there are.
    pub hosts: usize,
}

message_of!(CentreNotAHost);

/// The pair of `a` and `b` with the server chosen by their distance
/// around the circle of `n`: `a` serves when `b` is at most half way round
/// after it. For even `n` the host exactly opposite is a tie, which the
/// lower rank serves.
// Inlined even unoptimised (LLVM's always-inliner runs at -O0): the
// schedule calls it for each of a million pairs.
#[inline(always)]
fn oriented(n: usize, a: usize, b: usize) -> Pair {
    let d = if b >= a { b - a } else { b + n - a };
    let a_serves = 2 * d < n || (2 * d == n && a < b);
    if a_serves {
        Pair {
            server: a,
            client: b,
        }
    } else {
        Pair {
            server: b,
            client: a,
        }
    }
}

/// The circle method: host `m - 1` stays put and the others turn one
/// place a round; for odd `n` a phantom host `n` makes `m` even, and
/// whoever meets it sits the round out. Each round is filled in place by
/// index in one scratch round, no push per pair: the tests check a million-pair schedule for
/// every `n` up to 1024 in an unoptimised build.
fn all_pairs(n: usize) -> Vec<Vec<Pair>> {
    let m = n + n % 2;
    let turning = m - 1;
    let mut rounds = Vec::with_capacity(turning);
    let mut scratch = vec![
        Pair {
            server: 0,
            client: 0
        };
        n / 2
    ];
    let slots = &mut scratch[..];
    for r in 0..turning {
        let mut filled = 0;
        if m - 1 < n {
            slots[0] = oriented(n, r, m - 1);
            filled = 1;
        }
        // The k-th pair of the round: r + k and r - k around the circle.
        let (mut a, mut b) = (r, r);
        let mut k = 1;
        while k < m / 2 {
            a = if a + 1 == turning { 0 } else { a + 1 };
            b = if b == 0 { turning - 1 } else { b - 1 };
            if a < n && b < n {
                slots[filled] = oriented(n, a, b);
                filled += 1;
            }
            k += 1;
        }
        rounds.push(slots[..filled].to_vec());
    }
    rounds
}

/// The ring's edges split into rounds of disjoint edges: even starts,
/// then odd starts, then (for odd `n`) the edge that closes the ring.
fn ring(n: usize) -> Vec<Vec<Pair>> {
    let edge = |i: usize| Pair {
        server: i,
        client: (i + 1) % n,
    };
    if n == 2 {
        return vec![vec![edge(0)]];
    }
    let last = if n % 2 == 0 { n } else { n - 1 };
    let mut rounds = vec![
        (0..last).step_by(2).map(edge).collect::<Vec<_>>(),
        (1..last).step_by(2).map(edge).collect(),
    ];
    if n % 2 == 1 {
        rounds.push(vec![edge(n - 1)]);
    }
    rounds
}

/// The star's rounds: one pair each, the centre serving every other one.
fn star(n: usize, c: usize) -> Vec<Vec<Pair>> {
    (0..n)
        .filter(|&h| h != c)
        .enumerate()
        .map(|(r, h)| {
            let (server, client) = if r % 2 == 0 { (c, h) } else { (h, c) };
            vec![Pair { server, client }]
        })
        .collect()
}

/// A multicast round: one host sends to a group that all the others join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mcast {
    /// The rank of the sending host.
    pub sender: usize,
    /// The ranks of the receiving hosts, every host but the sender.
    pub receivers: Vec<usize>,
}

/// The multicast rounds of `n` hosts: by default one, with host 0
/// sending; with `all_senders`, one for each host in turn, which also
/// finds a host whose own sends are not forwarded. Fewer than two hosts
/// have none.
pub fn mcast_rounds(n: usize, all_senders: bool) -> Vec<Mcast> {
    if n < 2 {
        return Vec::new();
    }
    let senders = if all_senders { n } else { 1 };
    (0..senders)
        .map(|sender| Mcast {
            sender,
            receivers: (0..n).filter(|&h| h != sender).collect(),
        })
        .collect()
}

/// Whether a host took part in the run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Joined {
    /// It joined and stayed to the end.
    Joined,
    /// It never joined; the coordinator waited this long for it.
    NeverJoined {
        /// How long the coordinator waited, in seconds.
        waited_secs: u64,
    },
    /// It joined, then its agent went away.
    Died {
        /// When: the round or scenario the coordinator was in, as it says it.
        during: String,
    },
    /// It joined to say that it cannot take part (no RDMA device, no
    /// address), and was handed no pair.
    CannotRun {
        /// Why, as the host said it.
        why: String,
    },
}

/// One host of a mesh run, as its agent and its doctor described it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeshHost {
    /// Its rank, `0..n`, its index in [`MeshRun::hosts`].
    pub rank: usize,
    /// Its host name, as it gave it (untrusted text).
    pub name: String,
    /// The address its RDMA device is reached at.
    pub rdma_addr: String,
    /// The network device under its RDMA device.
    pub netdev: String,
    /// The netdev's MTU, when the doctor read it.
    pub mtu: Option<u32>,
    /// The GID type the lab uses on it (`RoCE v2`, `IB/RoCE v1`), when known.
    pub gid_type: Option<String>,
    /// The subnet of its RDMA address, e.g. `192.0.2.0/24`, when known.
    pub subnet: Option<String>,
    /// The doctor's findings on it; empty when it found nothing.
    pub findings: Vec<String>,
    /// Its rail ports: every active RDMA port with an IPv4 address (none
    /// when it did not say).
    pub ports: Vec<crate::model::rails::Port>,
    /// Whether it took part.
    pub joined: Joined,
}

/// What a scenario of a pair (or a multicast receiver) came to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    /// It ran and met its expectations.
    Pass,
    /// It ran and did not.
    Fail,
    /// A side declined it (its mode cannot run it); the detail says why.
    Skip,
    /// It could not run: a host was missing or the round's deadline passed.
    NotRun(String),
    /// A serving host's session could not start: another process holds
    /// its port (neither host's nor the link's fault). The coordinator
    /// makes the pair's cell not run with this reason.
    PortHeld(String),
}

impl Verdict {
    /// Whether it ran, passed or failed: what the diagnosis counts.
    pub fn ran(&self) -> bool {
        matches!(self, Verdict::Pass | Verdict::Fail)
    }
}

/// One scenario of a pair's lockstep.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScenarioResult {
    /// The scenario's name in the catalog.
    pub scenario: String,
    /// What it came to.
    pub verdict: Verdict,
    /// The judge's failures, or the skip's reason; empty when it passed.
    pub detail: String,
    /// The server side's transcript, when it ran.
    pub server_log: Option<String>,
    /// The client side's transcript, when it ran.
    pub client_log: Option<String>,
    /// Why a program of a failed scenario never started, when one did
    /// not: the judge's failure that says so (`SIDE: could not start
    /// PATH: REASON`), or for the doctor's probe its finding. Such a
    /// failure says nothing of the path, and the diagnosis says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unstarted: Option<String>,
}

impl ScenarioResult {
    /// A scenario that ran, judged: a pass without failures, else a fail
    /// whose detail is the failures. `unstarted` is the judge's
    /// [`crate::judge::unstarted`] of the same run.
    pub fn judged(
        scenario: &str,
        failures: &[String],
        unstarted: Option<String>,
        server_log: Option<String>,
        client_log: Option<String>,
    ) -> ScenarioResult {
        ScenarioResult {
            scenario: scenario.to_string(),
            verdict: if failures.is_empty() {
                Verdict::Pass
            } else {
                Verdict::Fail
            },
            detail: failures.join("; "),
            server_log,
            client_log,
            unstarted: unstarted.filter(|_| !failures.is_empty()),
        }
    }
}

/// A pair of a round and its scenarios' results.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PairCell {
    /// The two hosts.
    pub pair: Pair,
    /// The round it ran in, an index into the schedule.
    pub round: usize,
    /// The rail it ran on, an index into [`MeshRun::rails`] (0: the
    /// hosts' RDMA addresses).
    pub rail: usize,
    /// Its scenarios, in the order they ran.
    pub results: Vec<ScenarioResult>,
    /// The loss counters that rose on either host's port while the pair
    /// ran: `(rank, counter, by how much)`.
    pub counters: Vec<(usize, String, u64)>,
    /// Its measurements taken again alone, after the rounds, when they
    /// made it a suspect (`mesh --perf`).
    pub alone: Vec<ScenarioResult>,
    /// The lesser link rate of its two ports on its rail, in Gb/s, as
    /// sysfs gives it; `None` when a host did not say.
    pub rate_gbps: Option<f64>,
    /// Each host's own word on its side ([`SideReport`]), from its own
    /// `done`; none in a record of a run from before the hosts gave it.
    #[serde(default)]
    pub reports: Vec<SideReport>,
    /// The same of its measurements taken again alone.
    #[serde(default)]
    pub alone_reports: Vec<SideReport>,
}

/// One host's own word on its side of a pair, from its own `done`: what
/// no other host can write for it. (The peer side's `done` carries both
/// sides' transcripts, which that host alone wrote.)
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SideReport {
    /// The host's rank.
    pub rank: usize,
    /// Each measurement its side ran (`mesh --perf`).
    pub measures: Vec<Measure>,
    /// How long it read its port's counters of the pair
    /// ([`PairCell::counters`]), in ms, when it said.
    pub elapsed_ms: Option<u64>,
}

/// One host's side of one measurement.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measure {
    /// The measurement's name in the catalog.
    pub scenario: String,
    /// The report its side's perftest wrote (its `key: value` lines): the
    /// sender's own figure, or on the passive side its copy of the
    /// sender's, which perftest prints there.
    pub report: String,
    /// The receive counters of its port that rose while its side ran,
    /// and by how much.
    pub received: Vec<(String, u64)>,
    /// Its port's active MTU in bytes, when known.
    pub mtu: Option<u32>,
}

impl PairCell {
    /// The pair's verdict as a whole: `Fail` when any scenario failed;
    /// else `NotRun` when any could not run (the first one's reason), or
    /// when there were none; else `Pass` when any passed; else `Skip`.
    pub fn verdict(&self) -> Verdict {
        let any = |f: fn(&Verdict) -> bool| self.results.iter().any(|r| f(&r.verdict));
        if any(|v| *v == Verdict::Fail) {
            return Verdict::Fail;
        }
        if let Some(Verdict::NotRun(why) | Verdict::PortHeld(why)) = self
            .results
            .iter()
            .map(|r| &r.verdict)
            .find(|v| matches!(v, Verdict::NotRun(_) | Verdict::PortHeld(_)))
        {
            return Verdict::NotRun(why.clone());
        }
        if self.results.is_empty() {
            return Verdict::NotRun("no scenario ran".into());
        }
        if any(|v| *v == Verdict::Pass) {
            Verdict::Pass
        } else {
            Verdict::Skip
        }
    }

    /// The names of the scenarios that failed, in order.
    pub fn failed(&self) -> Vec<&str> {
        self.results
            .iter()
            .filter(|r| r.verdict == Verdict::Fail)
            .map(|r| r.scenario.as_str())
            .collect()
    }
}

/// A multicast round's outcome at each receiver.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct McastResult {
    /// The rank of the sending host.
    pub sender: usize,
    /// The multicast scenario that ran.
    pub scenario: String,
    /// Each receiver's rank and verdict: `Fail` when it did not get every
    /// message.
    pub receivers: Vec<(usize, Verdict)>,
}

/// A whole mesh run: what the judge diagnoses and the presenter draws.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeshRun {
    /// Every host, in rank order (`hosts[i].rank == i`).
    pub hosts: Vec<MeshHost>,
    /// Every scheduled pair, once.
    pub cells: Vec<PairCell>,
    /// The multicast rounds.
    pub mcast: Vec<McastResult>,
    /// The pattern's name ([`Pattern::name`]).
    pub pattern_name: String,
    /// The rails the pairs ran on: rail 0, the hosts' RDMA addresses,
    /// then each subnet that two hosts or more have ports on
    /// ([`crate::model::rails`]); `None` for rail 0 (its hosts' subnets
    /// may differ).
    pub rails: Vec<Option<crate::model::rails::Subnet>>,
    /// What makes a measured link slow (`mesh --perf`); `None` when the
    /// links were not measured.
    pub perf: Option<PerfLimits>,
    /// An earlier run's figures, each link judged against its own
    /// (`--baseline`); `None` without one.
    #[serde(default)]
    pub baseline: Option<crate::model::baseline::Baseline>,
}

/// What makes a link slow, against the run's other links: bandwidth
/// below a share of the median, or below a floor; latency above a
/// multiple of the median.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PerfLimits {
    /// The least share of the median bandwidth (`--min-bw-ratio`).
    pub min_bw_ratio: f64,
    /// The least bandwidth in Gb/s (`--min-gbps`), when given.
    pub min_gbps: Option<f64>,
    /// The most latency as a multiple of the median (`--max-lat-ratio`).
    pub max_lat_ratio: f64,
    /// The least share of the ports' own link rate (`--min-rate-ratio`),
    /// when given.
    pub min_rate_ratio: Option<f64>,
    /// The QP timeout every measurement runs with (`--qp-timeout`,
    /// perftest's `-u`: 4.096 usec x 2^T), when not perftest's own 14.
    pub qp_timeout: Option<u8>,
}

impl Default for PerfLimits {
    fn default() -> PerfLimits {
        PerfLimits {
            min_bw_ratio: 0.5,
            min_gbps: None,
            max_lat_ratio: 2.0,
            min_rate_ratio: None,
            qp_timeout: None,
        }
    }
}

impl MeshRun {
    /// The cell of the pair of `a` and `b` on rail 0, in either role, if
    /// scheduled.
    pub fn cell(&self, a: usize, b: usize) -> Option<&PairCell> {
        self.cells
            .iter()
            .find(|c| c.rail == 0 && c.pair.joins(a, b))
    }

    /// The device host `rank` is on at each rail of the run, by rail: on
    /// rail 0 its RDMA address's, past it its port on the rail's subnet;
    /// `None` where it said no such port.
    pub fn rail_devs(&self, rank: usize) -> Vec<Option<String>> {
        let Some(h) = self.hosts.get(rank) else {
            return Vec::new();
        };
        let on = |rail: &Option<crate::model::rails::Subnet>| {
            h.ports
                .iter()
                .find(|p| match rail {
                    None => p.addr.to_string() == h.rdma_addr,
                    Some(net) => p.subnet() == *net,
                })
                .map(|p| p.dev.clone())
        };
        self.rails.iter().map(on).collect()
    }

    /// Rail `rail` as a run of its own: its cells; for a rail past 0, each
    /// host named with its device there (`node2 rxe1`), and none of what
    /// rail 0 judges for the whole host (doctor, ports, multicast), so
    /// that the judge and the presenter take it as they take a run.
    pub fn rail_view(&self, rail: usize) -> MeshRun {
        let subnet = self.rails.get(rail).copied().flatten();
        let hosts = self
            .hosts
            .iter()
            .map(|h| match subnet {
                None => h.clone(),
                Some(net) => MeshHost {
                    name: match h.ports.iter().find(|p| p.subnet() == net) {
                        Some(p) => format!("{} {}", h.name, p.dev),
                        None => h.name.clone(),
                    },
                    findings: Vec::new(),
                    ports: Vec::new(),
                    ..h.clone()
                },
            })
            .collect();
        MeshRun {
            hosts,
            cells: self
                .cells
                .iter()
                .filter(|c| c.rail == rail)
                .cloned()
                .collect(),
            mcast: if rail == 0 {
                self.mcast.clone()
            } else {
                Vec::new()
            },
            pattern_name: self.pattern_name.clone(),
            rails: vec![subnet],
            perf: self.perf,
            // Judged on the whole run, its rails by subnet.
            baseline: None,
        }
    }

    /// Rail `rail` as a report names it: `rail 1 (198.51.100.0/24)`.
    pub fn rail_name(&self, rail: usize) -> String {
        match self.rails.get(rail).copied().flatten() {
            Some(net) => format!("rail {rail} ({net})"),
            None => format!("rail {rail}"),
        }
    }

    /// The name of host `rank`, or `host RANK` for a rank with no host.
    pub fn name(&self, rank: usize) -> String {
        self.hosts
            .get(rank)
            .map_or_else(|| format!("host {rank}"), |h| h.name.clone())
    }
}

/// Where a scenario's transcript of one side (`server` or `client`) of a
/// pair goes, relative to the mesh run's directory:
/// `pairs/<server>-<client>/<scenario>.<side>.txt`, by rank, since a host
/// name is the host's own text and could name a path. The scenario's name
/// keeps only `[A-Za-z0-9._-]` (anything else becomes `_`) for the same
/// reason. The coordinator writes them there; the HTML page links to them.
pub fn transcript_path(pair: Pair, rail: usize, scenario: &str, side: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    // Rail 0's where they always were; another rail's in a dir of its own.
    let rail = if rail == 0 {
        String::new()
    } else {
        format!("rail{rail}/")
    };
    format!(
        "pairs/{}-{}/{rail}{}.{}.txt",
        pair.server,
        pair.client,
        clean(scenario),
        clean(side)
    )
}

#[cfg(test)]
mod tests;

/// Hand-built mesh runs for the tests of the judges and of the crates
/// above (which cannot see this crate's `cfg(test)` items). Always built:
/// behind a feature, the lab's test builds would compile the core and the
/// lab a second time.
pub mod testkit;
