//! The runner inside a VM (or on this host with `--local`): sets up rxe0, runs
//! each scenario's sides under `timeout` and leaves
//! `<scenario>.<side>.{stdout,stderr,status}` in the output dir for the host.
//!
//! In two-host mode a server agent and a client agent walk the same scenario
//! list in lockstep over a small TCP control connection, between two VMs or
//! two real hosts (`cargo xtask lab --local --serve` / `--peer`) alike:
//!
//! 1. the client says `hello`, then which scenarios it wants; the server
//!    checks that it knows them all;
//! 2. each runs the doctor on itself and sends the other its findings and
//!    its device;
//! 3. both run the doctor's probe (one RC message) as a first scenario;
//! 4. per scenario: "begin NAME" before the server side starts, "ready
//!    NAME" once it is ready, "done NAME" once the client side has
//!    finished, "end NAME" once the server side has; then the server sends
//!    its side's result files, so that the client's result dir holds the
//!    whole report.
//!
//! On the wire, "begin" and "end" bracket each scenario's packets: that is
//! how a capture of the whole run is cut per scenario ([`crate::model`]).

use crate::base::netstat::tcp_listening;
use crate::base::rundir::Dir;
use crate::guest::control::{Control, HandshakeError, Secret};
use crate::guest::counters;
use crate::model::{Params, Ready, Scenario, Skip};
use crate::results::{
    agent_status_file, boot_file, findings_file, findings_of, findings_text, host_file, parse_line,
    read_in, record_line, result_file, times_file, AgentStatus, BootPhases, DoctorFinding,
    HostInfo, REFUSED_FILE,
};
use crate::{catalog, judge, model};
use std::fs::{self, File};
use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod connect;
mod doctors;
mod kernel;
mod rxe;
mod side;

use connect::*;
pub use connect::{backoff, AgentError, ATTEMPT};
use doctors::*;
use kernel::*;
pub use rxe::QP_OFFSET;
use rxe::*;
use side::*;
pub use side::{cm_listening, ipv4_mapped_gid, SideRun};

/// How long the VM agents wait for each other: both VMs boot at roughly the
/// same time, but TCG boots vary a lot.
pub const VM_WAIT_SECS: u64 = 240;

/// How long a real host waits for its peer (`--wait`): long enough to walk
/// to the other host and start its half.
pub const PEER_WAIT_SECS: u64 = 120;

/// Which sides this agent runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Role {
    /// Both sides, one after the other, on one host.
    Both,
    /// Server sides only; the client agent is on the peer.
    Server,
    /// Client sides only; the server agent is on the peer.
    Client,
}

impl Role {
    /// The role's name in arguments and result files.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Both => "both",
            Role::Server => "server",
            Role::Client => "client",
        }
    }
}

/// Which netdev gets the address and the rxe device.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Net {
    /// A dummy netdev: enough for both sides on one host.
    Dummy,
    /// The NIC with this MAC: the wire between the two VMs.
    Mac(String),
    /// Use the host's RDMA device as it is (`--local`).
    None,
}

/// The file in a result dir that holds the agent's configuration (JSON).
pub const CONFIG_FILE: &str = "agent.json";
/// The agent's log; its creation shows the host that the guest is up.
pub const LOG_FILE: &str = "agent.log";

