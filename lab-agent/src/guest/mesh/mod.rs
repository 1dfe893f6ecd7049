//! The fabric smoke test on a host under test (`rdma-lab mesh`): every
//! host joins the coordinator (rank 0's, or the ssh launcher's) over the
//! authenticated control channel, says what it is, and then plays the
//! pairs the coordinator hands it, one a round, each as a two-host
//! session of the agent ([`crate::guest::agent`]) with its peer of that
//! round. The peer side judges its pair and sends the coordinator the
//! verdicts and both sides' transcripts.
//!
//! The control connections use the hosts' names (the coordinator's, as
//! the launcher gives it); the pairs' sessions and scenarios use each
//! host's RDMA address. A pair's session runs on the mesh port plus one,
//! under a secret derived from the mesh's and a fresh nonce, so the
//! nonce may cross in the clear.

pub mod coordinator;
pub mod messages;
pub mod side;

use crate::base::rundir::Dir;
use crate::catalog;
use crate::guest::agent::{self, AgentConfig, Net, Role, SideRun};
use crate::guest::control::{Control, Secret};
use crate::model::mesh::{ScenarioResult, Verdict};
use crate::model::{Params, Scenario};
use messages::{Assignment, Hello, Plan};
use std::fs;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Why a host's part of a mesh, or the coordinator's, ended before it was
/// done: each its own variant, so that a caller decides on what
/// happened; the message is one line.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The star's centre is not one of the hosts.
    #[error(transparent)]
    Schedule(#[from] crate::model::mesh::CentreNotAHost),
    /// The coordinator's address could not be bound.
    #[error("mesh: bind {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// What the kernel said.
        source: std::io::Error,
    },
    /// The coordinator's listener could not be set up.
    #[error("control: {0}")]
    Listener(std::io::Error),
    /// No session with the coordinator came about within the wait.
    #[error(
        "mesh: no session with the coordinator at {target} within {secs} s ({last}): start \
         rank 0 (or the launcher) and check that TCP port {port} is open to this host"
    )]
    NoSession {
        /// The coordinator's name and port.
        target: String,
        /// How long it was tried.
        secs: u64,
        /// What the last attempt met.
        last: String,
        /// The mesh's port.
        port: u16,
    },
    /// The control channel with the coordinator failed.
    #[error(transparent)]
    Control(#[from] crate::guest::control::ControlError),
    /// A message from the coordinator could not be read: what the
    /// message's reader said.
    #[error("{0}")]
    Session(String),
    /// The multicast receiver the coordinator asked for did not start.
    #[error("mesh: no receiver")]
    NoReceiver,
    /// The coordinator sent what no host of this version says.
    #[error("mesh: the coordinator sent `{}`", crate::base::text::shown(.0))]
    Unexpected(String),
    /// This host cannot take part (why); it told the coordinator so.
    #[error("mesh: this host cannot take part ({0}); the coordinator was told")]
    CannotTakePart(String),
}

impl From<String> for MeshError {
    fn from(said: String) -> MeshError {
        MeshError::Session(said)
    }
}

rdma_lab_core::message_of!(MeshError);

/// The only scenarios a multicast round runs: the two multicast pairs.
pub const MCAST_SCENARIOS: &[&str] = &["mckey", "mc"];

/// The pairs' sessions listen on the mesh port plus this.
pub const PAIR_PORT_OFFSET: u16 = 1;

/// How long a host waits for a pair's peer, and for each set-up message
/// of the mesh: both hosts of a pair are told at once.
pub const PAIR_WAIT_SECS: u64 = 60;

