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
use crate::model::{Params, Ready, Scenario};
use crate::results::{
    boot_file, findings_file, host_file, host_record, parse_host_record, read_in, result_file,
    times_file, BootPhases, REFUSED_FILE,
};
use crate::{catalog, judge, model};
use std::fs::{self, File};
use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

impl AgentConfig {
    /// The configuration as the VM's agent reads it ([`AgentConfig::from_json`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("an agent's configuration serializes")
    }

    /// Reads what [`AgentConfig::to_json`] wrote, and refuses a device, an
    /// address or a QP timeout that is not one: they reach the scenarios'
    /// command lines.
    pub fn from_json(text: &str) -> Result<AgentConfig, String> {
        let cfg: AgentConfig =
            serde_json::from_str(text).map_err(|e| format!("agent configuration: {e}"))?;
        for (opt, ip) in [
            ("--ip", &cfg.ip),
            ("--server-ip", &cfg.params.server_ip),
            ("--client-ip", &cfg.params.client_ip),
        ] {
            model::check_ip(opt, ip)?;
        }
        model::check_dev("--dev", &cfg.params.dev)?;
        if !(1..=31).contains(&cfg.params.qp_timeout) {
            return Err(format!(
                "agent configuration: QP timeout {}, not 1 to 31",
                cfg.params.qp_timeout
            ));
        }
        if cfg.out.as_os_str().is_empty() {
            return Err("agent configuration: no result dir (out)".into());
        }
        Ok(cfg)
    }

    /// Reads the arguments of `rdma-lab agent`: `--config FILE`, the JSON
    /// the lab wrote into the run's result dir.
    pub fn from_cli(args: &[String]) -> Result<AgentConfig, String> {
        match args {
            [flag, file] if flag == "--config" => {
                let text = fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
                AgentConfig::from_json(&text)
            }
            _ => Err("agent: give --config FILE (the lab writes it)".into()),
        }
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

/// Whether `rdma res show cm_id` output shows a listener on `port`.
pub fn cm_listening(rdma_res_cm_id: &str, port: u16) -> bool {
    let suffix = format!(":{port}");
    rdma_res_cm_id.lines().any(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let after = |key: &str| f.windows(2).find(|w| w[0] == key).map(|w| w[1]);
        after("state") == Some("LISTEN") && after("src-addr").is_some_and(|a| a.ends_with(&suffix))
    })
}

/// The sysfs spelling of the IPv4-mapped GID of `ip`
/// (`0000:0000:0000:0000:0000:ffff:c000:0201` for 192.0.2.1).
pub fn ipv4_mapped_gid(ip: &str) -> Option<String> {
    let ip: std::net::Ipv4Addr = ip.parse().ok()?;
    let o = ip.octets();
    Some(format!(
        "0000:0000:0000:0000:0000:ffff:{:02x}{:02x}:{:02x}{:02x}",
        o[0], o[1], o[2], o[3]
    ))
}

