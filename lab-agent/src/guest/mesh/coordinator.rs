//! The mesh's coordinator: it waits (bounded) for the hosts to join,
//! schedules the pairs in rounds in which no host appears twice, hands
//! each round's pairs out at once, gathers their verdicts, and returns
//! the [`MeshRun`] the judge diagnoses. A host that never joins, dies, or
//! hangs is reported as such at its deadline; the rest of the matrix
//! still completes.

use super::messages::{self, Assignment, Hello, Plan};
use super::MeshError;
use crate::base::rundir::Dir;
use crate::base::text::shown;
use crate::catalog;
use crate::guest::agent::Role;
use crate::guest::control::{hex, nonce, Control, HandshakeError, Secret};
use crate::guest::gate::{self, Event, Gate};
use crate::model::mesh::{
    mcast_rounds, schedule, transcript_path, Joined, Mcast, McastResult, MeshHost, MeshRun, Pair,
    PairCell, Pattern, PerfLimits, ScenarioResult, SideReport, Verdict,
};
use crate::model::rails::{Port, Subnet};
use crate::model::Scenario;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::time::{Duration, Instant};

mod measure;
mod rails;

pub use measure::ALONE_MAX;
use measure::*;
use rails::*;

/// What the coordinator needs.
#[derive(Debug, Clone)]
pub struct CoordConfig {
    /// Where it listens.
    pub listen: SocketAddr,
    /// How many hosts take part.
    pub size: usize,
    /// The launcher's names of the hosts, by rank, where it knows them: a
    /// host that never joins is named by them.
    pub names: Vec<String>,
    /// Which pairs run.
    pub pattern: Pattern,
    /// The scenarios every pair runs.
    pub scenarios: Vec<String>,
    /// How long it waits for every host to join, in seconds.
    pub wait_secs: u64,
    /// The mesh's secret.
    pub secret: Secret,
    /// The run's dir, held open, where it writes the pairs' transcripts
    /// (`pairs/...`).
    pub out: Dir,
    /// Every host sends in a multicast round of its own (else host 0 only).
    pub mcast_all: bool,
    /// One pair at a time, whatever the schedule allows: the benchmark's
    /// baseline against the parallel rounds.
    pub serial: bool,
    /// Each pair also runs on every other rail its hosts share
    /// (`--rails`): rail `k` of two hosts is their ports on the `k`th
    /// subnet past their RDMA addresses'.
    pub rails: bool,
    /// Addresses that may join besides the launcher's hosts' (`--allow`);
    /// when both are empty, any address may.
    pub allow: Vec<std::net::IpAddr>,
    /// Each pair's link is measured, and what makes one slow (`--perf`).
    pub perf: Option<PerfLimits>,
}

/// A host as the coordinator holds it: its connection while it lasts.
struct Member {
    control: Option<Control>,
    host: MeshHost,
}

impl Member {
    /// A host not (or no longer) there.
    fn gone(&mut self, why: Joined) {
        self.control = None;
        if self.host.joined == Joined::Joined {
            self.host.joined = why;
        }
    }
}

/// A host that has not joined, by the launcher's name for it.
fn absent(cfg: &CoordConfig, rank: usize) -> MeshHost {
    MeshHost {
        rank,
        name: cfg
            .names
            .get(rank)
            .cloned()
            .unwrap_or_else(|| format!("rank {rank}")),
        rdma_addr: String::new(),
        netdev: String::new(),
        mtu: None,
        gid_type: None,
        subnet: None,
        findings: Vec::new(),
        ports: Vec::new(),
        joined: Joined::NeverJoined {
            waited_secs: cfg.wait_secs,
        },
    }
}

/// A joined host as its hello describes it.
fn joined(h: Hello) -> MeshHost {
    let joined = match h.cannot_run {
        Some(why) => Joined::CannotRun { why },
        None => Joined::Joined,
    };
    MeshHost {
        rank: h.rank,
        name: h.name,
        rdma_addr: h.ip,
        netdev: h.netdev,
        mtu: h.mtu,
        gid_type: h.gid_type,
        subnet: h.subnet,
        findings: h.findings,
        ports: h.ports,
        joined,
    }
}

