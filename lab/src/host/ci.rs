//! `cargo xtask test`: the one test command of CI and the README.
//!
//! What the VM tests need is built first, at full speed; then the VM tests
//! run (the Soft-RoCE suite, then the fabric test from the end of the
//! suite's one-host batch), and beside them the
//! rest builds and runs at a lower priority: clippy, the host tests' build,
//! the second bindings build. The VM tests mostly wait on their programs'
//! bounds, which the rest fills. Each step's wall time goes into the run's
//! [`Times`].

use crate::base::workspace::{cargo, cargo_program, target_dir};
use crate::results::times::{self, Step, Times};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// `cargo fmt --all [--check]`: every file is in a module tree it walks.
pub fn fmt_args(check: bool) -> Vec<String> {
    let mut args: Vec<String> = ["fmt", "--all"].map(String::from).to_vec();
    if check {
        args.push("--check".into());
    }
    args
}

/// Runs `cargo xtask fmt [--check]`; whether it passed.
pub fn fmt(check: bool) -> bool {
    cargo()
        .args(fmt_args(check))
        .status()
        .is_ok_and(|s| s.success())
}

/// What the VM tests run, built first and at full speed: the release
/// binaries (the examples, and the lab the fabric's nodes run), as every
/// lab run builds them ([`lab::build`](crate::host::lab::build)).
pub const VM_BUILD: &[&str] = crate::base::workspace::RELEASE_BUILD;

/// The VM tests' own binaries (their harnesses and the lab they run as
/// the VMs' agent), built at full speed, their paths read from cargo: in
/// the release profile, whose dependencies and libraries [`VM_BUILD`] has
/// just built (the test command compiles the workspace once for the VMs
/// and the tests, once for clippy).
pub const VM_TESTS: &[&str] = &[
    "test",
    "--release",
    "-p",
    "rdma-lab",
    "--test",
    "softroce",
    "--test",
    "fabric",
    "--no-run",
    "--message-format=json-render-diagnostics",
];

/// What builds and runs beside the VM tests, one after another, yielding
/// the CPU to them: the VM tests mostly wait on their programs' bounds,
/// and these fill those waits. The host tests themselves run at full
/// priority: some of them hold a peer to a time bound.
pub const BESIDE: &[(&[&str], bool)] = &[
    (
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        true,
    ),
    (&["test", "--release", "--workspace", "--no-run"], true),
    (&["test", "--release", "--workspace"], false),
];

/// A cargo command line, the environment it runs with, and where its
/// output goes (`None`: this terminal).
struct Job {
    args: Vec<String>,
    env: Vec<(String, String)>,
    log: Option<PathBuf>,
    /// Whether it yields the CPU to the VMs (a build whose time matters
    /// less than their bounds).
    nice: bool,
}

impl Job {
    fn new(args: &[&str], env: &[(String, String)]) -> Job {
        Job {
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env.to_vec(),
            log: None,
            nice: false,
        }
    }

    /// The line the run prints for it.
    fn line(&self) -> String {
        let vars: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
        format!("{}cargo {}", vars.concat(), self.args.join(" "))
    }

    /// Runs it; its step.
    fn run(&self) -> Step {
        let started = Instant::now();
        let cargo = cargo_program();
        let cpu = tempfile::NamedTempFile::new().ok();
        let mut cmd = under_times(
            cpu.as_ref(),
            if self.nice {
                "nice".into()
            } else {
                cargo.clone()
            },
        );
        if self.nice {
            cmd.args(["-n", "19"]).arg(cargo);
        }
        cmd.args(&self.args)
            .current_dir(crate::base::workspace::workspace_root())
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        if let Some(log) = &self.log {
            match File::create(log).and_then(|f| Ok((f.try_clone()?, f))) {
                Ok((out, err)) => {
                    cmd.stdout(out).stderr(err);
                }
                Err(e) => println!("{}: {e}", log.display()),
            }
        }
        let ok = cmd.status().is_ok_and(|s| s.success());
        Step {
            name: self.line(),
            secs: started.elapsed().as_secs_f64(),
            cpu_secs: cpu_of(cpu),
            ok,
        }
    }
}