fn is_ready(ready: Ready, out: &Dir, stdout: &str) -> bool {
    match ready {
        Ready::None => true,
        Ready::TcpListen(port) => ["/proc/net/tcp", "/proc/net/tcp6"]
            .iter()
            .any(|p| fs::read_to_string(p).is_ok_and(|t| tcp_listening(&t, port))),
        Ready::RdmaCmListen(port) => Command::new("rdma")
            .args(["res", "show", "cm_id"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| cm_listening(&String::from_utf8_lossy(&o.stdout), port)),
        Ready::Line(pattern) => read_in(out, stdout).is_some_and(|t| model::has_line(&t, pattern)),
    }
}

/// PATH with the workspace binaries first, then this very lab (whose
/// binary `rdma-lab` sits beside it, built or copied there), so shell
/// snippets in scenarios can name them (`rdma-lab doctor`).
fn search_path(bin_dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![bin_dir.to_path_buf()];
    if let Some(dir) = own_exe().and_then(|e| e.parent().map(Path::to_path_buf)) {
        dirs.push(dir);
    }
    if let Some(p) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// The running lab binary (`xtask` or `rdma-lab`).
fn own_exe() -> Option<PathBuf> {
    std::env::current_exe().ok()
}

/// What runs as `program`: the lab's own commands are this binary's, never
/// a stale copy; the examples are the bin dir's, else PATH's.
fn program_path(cfg: &AgentConfig, program: &str) -> std::ffi::OsString {
    let local = cfg.bin_dir.join(program);
    match own_exe() {
        Some(exe) if ["xtask", "rdma-lab"].contains(&program) => exe.into_os_string(),
        _ if local.is_file() => local.into_os_string(),
        _ => program.into(),
    }
}

/// One side running under `timeout`, its output going to files.
struct Running {
    child: Option<Child>,
    started: Instant,
    /// The result dir, and the side's files in it without their extension.
    out: Dir,
    base: String,
}

impl Running {
    fn start(cfg: &AgentConfig, s: &Scenario, side: &str, cmd: &model::Cmd) -> Running {
        let out = out(cfg).clone();
        let base = |ext: &str| result_file(&s.name, side, ext);
        let program = program_path(cfg, cmd.program);
        let files = out
            .create(&base("stdout"))
            .and_then(|o| Ok((o, out.create(&base("stderr"))?)));
        let child = files.and_then(|(o, e)| {
            Command::new("timeout")
                .args(["-k", "5", &s.timeout_secs.to_string()])
                .arg(program)
                .args(cmd.args_with(&cfg.params))
                // What the scripts of args_with read instead of values.
                .envs(cfg.params.env())
                .env("RUST_BACKTRACE", "1")
                .env("PATH", search_path(&cfg.bin_dir))
                .stdin(Stdio::null())
                .stdout(o)
                .stderr(e)
                .spawn()
        });
        let child = match child {
            Ok(c) => Some(c),
            Err(e) => {
                let _ = out.write(
                    &base("stderr"),
                    format!("agent: cannot start {}: {e}\n", cmd.program),
                );
                None
            }
        };
        Running {
            child,
            started: Instant::now(),
            out,
            base: result_file(&s.name, side, ""),
        }
    }

    /// The side's file with `ext`.
    fn file(&self, ext: &str) -> String {
        format!("{}{ext}", self.base)
    }

    /// SIGTERM to `timeout`, which passes it on to the command. The shell's
    /// builtin `kill` sends it: a minimal Debian has no `kill` program
    /// (procps), and without the signal the server would run into its
    /// time limit. `Err` says why the signal could not be sent.
    fn terminate(&mut self) -> Result<(), String> {
        let Some(c) = &self.child else {
            return Ok(());
        };
        let pid = c.id().to_string();
        let out = Command::new("sh")
            .args(["-c", "kill -TERM \"$1\"", "sh", &pid])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("sh: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "kill -TERM {pid}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    fn exited(&mut self) -> bool {
        match &mut self.child {
            Some(c) => !matches!(c.try_wait(), Ok(None)),
            None => true,
        }
    }

    /// Waits (bounded by `timeout -k`), escapes what the side wrote (a
    /// program prints what its peer sent it) and writes the status file.
    fn finish(mut self) -> i32 {
        use std::os::unix::process::ExitStatusExt;
        let code = match self.child.as_mut().map(|c| c.wait()) {
            Some(Ok(st)) => st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
            _ => 127,
        };
        for ext in ["stdout", "stderr"] {
            escape_file(&self.out, &self.file(ext));
        }
        let _ = self.out.write(
            &self.file("status"),
            format!(
                "exit={code}\nelapsed_ms={}\n",
                self.started.elapsed().as_millis()
            ),
        );
        code
    }
}

/// One side of a scenario run alone on this host: a mesh's multicast
/// round starts its receivers (and waits until each is ready) and its
/// sender, each on its own host, with no session between them.
pub struct SideRun(Running);

impl SideRun {
    /// Starts `side` (`"server"` or `"client"`) of `s`, its result files in
    /// `cfg.out`; `None` when `s` has no such side.
    pub fn start(cfg: &AgentConfig, s: &Scenario, side: &str) -> Option<SideRun> {
        let cmd = match side {
            "server" => s.server.as_ref()?,
            _ => s.client.as_ref()?,
        };
        Some(SideRun(Running::start(cfg, s, side, cmd)))
    }

    /// Waits, bounded by `s`'s time limit, until it is ready by `s.ready`.
    pub fn wait_ready(&mut self, cfg: &AgentConfig, s: &Scenario) {
        let mut log = Log::new(out(cfg), "mcast");
        wait_ready(s, cfg.params.tcp_shift, &mut self.0, &mut log);
    }

    /// Waits for it to end (its `timeout` bounds it); its exit status.
    pub fn finish(self) -> i32 {
        self.0.finish()
    }
}

fn wait_ready(s: &Scenario, shift: u16, server: &mut Running, log: &mut Log) {
    let deadline = Instant::now() + Duration::from_secs(s.timeout_secs.into());
    let stdout = server.file("stdout");
    loop {
        if is_ready(s.ready.shifted(shift), &server.out, &stdout) {
            log.say(&format!(
                "{}: server ready after {} ms",
                s.name,
                server.started.elapsed().as_millis()
            ));
            return;
        }
        if server.exited() {
            log.say(&format!("{}: server exited before it was ready", s.name));
            return;
        }
        if Instant::now() > deadline {
            log.say(&format!(
                "{}: server not ready in time; client runs anyway",
                s.name
            ));
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn run_cmd_logged(log_file: &mut File, program: &str, args: &[&str]) -> bool {
    let _ = writeln!(log_file, "$ {program} {}", args.join(" "));
    match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => {
            let _ = log_file.write_all(&o.stdout);
            let _ = log_file.write_all(&o.stderr);
            let _ = writeln!(log_file, "-> {}", o.status);
            o.status.success()
        }
        Err(e) => {
            let _ = writeln!(log_file, "-> cannot run: {e}");
            false
        }
    }
}

fn find_netdev_by_mac(mac: &str) -> Option<String> {
    let mac = mac.to_ascii_lowercase();
    fs::read_dir("/sys/class/net")
        .ok()?
        .flatten()
        .find_map(|e| {
            let addr = fs::read_to_string(e.path().join("address")).ok()?;
            (addr.trim() == mac).then(|| e.file_name().to_string_lossy().into_owned())
        })
}

fn poll<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Index of `gid` in the port's GID table.
fn gid_index(dev: &str, port: u32, gid: &str) -> Option<u32> {
    let dir = format!("/sys/class/infiniband/{dev}/ports/{port}/gids");
    (0..256).find(|i| fs::read_to_string(format!("{dir}/{i}")).is_ok_and(|g| g.trim() == gid))
}

/// Creates rxe0 on the requested netdev and finds the GID index of our IPv4
/// address (1 on a fresh rxe, but derived rather than assumed).
fn setup_rxe(cfg: &mut AgentConfig, log: &mut Log) -> Result<(), String> {
    let name = format!("setup.{}.log", cfg.role.as_str());
    let path = out(cfg).join(&name);
    let mut f = out(cfg)
        .create(&name)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let run = |f: &mut File, line: &str| {
        let v: Vec<&str> = line.split_whitespace().collect();
        run_cmd_logged(f, v[0], &v[1..])
    };
    run(&mut f, "modprobe rdma_rxe");
    run(&mut f, "modprobe rdma_ucm");
    run(&mut f, "ip link set lo up");
    let netdev = match &cfg.net {
        Net::None => return Ok(()),
        Net::Dummy => {
            run(&mut f, "ip link add d0 type dummy");
            // A dummy netdev does no ARP by default, so every address on its
            // subnet would "resolve"; with ARP on, a missing host fails
            // address resolution as it does on a real network.
            run(&mut f, "ip link set d0 arp on");
            "d0".to_string()
        }
        Net::Mac(mac) => match poll(2, || find_netdev_by_mac(mac)) {
            Some(n) => n,
            None => {
                // Debian kernels build virtio_net as a module that nothing
                // else may have loaded yet.
                run(&mut f, "modprobe virtio_net");
                poll(15, || find_netdev_by_mac(mac))
                    .ok_or_else(|| format!("no netdev with MAC {mac}"))?
            }
        },
    };
    run(&mut f, &format!("ip addr add {}/24 dev {netdev}", cfg.ip));
    run(&mut f, &format!("ip link set {netdev} up"));
    // rdma_resolve_addr of a multicast address without a bind address needs
    // a route to it (a default route on a real host); the VMs have none.
    run(&mut f, &format!("ip route add 224.0.0.0/4 dev {netdev}"));
    run(
        &mut f,
        &format!("rdma link add {} type rxe netdev {netdev}", cfg.params.dev),
    );
    let gid = ipv4_mapped_gid(&cfg.ip).ok_or_else(|| format!("bad ip {}", cfg.ip))?;
    let (dev, port) = (cfg.params.dev.clone(), cfg.params.ib_port);
    let state = format!("/sys/class/infiniband/{dev}/ports/{port}/state");
    let active = poll(15, || {
        fs::read_to_string(&state)
            .ok()
            .filter(|s| s.contains("ACTIVE"))
    });
    let idx = poll(15, || gid_index(&dev, port, &gid));
    run(&mut f, "rdma link show");
    run(&mut f, "ip addr show");
    let _ = writeln!(f, "port state: {active:?}; gid {gid} at index {idx:?}");
    if active.is_none() {
        return Err(format!(
            "{dev} port {port} did not become ACTIVE; see {}",
            path.display()
        ));
    }
    let idx = idx.ok_or_else(|| format!("no GID {gid} on {dev}; see {}", path.display()))?;
    cfg.params.gid_idx = idx;
    log.say(&format!(
        "{dev} is up on {netdev}, {} has GID index {idx}",
        cfg.ip
    ));
    if cfg.role == Role::Client && matches!(cfg.net, Net::Mac(_)) {
        offset_qp_numbers(cfg, &mut f);
    }
    Ok(())
}

/// How many QP numbers the client VM uses up before the run.
pub const QP_OFFSET: usize = 3;

/// Uses up [`QP_OFFSET`] QP numbers on the client VM, so that its QPs
/// are not numbered as the server VM's: two fresh VMs running the same
/// steps would give both hosts' QPs the same numbers, and a capture could
/// not answer "to which QP does the server send?". Each run of
/// ibv_sockets_pingpong's client creates its QP before it connects to
/// its server, finds none on this host's loopback, and exits; the
/// programs of the run are untouched.
fn offset_qp_numbers(cfg: &AgentConfig, f: &mut File) {
    let program = program_path(cfg, "ibv_sockets_pingpong");
    let program = program.to_string_lossy();
    let gid = cfg.params.gid_idx.to_string();
    let dev = cfg.params.dev.as_str();
    let args = ["10", &program, "-d", dev, "-g", &gid, "127.0.0.1"];
    for _ in 0..QP_OFFSET {
        run_cmd_logged(f, "timeout", &args);
    }
}

/// The session's shared secret: the one this process holds, the
/// `--secret-file`'s, or [`crate::guest::control::SECRET_ENV`]'s.
fn secret(cfg: &AgentConfig) -> Result<Secret, String> {
    match &cfg.secret {
        Some(s) => Ok(s.clone()),
        None => Secret::load(cfg.secret_file.as_deref()).unwrap_or_else(|| Err(Secret::missing())),
    }
}

/// Waits up to `--wait` for a peer that proves it holds the secret:
/// handshakes run side by side ([`crate::guest::gate`]), so strangers, and
/// peers outside `--allow`, are turned away, each in one line, while the
/// wait goes on.
fn control_server(cfg: &AgentConfig, secret: &Secret, log: &mut Log) -> Result<Control, String> {
    use crate::guest::gate::{Event, Gate};
    let addr: SocketAddr = format!("{}:{}", cfg.ip, cfg.port)
        .parse()
        .map_err(|e| format!("control: {}: {e}", cfg.ip))?;
    let listener = TcpListener::bind(addr).map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "control: port {} {PORT_IN_USE} ({addr}): stop it, or choose another --port",
            cfg.port
        ),
        _ => format!("control: bind {addr}: {e}"),
    })?;
    let mut gate = Gate::new(listener, cfg.allow.clone())?;
    log.say(&format!(
        "control: listening on {addr}, for {} s",
        cfg.wait_secs
    ));
    let deadline = Instant::now() + Duration::from_secs(cfg.wait_secs);
    let secret = secret.clone();
    let handshake = move |stream: TcpStream, peer: SocketAddr| {
        let mut c = Control::new(stream)?;
        match c.authenticate_server(&secret) {
            Ok(()) => Ok(c),
            Err(HandshakeError::Auth(why)) => Err(format!(
                "control: {}: the peer at {peer}: {why}",
                crate::guest::control::AUTH_FAILED
            )),
            Err(HandshakeError::Other(why)) => Err(format!("{why} (from {peer})")),
        }
    };
    let mut strangers = 0;
    while let Some(event) = gate.next(deadline, &handshake) {
        match event {
            Event::Done(Ok(c), peer) => {
                log.say(&format!("control: the peer connected from {peer}"));
                return Ok(c);
            }
            Event::Done(Err(why), _) => {
                strangers += 1;
                log.say(&why);
            }
            Event::NotAllowed(peer) => log.say(&format!(
                "control: refused a connection from {peer}: not an --allow address"
            )),
            Event::Full(ip) => log.say(&format!(
                "control: {ip} has {} handshakes under way: its next connections are closed \
                 until one ends",
                crate::guest::gate::PER_SOURCE
            )),
        }
    }
    Err(if strangers == 0 {
        format!(
            "control: no peer came to {addr} within {} s: start the lab with --peer {} on \
             the other host, and check that TCP port {} is open to it",
            cfg.wait_secs, cfg.ip, cfg.port
        )
    } else {
        format!(
            "control: no peer with this host's secret came to {addr} within {} s",
            cfg.wait_secs
        )
    })
}

/// Connects to the serving host and proves the secret, with a fresh
/// connection after each failed attempt until `--wait` ends: a stranger
/// who holds a connection or answers falsely delays the peer, never
/// denies it.
fn control_client(cfg: &AgentConfig, secret: &Secret, log: &mut Log) -> Result<Control, String> {
    let addr: SocketAddr = format!("{}:{}", cfg.params.server_ip, cfg.port)
        .parse()
        .map_err(|e| format!("control: {}: {e}", cfg.params.server_ip))?;
    let deadline = Instant::now() + Duration::from_secs(cfg.wait_secs);
    let mut last: Option<String> = None;
    let mut failed = 0;
    while Instant::now() < deadline {
        let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        let left = deadline.saturating_duration_since(Instant::now());
        match Control::new(stream).and_then(|mut c| {
            c.authenticate_client(secret, left.clamp(Duration::from_secs(1), ATTEMPT))
                .map(|()| c)
        }) {
            Ok(c) => {
                log.say(&format!("control: connected to the peer at {addr}"));
                return Ok(c);
            }
            Err(e) => {
                // Each new reason once: a wrong secret is said once, not
                // at every attempt until --wait ends.
                if last.as_ref() != Some(&e) {
                    log.say(&format!("{e} (at {addr}; trying again until --wait ends)"));
                }
                last = Some(e);
                failed += 1;
                std::thread::sleep(backoff(failed));
            }
        }
    }
    Err(match last {
        None => format!(
            "control: nothing answered at {addr} within {} s: start the lab with --serve on \
             that host first, and check that TCP port {} is open to this one",
            cfg.wait_secs, cfg.port
        ),
        Some(e) => format!(
            "control: no session with the serving host at {addr} within {} s; the last attempt: \
             {e}",
            cfg.wait_secs
        ),
    })
}

/// How long to wait before the next attempt after `failed` failed
/// handshakes: a quarter of a second, doubling up to 8 s, so a peer with
/// the wrong secret does not hammer the serving host.
pub fn backoff(failed: u32) -> Duration {
    Duration::from_millis(250u64 << failed.saturating_sub(1).min(5))
}

/// What a serving host says of its port when another process holds it:
/// neither host's nor the link's fault, and told as such.
pub const PORT_IN_USE: &str = "on this host is in use by another process";

/// How long one attempt at the handshake may take the peer: the serving
/// host answers at once and bounds its side to
/// [`crate::guest::control::HANDSHAKE_SECS`], so a connection held longer
/// is a stranger's, and the peer tries a fresh one.
pub const ATTEMPT: Duration = Duration::from_secs(crate::guest::control::HANDSHAKE_SECS + 5);

/// How long a session's set-up steps may take the peer: its doctor runs
/// a few small tools.
const SETUP_STEP: Duration = Duration::from_secs(60);

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
    let mut refused = String::new();
    let mut runs = Vec::new();
    for s in list {
        match refusal(cfg, s) {
            Some(why) => {
                log.say(&format!("{}: {why}", s.name));
                refused += &format!("{}\t{why}\n", s.name);
            }
            None => runs.push(s),
        }
    }
    c.send_blob("accepted", refused.as_bytes())?;
    cfg.scenarios = runs.iter().map(|s| s.name.to_string()).collect();
    Ok(runs)
}

/// The peer's half of step 1: the list it asked for, less what the
/// serving host refused (written to [`refused_file`]).
fn ask_list(cfg: &AgentConfig, c: &mut Control) -> Result<Vec<&'static Scenario>, String> {
    // This host's own rules first: a list it was handed (a mesh's
    // coordinator names it) never runs here what they refuse, and what it
    // does not ask for the serving host does not walk either.
    let mut mine = String::new();
    let mut list = Vec::new();
    for s in resolve(&cfg.scenarios)? {
        match refusal(cfg, s).filter(|_| !cfg.doctor_only) {
            Some(why) => {
                mine += &format!(
                    "{}\t{}\n",
                    s.name,
                    why.replacen("the serving host", "this host", 1)
                )
            }
            None => list.push(s),
        }
    }
    let names: Vec<&str> = list.iter().map(|s| s.name.as_str()).collect();
    c.send_blob("scenarios", names.join(" ").as_bytes())?;
    let answer = c.recv("accepted", SETUP_STEP)?;
    let (word, payload) = answer.split_once(' ').unwrap_or((&answer, ""));
    let text = String::from_utf8_lossy(&crate::guest::control::unhex(payload)?).into_owned();
    if word != "accepted" {
        return Err(format!(
            "the serving host refused the list: {}: run the same version of the lab on both hosts",
            crate::base::text::shown(&text)
        ));
    }
    // Only the names this host asked for, each reason escaped: what the
    // serving host says reaches this host's terminal and reports.
    let mut theirs = String::new();
    let mut refused: Vec<&str> = Vec::new();
    for (name, why) in text.lines().filter_map(|l| l.split_once('\t')) {
        if let Some(n) = names.iter().find(|n| **n == name) {
            refused.push(n);
            theirs += &format!("{n}\t{}\n", crate::base::text::escaped(why, 300));
        }
    }
    let _ = out(cfg).write(REFUSED_FILE, mine.clone() + &theirs);
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
) -> Result<(Control, Vec<&'static Scenario>), String> {
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

/// Runs the doctor on this host for the scenarios of `list`, writes its
/// findings and device into the result dir, and takes its GID index when
/// none was given; returns the two files' texts.
fn doctor_here(cfg: &mut AgentConfig, list: &[&Scenario], log: &mut Log) -> (String, String) {
    // The doctor's own session runs no scenario: it judges for the pairs.
    let pairs: Vec<&Scenario> = catalog::pairs().collect();
    let (locked_kib, locked_by) =
        catalog::largest_registration(if list.is_empty() { &pairs } else { list });
    let doctor = if QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        crate::guest::doctor::check_host_once
    } else {
        crate::guest::doctor::check_host
    };
    let check = doctor(&crate::guest::doctor::DoctorOpts {
        dev: Some(cfg.params.dev.clone()),
        ip: Some(cfg.ip.clone()),
        gid_idx: (!cfg.auto_gid).then_some(cfg.params.gid_idx),
        locked_kib,
        locked_by: locked_by.to_string(),
        mcast: mcast_groups(cfg, list),
        bin_dir: Some(cfg.bin_dir.clone()),
    });
    for l in &check.lines {
        log.say(&format!("doctor: {l}"));
    }
    for n in &check.notes {
        log.say(&format!("doctor notes: {n}"));
    }
    for f in &check.findings {
        log.say(&format!("doctor finds: {f}"));
    }
    if cfg.auto_gid {
        if let Some(i) = check.info.gid_index {
            cfg.params.gid_idx = i;
        }
    }
    let mut info = check.info;
    info.role = cfg.role.as_str().to_string();
    let findings: String = check.findings.iter().map(|f| format!("{f}\n")).collect();
    let host = host_record(&info) + "\n";
    let who = cfg.role.as_str();
    let _ = out(cfg).write(&findings_file(who), &findings);
    let _ = out(cfg).write(&host_file(who), &host);
    (findings, host)
}

/// Step 2: each side's doctor, and each tells the other what it found;
/// the finding on the path that the two devices make (their MTUs).
fn exchange_doctors(
    cfg: &mut AgentConfig,
    c: &mut Control,
    list: &[&Scenario],
    log: &mut Log,
) -> Result<Option<String>, String> {
    let (mut findings, host) = doctor_here(cfg, list, log);
    // Told to the peer with the rest, so that neither host takes a probe
    // that never ran for a fault of the path.
    if let Some(f) = probe_unstartable(cfg) {
        log.say(&format!("doctor finds: {f}"));
        findings += &format!("{f}\n");
        let _ = out(cfg).write(&findings_file(cfg.role.as_str()), &findings);
    }
    c.send_blob("findings", findings.as_bytes())?;
    c.send_blob("host", host.as_bytes())?;
    let peer = match cfg.role {
        Role::Server => "client",
        _ => "server",
    };
    // The peer's words, escaped before they reach a file.
    let theirs = escaped_bytes(&c.expect_blob("findings", SETUP_STEP)?);
    let their_host = escaped_bytes(&c.expect_blob("host", SETUP_STEP)?);
    let _ = out(cfg).write(&findings_file(peer), theirs);
    let _ = out(cfg).write(&host_file(peer), &their_host);
    // Both sides judge the two MTUs alike, so each says the same.
    let mtu = parse_host_record(&host)
        .zip(parse_host_record(&their_host))
        .and_then(|(mine, theirs)| crate::guest::doctor::mtu_finding(&mine, &theirs));
    Ok(mtu)
}

/// The start of a host's finding that its side of the RC probe cannot start.
const PROBE_CANNOT_START: &str = "the doctor's RC probe cannot start here: ";

/// This host's finding when it cannot start its side of the RC probe:
/// `PROGRAM --help`, started as the probe will be (bounded: 5 s).
fn probe_unstartable(cfg: &AgentConfig) -> Option<String> {
    let probe = catalog::find(catalog::PROBE)?;
    let cmd = match cfg.role {
        Role::Server => probe.server.as_ref()?,
        _ => probe.client.as_ref()?,
    };
    let out = Command::new("timeout")
        .args(["-k", "2", "5"])
        .arg(program_path(cfg, cmd.program))
        .arg("--help")
        .env("PATH", search_path(&cfg.bin_dir))
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let why = crate::model::not_started(out.status.code(), &String::from_utf8_lossy(&out.stderr))?;
    Some(format!("{PROBE_CANNOT_START}{why}"))
}

/// A host's finding (this one's or the peer's, as told) that its side of
/// the probe cannot start: which host, and why.
fn probe_cannot_start(cfg: &AgentConfig) -> Option<(&'static str, String)> {
    ["server", "client"].into_iter().find_map(|who| {
        let text = read_in(out(cfg), &findings_file(who))?;
        let why = text
            .lines()
            .find_map(|l| l.strip_prefix(PROBE_CANNOT_START))?;
        Some((who, why.to_string()))
    })
}

/// The finding of a probe that did not run because the `who` host cannot
/// start its side, for `why`.
fn not_run(who: &str, why: &str) -> String {
    format!("the doctor's RC probe did not run, since the {who} host cannot start its side: {why}")
}

/// The finding of a failed probe, or `None` when its RC message arrived,
/// judged on what this host ran and saw: a serving host judges its own
/// side, whatever the peer may claim; the peer, both sides' files.
fn probe_finding(cfg: &AgentConfig, probe: &'static Scenario) -> Option<String> {
    let outcome = crate::results::collect(&[probe], out(cfg), out(cfg)).pop()?;
    let mut failures = judge::check(probe, &outcome, None);
    if cfg.role == Role::Server {
        failures.retain(|f| f.starts_with("server"));
    }
    if failures.is_empty() {
        return None;
    }
    if let Some((who, why)) = probe_cannot_start(cfg) {
        return Some(not_run(who, &why));
    }
    // A side that never started: the probe did not run, and says nothing
    // of the path.
    let sides = [("server", &outcome.server), ("client", &outcome.client)];
    let mine = |side: &str| cfg.role != Role::Server || side == "server";
    if let Some((side, why)) = sides.iter().find_map(|(side, o)| {
        let why = o.as_ref()?.not_started().filter(|_| mine(side))?;
        Some((*side, why))
    }) {
        let host = if side == "server" {
            &cfg.params.server_ip
        } else {
            &cfg.params.client_ip
        };
        return Some(format!(
            "the doctor's RC probe did not run on {host}: its {side} side {why}"
        ));
    }
    let said = [&outcome.client, &outcome.server]
        .into_iter()
        .flatten()
        .find_map(|s| s.stderr.lines().next().map(crate::base::text::shown))
        .unwrap_or_else(|| failures[0].clone());
    Some(format!(
        "one RC message from {} to {} did not arrive ({said}): {}",
        cfg.params.server_ip,
        cfg.params.client_ip,
        hints::RC_PATH_BLOCKED
    ))
}

/// Step 3: the doctor's probe, one RC message across, as a scenario of its
/// own; each host judges it on its own.
fn probe_path(
    cfg: &AgentConfig,
    c: &mut Control,
    mtu: Option<String>,
    log: &mut Log,
) -> Result<(), String> {
    let probe = catalog::find(catalog::PROBE).expect("the probe is in the table");
    // Both hosts hold both findings by now: when one side cannot start,
    // neither runs the probe, so no server waits out its bound for a
    // client that will never come.
    let finding = match probe_cannot_start(cfg) {
        Some((who, why)) => not_run(who, &why),
        None => {
            run_all(cfg, &[probe], Some(c), log)?;
            probe_finding(cfg, probe).unwrap_or_default()
        }
    };
    if finding.is_empty() {
        log.say("doctor: one RC message crossed to the peer and back");
    }
    let found: Vec<String> = mtu
        .into_iter()
        .chain((!finding.is_empty()).then_some(finding))
        .collect();
    for f in &found {
        log.say(&format!("doctor finds: {f}"));
    }
    let text: String = found.iter().map(|f| format!("{f}\n")).collect();
    let _ = out(cfg).write(&findings_file("path"), text);
    Ok(())
}

/// The server's result files of `name`, sent after its "end" so that the
/// client's result dir holds both sides.
const RESULT_EXTS: &[&str] = &["stdout", "stderr", "status", "leftover"];

fn send_results(cfg: &AgentConfig, c: &mut Control, name: &str) -> Result<(), String> {
    use crate::guest::control::RESULT_MAX;
    for ext in RESULT_EXTS {
        if let Ok(mut bytes) = out(cfg).read(&result_file(name, "server", ext)) {
            if bytes.len() > RESULT_MAX {
                let note = format!("\n[cut at {} MiB by the serving host]\n", RESULT_MAX >> 20);
                bytes.truncate(RESULT_MAX - note.len());
                bytes.extend_from_slice(note.as_bytes());
            }
            c.send_blob(&format!("file {ext}"), &bytes)?;
        }
    }
    c.send(&format!("sent {name}"))
}

fn receive_results(cfg: &AgentConfig, c: &mut Control, name: &str) -> Result<(), String> {
    let sent = format!("sent {name}");
    // One line per result file at most, then "sent".
    let line_max = "file leftover ".len() + 2 * crate::guest::control::RESULT_MAX;
    for _ in 0..=RESULT_EXTS.len() {
        let line = c.recv_max(&sent, SETUP_STEP, line_max)?;
        if line == sent {
            return Ok(());
        }
        let mut words = line.splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("file"), Some(ext), Some(h)) if RESULT_EXTS.contains(&ext) => {
                let file = result_file(name, "server", ext);
                // The serving host's bytes, escaped before they reach a file.
                let text = escaped_bytes(&crate::guest::control::unhex(h)?);
                out(cfg)
                    .write(&file, text)
                    .map_err(|e| format!("{}: {e}", out(cfg).join(&file).display()))?;
            }
            _ => break,
        }
    }
    Err(format!(
        "control: the serving host sent more than its result files of {name} before `{sent}`"
    ))
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
        Some(c) if role == from => c.send(&line),
        Some(c) => c.expect(&line, within),
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