/// How long a joining host may take to prove the secret and say hello.
const HELLO_SECS: u64 = 10;

/// One connection's handshake and hello, each bounded (run by the
/// [`Gate`] on a thread of its own).
fn admit(stream: std::net::TcpStream, secret: &Secret) -> Result<(Control, Hello), String> {
    let mut c = Control::new(stream)?;
    c.authenticate_server(secret).map_err(|e| match e {
        HandshakeError::Auth(why) => format!("{}: {why}", crate::guest::control::AUTH_FAILED),
        HandshakeError::Other(why) => why.to_string(),
    })?;
    let hello = Hello::from_json(&c.expect_blob("hello", Duration::from_secs(HELLO_SECS))?)?;
    Ok((c, hello))
}

/// Whether `hello` may join: a rank of the mesh not taken yet, an address
/// that is one and no other host's, and, where the launcher named the
/// hosts, a connection from its own host's address.
fn check_hello(
    hello: &Hello,
    from: SocketAddr,
    cfg: &CoordConfig,
    members: &[Member],
    resolved: &[Vec<std::net::IpAddr>],
) -> Result<(), String> {
    if hello.rank >= cfg.size {
        return Err(format!(
            "it says it is rank {}, of {} hosts",
            hello.rank, cfg.size
        ));
    }
    let m = &members[hello.rank];
    if m.control.is_some() || matches!(m.host.joined, Joined::CannotRun { .. }) {
        return Err(format!("rank {} has joined already", hello.rank));
    }
    // A host that cannot take part has no RDMA address to check.
    if hello.cannot_run.is_some() {
        return from_its_host(hello, from, cfg, resolved);
    }
    if hello.ip.parse::<std::net::IpAddr>().is_err() {
        return Err("its RDMA address is not an address".into());
    }
    if members
        .iter()
        .any(|m| m.control.is_some() && m.host.rdma_addr == hello.ip)
    {
        return Err(format!(
            "another host has joined with the RDMA address {}",
            hello.ip
        ));
    }
    from_its_host(hello, from, cfg, resolved)
}

/// Whether `hello` came from its rank's host, where the launcher named it.
fn from_its_host(
    hello: &Hello,
    from: SocketAddr,
    cfg: &CoordConfig,
    resolved: &[Vec<std::net::IpAddr>],
) -> Result<(), String> {
    // A name this host cannot resolve cannot be checked (the loopback
    // tests' stand-ins have such names).
    let ours = resolved.get(hello.rank).map_or(&[][..], |a| &a[..]);
    if !ours.is_empty() && !ours.contains(&from.ip()) {
        return Err(format!(
            "rank {} is {}, whose address is not {}",
            hello.rank,
            shown(&cfg.names[hello.rank]),
            from.ip()
        ));
    }
    Ok(())
}

/// The addresses each of the launcher's hosts resolves to, by rank (none
/// for a name that does not resolve here), looked up side by side: a
/// resolver that answers slowly costs its delay once, not once a host.
fn resolve_all(names: &[String]) -> Vec<Vec<std::net::IpAddr>> {
    let chunk = names.len().div_ceil(32).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|n| {
                            (n.as_str(), 0)
                                .to_socket_addrs()
                                .map(|a| a.map(|a| a.ip()).collect())
                                .unwrap_or_default()
                        })
                        .collect::<Vec<Vec<std::net::IpAddr>>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// A finished handshake: the host registered under its rank (`true`), or