/// Everything an agent needs; travels into the VM in [`CONFIG_FILE`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// Sides to run.
    pub role: Role,
    /// This host's address on the rxe netdev.
    pub ip: String,
    /// Netdev setup.
    pub net: Net,
    /// Result dir (inside vng's --rwdir).
    pub out: PathBuf,
    /// Where workspace binaries are.
    pub bin_dir: PathBuf,
    /// Placeholder values; `gid_idx` is re-derived from the GID table when
    /// the agent sets rxe0 up itself.
    pub params: Params,
    /// Scenario names, in run order: the client's list (the server learns
    /// it from the client).
    pub scenarios: Vec<String>,
    /// How long to wait for the peer agent to come, in seconds.
    pub wait_secs: u64,
    /// The control connection's TCP port.
    pub port: u16,
    /// `params.gid_idx` was not given: use the one the doctor finds.
    pub auto_gid: bool,
    /// The file with the session's shared secret (else [`Secret::from_env`]).
    pub secret_file: Option<PathBuf>,
    /// The secret itself, when this process already holds it (a generated
    /// one); never written into the configuration.
    #[serde(skip)]
    pub secret: Option<Secret>,
    /// Serving: the only peer addresses that may connect (empty: any).
    pub allow: Vec<IpAddr>,
    /// Serving the doctor: run its probe and nothing a peer names.
    pub doctor_only: bool,
    /// Alone, beside other VMs: the queue dir they share (see [`queue_entry`]);
    /// this agent runs the scenarios it claims there, not its whole list.
    pub queue: Option<PathBuf>,
    /// `out` as its maker opened it, when this process made it: every
    /// file of the run is made and read through this handle, never by
    /// `out`'s path again ([`run`] opens `out` when it is `None`, as in a
    /// VM, whose agent reads its configuration from a file).
    #[serde(skip)]
    pub dir: Option<Dir>,
}

/// Why an agent's configuration was refused: each its own variant; the
/// message is one line.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the kernel said.
        source: std::io::Error,
    },
    /// The text is not a configuration's JSON.
    #[error("agent configuration: {0}")]
    Json(serde_json::Error),
    /// A device or an address that is not one.
    #[error(transparent)]
    BadValue(#[from] model::BadValue),
    /// A QP timeout outside a QP's 5-bit field.
    #[error("agent configuration: QP timeout {0}, not 1 to 31")]
    QpTimeout(u8),
    /// No result dir.
    #[error("agent configuration: no result dir (out)")]
    NoOut,
}

rdma_lab_core::message_of!(ConfigError);

impl AgentConfig {
    /// The configuration as the VM's agent reads it ([`AgentConfig::from_json`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("an agent's configuration serializes")
    }

    /// Reads what [`AgentConfig::to_json`] wrote, and refuses a device, an
    /// address or a QP timeout that is not one: they reach the scenarios'
    /// command lines.
    pub fn from_json(text: &str) -> Result<AgentConfig, ConfigError> {
        let cfg: AgentConfig = serde_json::from_str(text).map_err(ConfigError::Json)?;
        for (opt, ip) in [
            ("--ip", &cfg.ip),
            ("--server-ip", &cfg.params.server_ip),
            ("--client-ip", &cfg.params.client_ip),
        ] {
            model::check_ip(opt, ip)?;
        }
        model::check_dev("--dev", &cfg.params.dev)?;
        if !(1..=31).contains(&cfg.params.qp_timeout) {
            return Err(ConfigError::QpTimeout(cfg.params.qp_timeout));
        }
        if cfg.out.as_os_str().is_empty() {
            return Err(ConfigError::NoOut);
        }
        Ok(cfg)
    }

    /// The configuration of `rdma-lab agent --config FILE`: the JSON the
    /// lab wrote into the run's result dir.
    pub fn from_file(file: &Path) -> Result<AgentConfig, ConfigError> {
        let text = fs::read_to_string(file).map_err(|source| ConfigError::Read {
            path: file.to_path_buf(),
            source,
        })?;
        AgentConfig::from_json(&text)
    }
}

/// Appends timestamped lines to `agent.log` and echoes them to the console
/// (which the host keeps as the VM log).
struct Log {
    file: Option<File>,
    start: Instant,
    tag: String,
}

/// The agents of this process log to their files only: a mesh host runs
/// one session a round, and its terminal shows the mesh's own lines. Its
/// sessions' doctors check the host once ([`doctor::check_host_once`]).
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this process's agents keep their log lines off stdout.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