/// The wall time and the guest's busy CPU time of one scenario, written
/// to [`times_file`] once it is over: what the host's progress lines and
/// its time table read (a scenario that waits on a bound is idle, one that
/// computes is busy).
struct ScenarioClock {
    started: Instant,
    busy: Option<u64>,
}

impl ScenarioClock {
    fn start() -> ScenarioClock {
        ScenarioClock {
            started: Instant::now(),
            busy: busy_ticks(),
        }
    }

    fn record(self, cfg: &AgentConfig, name: &str) {
        let wall_ms = self.started.elapsed().as_millis();
        // /proc/stat counts in USER_HZ ticks, 100 a second on Linux.
        let busy_ms = match (self.busy, busy_ticks()) {
            (Some(a), Some(b)) => (b.saturating_sub(a) * 10).to_string(),
            _ => "-".into(),
        };
        let line = format!("{name}\t{wall_ms}\t{busy_ms}\n");
        let file = out(cfg).append(&times_file(cfg.role.as_str()));
        let _ = file.and_then(|mut f| f.write_all(line.as_bytes()));
    }
}

/// The CPU ticks this (virtual) machine has spent busy so far, all CPUs
/// together: `/proc/stat`'s first line less idle and iowait.
fn busy_ticks() -> Option<u64> {
    let stat = fs::read_to_string("/proc/stat").ok()?;
    let ticks: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let idle = ticks.get(3)? + ticks.get(4)?;
    Some(ticks.iter().sum::<u64>().saturating_sub(idle))
}