/// What one host of a mesh run needs.
#[derive(Debug, Clone)]
pub struct MeshHostConfig {
    /// Its rank, `0..size`.
    pub rank: usize,
    /// The coordinator's host name or address.
    pub coordinator: String,
    /// The coordinator's TCP port; pairs use the next one.
    pub port: u16,
    /// This host's name, as it reports it.
    pub name: String,
    /// This host's address on its RDMA netdev.
    pub ip: String,
    /// The RDMA device.
    pub dev: String,
    /// Its port (1 but on a rail's second port of a dual-port HCA).
    pub ib_port: u32,
    /// The GID index (`None`: the one the doctor finds).
    pub gid_idx: Option<u32>,
    /// The devices whose ports it reports for its rails (`--dev`, every
    /// one given); empty: every active port with an address.
    pub rail_devs: Vec<String>,
    /// Whether its measurements run on their NIC's local CPUs (not
    /// `--no-pin`).
    pub pin: bool,
    /// Where the example binaries are.
    pub bin_dir: PathBuf,
    /// This host's result dir, held open: every dir and file of its
    /// pairs is made in it.
    pub out: Dir,
    /// How long to keep trying to reach the coordinator, in seconds.
    pub wait_secs: u64,
    /// The mesh's secret.
    pub secret: Secret,
}

/// How long one round may take a pair of `scenarios`: the session's
/// set-up (the peer's wait, both doctors, the probe), then each
/// scenario's step bound, as the agent bounds them.
pub fn round_secs(scenarios: &[&Scenario]) -> u64 {
    let steps: u64 = scenarios
        .iter()
        .map(|s| u64::from(s.timeout_secs) * 2 + 30)
        .sum();
    PAIR_WAIT_SECS + 3 * 60 + steps
}

/// Connects to the coordinator and proves the secret, trying again (a
/// refused handshake too: a stranger may hold the coordinator's port for
/// a while) until `wait_secs` have passed.
fn connect(cfg: &MeshHostConfig) -> Result<Control, MeshError> {
    connect_via(cfg, &|target| {
        target
            .to_socket_addrs()
            .map(Iterator::collect)
            .unwrap_or_default()
    })
}

/// [`connect`] with the addresses of the coordinator's name from
/// `resolve`: each attempt takes the next of them, so a stranger's
/// listener on one address of the name (an unprivileged user may bind
/// `[::1]:PORT`) costs an attempt, never the join.
fn connect_via(
    cfg: &MeshHostConfig,
    resolve: &dyn Fn(&str) -> Vec<SocketAddr>,
) -> Result<Control, MeshError> {
    let target = format!("{}:{}", cfg.coordinator, cfg.port);
    let deadline = Instant::now() + Duration::from_secs(cfg.wait_secs);
    let mut last = String::from("nothing answered");
    let mut failed = 0;
    for attempt in 0usize.. {
        let addrs = resolve(&target);
        if let Some(a) = addrs.get(attempt % addrs.len().max(1)) {
            match TcpStream::connect_timeout(a, Duration::from_secs(2)) {
                Ok(stream) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    let within = left.clamp(Duration::from_secs(1), agent::ATTEMPT);
                    match Control::new(stream)
                        .and_then(|mut c| c.authenticate_client(&cfg.secret, within).map(|()| c))
                    {
                        Ok(c) => return Ok(c),
                        Err(e) => {
                            last = format!("at {a}: {e}");
                            failed += 1;
                        }
                    }
                }
                Err(e) => last = format!("at {a}: {e}"),
            }
        }
        if Instant::now() >= deadline {
            break;
        }
        // After a failed handshake on every address, wait longer each time.
        let round = u32::try_from(failed / addrs.len().max(1)).unwrap_or(u32::MAX);
        std::thread::sleep(agent::backoff(round).max(Duration::from_millis(200)));
    }
    Err(MeshError::NoSession {
        target,
        secs: cfg.wait_secs,
        last,
        port: cfg.port,
    })
}