impl Log {
    fn new(out: &Dir, tag: &str) -> Log {
        let file = out.append(LOG_FILE).ok();
        Log {
            file,
            start: Instant::now(),
            tag: tag.to_string(),
        }
    }

    fn say(&mut self, msg: &str) {
        // A message may quote the peer or a program: no escape sequence of
        // theirs reaches the console or the log.
        let line = format!(
            "[{:7.2}] agent {}: {}",
            self.start.elapsed().as_secs_f64(),
            self.tag,
            crate::base::text::escape_controls(msg)
        );
        if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
            println!("{line}");
        }
        if let Some(f) = &mut self.file {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// The scenarios of `names`, or the first unknown name.
fn resolve(names: &[String]) -> Result<Vec<&'static Scenario>, String> {
    names
        .iter()
        .map(|n| catalog::find(n).ok_or_else(|| format!("unknown scenario {n}")))
        .collect()
}

/// Why the serving host will not run `s`, by its own rules, whoever asks:
/// a real host (`--local`) never runs what changes the machine.
fn refusal(cfg: &AgentConfig, s: &Scenario) -> Option<String> {
    if cfg.doctor_only {
        return Some(
            "the serving host refused it: the doctor's session runs its probe only".into(),
        );
    }
    let mode = if cfg.net == Net::None {
        crate::model::Mode::Local {
            dev: Some(cfg.params.dev.clone()),
            ip: cfg.ip.clone(),
            gid_idx: None,
            role: crate::model::Local::Serve,
        }
    } else {
        crate::model::Mode::TwoHosts
    };
    // A mesh's rail past 0 (its ports shifted) runs the measurements
    // only, whatever the peer asks: the examples' fixed ports are rail 0's.
    let measured = crate::catalog::perf_runs().iter().any(|p| p.name == s.name);
    if cfg.params.tcp_shift > 0 && !measured {
        return Some(
            "the serving host refused it: past rail 0 a pair runs the probe and the \
             measurements only"
                .into(),
        );
    }
    let link_layer = fs::read_to_string(format!(
        "/sys/class/infiniband/{}/ports/{}/link_layer",
        cfg.params.dev, cfg.params.ib_port
    ))
    .ok();
    crate::catalog::skip_reason(s, &mode, link_layer.as_deref().map(str::trim))
        .map(|why| format!("the serving host refused it: {why}"))
}

/// The serving half of step 1: the peer's list, less what this host
/// refuses by its own rules (it says which, and why).
fn accept_list(
    cfg: &mut AgentConfig,
    c: &mut Control,
    log: &mut Log,
) -> Result<Vec<&'static Scenario>, String> {
    let names = String::from_utf8_lossy(&c.expect_blob("scenarios", SETUP_STEP)?).into_owned();
    let names: Vec<String> = names.split_whitespace().map(str::to_string).collect();
    let list = match resolve(&names) {
        Ok(list) => list,
        Err(e) => {
            c.send_blob("refused", e.as_bytes())?;
            return Err(format!(
                "the peer asked for an {}: run the same version of the lab on both hosts",
                crate::base::text::shown(&e)
            ));
        }
    };
    let mut refused = Vec::new();
    let mut runs = Vec::new();
    for s in list {
        match refusal(cfg, s) {
            Some(why) => {
                log.say(&format!("{}: {why}", s.name));
                refused.push(Skip {
                    scenario: s.name.to_string(),
                    reason: why,
                });
            }
            None => runs.push(s),
        }
    }
    // What this host refused, as JSON: the peer reads it into its type.
    let answer = serde_json::to_vec(&refused).map_err(|e| format!("the refusals: {e}"))?;
    c.send_blob("accepted", &answer)?;
    cfg.scenarios = runs.iter().map(|s| s.name.to_string()).collect();
    Ok(runs)
}