/// `program`, to be given its arguments, run under `sh`, whose `times`
/// then writes to `file` the CPU time of every process the program
/// started and waited for (its compilers, its VMs' QEMU); the program
/// alone without a file.
fn under_times(file: Option<&tempfile::NamedTempFile>, program: std::ffi::OsString) -> Command {
    let Some(file) = file else {
        return Command::new(program);
    };
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(r#"f=$1; shift; "$@"; s=$?; times >"$f"; exit $s"#)
        .arg("sh")
        .arg(file.path())
        .arg(program);
    sh
}

/// The CPU time [`under_times`] left in `file`.
fn cpu_of(file: Option<tempfile::NamedTempFile>) -> Option<f64> {
    let text = std::fs::read_to_string(file?.path()).ok()?;
    times::children_cpu(&text)
}

/// Runs setup and every step, even after a failure (CI gets the whole
/// picture from one run); the failed steps and the run's times.
pub fn run() -> (Vec<String>, Times) {
    let started = Instant::now();
    let mut times = Times::default();
    let mut failed = Vec::new();
    println!("$ cargo xtask setup");
    let setup = Instant::now();
    match set_up() {
        Ok(()) => {}
        Err(SetUp::Tools(e)) => {
            // Without the tools nothing below can pass; say so once.
            println!("FAILED: {e}");
            return (vec![e], times);
        }
        Err(SetUp::Suite(e)) => {
            println!("FAILED: {e}");
            failed.push(e);
        }
    }
    times.steps.push(Step {
        name: "cargo xtask setup".into(),
        secs: setup.elapsed().as_secs_f64(),
        cpu_secs: None,
        ok: true,
    });
    let env = default_env();
    let logs = logs_dir(&mut failed);
    let fmt = fmt_args(true);
    let fmt: Vec<&str> = fmt.iter().map(String::as_str).collect();
    for args in [&fmt[..], VM_BUILD] {
        let job = Job::new(args, &env);
        println!("$ {}", job.line());
        times.steps.push(job.run());
    }
    let (step, exes) = vm_test_binaries(&env, &logs);
    times.steps.push(step);
    // A file of an earlier run would pass for this one's.
    let _ = std::fs::remove_file(times::path(&target_dir(), times::SOFTROCE_FILE));
    let beside = beside(&env, &logs, &mut failed);
    let steps = side_by_side(&exes, &beside, &logs);
    times.steps.extend(steps);
    failed.extend(times.steps.iter().filter(|s| !s.ok).map(|s| s.name.clone()));
    merge_suite_times(&mut times);
    times.total_secs = started.elapsed().as_secs_f64();
    times.cpu = children_cpu();
    (failed, times)
}

/// The CPU time of every process this run started and waited for (the
/// builds, the test binaries, and through them the VMs' QEMU), and the
/// cores it had.
fn children_cpu() -> Option<times::Cpu> {
    use nix::sys::resource::{getrusage, UsageWho};
    let u = getrusage(UsageWho::RUSAGE_CHILDREN).ok()?;
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    Some(times::Cpu {
        user_secs: secs(u.user_time()),
        sys_secs: secs(u.system_time()),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
    })
}

/// The VM tests ([`vm_tests`]), and beside them the other steps one after
/// another; their steps, and the logs of those that wrote one, shown. The
/// VM tests overlap only at the suite's end: all their VMs together would
/// be a dozen TCG guests on 2 cores, whose programs then miss their own
/// bounds.
fn side_by_side(exes: &[TestExe], beside: &[Job], logs_dir: &Path) -> Vec<Step> {
    let steps: Vec<Step> = std::thread::scope(|scope| {
        let vm_runs = scope.spawn(|| vm_tests(exes, logs_dir));
        let rest = scope.spawn(|| beside.iter().map(Job::run).collect::<Vec<_>>());
        let mut steps: Vec<Step> = vm_runs.join().unwrap_or_default();
        steps.extend(rest.join().unwrap_or_default());
        steps
    });
    let logs = exes
        .iter()
        .map(|e| e.log.as_ref())
        .chain(beside.iter().map(|j| j.log.as_ref()));
    for (log, step) in logs.zip(&steps) {
        if let Some(log) = log {
            show_log(log, step.ok);
        }
    }
    steps
}

/// Setup, and xmllint: the tests check the lab's JUnit report against its
/// schema with it, as a CI system's reader would take it. An error that
/// starts with "setup" means nothing can run.
/// Why set-up failed: the lab's own tools, without which no step can
/// pass, or what only some of the suite's steps need.
enum SetUp {
    /// The lab's set-up (`cargo xtask setup`) failed.
    Tools(String),
    /// A package or tool of the suite's could not be installed.
    Suite(String),
}

fn set_up() -> Result<(), SetUp> {
    use crate::host::setup::{ensure_package, ensure_print_tools};
    crate::host::setup::ensure().map_err(|e| SetUp::Tools(format!("setup failed: {e}")))?;
    // What the tests' scenarios and checks need, before they run side by
    // side: each would install its own on a fresh machine, once, slower.
    for (pkg, why) in SUITE_PACKAGES {
        ensure_package(pkg, why).map_err(SetUp::Suite)?;
    }
    ensure_print_tools(true).map_err(SetUp::Suite)
}

/// The packages the test suite uses beyond the lab's own, and what for.
const SUITE_PACKAGES: &[(&str, &str)] = &[
    ("libxml2-utils", "xmllint, for the JUnit schema check"),
    ("tshark", "to decode the captures"),
    ("python3-pyverbs", "for the stand-in peers"),
    ("nftables", "for the scenarios that drop RoCE"),
];

/// The side-by-side steps' logs' dir, under the target dir.
fn logs_dir(failed: &mut Vec<String>) -> PathBuf {
    let logs = target_dir().join("test-logs");
    if let Err(e) = std::fs::create_dir_all(&logs) {
        println!("FAILED: {}: {e}", logs.display());
        failed.push(logs.display().to_string());
    }
    logs
}

/// The normal steps use the distribution's default libclang, unless the
/// caller chose one: bindgen would otherwise take the newest installed.
fn default_env() -> Vec<(String, String)> {
    match std::env::var_os("LIBCLANG_PATH") {
        Some(_) => Vec::new(),
        None => crate::host::setup::default_libclang()
            .map(|d| vec![("LIBCLANG_PATH".into(), d.to_string_lossy().into_owned())])
            .unwrap_or_default(),
    }
}

/// A test binary to run without cargo (cargo would wait on the build
/// lock that the builds beside it hold), as `cargo test` runs it.
struct TestExe {
    name: String,
    path: PathBuf,
    /// The package's dir, where cargo runs its tests.
    cwd: PathBuf,
    /// Its output, when not this terminal's.
    log: Option<PathBuf>,
    /// The builds' environment: the lab's own build inside the tests
    /// (`RELEASE_BUILD`) must find the same libclang, or cargo compiles
    /// the bindings and everything above them again.
    env: Vec<(String, String)>,
}

impl TestExe {
    /// Runs it to its end; its step.
    fn run(&self) -> Step {
        self.start(&[]).wait()
    }

    /// Starts it, with `env` beside the builds'.
    fn start(&self, env: &[(String, String)]) -> Running<'_> {
        let started = Instant::now();
        let cpu = tempfile::NamedTempFile::new().ok();
        let mut cmd = under_times(cpu.as_ref(), self.path.clone().into_os_string());
        cmd.arg("--ignored")
            .current_dir(&self.cwd)
            .envs(self.env.iter().chain(env).map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        if let Some(log) = &self.log {
            if let Ok((out, err)) = File::create(log).and_then(|f| Ok((f.try_clone()?, f))) {
                cmd.stdout(out).stderr(err);
            }
        }
        Running {
            exe: self,
            started,
            cpu,
            child: cmd.spawn(),
        }
    }
}

/// A started [`TestExe`].
struct Running<'a> {
    exe: &'a TestExe,
    started: Instant,
    cpu: Option<tempfile::NamedTempFile>,
    child: std::io::Result<std::process::Child>,
}