/// The kernel's RDMA objects when nothing of ours ran: `rdma res show`'s
/// per-device counts. A scenario that leaves them as they were left
/// nothing, which one command tells (five name the objects, at a tenth
/// of a second each under emulation, and only when the counts differ).
struct KernelObjects {
    idle: Option<String>,
}

impl KernelObjects {
    fn now() -> KernelObjects {
        KernelObjects {
            idle: rdma_res_counts(),
        }
    }

    /// [`leftovers`], asked only when the counts moved; counts that moved
    /// with no user object behind them (the kernel's own) are the new
    /// idle ones.
    fn leftovers(&mut self) -> String {
        let counts = rdma_res_counts();
        if counts.is_some() && counts == self.idle {
            return String::new();
        }
        let left = leftovers();
        if left.is_empty() {
            self.idle = rdma_res_counts();
        }
        left
    }
}

/// `rdma res show`: one line of counts per device.
fn rdma_res_counts() -> Option<String> {
    super::sys::output("rdma", &["res", "show"])
}

/// What user processes left in the kernel's RDMA resource tracking: the
/// `rdma res show` lines that carry a `pid` (the kernel's own carry none),
/// once the kernel has had up to 5 s to finish releasing a dead process's.
fn leftovers() -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut left = String::new();
        for kind in ["qp", "cq", "mr", "pd", "cm_id"] {
            let Ok(out) = Command::new("rdma").args(["res", "show", kind]).output() else {
                continue;
            };
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if line.contains(" pid ") {
                    left += &format!("{kind}: {}\n", line.trim());
                }
            }
        }
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn save_dmesg(cfg: &AgentConfig) {
    if let Ok(o) = Command::new("dmesg").stdin(Stdio::null()).output() {
        let text = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(200)..].join("\n");
        let _ = out(cfg).write(&format!("dmesg.{}.txt", cfg.role.as_str()), tail + "\n");
    }
}

