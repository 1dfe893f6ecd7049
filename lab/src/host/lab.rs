//! The host side of a lab run: setup, build, boot, collect.

use crate::base::fsafe;
use crate::base::rundir::Dir;
use crate::base::workspace::{cargo, target_dir};
use crate::catalog::skip_reason;
use crate::guest::agent::{AgentConfig, Net, Role};
use crate::host::vm::{Vm, VmSpec};
use crate::model::{Local, Mode, Outcome, Params, Scenario, Skip, CLIENT_IP, SERVER_IP};
pub use crate::results::report::{LabReport, VmInfo};
use crate::results::{
    agent_note, collect, read_doctor, read_in, read_refused, read_times, result_file, ScenarioTime,
};
use crate::{catalog, host};
use rdma_fabric::host::doctor::first_rdma_device;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How to run the lab.
#[derive(Debug, Clone)]
pub struct LabOptions {
    /// Where the sides run.
    pub mode: Mode,
    /// The lab binary (`rdma-lab`, or `xtask`) that runs as the agent in
    /// the VMs (it must be on a path the guest sees: see [`guest_can_see`]).
    pub agent_exe: PathBuf,
    /// Keep the result dir even when everything passed.
    pub keep: bool,
    /// Emulate (TCG) even where KVM would work.
    pub tcg: bool,
    /// Two hosts only: record the wire between the VMs (`wire.pcap` in
    /// the result dir, cut per scenario into `<name>.pcap`) and decode it.
    pub capture: bool,
    /// The kernel image the VMs boot (its modules in
    /// `/lib/modules/<version>`); `None` = the one setup picks.
    pub kernel: Option<PathBuf>,
    /// Run the examples from this directory (a copied `target/release`)
    /// instead of building them.
    pub bin_dir: Option<PathBuf>,
    /// Two hosts: how long to wait for the peer, in seconds (`None`: the
    /// default of the mode).
    pub wait_secs: Option<u64>,
    /// Two hosts: the control connection's TCP port.
    pub port: u16,
    /// Two real hosts: the file with the session's shared secret (else
    /// [`crate::guest::control::SECRET_ENV`]; a serving host makes one when
    /// neither is given).
    pub secret_file: Option<PathBuf>,
    /// Serving: the only peer addresses that may connect (empty: any).
    pub allow: Vec<std::net::IpAddr>,
    /// In the VMs: told of each scenario as it ends (see [`Progress`]).
    pub progress: Option<Progress>,
    /// One host in VMs: how many VMs run the list side by side, each
    /// taking the next scenario from a queue they share (at least one).
    pub lanes: usize,
    /// `--out DIR`: the root in which the run makes its dir (else the
    /// default, [`crate::base::workspace::results_root`]).
    pub out: Option<PathBuf>,
}

/// Told of each scenario of a VM run as it ends, with the result dir that
/// holds both its sides' files and its time: how a harness prints a line
/// per test while the VMs still run.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<OnScenario>);