/// The host's whole part: join, then play each pair it is handed until
/// the coordinator says `bye`. Its own failures in a pair are the pair's
/// verdicts, not the end of the run.
pub fn run_host(cfg: &MeshHostConfig) -> Result<(), MeshError> {
    agent::set_quiet(true);
    // What the doctor sees first: the coordinator waits for the hello
    // only as long as a handshake.
    let hello = Hello::of_this_host(cfg);
    let mut c = connect(cfg)?;
    c.send_blob("hello", hello.to_json().as_bytes())?;
    let join_bound = Duration::from_secs(cfg.wait_secs + PAIR_WAIT_SECS + 60);
    let plan = Plan::from_json(&c.expect_blob("plan", join_bound)?)?;
    let wait = Duration::from_secs(plan.round_secs + PAIR_WAIT_SECS);
    let mut receiver: Option<(SideRun, &'static Scenario, AgentConfig)> = None;
    loop {
        let line = c.recv_max("a round", wait, 1 << 20)?;
        let (word, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        match word {
            "bye" => return Ok(()),
            "idle" => c.send("idle")?,
            "pair" => {
                // A message this host will not act on is the pair's
                // failure, not the end of this host's run: a `done` for
                // each rail it names, as the coordinator waits for.
                let bytes = crate::guest::control::unhex(rest).unwrap_or_default();
                let dones = messages::assignments_from_json(&bytes).map_or_else(
                    |e| vec![messages::Done::failed(&e); messages::assignments_count(&bytes)],
                    |list| play_rails(cfg, &list),
                );
                for done in dones {
                    c.send_blob("done", messages::done_json(&done).as_bytes())?;
                }
            }
            "mrecv" => {
                if let Some((r, _, _)) = receiver.take() {
                    r.finish();
                }
                match mcast_side(cfg, rest, "recv") {
                    Ok((s, acfg)) => {
                        let mut r =
                            SideRun::start(&acfg, s, "server").ok_or(MeshError::NoReceiver)?;
                        r.wait_ready(&acfg, s);
                        receiver = Some((r, s, acfg));
                        c.send("ready")?;
                    }
                    Err(e) => c.send_blob("refused", e.as_bytes())?,
                }
            }
            "msend" => {
                let results = match mcast_side(cfg, rest, "send") {
                    Ok((s, acfg)) => {
                        let sent = SideRun::start(&acfg, s, "client").map(SideRun::finish);
                        judge_side(s, &acfg, "client", sent.is_some())
                    }
                    Err(e) => vec![failed_session(&e)],
                };
                c.send_blob("done", messages::results_json(&results).as_bytes())?;
            }
            "mend" => {
                let results = match receiver.take() {
                    Some((r, s, acfg)) => {
                        r.finish();
                        judge_side(s, &acfg, "server", true)
                    }
                    None => vec![failed_session("no receiver was running")],
                };
                c.send_blob("done", messages::results_json(&results).as_bytes())?;
            }
            _ => return Err(MeshError::Unexpected(line)),
        }
    }
}

/// The part of a host that cannot take part (`why`: no RDMA device, no
/// address): it joins all the same, with its doctor's findings and why,
/// so that the coordinator names it and its cause at once instead of
/// waiting for it; then it is let go. `Err` says why it did not play.
pub fn run_unable(cfg: &MeshHostConfig, why: &str) -> Result<(), MeshError> {
    let hello = Hello::unable(cfg, why);
    let mut c = connect(cfg)?;
    c.send_blob("hello", hello.to_json().as_bytes())?;
    let bound = Duration::from_secs(cfg.wait_secs + PAIR_WAIT_SECS);
    let said = c.recv("bye", bound)?;
    if said != "bye" {
        return Err(MeshError::Unexpected(said));
    }
    Err(MeshError::CannotTakePart(why.to_string()))
}

/// The scenario a multicast message names and the agent that runs one of
/// its sides alone here: `{server_ip}` is this host's own address (a
/// receiver binds it), its files in a dir of their own.
fn mcast_side(
    cfg: &MeshHostConfig,
    hexed: &str,
    what: &str,
) -> Result<(&'static Scenario, AgentConfig), String> {
    let name = String::from_utf8_lossy(&crate::guest::control::unhex(hexed)?).into_owned();
    // Only the two multicast pairs, which run anywhere: never a scenario
    // that changes the machine, whoever asks.
    let s = MCAST_SCENARIOS
        .contains(&name.as_str())
        .then(|| catalog::find(&name))
        .flatten()
        .ok_or_else(|| {
            format!(
                "mesh: `{}` is not one of the multicast round's scenarios",
                crate::base::text::shown(&name)
            )
        })?;
    // A dir of its own each time: a host receives in every sender's round.
    let name = format!("mcast-{what}-{}", s.name);
    let out = cfg
        .out
        .numbered_dir(&name)
        .map_err(|e| format!("{}: {e}", cfg.out.join(&name).display()))?;
    let a = Assignment {
        round: 0,
        role: Role::Both,
        server_ip: cfg.ip.clone(),
        client_ip: cfg.ip.clone(),
        nonce: String::new(),
        scenarios: Vec::new(),
        rail: 0,
        qp_timeout: None,
    };
    Ok((s, pair_agent(cfg, &a, out)))
}

/// One side's verdict, judged on its own.
fn judge_side(s: &Scenario, acfg: &AgentConfig, side: &str, ran: bool) -> Vec<ScenarioResult> {
    let o = acfg
        .dir
        .as_ref()
        .and_then(|d| crate::results::collect(&[s], d, d).pop());
    let one = o.as_ref().and_then(|o| {
        if side == "server" {
            o.server.as_ref()
        } else {
            o.client.as_ref()
        }
    });
    let which = if side == "server" {
        crate::model::Side::Server
    } else {
        crate::model::Side::Client
    };
    let (failures, unstarted) = if ran {
        (
            crate::judge::check_one_side(s, which, one, None),
            crate::judge::unstarted_side(s, which, one),
        )
    } else {
        (vec![format!("{side}: it has no such side")], None)
    };
    let log = one.map(|x| crate::results::side_transcript(side, x));
    let (server_log, client_log) = if side == "server" {
        (log, None)
    } else {
        (None, log)
    };
    vec![ScenarioResult::judged(
        &s.name, &failures, unstarted, server_log, client_log,
    )]
}

/// A round's pairs of this host, one a rail, each on its own thread: a
/// `done` for each, in their order.
fn play_rails(cfg: &MeshHostConfig, list: &[Assignment]) -> Vec<messages::Done> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = list
            .iter()
            .map(|a| scope.spawn(move || play_counted(cfg, a)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    messages::Done::failed("mesh: the rail's pair ended in a panic")
                })
            })
            .collect()
    })
}