/// turned away in one line.
fn register(
    admitted: Result<(Control, Hello), String>,
    from: SocketAddr,
    cfg: &CoordConfig,
    members: &mut [Member],
    resolved: &[Vec<std::net::IpAddr>],
    say: &mut dyn FnMut(&str),
) -> bool {
    match admitted.and_then(|(c, h)| check_hello(&h, from, cfg, members, resolved).map(|()| (c, h)))
    {
        Ok((mut c, hello)) => {
            let cannot = hello.cannot_run.as_ref().map_or(String::new(), |why| {
                format!(": it cannot take part: {}", shown(why))
            });
            say(&format!(
                "mesh: {} joined as rank {} from {from}{cannot}",
                shown(&hello.name),
                hello.rank
            ));
            let rank = hello.rank;
            // A host that cannot take part has said all it will: it is
            // let go at once, and counts as there for the wait.
            let control = if hello.cannot_run.is_some() {
                let _ = c.send("bye");
                None
            } else {
                Some(c)
            };
            members[rank] = Member {
                control,
                host: joined(hello),
            };
            true
        }
        Err(why) => {
            say(&format!("mesh: turned away {from}: {why}"));
            false
        }
    }
}

/// Waits up to `--wait` for every rank: handshakes run side by side,
/// each bounded, at most [`gate::PER_SOURCE`] from one address;
/// strangers, addresses the launcher did not name (closed before they take
/// a slot), and doubles are turned away, each in one line, and the wait
/// goes on.
fn gather(cfg: &CoordConfig, say: &mut dyn FnMut(&str)) -> Result<Vec<Member>, MeshError> {
    let listener = TcpListener::bind(cfg.listen).map_err(|source| MeshError::Bind {
        addr: cfg.listen,
        source,
    })?;
    let mut members: Vec<Member> = (0..cfg.size)
        .map(|r| Member {
            control: None,
            host: absent(cfg, r),
        })
        .collect();
    let resolved = resolve_all(&cfg.names);
    let allow: Vec<std::net::IpAddr> = resolved
        .iter()
        .flatten()
        .chain(&cfg.allow)
        .copied()
        .collect();
    let mut gate = Gate::new(listener, allow).map_err(MeshError::Listener)?;
    let secret = cfg.secret.clone();
    let handshake = move |stream, _| admit(stream, &secret);
    let deadline = Instant::now() + Duration::from_secs(cfg.wait_secs);
    let mut count = 0;
    while count < cfg.size {
        let Some(event) = gate.next(deadline, &handshake) else {
            break;
        };
        match event {
            Event::Done(admitted, from) => {
                if register(admitted, from, cfg, &mut members, &resolved, say) {
                    count += 1;
                }
            }
            Event::NotAllowed(from) => say(&format!(
                "mesh: turned away {from}: not one of the launcher's hosts or --allow addresses"
            )),
            Event::Full(ip) => say(&format!(
                "mesh: {ip} has {} handshakes under way: its next connections are closed until \
                 one ends",
                gate::PER_SOURCE
            )),
        }
    }
    Ok(members)
}

/// One round: each pair whose hosts are both there is handed out at once
/// (on every rail of `rails`, or only on rail `only`), the idle hosts are
/// told so, then every pair's verdicts are gathered by the round's
/// deadline.
fn run_round(
    r: usize,
    round: &[Pair],
    members: &mut [Member],
    cfg: &CoordConfig,
    round_secs: u64,
    rails: &[Option<Subnet>],
    only: Option<usize>,
) -> Vec<PairCell> {
    let mut cells = Vec::new();
    let mut live = Vec::new();
    for &p in round {
        let on = pair_rails(p, members, cfg, rails, only);
        match hand_out(r, p, &on, cfg, members) {
            Ok(()) => live.push((p, on)),
            Err(why) => cells.extend(on.iter().map(|l| not_run(r, p, l.rail, &why))),
        }
    }
    let busy: Vec<usize> = live
        .iter()
        .flat_map(|(p, _)| [p.server, p.client])
        .collect();
    let deadline = Instant::now() + Duration::from_secs(round_secs + 60);
    let idle: Vec<usize> = (0..members.len()).filter(|r| !busy.contains(r)).collect();
    for &rank in &idle {
        let m = &mut members[rank];
        if m.control.as_mut().is_some_and(|c| c.send("idle").is_err()) {
            m.gone(Joined::Died {
                during: format!("round {}", r + 1),
            });
        }
    }
    // The pairs' verdicts first: an idle host's slow answer must not keep
    // a pair's host waiting to write its results.
    for (p, on) in live {
        cells.extend(gather_pair(r, p, &on, members, deadline));
    }
    for rank in idle {
        let m = &mut members[rank];
        if m.control
            .as_mut()
            .is_some_and(|c| c.expect("idle", left(deadline)).is_err())
        {
            m.gone(Joined::Died {
                during: format!("round {}", r + 1),
            });
        }
    }
    cells
}