/// The whole run of one agent: rxe set up (in a VM), the doctor, then the
/// scenarios, alone or in a session with the peer.
fn session(cfg: &mut AgentConfig, log: &mut Log) -> Result<(), String> {
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
        return run_all(cfg, &list, None, log);
    }
    let (mut c, list) = open_session(cfg, log)?;
    let mtu = exchange_doctors(cfg, &mut c, &list, log)?;
    record_boot(cfg, phases, doctor, log);
    probe_path(cfg, &mut c, mtu, log)?;
    log.say(&format!("running {} scenario(s)", list.len()));
    run_all(cfg, &list, Some(&mut c), log)
}

/// Where the guest's boot went before this agent started: the kernel's
/// log says when it ran init and, in virtme-ng-init's lines, how long
/// systemd-tmpfiles and udev's coldplug took; /proc/uptime how long ago
/// the kernel started.
fn guest_boot() -> Option<BootPhases> {
    let uptime: f64 = fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let out = Command::new("dmesg").stdin(Stdio::null()).output().ok()?;
    let log = String::from_utf8_lossy(&out.stdout);
    let at = |what: &str| -> Option<f64> {
        let line = log.lines().find(|l| l.contains(what))?;
        line.strip_prefix('[')?
            .split(']')
            .next()?
            .trim()
            .parse()
            .ok()
    };
    let span = |from: &str, to: &str| Some(at(to)? - at(from)?);
    Some(BootPhases {
        kernel_secs: at(" as init process")?,
        tmpfiles_secs: span("running systemd-tmpfiles", "basic initialization done")
            .unwrap_or_default(),
        udev_secs: span("triggering udev coldplug", "udev is done").unwrap_or_default(),
        agent_secs: uptime,
        ..BootPhases::default()
    })
}