/// One pair on its rail, with what its port's loss counters did
/// meanwhile (this host is in one pair a round on each rail, so what
/// they did is that pair's) and its own side of each measurement.
fn play_counted(cfg: &MeshHostConfig, a: &Assignment) -> messages::Done {
    let cfg = match on_rail(cfg, a) {
        Ok(cfg) => cfg,
        Err(why) => return messages::Done::failed(&why),
    };
    // A rail's cfg.out is its own dir already; a round's dir is new.
    let name = format!("round{}-{}", a.round, a.role.as_str());
    let out = match cfg.out.numbered_dir(&name) {
        Ok(d) => d,
        Err(e) => {
            return messages::Done::failed(&format!("{}: {e}", cfg.out.join(&name).display()))
        }
    };
    let began = Instant::now();
    let before = crate::guest::counters::read(&cfg.dev, cfg.ib_port);
    let results = play(&cfg, a, &out);
    let after = crate::guest::counters::read(&cfg.dev, cfg.ib_port);
    messages::Done {
        results,
        counters: crate::guest::counters::rose(&before, &after),
        side: Some(side::own(&cfg, a, &out, began.elapsed())),
    }
}

/// This host as it plays `a`: on rail 0 as it joined; on rail `k` as its
/// port there (found by its own address in `a`, which must be one of this
/// host's ports: the coordinator names no device), on the mesh port plus
/// one plus `k`, in a dir of the rail's own.
fn on_rail(cfg: &MeshHostConfig, a: &Assignment) -> Result<MeshHostConfig, String> {
    if a.rail == 0 {
        return Ok(cfg.clone());
    }
    let ports = crate::guest::ports::of_devices(crate::guest::ports::this_host(), &cfg.rail_devs);
    on_rail_of(cfg, a, &ports)
}