/// One rail of a pair in a round: the two hosts' addresses on it and
/// what runs there.
#[derive(Debug, Clone)]
struct Leg {
    rail: usize,
    server_ip: String,
    client_ip: String,
    scenarios: Vec<String>,
}

/// What is left until `deadline`, at least a second.
fn left(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1))
}

/// Sends each host of `p` its side on each of its rails (`on`) at once,
/// or says why the pair cannot run.
fn hand_out(
    r: usize,
    p: Pair,
    on: &[Leg],
    cfg: &CoordConfig,
    members: &mut [Member],
) -> Result<(), String> {
    for rank in [p.server, p.client] {
        if members[rank].control.is_none() {
            return Err(absence(&members[rank].host));
        }
    }
    let mut nonces = Vec::new();
    for _ in on {
        nonces.push(nonce()?);
    }
    for (rank, role) in [(p.server, Role::Server), (p.client, Role::Client)] {
        let list: Vec<Assignment> = on
            .iter()
            .zip(&nonces)
            .map(|(l, nonce)| Assignment {
                round: r,
                role,
                server_ip: l.server_ip.clone(),
                client_ip: l.client_ip.clone(),
                nonce: nonce.clone(),
                scenarios: l.scenarios.clone(),
                rail: l.rail,
                qp_timeout: cfg.perf.and_then(|p| p.qp_timeout),
            })
            .collect();
        let json = messages::assignments_json(&list);
        let m = &mut members[rank];
        let sent = m.control.as_mut().map_or(Err(String::new()), |c| {
            Ok(c.send(&format!("pair {}", hex(json.as_bytes())))?)
        });
        if let Err(e) = sent {
            m.gone(Joined::Died {
                during: format!("round {}", r + 1),
            });
            return Err(format!("{} went away: {e}", m.host.name));
        }
    }
    Ok(())
}

/// A host's absence in words, its name first.
fn absence(h: &MeshHost) -> String {
    let name = &h.name;
    match &h.joined {
        Joined::Joined => format!("{name} is there"),
        Joined::NeverJoined { waited_secs } => {
            format!("{name} is not there (it never joined in {waited_secs} s)")
        }
        Joined::Died { during } => format!("{name} is not there (it went away during {during})"),
        Joined::CannotRun { why } => format!("{name} cannot take part: {why}"),
    }
}

/// A pair that could not run on `rail`, and why.
fn not_run(r: usize, pair: Pair, rail: usize, why: &str) -> PairCell {
    PairCell {
        pair,
        round: r,
        rail,
        results: vec![ScenarioResult {
            scenario: messages::SESSION.into(),
            verdict: Verdict::NotRun(why.to_string()),
            detail: why.to_string(),
            server_log: None,
            client_log: None,
            unstarted: None,
        }],
        counters: Vec::new(),
        alone: Vec::new(),
        rate_gbps: None,
        reports: Vec::new(),
        alone_reports: Vec::new(),
    }
}