/// The peer's half of step 1: the list it asked for, less what the
/// serving host refused (written to [`refused_file`]).
fn ask_list(cfg: &AgentConfig, c: &mut Control) -> Result<Vec<&'static Scenario>, String> {
    // This host's own rules first: a list it was handed (a mesh's
    // coordinator names it) never runs here what they refuse, and what it
    // does not ask for the serving host does not walk either.
    let mut skips = Vec::new();
    let mut list = Vec::new();
    for s in resolve(&cfg.scenarios)? {
        match refusal(cfg, s).filter(|_| !cfg.doctor_only) {
            Some(why) => skips.push(Skip {
                scenario: s.name.to_string(),
                reason: why.replacen("the serving host", "this host", 1),
            }),
            None => list.push(s),
        }
    }
    let names: Vec<&str> = list.iter().map(|s| s.name.as_str()).collect();
    c.send_blob("scenarios", names.join(" ").as_bytes())?;
    let answer = c.recv("accepted", SETUP_STEP)?;
    let (word, payload) = answer.split_once(' ').unwrap_or((&answer, ""));
    let bytes = crate::guest::control::unhex(payload)?;
    if word != "accepted" {
        return Err(format!(
            "the serving host refused the list: {}: run the same version of the lab on both hosts",
            crate::base::text::shown(&String::from_utf8_lossy(&bytes))
        ));
    }
    let theirs: Vec<Skip> = serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "the serving host's refusals are not the lab's ({e}): run the same version of the \
             lab on both hosts"
        )
    })?;
    // Only the names this host asked for, each reason escaped: what the
    // serving host says reaches this host's terminal and reports.
    let mut refused: Vec<&str> = Vec::new();
    for skip in &theirs {
        if let Some(n) = names.iter().find(|n| **n == skip.scenario) {
            refused.push(n);
            skips.push(Skip {
                scenario: n.to_string(),
                reason: crate::base::text::escaped(&skip.reason, 300),
            });
        }
    }
    let lines: String = skips.iter().map(record_line).collect();
    let _ = out(cfg).write(REFUSED_FILE, lines);
    Ok(list
        .into_iter()
        .filter(|s| !refused.contains(&s.name.as_str()))
        .collect())
}

/// Opens a two-host session (step 1 of the module's protocol, after the
/// handshake): the scenario list both walk.
fn open_session(
    cfg: &mut AgentConfig,
    log: &mut Log,
) -> Result<(Control, Vec<&'static Scenario>), AgentError> {
    let secret = secret(cfg)?;
    if cfg.role == Role::Server {
        let mut c = control_server(cfg, &secret, log)?;
        // `{client_ip}` is the address the peer came from.
        if let Some(peer) = c.peer_addr() {
            cfg.params.client_ip = peer.ip().to_string();
        }
        let list = accept_list(cfg, &mut c, log)?;
        Ok((c, list))
    } else {
        let mut c = control_client(cfg, &secret, log)?;
        let list = ask_list(cfg, &mut c)?;
        Ok((c, list))
    }
}

/// The multicast groups whose route the doctor checks for `list` on this
/// host: the examples' group where a sender of it may run here (its
/// senders resolve it without `-b`, by the routing table). The doctor's own
/// session checks none: `cargo xtask doctor` judges its groups itself.
fn mcast_groups(cfg: &AgentConfig, list: &[&Scenario]) -> Vec<String> {
    let senders_here = cfg.role != Role::Server
        && !cfg.doctor_only
        && (list.is_empty() || list.iter().any(|s| s.package == "mckey"));
    if senders_here {
        vec![hints::EXAMPLES_GROUP.to_string()]
    } else {
        Vec::new()
    }
}