impl Running<'_> {
    /// Whether it has ended (or never started).
    fn ended(&mut self) -> bool {
        self.child
            .as_mut()
            .map_or(true, |c| !matches!(c.try_wait(), Ok(None)))
    }

    /// Waits for its end; its step.
    fn wait(self) -> Step {
        let ok = self
            .child
            .and_then(|mut c| c.wait())
            .is_ok_and(|s| s.success());
        Step {
            name: format!(
                "the {} tests: {} --ignored",
                self.exe.name,
                self.exe.path.display()
            ),
            secs: self.started.elapsed().as_secs_f64(),
            cpu_secs: cpu_of(self.cpu),
            ok,
        }
    }
}

/// The VM tests: the first (the Soft-RoCE suite) told to leave a file
/// when its one-host batch is over ([`ONE_HOST_DONE_ENV`]), and the others
/// one after another from then on, or from its end. Its two-host batch
/// then has two VMs left, mostly waiting on bounds, and the handout to
/// check in Chromium: the fabric's four boot beside them.
fn vm_tests(exes: &[TestExe], logs: &Path) -> Vec<Step> {
    let Some((first, later)) = exes.split_first() else {
        return Vec::new();
    };
    let signal = logs.join("one-host-batch-done");
    let _ = std::fs::remove_file(&signal);
    let env = [(
        ONE_HOST_DONE_ENV.to_string(),
        signal.to_string_lossy().into_owned(),
    )];
    let mut running = first.start(&env);
    while !running.ended() && !signal.exists() {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    std::thread::scope(|scope| {
        let rest = scope.spawn(|| later.iter().map(TestExe::run).collect::<Vec<_>>());
        let mut steps = vec![running.wait()];
        steps.extend(rest.join().unwrap_or_default());
        steps
    })
}

/// The variable that tells the Soft-RoCE suite where to leave a file once
/// its one-host batch's VMs are down: the test command then starts the
/// next VM test.
pub const ONE_HOST_DONE_ENV: &str = "RDMA_LAB_ONE_HOST_DONE";

/// Builds [`VM_TESTS`]; the step, and the Soft-RoCE suite's and the
/// fabric test's binaries (the fabric's output to its log in `logs`).
fn vm_test_binaries(env: &[(String, String)], logs: &Path) -> (Step, Vec<TestExe>) {
    let started = Instant::now();
    let job = Job::new(VM_TESTS, env);
    println!("$ {}", job.line());
    let cpu = tempfile::NamedTempFile::new().ok();
    let out = under_times(cpu.as_ref(), cargo_program())
        .current_dir(crate::base::workspace::workspace_root())
        .args(VM_TESTS)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output();
    let (ok, stdout) = match out {
        Ok(o) => (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        ),
        Err(e) => (false, format!("cannot run cargo: {e}")),
    };
    let mut exes: Vec<TestExe> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        // Only the two harnesses: the lab's binary, built for them, is an
        // executable too.
        .filter(|v| v["target"]["kind"][0] == "test")
        .filter_map(|v| {
            let name = v["target"]["name"].as_str()?.to_string();
            let path = PathBuf::from(v["executable"].as_str()?);
            let cwd = Path::new(v["manifest_path"].as_str()?)
                .parent()?
                .to_path_buf();
            let log = (name != "softroce").then(|| logs.join(format!("{name}.log")));
            Some(TestExe {
                name,
                path,
                cwd,
                log,
                env: env.to_vec(),
            })
        })
        .collect();
    // The suite first: its lines are the run's progress.
    exes.sort_by_key(|e| e.name != "softroce");
    let step = Step {
        name: job.line(),
        secs: started.elapsed().as_secs_f64(),
        cpu_secs: cpu_of(cpu),
        ok: ok && exes.len() == 2,
    };
    (step, exes)
}

/// [`BESIDE`], each with its log, and the second bindings build.
fn beside(env: &[(String, String)], logs: &Path, failed: &mut Vec<String>) -> Vec<Job> {
    let mut jobs: Vec<Job> = BESIDE
        .iter()
        .enumerate()
        .map(|(i, (args, nice))| Job {
            log: Some(logs.join(format!("beside-{i}.log"))),
            nice: *nice,
            ..Job::new(args, env)
        })
        .collect();
    match bindings_19() {
        Ok(Some(job)) => jobs.push(Job {
            log: Some(logs.join("libclang-19.log")),
            ..job
        }),
        Ok(None) => println!(
            "(no second bindings build: this distribution's default libclang is 19 \
             or later, or it has no libclang 19)"
        ),
        Err(e) => {
            println!("FAILED: libclang 19 for the second bindings build: {e}");
            failed.push("libclang 19".to_string());
        }
    }
    for job in &jobs {
        println!("$ {} (beside the VM tests)", job.line());
    }
    jobs
}

/// The bindings are generated by whatever libclang the machine has: build
/// them once more with libclang 19 where the default is older, so that
/// neither end of the range can regress unnoticed. The bindings and the
/// one crate that calls them are what libclang can change; the examples
/// see only `common`'s API.
fn bindings_19() -> Result<Option<Job>, String> {
    let Some(dir) = crate::host::setup::ensure_libclang_19()? else {
        return Ok(None);
    };
    let target = target_dir().join("libclang-19");
    let env = [
        ("LIBCLANG_PATH".into(), dir.to_string_lossy().into_owned()),
        (
            "CARGO_TARGET_DIR".into(),
            target.to_string_lossy().into_owned(),
        ),
    ];
    let args = [
        "build",
        "-p",
        "rdma-core-sys",
        "-p",
        "common",
        "--all-targets",
    ];
    Ok(Some(Job {
        nice: true,
        ..Job::new(&args, &env)
    }))
}

/// A side-by-side step's output, once it is over: all of it when it
/// failed, else its test result lines.
fn show_log(log: &Path, ok: bool) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    println!("--- {} ---", log.display());
    for line in text.lines() {
        let summary = line.starts_with("test result:") || line.contains("Finished");
        if !ok || summary {
            println!("{line}");
        }
    }
}

/// The Soft-RoCE suite's batches and tests, from the file it left.
fn merge_suite_times(times: &mut Times) {
    let path = times::path(&target_dir(), times::SOFTROCE_FILE);
    if let Some(suite) = Times::read(&path) {
        times.batches = suite.batches;
        times.tests = suite.tests;
        times.accel = suite.accel;
    }
}