/// [`on_rail`] past rail 0, among this host's rail `ports`.
fn on_rail_of(
    cfg: &MeshHostConfig,
    a: &Assignment,
    ports: &[crate::model::rails::Port],
) -> Result<MeshHostConfig, String> {
    let own = match a.role {
        Role::Server => &a.server_ip,
        _ => &a.client_ip,
    };
    let port = ports
        .iter()
        .find(|p| p.addr.to_string() == *own)
        .ok_or_else(|| {
            format!(
                "mesh: rail {}'s address {own} is not one of {}'s active ports",
                a.rail, cfg.name
            )
        })?;
    // Another address of rail 0's port is no NIC of its own: its counters
    // and its faults are rail 0's.
    if (port.dev.as_str(), port.port) == (cfg.dev.as_str(), cfg.ib_port) {
        return Err(format!(
            "mesh: rail {}'s address {own} is on {}'s rail 0 port ({} port {})",
            a.rail, cfg.name, port.dev, port.port
        ));
    }
    Ok(MeshHostConfig {
        ip: own.clone(),
        dev: port.dev.clone(),
        ib_port: port.port,
        // The GID of this port's own address, which the doctor finds.
        gid_idx: None,
        port: cfg
            .port
            .saturating_add(u16::try_from(a.rail).unwrap_or(u16::MAX)),
        out: cfg
            .out
            .make_dir(&format!("rail{}", a.rail))
            .map_err(|e| format!("mesh: rail {}'s dir: {e}", a.rail))?,
        ..cfg.clone()
    })
}

/// One pair's session, on the side `a` gives this host; the peer side's
/// verdicts (the serving side's are the peer's to judge).
fn play(cfg: &MeshHostConfig, a: &Assignment, out: &Dir) -> Vec<ScenarioResult> {
    let (runs, refused) = own_rules(cfg, a.rail, &a.scenarios);
    let a = &Assignment {
        scenarios: runs,
        ..a.clone()
    };
    let acfg = pair_agent(cfg, a, out.clone());
    let ran = agent::run(acfg);
    let mut results = match (a.role, ran) {
        (Role::Client, Ok(())) => messages::judge_pair(&a.scenarios, out, &a.addrs()),
        (_, Err(agent::AgentError::PortInUse { .. })) => vec![port_in_use(cfg)],
        (_, Err(e)) => vec![failed_session(&e.to_string())],
        (_, Ok(())) => Vec::new(),
    };
    results.extend(refused);
    results
}

/// The scenarios of the coordinator's list that this host runs by its own
/// rules (a real host's: never one that changes the machine; past rail 0,
/// only the measurements, whose ports follow the rail), and the others
/// as skipped, with why, whoever asked.
fn own_rules(
    cfg: &MeshHostConfig,
    rail: usize,
    names: &[String],
) -> (Vec<String>, Vec<ScenarioResult>) {
    let mode = crate::model::Mode::Local {
        dev: Some(cfg.dev.clone()),
        ip: cfg.ip.clone(),
        gid_idx: cfg.gid_idx,
        role: crate::model::Local::Serve,
    };
    let link = fs::read_to_string(format!(
        "/sys/class/infiniband/{}/ports/{}/link_layer",
        cfg.dev, cfg.ib_port
    ))
    .ok();
    let mut runs = Vec::new();
    let mut refused = Vec::new();
    for n in names {
        let why = catalog::find(n).map_or(Some("not a scenario of this lab"), |s| {
            let measured = catalog::perf_runs().iter().any(|p| p.name == s.name);
            (rail > 0 && !measured)
                .then_some("past rail 0 a pair runs the probe and the measurements only")
                .or_else(|| catalog::skip_reason(s, &mode, link.as_deref().map(str::trim)))
                .or_else(|| missing_perftest(s, &std::env::var_os("PATH").unwrap_or_default()))
        });
        match why {
            None => runs.push(n.clone()),
            Some(why) => refused.push(ScenarioResult {
                scenario: n.clone(),
                verdict: Verdict::Skip,
                detail: format!("{} refused it: {why}", cfg.name),
                server_log: None,
                client_log: None,
                unstarted: None,
            }),
        }
    }
    (runs, refused)
}