fn run_all(
    cfg: &AgentConfig,
    list: &[&'static Scenario],
    mut control: Option<&mut Control>,
    log: &mut Log,
) -> Result<(), String> {
    let mut kernel = KernelObjects::now();
    let mut next = list.iter().copied();
    let mut take = || match &cfg.queue {
        Some(q) => claim(q, &lane_name(cfg), list),
        None => next.next(),
    };
    while let Some(s) = take() {
        let clock = ScenarioClock::start();
        run_one(cfg, s, control.as_deref_mut(), &mut kernel, log)?;
        clock.record(cfg, &s.name);
    }
    Ok(())
}

/// The name of a queue's entry for the `i`th scenario of a run: its
/// position first, so that the entries sort in run order.
pub fn queue_entry(i: usize, name: &str) -> String {
    format!("{i:04}-{name}")
}

/// The next scenario of the queue that VMs side by side share: the first
/// entry ([`queue_entry`]) that this VM renames to `taken.LANE.ENTRY`
/// before another does. The rename happens on the host's file system, so
/// it is atomic, and the queue's 9p mount caches nothing, so each VM sees
/// what the others took.
fn claim(queue: &Path, lane: &str, list: &[&'static Scenario]) -> Option<&'static Scenario> {
    let mut entries: Vec<String> = fs::read_dir(queue)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    entries.sort();
    entries.into_iter().find_map(|entry| {
        let (_, name) = entry.split_once('-')?;
        let s = list.iter().find(|s| s.name == name)?;
        let taken = queue.join(format!("taken.{lane}.{entry}"));
        fs::rename(queue.join(&entry), taken).ok()?;
        Some(*s)
    })
}

/// This agent's name among VMs that share a queue: its result dir's.
fn lane_name(cfg: &AgentConfig) -> String {
    cfg.out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One scenario's run, in step with the peer when there is one.
fn run_one(
    cfg: &AgentConfig,
    s: &'static Scenario,
    mut control: Option<&mut Control>,
    kernel: &mut KernelObjects,
    log: &mut Log,
) -> Result<(), String> {
    let name = s.name.as_str();
    // Generous: the peer waits for our side's full run plus its own.
    let step = Duration::from_secs(u64::from(s.timeout_secs) * 2 + 30);
    let mut mark = |word: &str, from: Role| in_step(&mut control, cfg.role, from, word, name, step);
    mark("begin", Role::Server)?;
    // What this host's port receives over a measurement: its word on the
    // direction its peer sends (judge::trust).
    let measured = catalog::perf_runs().iter().any(|p| p.name == s.name);
    let around = measured.then(|| counters::Around::start(&cfg.params.dev, cfg.params.ib_port));
    let server = start_server(cfg, s, log);
    mark("ready", Role::Server)?;
    if cfg.role != Role::Server {
        if let Some(cmd) = &s.client {
            log.say(&format!("{name}: starting client"));
            let code = Running::start(cfg, s, "client", cmd).finish();
            log.say(&format!("{name}: client exited with {code}"));
        }
    }
    mark("done", Role::Client)?;
    if let Some(r) = server {
        stop_server(s, r, log);
    }
    // The VMs run nothing else, so every user object left in the kernel
    // is the scenario's; on a real host (--local) others' may be there.
    if cfg.net != Net::None {
        let left = kernel.leftovers();
        if !left.is_empty() {
            log.say(&format!("{name}: left in the kernel:\n{left}"));
        }
        let _ = out(cfg).write(&result_file(name, cfg.role.as_str(), "leftover"), left);
    }
    mark("end", Role::Server)?;
    if let Some(c) = around {
        let rises = c.finish();
        let _ = out(cfg).write(&result_file(name, cfg.role.as_str(), "counters"), rises);
    }
    match (control, cfg.role) {
        (Some(c), Role::Server) => send_results(cfg, c, name),
        (Some(c), Role::Client) => receive_results(cfg, c, name),
        _ => Ok(()),
    }
}

/// One line of the lockstep: `from` sends "WORD NAME", the other side
/// waits for it; alone, nothing.
fn in_step(
    control: &mut Option<&mut Control>,
    role: Role,
    from: Role,
    word: &str,
    name: &str,
    within: Duration,
) -> Result<(), String> {
    let line = format!("{word} {name}");
    match control {
        Some(c) if role == from => Ok(c.send(&line)?),
        Some(c) => Ok(c.expect(&line, within)?),
        None => Ok(()),
    }
}

/// The server side of `s`, started and ready, where this agent runs it.
fn start_server(cfg: &AgentConfig, s: &Scenario, log: &mut Log) -> Option<Running> {
    if cfg.role == Role::Client {
        return None;
    }
    let cmd = s.server.as_ref()?;
    log.say(&format!("{}: starting server", s.name));
    let mut r = Running::start(cfg, s, "server", cmd);
    wait_ready(s, cfg.params.tcp_shift, &mut r, log);
    Some(r)
}

/// Ends the server side: told to stop where it runs until then, and
/// waited for (its `timeout` bounds it).
fn stop_server(s: &Scenario, mut r: Running, log: &mut Log) {
    let name = &s.name;
    if s.stop_server {
        log.say(&format!("{name}: stopping server with SIGTERM"));
        if let Err(e) = r.terminate() {
            log.say(&format!("{name}: could not stop the server: {e}"));
        }
    }
    let code = r.finish();
    log.say(&format!("{name}: server exited with {code}"));
}

/// The whole run of one agent: rxe set up (in a VM), the doctor, then the
/// scenarios, alone or in a session with the peer.
fn session(cfg: &mut AgentConfig, log: &mut Log) -> Result<(), AgentError> {
    let mut phases = (cfg.net != Net::None).then(guest_boot).flatten();
    let rxe = Instant::now();
    if cfg.net != Net::None {
        setup_rxe(cfg, log)?;
    }
    if let Some(p) = &mut phases {
        p.rxe_secs = rxe.elapsed().as_secs_f64();
    }
    let doctor = Instant::now();
    if cfg.role == Role::Both {
        let list = resolve(&cfg.scenarios)?;
        doctor_here(cfg, &list, log);
        record_boot(cfg, phases, doctor, log);
        log.say(&format!("running {} scenario(s)", list.len()));
        return Ok(run_all(cfg, &list, None, log)?);
    }
    let (mut c, list) = open_session(cfg, log)?;
    let mtu = exchange_doctors(cfg, &mut c, &list, log)?;
    record_boot(cfg, phases, doctor, log);
    probe_path(cfg, &mut c, mtu, log)?;
    log.say(&format!("running {} scenario(s)", list.len()));
    Ok(run_all(cfg, &list, Some(&mut c), log)?)
}

/// Runs the agent; the result files and `agent.<role>.status` ("ok" or the
/// error) are left in `cfg.out`, made (mode 0700) when missing and then
/// held open ([`AgentConfig::dir`]).
pub fn run(mut cfg: AgentConfig) -> Result<(), AgentError> {
    if cfg.dir.is_none() {
        use std::os::unix::fs::DirBuilderExt;
        let failed = |e: std::io::Error| format!("{}: {e}", cfg.out.display());
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&cfg.out)
            .map_err(failed)?;
        cfg.dir = Some(Dir::open(&cfg.out).map_err(failed)?);
    }
    let mut log = Log::new(out(&cfg), cfg.role.as_str());
    let result = session(&mut cfg, &mut log);
    if cfg.net != Net::None {
        save_dmesg(&cfg);
    }
    let status = match &result {
        Ok(()) => AgentStatus::Ok,
        Err(e) => AgentStatus::Failed(e.to_string()),
    };
    log.say(&status.to_string());
    let _ = out(&cfg).write(&agent_status_file(cfg.role.as_str()), record_line(&status));
    result
}

/// The run's result dir, as [`run`] holds it open.
fn out(cfg: &AgentConfig) -> &Dir {
    cfg.dir
        .as_ref()
        .expect("run() opens the result dir before anything uses it")
}

#[cfg(test)]
mod tests;