/// What a [`Progress`] calls: the result dir and the scenario's time.
pub type OnScenario = dyn Fn(&Dir, &ScenarioTime) + Send + Sync;

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// Reads the report dir's [`crate::results::times_file`] as the agent adds
/// to it, and tells `progress` of each new line, until `done`; then once
/// more.
fn watch(progress: &Progress, dir: &Dir, role: &str, done: &std::sync::atomic::AtomicBool) {
    let mut told = 0;
    loop {
        let last = done.load(std::sync::atomic::Ordering::Acquire);
        let times = read_times(dir, role);
        for t in times.iter().skip(told) {
            (progress.0)(dir, t);
        }
        told = told.max(times.len());
        if last {
            return;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

impl LabOptions {
    /// Options for `mode` with every other choice at its default.
    pub fn new(mode: Mode, agent_exe: PathBuf) -> LabOptions {
        LabOptions {
            mode,
            agent_exe,
            keep: false,
            tcg: tcg_from_env(),
            capture: false,
            kernel: None,
            bin_dir: None,
            wait_secs: None,
            port: crate::model::CONTROL_PORT,
            secret_file: None,
            allow: Vec::new(),
            progress: None,
            lanes: 1,
            out: None,
        }
    }
}

/// Whether `XTASK_TCG=1` asks for emulation: how `cargo xtask test` and the
/// Soft-RoCE tests take `--tcg`.
pub fn tcg_from_env() -> bool {
    std::env::var_os("XTASK_TCG").is_some_and(|v| v == "1")
}

/// Builds the workspace's release binaries, the examples and `rdma-lab`
/// among them: always the whole workspace
/// ([`RELEASE_BUILD`](crate::base::workspace::RELEASE_BUILD)), which
/// costs nothing when it is current.
pub fn build() -> Result<(), String> {
    let args = crate::base::workspace::RELEASE_BUILD;
    eprintln!("lab: $ cargo {}", args.join(" "));
    let st = cargo()
        .args(args)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if st.success() {
        Ok(())
    } else {
        Err(format!("build failed: cargo {} ({st})", args.join(" ")))
    }
}

/// The run's root (`--out`, else the default) opened once, and the run's
/// own dir in it: fresh, mode 0700, unpredictably named, so a run never
/// writes into one it did not make, and no other user reads what the
/// runs leave. Runs of one process side by side (the Soft-RoCE suite's
/// batches) each get their own.
fn new_run_dir(opts: &LabOptions) -> Result<(Dir, Dir), String> {
    let root = match &opts.out {
        Some(o) => fsafe::open_root(o, "--out ", false)?,
        None => crate::base::workspace::results_root("lab")?,
    };
    let dir = fsafe::fresh_run(&root, "")?;
    Ok((root, dir))
}

fn run_budget(list: &[&Scenario]) -> u64 {
    list.iter()
        .map(|s| u64::from(s.timeout_secs) * 2 + 15)
        .sum()
}

/// Host directories the guest does not see, because virtme-ng mounts a
/// fresh tmpfs over them (the host's /tmp it does see, through an overlay).
const HIDDEN_IN_GUEST: &[&str] = &[
    "/var/tmp",
    "/var/log",
    "/var/cache",
    "/var/lib/apt",
    "/var/lib/private",
    "/run",
];

/// Whether a host path is visible inside the lab's VMs.
pub fn guest_can_see(p: &Path) -> bool {
    !HIDDEN_IN_GUEST.iter().any(|h| p.starts_with(h))
}

/// Where the binaries are: `opts.bin_dir`, which must hold every program
/// of `list`, or the build's, built now.
fn binaries(opts: &LabOptions, list: &[&Scenario]) -> Result<PathBuf, String> {
    // A copied rdma-lab, without the source tree, runs the examples beside it.
    let beside = (!crate::base::workspace::source_tree())
        .then(crate::base::workspace::exe_dir)
        .flatten();
    let Some(dir) = opts.bin_dir.as_ref().or(beside.as_ref()) else {
        build()?;
        return Ok(target_dir().join("release"));
    };
    // A serving host runs whatever its peer asks for: a binary it lacks
    // fails that scenario, in the peer's report.
    if let Mode::Local {
        role: Local::Serve, ..
    } = opts.mode
    {
        return Ok(dir.clone());
    }
    for s in list {
        for cmd in [&s.server, &s.client].into_iter().flatten() {
            let is_ours = crate::catalog::binaries().contains(&cmd.program);
            if is_ours && !dir.join(cmd.program).is_file() {
                return Err(format!(
                    "{} has no {}: copy it there from a build's target/release",
                    dir.display(),
                    cmd.program
                ));
            }
        }
    }
    Ok(dir.clone())
}

/// Runs the named scenarios (empty = every pair) in `opts.mode`: setup
/// check, build, boot, run, collect. `Err` only when nothing could run.
/// With `--local --serve`, the list is the peer's, and the report has no
/// outcome: the peer prints it.
pub fn run_scenarios(opts: &LabOptions, names: &[&str]) -> Result<LabReport, String> {
    let serve = matches!(
        opts.mode,
        Mode::Local {
            role: Local::Serve,
            ..
        }
    );
    let (mut list, mut skipped) = select_and_skip(opts, names, serve)?;
    let tools = set_up(opts, &list)?;
    let accel = match &tools {
        Some(t) => host::vm::detect_accel(opts.tcg, t),
        None => host::vm::Accel::Tcg("no VM: the lab runs on this host".into()),
    };
    // Before the build: a missing device is the more useful error.
    let local_dev = local_device(&opts.mode)?;
    if tools.is_some() {
        check_guest_paths(opts)?;
    }
    let bin_dir = build_for_run(opts, &list)?;
    let ctx = RunCtx::new(opts, bin_dir, &list)?;
    let mut notes = Vec::new();
    // The dir whose result files hold both sides: in a two-host session,
    // the client's, to which the server sends its own.
    let done = std::sync::atomic::AtomicBool::new(false);
    let (report_dirs, boot) = std::thread::scope(|scope| {
        if let Some(p) = &opts.progress {
            for (dir, role) in ctx.report_dirs()? {
                let done = &done;
                scope.spawn(move || watch(p, &dir, role, done));
            }
        }
        let booted = boot_and_run(&ctx, tools.as_ref(), &accel, local_dev, &mut notes);
        done.store(true, std::sync::atomic::Ordering::Release);
        booted
    })?;
    let report_dir = &report_dirs[0];
    skipped.extend(take_refused(report_dir, &mut list));
    let mut outcomes = if serve {
        Vec::new()
    } else {
        collect_lanes(&list, &report_dirs)
    };
    let captured = opts.capture && opts.mode == Mode::TwoHosts;
    if captured {
        if let Err(e) = attach_captures(&ctx.dir, &mut outcomes) {
            notes.push(format!("capture: {e}"));
        }
    }
    let (findings, hosts) = read_doctors(&report_dirs);
    let elapsed = ctx.started.elapsed();
    let phases = ctx.report_dirs()?.first().and_then(|(dir, role)| {
        let text = read_in(dir, &crate::results::boot_file(role))?;
        crate::results::parse_line::<crate::results::BootPhases>(&text)
    });
    let vms = vm_info(tools, accel, (boot, phases), &ctx.dir);
    let addrs = opts.mode.addrs();
    let report = LabReport {
        dir: ctx.dir.path().to_path_buf(),
        outcomes: crate::capture::verdict::judge_all(outcomes, addrs.as_ref(), captured),
        notes,
        elapsed,
        vms,
        addrs,
        captured,
        mode: opts.mode.clone(),
        skipped,
        findings,
        hosts,
    };
    clean_up(&report, opts.keep, &ctx.root);
    Ok(report)
}

/// Each scenario's outcome, from the dir of the lane that ran it (the
/// first lane's, where none did, which then says what is missing).
fn collect_lanes(list: &[&'static Scenario], dirs: &[Dir]) -> Vec<Outcome> {
    let ran_in = |s: &Scenario, d: &Dir| {
        ["both", "server", "client"]
            .iter()
            .any(|side| d.exists(&result_file(&s.name, side, "status")))
    };
    list.iter()
        .flat_map(|s| {
            let dir = dirs.iter().find(|d| ran_in(s, d)).unwrap_or(&dirs[0]);
            collect(&[s], dir, dir)
        })
        .collect()
}

/// The doctor's findings and hosts of every lane, each told once (the
/// lanes' VMs are alike).
fn read_doctors(dirs: &[Dir]) -> (Vec<String>, Vec<crate::results::HostInfo>) {
    let (mut findings, mut hosts) = (Vec::new(), Vec::new());
    for d in dirs {
        let (f, h) = read_doctor(d);
        findings.extend(
            f.into_iter()
                .filter(|x| !findings.contains(x))
                .collect::<Vec<_>>(),
        );
        hosts.extend(
            h.into_iter()
                .filter(|x| !hosts.contains(x))
                .collect::<Vec<_>>(),
        );
    }
    (findings, hosts)
}

/// Boots the VMs (or runs here, with `--local`) and runs the list; the
/// dirs with the report's result files (one per lane), and the boot time.
fn boot_and_run(
    ctx: &RunCtx,
    tools: Option<&host::setup::Tools>,
    accel: &host::vm::Accel,
    local_dev: Option<String>,
    notes: &mut Vec<String>,
) -> Result<(Vec<Dir>, Duration), String> {
    match &ctx.opts.mode {
        Mode::Local {
            ip, gid_idx, role, ..
        } => {
            let dev = local_dev.expect("resolved above for Local");
            let dir = run_local(ctx, dev, ip, *gid_idx, role, notes)?;
            Ok((vec![dir], Duration::ZERO))
        }
        Mode::SingleHost => {
            let tools = tools.expect("VM modes have their tools");
            boot_one_vm(ctx, tools, accel, notes)
        }
        Mode::TwoHosts => {
            let tools = tools.expect("VM modes have their tools");
            boot_two_vms(ctx, tools, accel, notes).map(|(dir, boot)| (vec![dir], boot))
        }
    }
}

/// Select and skip: the scenarios to run (a serving host's: all of them,
/// the peer picks) without those this mode or device cannot run, each
/// printed and returned as a [`Skip`] with why.
fn select_and_skip(
    opts: &LabOptions,
    names: &[&str],
    serve: bool,
) -> Result<(Vec<&'static Scenario>, Vec<Skip>), String> {
    let mut list = if serve {
        catalog::all().iter().collect()
    } else {
        catalog::select(names).map_err(|e| e.to_string())?
    };
    let link_layer = local_link_layer(&opts.mode);
    let mut skipped = Vec::new();
    list.retain(
        |s| match skip_reason(s, &opts.mode, link_layer.as_deref()) {
            Some(why) if !serve => {
                println!("lab: skipped {}: {why}", s.name);
                skipped.push(Skip {
                    scenario: s.name.to_string(),
                    reason: why.to_string(),
                });
                false
            }
            _ => true,
        },
    );
    Ok((list, skipped))
}

/// What this host's device is, as far as the scenarios care: the link
/// layer of its port 1 with `--local`, `None` in the VMs.
fn local_link_layer(mode: &Mode) -> Option<String> {
    match mode {
        Mode::Local { dev, .. } => dev
            .clone()
            .or_else(first_rdma_device)
            .and_then(|d| {
                fs::read_to_string(format!("/sys/class/infiniband/{d}/ports/1/link_layer")).ok()
            })
            .map(|l| l.trim().to_string()),
        _ => None,
    }
}

/// Setup: the VMs' tools (with `--kernel`'s image), and the packages that
/// `--capture` and the scenarios need; `None` with `--local`.
fn set_up(opts: &LabOptions, list: &[&Scenario]) -> Result<Option<host::setup::Tools>, String> {
    let vms = !matches!(opts.mode, Mode::Local { .. });
    // Before setup: a wrong image is said at once.
    let kernel = opts
        .kernel
        .as_deref()
        .map(host::setup::kernel_from_image)
        .transpose()?;
    let mut tools = if vms {
        Some(host::setup::ensure()?)
    } else {
        None
    };
    if let (Some(t), Some(k)) = (&mut tools, kernel) {
        t.kernel = k;
    }
    if opts.capture {
        host::setup::ensure_package("tshark", "to decode the capture")?;
    }
    if vms {
        for s in list {
            for p in s.packages {
                host::setup::ensure_package(p, &format!("for the scenario {}", s.name))?;
            }
        }
    }
    Ok(tools)
}

/// The device `--local` runs on (`--dev`, else the first); `None` in the
/// VMs.
fn local_device(mode: &Mode) -> Result<Option<String>, String> {
    Ok(match mode {
        Mode::Local { dev: Some(d), .. } => Some(d.clone()),
        Mode::Local { dev: None, .. } => Some(first_rdma_device().ok_or(
            "no RDMA device on this host (/sys/class/infiniband is empty); pass --dev or drop --local",
        )?),
        _ => None,
    })
}

/// That the VMs see the agent and the build, which virtme-ng would hide.
fn check_guest_paths(opts: &LabOptions) -> Result<(), String> {
    let target = target_dir();
    let seen = [
        Some(opts.agent_exe.as_path()),
        Some(target.as_path()),
        opts.out.as_deref(),
    ];
    for p in seen.into_iter().flatten() {
        if !guest_can_see(p) {
            return Err(format!(
                "the VMs cannot see {}: virtme-ng mounts a fresh tmpfs over it; build the workspace elsewhere",
                p.display()
            ));
        }
    }
    Ok(())
}

/// Build: the binaries of `list`, and of the doctor's probe, with which a
/// two-host session starts.
fn build_for_run(opts: &LabOptions, list: &[&'static Scenario]) -> Result<PathBuf, String> {
    let mut to_build = list.to_vec();
    if opts.mode.two_hosts() {
        to_build.extend(catalog::find(catalog::PROBE));
    }
    if opts.mode.vms() {
        build_lab_binary(opts)?;
    }
    binaries(opts, &to_build)
}

/// Builds `rdma-lab` beside the agent's binary (same profile), for the
/// scenarios that run the lab inside the VMs, by its name or copied to a
/// host: `cargo xtask` builds only its own binary.
fn build_lab_binary(opts: &LabOptions) -> Result<(), String> {
    let Some(dir) = opts.agent_exe.parent() else {
        return Ok(());
    };
    if !crate::base::workspace::source_tree() {
        return Ok(());
    }
    if dir.ends_with("release") {
        return build();
    }
    // The whole workspace here too, for the reason `RELEASE_BUILD` gives.
    let args = ["build", "--quiet", "--workspace", "--bins"];
    if cargo().args(args).status().is_ok_and(|s| s.success()) {
        Ok(())
    } else {
        Err(format!("cargo {} failed", args.join(" ")))
    }
}

/// What the boot of every mode shares: the options, the binaries, the
/// scenario names, the result dir, and when the run started and must end.
struct RunCtx<'a> {
    /// The run's options.
    opts: &'a LabOptions,
    /// Where the examples' binaries are.
    bin_dir: PathBuf,
    /// The scenarios' names, in run order.
    names: Vec<String>,
    /// Whether the sides run in VMs.
    vms: bool,
    /// The root the run's dir is in, and the run's dir, held open.
    root: Dir,
    dir: Dir,
    /// When the run started (after the build).
    started: Instant,
    /// The boot and the scenarios' time bound.
    budget: Duration,
}

impl<'a> RunCtx<'a> {
    /// Makes the run's result dir and starts its clock.
    fn new(
        opts: &'a LabOptions,
        bin_dir: PathBuf,
        list: &[&Scenario],
    ) -> Result<RunCtx<'a>, String> {
        let (root, dir) = new_run_dir(opts)?;
        let names = list.iter().map(|s| s.name.to_string()).collect();
        let started = Instant::now();
        Ok(RunCtx {
            opts,
            bin_dir,
            names,
            vms: !matches!(opts.mode, Mode::Local { .. }),
            root,
            dir,
            started,
            budget: Duration::from_secs(host::vm::BOOT_SECS + run_budget(list)),
        })
    }

    /// In the VMs, the dirs that will hold both sides' result files and
    /// the role whose times file is there (VM B's client, or each lane's
    /// both).
    fn report_dirs(&self) -> Result<Vec<(Dir, &'static str)>, String> {
        Ok(match self.opts.mode {
            Mode::SingleHost => self
                .lane_dirs()?
                .into_iter()
                .map(|d| (d, Role::Both.as_str()))
                .collect(),
            Mode::TwoHosts => vec![(self.sub("b")?, Role::Client.as_str())],
            Mode::Local { .. } => Vec::new(),
        })
    }

    /// Boots `spec`, its console in the run's dir as `console`.
    fn boot(
        &self,
        tools: &host::setup::Tools,
        accel: &host::vm::Accel,
        spec: &VmSpec,
        console: &str,
    ) -> Result<Vm, String> {
        let path = self.dir.join(console);
        let log = self
            .dir
            .create(console)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Vm::boot_to(tools, accel, spec, &path, log)
    }

    /// The dir `name` in the run's, made when missing, held open.
    fn sub(&self, name: &str) -> Result<Dir, String> {
        self.dir
            .make_dir(name)
            .map_err(|e| format!("{}: {e}", self.dir.join(name).display()))
    }

    /// One host in VMs: each lane's result dir, `a` then `a2`, `a3`...
    fn lane_dirs(&self) -> Result<Vec<Dir>, String> {
        (1..=self.opts.lanes.max(1))
            .map(|i| match i {
                1 => self.sub("a"),
                i => self.sub(&format!("a{i}")),
            })
            .collect()
    }

    /// The queue that lanes side by side take their scenarios from: an
    /// entry per scenario, in run order; `None` for one lane.
    fn queue(&self) -> Result<Option<PathBuf>, String> {
        if self.opts.lanes <= 1 {
            return Ok(None);
        }
        let failed = |e: std::io::Error| format!("{}: {e}", self.dir.join("queue").display());
        let q = self.dir.fresh_dir("queue").map_err(failed)?;
        for (i, name) in self.names.iter().enumerate() {
            q.write(&crate::guest::agent::queue_entry(i, name), "")
                .map_err(failed)?;
        }
        Ok(Some(q.path().to_path_buf()))
    }

    /// An agent's configuration: `role` at `ip` on `net`, its results in
    /// `out`.
    fn agent(&self, role: Role, ip: &str, net: Net, out: &Dir, params: Params) -> AgentConfig {
        let opts = self.opts;
        AgentConfig {
            role,
            ip: ip.to_string(),
            net,
            out: out.path().to_path_buf(),
            dir: Some(out.clone()),
            bin_dir: self.bin_dir.clone(),
            params,
            // The server learns the list from the client.
            scenarios: if role == Role::Server {
                Vec::new()
            } else {
                self.names.clone()
            },
            wait_secs: opts.wait_secs.unwrap_or(if self.vms {
                crate::guest::agent::VM_WAIT_SECS
            } else {
                crate::guest::agent::PEER_WAIT_SECS
            }),
            port: opts.port,
            auto_gid: false,
            secret_file: opts.secret_file.clone(),
            secret: None,
            allow: opts.allow.clone(),
            doctor_only: false,
            queue: None,
        }
    }

    /// The shell command a VM runs: the agent, its configuration in a file
    /// in its result dir, written now. On the kernel command line, which vng
    /// uses to pass --exec, a long scenario list would be cut at 2 KiB and
    /// the guest would hang at boot.
    fn exec(&self, cfg: &AgentConfig, out: &Dir) -> Result<String, String> {
        let name = crate::guest::agent::CONFIG_FILE;
        let file = out.join(name);
        out.write(name, cfg.to_json())
            .map_err(|e| format!("{}: {e}", file.display()))?;
        Ok([
            self.opts.agent_exe.to_string_lossy().into_owned(),
            "agent".into(),
            "--config".into(),
            file.to_string_lossy().into_owned(),
        ]
        .iter()
        .map(|w| crate::base::text::shell_quote(w))
        .collect::<Vec<_>>()
        .join(" "))
    }
}

/// Boot, `--local`: no VM, the agent runs here (alone, serving or as the
/// peer); the report's dir is the run's.
fn run_local(
    ctx: &RunCtx,
    dev: String,
    ip: &str,
    gid_idx: Option<u32>,
    role: &Local,
    notes: &mut Vec<String>,
) -> Result<Dir, String> {
    let (agent_role, server_ip) = match role {
        Local::Alone => (Role::Both, ip.to_string()),
        Local::Serve => (Role::Server, ip.to_string()),
        Local::Peer(server) => (Role::Client, server.clone()),
    };
    let params = Params {
        server_ip,
        client_ip: ip.to_string(),
        dev,
        gid_idx: gid_idx.unwrap_or(0),
        ib_port: 1,
        tcp_shift: 0,
        qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
        cpus: String::new(),
        numa_node: String::new(),
    };
    let mut cfg = ctx.agent(agent_role, ip, Net::None, &ctx.dir, params);
    cfg.auto_gid = gid_idx.is_none();
    if agent_role == Role::Server {
        cfg.secret = serving_secret(ctx.opts, ip)?;
    }
    if let Err(e) = crate::guest::agent::run(cfg) {
        notes.push(format!("agent: {e}"));
    }
    Ok(ctx.dir.clone())
}

/// What the serving host refused by its own rules: taken out of `list`,
/// printed, and returned to be reported as skipped, with why.
fn take_refused(report_dir: &Dir, list: &mut Vec<&'static Scenario>) -> Vec<Skip> {
    let refused = read_refused(report_dir);
    list.retain(|s| !refused.iter().any(|r| r.scenario == s.name));
    for r in &refused {
        println!("lab: skipped {}: {}", r.scenario, r.reason);
    }
    refused
}

/// Cleanup: the result dir goes when everything passed, unless `keep` or
/// a capture (it is what was asked for) keeps it; removed through the
/// root's handle, never by its path again.
fn clean_up(report: &LabReport, keep: bool, root: &Dir) {
    let all_pass = report.notes.is_empty() && report.findings.is_empty() && report.failed() == 0;
    // A capture is kept: it is what was asked for.
    if all_pass && !keep && !report.captured {
        if let Some(name) = report.dir.file_name().and_then(|n| n.to_str()) {
            let _ = root.remove_tree(name);
        }
    }
}

/// The secret a serving host uses when neither `--secret-file` nor the
/// environment gives one: a new one, with the command for the peer.
fn serving_secret(
    opts: &LabOptions,
    ip: &str,
) -> Result<Option<crate::guest::control::Secret>, String> {
    if opts.secret_file.is_some() || crate::guest::control::Secret::from_env().is_some() {
        return Ok(None);
    }
    let secret = crate::guest::control::Secret::generate()?;
    println!(
        "lab: this session's secret is new (no --secret-file, no {env}); on the peer host run:\n  \
         {env}={} cargo xtask lab --local --peer {ip} --ip ITS_ADDRESS --port {} [NAME...]",
        secret.text(),
        opts.port,
        env = crate::guest::control::SECRET_ENV,
    );
    Ok(Some(secret))
}

/// Copies the example binaries of `from` (a build's `target/release`)
/// into `to`, and nothing else: what a host without the source tree gets;
/// `to`'s path, for the VM that runs them.
pub fn copy_binaries(from: &Path, to: &Dir) -> Result<PathBuf, String> {
    for b in crate::catalog::binaries() {
        let src = from.join(b);
        if src.is_file() {
            to.copy_from(&src, b)
                .map_err(|e| format!("copying {}: {e}", src.display()))?;
        }
    }
    Ok(to.path().to_path_buf())
}

/// The file in a VM run's result dir that names the kernel it booted.
const KERNEL_FILE: &str = "kernel";

/// Cuts `dir/wire.pcap` per scenario and gives each outcome its packets.
fn attach_captures(dir: &Dir, outcomes: &mut [Outcome]) -> Result<(), String> {
    for c in crate::capture::split(dir)? {
        if let Some(o) = outcomes.iter_mut().find(|o| o.scenario == c.scenario) {
            o.capture = Some(c.packets);
        }
    }
    Ok(())
}

mod kept;
mod vms;

pub use kept::{handout_run, load_two_host_run};
use vms::{boot_one_vm, boot_two_vms, vm_info};

#[cfg(test)]
mod tests;