/// Why this host cannot run the measurement `s` (`mesh --perf`): its
/// perftest program is on no directory of `path` (this host's `PATH`).
fn missing_perftest(s: &Scenario, path: &std::ffi::OsStr) -> Option<&'static str> {
    let program = catalog::perf::program(s)?;
    let found = std::env::split_paths(path).any(|d| d.join(program).is_file());
    (!found).then_some(
        "perftest is not installed here (apt-get install --no-install-recommends perftest)",
    )
}

/// The CPUs this host's measurements run on, its NIC's local ones
/// ([`crate::model::numa::pin_to`]), and their NUMA node, whose memory
/// they are bound to, unless `--no-pin`; empty, wherever the scheduler
/// and the kernel put them (the node alone is empty where the NIC is on
/// no node of a one-node host).
fn pinned(cfg: &MeshHostConfig) -> (String, String) {
    if !cfg.pin {
        return (String::new(), String::new());
    }
    let netdev = crate::guest::sys::links()
        .into_iter()
        .find(|(d, p, _)| *d == cfg.dev && *p == cfg.ib_port)
        .map(|(_, _, n)| n)
        .unwrap_or_default();
    let place = crate::guest::numa::nic_place(&cfg.dev, &netdev);
    match crate::model::numa::pin_to(&place, crate::guest::numa::nodes()) {
        Some(cpus) => (
            cpus.to_string(),
            place.node.map(|n| n.to_string()).unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    }
}

/// The agent of this host's side of a pair: the real host's rules
/// ([`Net::None`]), only the peer of this round allowed in.
fn pair_agent(cfg: &MeshHostConfig, a: &Assignment, out: Dir) -> AgentConfig {
    let peer_ip = match a.role {
        Role::Server => &a.client_ip,
        _ => &a.server_ip,
    };
    let (cpus, numa_node) = pinned(cfg);
    AgentConfig {
        role: a.role,
        ip: cfg.ip.clone(),
        net: Net::None,
        out: out.path().to_path_buf(),
        dir: Some(out),
        bin_dir: cfg.bin_dir.clone(),
        params: Params {
            server_ip: a.server_ip.clone(),
            client_ip: a.client_ip.clone(),
            dev: cfg.dev.clone(),
            gid_idx: cfg.gid_idx.unwrap_or(0),
            ib_port: cfg.ib_port,
            tcp_shift: crate::model::params::rail_shift(a.rail),
            qp_timeout: a
                .qp_timeout
                .unwrap_or(crate::model::params::PERFTEST_QP_TIMEOUT),
            cpus,
            numa_node,
        },
        scenarios: a.scenarios.clone(),
        wait_secs: PAIR_WAIT_SECS,
        port: cfg.port + PAIR_PORT_OFFSET,
        auto_gid: cfg.gid_idx.is_none(),
        secret_file: None,
        secret: Some(cfg.secret.derive(&format!("pair {}", a.nonce))),
        allow: peer_ip.parse().into_iter().collect(),
        doctor_only: false,
        queue: None,
    }
}

/// The session of a pair whose port another process on this host holds:
/// it did not run, and neither host nor the link is to blame.
fn port_in_use(cfg: &MeshHostConfig) -> ScenarioResult {
    let why = format!(
        "port {} on {} is in use by another process",
        cfg.port + PAIR_PORT_OFFSET,
        cfg.name
    );
    ScenarioResult {
        scenario: messages::SESSION.into(),
        verdict: Verdict::PortHeld(crate::base::text::escaped(&why, 300)),
        detail: why,
        server_log: None,
        client_log: None,
        unstarted: None,
    }
}

/// The session of a pair that did not come about, as its one result.
pub fn failed_session(why: &str) -> ScenarioResult {
    ScenarioResult {
        scenario: messages::SESSION.into(),
        verdict: Verdict::Fail,
        detail: crate::base::text::escaped(why, 300),
        server_log: None,
        client_log: None,
        unstarted: None,
    }
}

/// The scenarios of a mesh run: the NAMEs, or every example pair; the
/// doctor's RC probe runs first in every pair's session.
pub fn default_scenarios() -> Vec<String> {
    catalog::pairs().map(|s| s.name.clone()).collect()
}

#[cfg(test)]
mod tests;