/// One host's `done`, or `None` (and the host marked gone) when it did not
/// come by `deadline`.
fn done_of(
    m: &mut Member,
    during: &str,
    deadline: Instant,
    assigned: &[String],
) -> Option<messages::Done> {
    let c = m.control.as_mut()?;
    let got = c
        .recv_max("done", left(deadline), DONE_MAX)
        .map_err(String::from)
        .and_then(|line| {
            let hexed = line
                .strip_prefix("done ")
                .ok_or(format!("`{}`", shown(&line)))?;
            messages::done_from_json(&crate::guest::control::unhex(hexed)?)
        });
    match got {
        Ok(done) => Some(done.kept(assigned)),
        Err(e) => {
            m.gone(Joined::Died {
                during: format!("{during} ({e})"),
            });
            None
        }
    }
}

/// The most a `done` line may carry: every scenario's two transcripts at
/// their bound, as hex, with room to spare.
const DONE_MAX: usize = 4 << 20;

/// The pair's verdicts on each of its rails (`on`, in the order each
/// host sends its `done`s).
fn gather_pair(
    r: usize,
    p: Pair,
    on: &[Leg],
    members: &mut [Member],
    deadline: Instant,
) -> Vec<PairCell> {
    let during = format!("round {}", r + 1);
    let server: Vec<Option<messages::Done>> = on
        .iter()
        .map(|l| done_of(&mut members[p.server], &during, deadline, &l.scenarios))
        .collect();
    let client: Vec<Option<messages::Done>> = on
        .iter()
        .map(|l| done_of(&mut members[p.client], &during, deadline, &l.scenarios))
        .collect();
    on.iter()
        .zip(server.into_iter().zip(client))
        .map(|(l, (s, c))| {
            let (hs, hc) = (&members[p.server].host, &members[p.client].host);
            PairCell {
                rate_gbps: rate_of(hs, &l.server_ip, hc, &l.client_ip),
                ..rail_cell(r, p, l.rail, s, c, members)
            }
        })
        .collect()
}

/// One rail's cell of the pair: the peer side's verdicts, with the
/// serving side's own failure if it had one; a side that did not answer
/// makes it not run.
fn rail_cell(
    r: usize,
    p: Pair,
    rail: usize,
    server: Option<messages::Done>,
    client: Option<messages::Done>,
    members: &[Member],
) -> PairCell {
    match (server, client) {
        // Its port held by another process on the serving host: the
        // peer's failure to connect follows from it, and blames no one.
        (Some(s), Some(_)) if s.results.iter().any(port_held) => {
            let why = s.results.iter().find_map(|r| match &r.verdict {
                Verdict::PortHeld(why) => Some(why.clone()),
                _ => None,
            });
            not_run(r, p, rail, &why.unwrap_or_default())
        }
        (Some(s), Some(c)) => {
            let rose = |rank: usize, d: &messages::Done| -> Vec<(usize, String, u64)> {
                d.counters
                    .iter()
                    .map(|(n, v)| (rank, n.clone(), *v))
                    .collect()
            };
            let mut counters = rose(p.server, &s);
            counters.extend(rose(p.client, &c));
            // Each side's own word is its sender's, by the connection it
            // came on: no host can write another's.
            let reports = [(p.server, s.side), (p.client, c.side)]
                .into_iter()
                .filter_map(|(rank, side)| side.map(|s| SideReport { rank, ..s }))
                .collect();
            let mut results = c.results;
            results.extend(s.results);
            PairCell {
                pair: p,
                round: r,
                rail,
                results,
                counters,
                alone: Vec::new(),
                rate_gbps: None,
                reports,
                alone_reports: Vec::new(),
            }
        }
        (s, _) => {
            let who = if s.is_none() { p.server } else { p.client };
            let why = format!("{} did not finish round {}", members[who].host.name, r + 1);
            not_run(r, p, rail, &why)
        }
    }
}

/// Whether a serving host's result says another process holds its port.
fn port_held(r: &ScenarioResult) -> bool {
    r.scenario == messages::SESSION && matches!(r.verdict, Verdict::PortHeld(_))
}