/// The boot's phases, the doctor's time added, in [`boot_file`].
fn record_boot(cfg: &AgentConfig, phases: Option<BootPhases>, doctor: Instant, log: &mut Log) {
    let Some(mut p) = phases else {
        return;
    };
    p.doctor_secs = doctor.elapsed().as_secs_f64();
    log.say(&format!("boot: {p}"));
    let _ = out(cfg).write(&boot_file(cfg.role.as_str()), p.record());
}

/// Runs the agent; the result files and `agent.<role>.status` ("ok" or the
/// error) are left in `cfg.out`, made (mode 0700) when missing and then
/// held open ([`AgentConfig::dir`]).
pub fn run(mut cfg: AgentConfig) -> Result<(), String> {
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
        Ok(()) => "ok".to_string(),
        Err(e) => format!("error: {e}"),
    };
    log.say(&status);
    let _ = out(&cfg).write(
        &format!("agent.{}.status", cfg.role.as_str()),
        status + "\n",
    );
    result
}

/// The run's result dir, as [`run`] holds it open.
fn out(cfg: &AgentConfig) -> &Dir {
    cfg.dir
        .as_ref()
        .expect("run() opens the result dir before anything uses it")
}

/// Bytes from a peer or a program as the text a result file keeps: every
/// control and format character escaped but newlines and tabs
/// ([`crate::base::text::escape_controls`]), bytes that are not UTF-8 as
/// U+FFFD, so that a `cat` of the file obeys no escape sequence of theirs.
fn escaped_bytes(bytes: &[u8]) -> String {
    crate::base::text::escape_controls(&String::from_utf8_lossy(bytes))
}

/// The file `name` in `out`, rewritten escaped ([`escaped_bytes`]) when
/// it holds anything to escape, and cut at what a result file may hold
/// ([`crate::guest::control::RESULT_MAX`]: a program that wrote more costs
/// this host no more memory than one that wrote that much).
fn escape_file(out: &Dir, name: &str) {
    use crate::guest::control::RESULT_MAX;
    if let Ok((bytes, more)) = out.read_at_most(name, RESULT_MAX as u64) {
        let mut text = escaped_bytes(&bytes);
        if more {
            text += &format!("\n[cut at {} MiB by this host]\n", RESULT_MAX >> 20);
        }
        if text.as_bytes() != bytes.as_slice() {
            let _ = out.write(name, text);
        }
    }
}

#[cfg(test)]
mod tests;