/// Writes each pair's transcripts where the page links to them, each a
/// new file in the run's dir, escaped again (what a host sent was escaped
/// as it came: a transcript file must hold no byte a terminal obeys).
fn write_transcripts(cfg: &CoordConfig, cells: &[PairCell]) {
    for cell in cells {
        // A measurement taken again alone beside its round's, as
        // `NAME-alone`.
        let alone = cell.alone.iter().map(|r| (r, "-alone"));
        for (res, suffix) in cell.results.iter().map(|r| (r, "")).chain(alone) {
            let name = format!("{}{suffix}", res.scenario);
            for (side, log) in [("server", &res.server_log), ("client", &res.client_log)] {
                if let Some(text) = log {
                    let rel = transcript_path(cell.pair, cell.rail, &name, side);
                    // A link planted where a transcript goes is replaced,
                    // never written through.
                    let text = crate::base::text::escape_controls(text);
                    let _ = cfg.out.write_deep(&rel, text);
                }
            }
        }
    }
}

/// The bound of one round for the mesh's scenarios.
fn round_bound(names: &[String]) -> u64 {
    let list: Vec<&Scenario> = names.iter().filter_map(|n| catalog::find(n)).collect();
    super::round_secs(&list)
}

/// The whole run, from the joins to `bye`.
pub fn coordinate(cfg: &CoordConfig, say: &mut dyn FnMut(&str)) -> Result<MeshRun, MeshError> {
    let cfg = &with_perf(cfg);
    let mut rounds = schedule(cfg.size, cfg.pattern)?;
    if cfg.serial {
        rounds = rounds.concat().into_iter().map(|p| vec![p]).collect();
    }
    let mut members = gather(cfg, say)?;
    let rails = if cfg.rails {
        rail_plan(&members)
    } else {
        vec![None]
    };
    if rails.len() > 1 {
        let names: Vec<String> = rails.iter().flatten().map(ToString::to_string).collect();
        say(&format!(
            "mesh: {} rails: rail 0 (the hosts' RDMA addresses) and {}, each round's pairs on \
             every rail at once",
            rails.len(),
            names.join(", ")
        ));
    }
    let round_secs = round_bound(&cfg.scenarios);
    let plan = Plan {
        round_secs,
        rounds: rounds.len(),
    };
    for m in &mut members {
        if let Some(c) = &mut m.control {
            if c.send_blob("plan", plan.to_json().as_bytes()).is_err() {
                m.gone(Joined::Died {
                    during: "the plan".into(),
                });
            }
        }
    }
    let mut cells = Vec::new();
    for (r, round) in rounds.iter().enumerate() {
        let names: Vec<String> = round.iter().map(|&p| pair_name(&members, p)).collect();
        say(&format!(
            "mesh: round {} of {}: {}",
            r + 1,
            rounds.len(),
            crate::base::text::shown(&names.join(", "))
        ));
        cells.extend(run_round(
            r,
            round,
            &mut members,
            cfg,
            round_secs,
            &rails,
            None,
        ));
    }
    if let Some(limits) = &cfg.perf {
        let first = rounds.len();
        remeasure(&mut cells, limits, &mut members, cfg, first, &rails, say);
    }
    let mcast = multicast(cfg, &mut members, say);
    for m in &mut members {
        if let Some(c) = &mut m.control {
            let _ = c.send("bye");
        }
    }
    say(&format!(
        "mesh: writing the pairs' transcripts to {}",
        cfg.out.join("pairs").display()
    ));
    write_transcripts(cfg, &cells);
    Ok(MeshRun {
        hosts: members.into_iter().map(|m| m.host).collect(),
        cells,
        mcast,
        pattern_name: cfg.pattern.name(),
        rails,
        perf: cfg.perf,
        baseline: None,
    })
}

/// A pair as the coordinator's lines name it: `server-client`.
fn pair_name(members: &[Member], p: Pair) -> String {
    format!(
        "{}-{}",
        members[p.server].host.name, members[p.client].host.name
    )
}
