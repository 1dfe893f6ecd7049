//! Soft-RoCE tests: every scenario of `rdma_lab::catalog::all()`, across
//! two VMs (`<name>_two_hosts`) or in one (`<name>_single_host`), or both,
//! as `catalog::in_suite` places it (in one VM what is about one host and
//! each example's default pair, across two the rest),
//! judged by `rdma_lab::judge::check` alone: what a scenario expects is declared
//! with it, so a new scenario is tested without touching this file.
//!
//! They boot VMs, so like `#[ignore]`d tests they run only when asked:
//! `cargo test -p rdma-lab --test softroce -- --ignored` (which `cargo xtask
//! test` runs). A filter narrows the run, and the VMs run only the
//! scenarios it selects. Each mode boots once and runs its scenarios in
//! one batch, so this is its own small harness (`harness = false`) that
//! takes the libtest options that make sense here.

// The lab's functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

use rdma_lab::base::rundir::Dir;
use rdma_lab::catalog;
use rdma_lab::host::ci::ONE_HOST_DONE_ENV;
use rdma_lab::host::lab::{LabOptions, LabReport, Progress};
use rdma_lab::model::{Mode, Scenario};
use rdma_lab::results::times::{self, Batch, TestTime, Times};
use rdma_lab::results::ScenarioTime;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One test: a scenario in a mode.
struct Test {
    name: String,
    mode: Mode,
    scenario: &'static Scenario,
}

/// The libtest options this harness takes.
#[derive(Default)]
struct Args {
    ignored: bool,
    list: bool,
    exact: bool,
    filters: Vec<String>,
}

fn parse(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args::default();
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ignored" | "--include-ignored" => a.ignored = true,
            "--list" => a.list = true,
            "--exact" => a.exact = true,
            // Output is never captured, and a batch runs one scenario at a
            // time, so these change nothing here.
            "--nocapture" | "--show-output" | "--quiet" | "-q" => {}
            "--test-threads" | "--color" | "--format" => {
                args.next();
            }
            o if o.starts_with("--test-threads=")
                || o.starts_with("--color=")
                || o.starts_with("--format=") => {}
            o if o.starts_with('-') => return Err(format!("unknown option {o}")),
            _ => a.filters.push(arg),
        }
    }
    Ok(a)
}

/// The tests the filters select, single-host ones first.
fn selected(args: &Args) -> Vec<Test> {
    let modes = [
        (Mode::SingleHost, "single_host"),
        (Mode::TwoHosts, "two_hosts"),
    ];
    modes
        .into_iter()
        .flat_map(|(mode, suffix)| {
            let of = mode.clone();
            catalog::all()
                .iter()
                .filter(move |s| catalog::in_suite(s, &of))
                .map(move |scenario| Test {
                    name: format!("{}_{suffix}", scenario.name),
                    mode: mode.clone(),
                    scenario,
                })
        })
        .filter(|t| {
            args.filters.is_empty()
                || args.filters.iter().any(|f| {
                    if args.exact {
                        t.name == *f
                    } else {
                        t.name.contains(f.as_str())
                    }
                })
        })
        .collect()
}

/// The test that writes the handout from the two-host batch and looks at
/// it in headless Chromium (`cargo xtask handout --check`, without a run of
/// its own).
const HANDOUT_TEST: &str = "handout_in_chromium";

/// How many VMs run the one-host batch side by side (`RDMA_LAB_LANES`
/// sets it): its cells mostly wait on their bounds or compute one process
/// at a time, so VMs side by side overlap their waits and use every core.
fn lanes() -> usize {
    std::env::var("RDMA_LAB_LANES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| (1..=8).contains(n))
        .unwrap_or(DEFAULT_LANES)
}

/// [`lanes`] without `RDMA_LAB_LANES`: measured on 2 cores under TCG.
const DEFAULT_LANES: usize = 3;

/// The running count of the suite's tests, for a line per finished test.
struct Counter {
    total: usize,
    started: Instant,
    /// When the first test ended, in seconds since `started`.
    first: Option<f64>,
    done: usize,
    /// Each test told so far, its verdict then, and its time.
    told: Vec<(String, bool)>,
    times: Vec<TestTime>,
}

impl Counter {
    fn new(total: usize) -> Counter {
        Counter {
            total,
            started: Instant::now(),
            first: None,
            done: 0,
            told: Vec::new(),
            times: Vec::new(),
        }
    }

    /// Prints `test NAME ... ok` with the count and the time left at the
    /// rate so far, as cargo does, and a failed test's reasons below it.
    fn tell(&mut self, test: &str, failures: &[String], time: TestTime) {
        self.done += 1;
        let elapsed = self.started.elapsed().as_secs_f64();
        // The rate since the first result: the boots before it are over.
        let first = *self.first.get_or_insert(elapsed);
        let left = match self.done {
            1 => "time left: after the next test".to_string(),
            n => {
                let rate = (elapsed - first) / (n - 1) as f64;
                format!(
                    "about {} left",
                    clock(rate * self.total.saturating_sub(n) as f64)
                )
            }
        };
        let verdict = if failures.is_empty() { "ok" } else { "FAILED" };
        println!(
            "test {test} ... {verdict} ({:.1} s) [{}/{}, {} elapsed, {left}]",
            time.secs,
            self.done,
            self.total,
            clock(elapsed),
        );
        // Why, at once: a long run's output is often read cut in the
        // middle (CI shows its head and tail), where the batch's own list
        // of failures falls.
        for f in failures {
            println!("  {f}");
        }
        self.told.push((test.to_string(), failures.is_empty()));
        self.times.push(time);
    }

    /// Whether `test` was told, and as passing.
    fn told_ok(&self, test: &str) -> Option<bool> {
        self.told.iter().find(|t| t.0 == test).map(|t| t.1)
    }
}

/// Seconds as `m:ss`.
fn clock(secs: f64) -> String {
    let s = secs.round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// What the progress of a batch in `mode` does as each scenario ends:
/// judges it from its result files (a two-host run's wire facts wait for
/// the capture, at the batch's end) and tells the counter.
fn progress(mode: &Mode, tests: &[&Test], counter: &Arc<Mutex<Counter>>) -> Progress {
    let names: Vec<(String, &'static Scenario)> =
        tests.iter().map(|t| (t.name.clone(), t.scenario)).collect();
    let (mode, counter) = (mode.clone(), Arc::clone(counter));
    Progress(Arc::new(move |dir: &Dir, t: &ScenarioTime| {
        let Some((test, s)) = names.iter().find(|(_, s)| s.name == t.name) else {
            return;
        };
        let failures = match rdma_lab::results::collect(&[s], dir, dir).first() {
            Some(o) => rdma_lab::judge::check(s, o, mode.addrs().as_ref()),
            None => vec!["no outcome".into()],
        };
        let time = TestTime {
            test: test.clone(),
            secs: t.wall_ms as f64 / 1000.0,
            bound_secs: s.timeout_secs,
            busy_secs: t.busy_ms.map(|b| b as f64 / 1000.0),
        };
        if let Ok(mut c) = counter.lock() {
            c.tell(test, &failures, time);
        }
    }))
}

/// The lab binary the VMs run as their agent (and its commands, such as
/// `rdma-lab doctor`): a copy of the build's, made once, since the builds
/// beside the suite (`cargo xtask test`) may relink the build's own while
/// a VM runs it (a doctor cell died of SIGSEGV so). The copy lies under
/// the target dir, which the VMs see.
fn agent_exe() -> PathBuf {
    static COPY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COPY.get_or_init(|| {
        let built = PathBuf::from(env!("CARGO_BIN_EXE_rdma-lab"));
        let copy = || -> Result<PathBuf, String> {
            let root = rdma_lab::base::workspace::results_root("lab")?;
            let name = format!("agent-{}", std::process::id());
            let dir = root
                .fresh_dir(&name)
                .map_err(|e| format!("{}: {e}", root.join(&name).display()))?;
            let to = dir.join("rdma-lab");
            std::fs::copy(&built, &to).map_err(|e| format!("{}: {e}", to.display()))?;
            Ok(to)
        };
        copy().unwrap_or_else(|e| {
            println!("note: the agent runs from the build ({e})");
            built.clone()
        })
    })
    .clone()
}

/// Runs `tests` (all of one mode) in one batch; returns how many failed,
/// and the report.
fn run_mode(
    mode: &Mode,
    tests: &[&Test],
    counter: &Arc<Mutex<Counter>>,
) -> (usize, Option<LabReport>) {
    let names: Vec<&str> = tests.iter().map(|t| t.scenario.name.as_str()).collect();
    let one_host = *mode == Mode::SingleHost;
    let opts = LabOptions {
        // Across two VMs the wire is recorded, and each pair's declared
        // wire facts are checked on it.
        capture: !one_host,
        // One VM boots the kernel named explicitly, `--kernel`'s path, the
        // same image as the two VMs' default.
        kernel: one_host
            .then(|| rdma_lab::host::setup::find_kernel().map(|k| k.image))
            .flatten(),
        // Keep the result dir: the report tests read it.
        keep: true,
        progress: Some(progress(mode, tests, counter)),
        lanes: if one_host { lanes() } else { 1 },
        ..LabOptions::new(mode.clone(), agent_exe())
    };
    let report = match rdma_lab::host::lab::run_scenarios(&opts, &names) {
        Ok(r) => r,
        Err(e) => {
            for t in tests {
                println!("test {} ... FAILED (the lab could not run: {e})", t.name);
            }
            return (tests.len(), None);
        }
    };
    let vms = report.vms.as_ref().map_or(String::new(), |v| {
        format!(" (VMs: {}, {})", v.accel, v.boot_text())
    });
    println!(
        "{} mode: boot + run took {:.1} s{vms}",
        mode.label(),
        report.elapsed.as_secs_f64()
    );
    let mut failed = 0;
    for t in tests {
        let outcome = report.outcomes.iter().find(|j| j.name() == t.scenario.name);
        let failures = match outcome {
            Some(j) => j.failures.clone(),
            None => vec!["no outcome: the batch did not run it".into()],
        };
        let told = counter.lock().ok().and_then(|c| c.told_ok(&t.name));
        if failures.is_empty() {
            if told.is_none() {
                println!("test {} ... ok", t.name);
            }
            continue;
        }
        failed += 1;
        println!("test {} ... FAILED\n  {}", t.name, failures.join("\n  "));
        if let Some(o) = outcome {
            rdma_lab::present::summary::print_transcripts(
                std::slice::from_ref(o),
                report.addrs.as_ref(),
            );
        }
    }
    failed += batch_checks(mode, &report);
    // A VM that did not boot or an agent's trouble is said even when the
    // other lanes ran its share.
    for n in &report.notes {
        println!("note: {n}");
    }
    if failed > 0 {
        println!("results in {}", report.dir.display());
    } else if one_host {
        // Only the two-host batch's dir is worth keeping: its captures.
        let _ = std::fs::remove_dir_all(&report.dir);
    }
    (failed, Some(report))
}

/// The batch's own tests ([`batch_tests`]); how many failed.
fn batch_checks(mode: &Mode, report: &LabReport) -> usize {
    let mut failed = 0;
    for name in batch_tests(mode) {
        let failures = if name.starts_with("doctor_finds_nothing") {
            report.findings.clone()
        } else if name.starts_with("kernel_named") {
            kernel_named(mode, report)
        } else if name.starts_with("reports") {
            reports_validate(report)
        } else {
            runtime_libraries(&report.dir.join("b/bin"))
        };
        if failures.is_empty() {
            println!("test {name} ... ok");
        } else {
            failed += 1;
            println!("test {name} ... FAILED\n  {}", failures.join("\n  "));
        }
    }
    failed
}

/// The tests of a whole batch, beside its scenarios': a healthy VM gives
/// the doctor no finding, the summary names the kernel, the reports are
/// valid; across two VMs, the client's copied binaries need only the
/// runtime libraries.
fn batch_tests(mode: &Mode) -> Vec<String> {
    let suffix = if *mode == Mode::TwoHosts {
        "two_hosts"
    } else {
        "single_host"
    };
    let mut v: Vec<String> = ["doctor_finds_nothing", "kernel_named", "reports"]
        .iter()
        .map(|t| format!("{t}_{suffix}"))
        .collect();
    if *mode == Mode::TwoHosts {
        v.push("copied_binaries_need_only_runtime_libraries".into());
    }
    v
}

/// The summary names the kernel the VMs booted: with `--kernel`, the
/// image's own version, which is the default kernel's.
fn kernel_named(mode: &Mode, report: &LabReport) -> Vec<String> {
    let want = rdma_lab::host::setup::find_kernel().map(|k| k.version);
    let got = report.vms.as_ref().map(|v| v.kernel.clone());
    if want.is_some() && got == want {
        Vec::new()
    } else {
        vec![format!(
            "{} mode booted kernel {got:?}, the default is {want:?}",
            mode.label()
        )]
    }
}

/// The JUnit and JSON reports of the batch, written into its result dir:
/// the JUnit valid against the schema CI systems use (xmllint), one case
/// per scenario and one for the doctor; the JSON one parseable object per
/// scenario with the device fields.
fn reports_validate(report: &LabReport) -> Vec<String> {
    let (junit, json) = (
        report.dir.join("lab.junit.xml"),
        report.dir.join("lab.json"),
    );
    if let Err(e) = rdma_lab::present::report::write(report, Some(&junit), Some(&json)) {
        return vec![e];
    }
    let mut failures = rdma_lab::present::report::validate_junit(&junit);
    let text = std::fs::read_to_string(&junit).unwrap_or_default();
    let cases = text.matches("<testcase ").count();
    let want = report.outcomes.len() + report.skipped.len() + 1;
    if cases != want {
        failures.push(format!("{cases} testcases in the JUnit, want {want}"));
    }
    let lines = std::fs::read_to_string(&json).unwrap_or_default();
    let objects: Vec<serde_json::Value> = lines
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if objects.len() != want || lines.lines().count() != want {
        failures.push(format!(
            "{} JSON objects of {} lines, want {want}",
            objects.len(),
            lines.lines().count()
        ));
    }
    let has_device = objects.iter().any(|o| {
        o["hosts"].as_array().is_some_and(|h| {
            h.iter()
                .any(|h| h["dev"] == "rxe0" && h["active_mtu"].is_u64())
        })
    });
    if !has_device {
        failures.push("no JSON object names the device rxe0 and its MTU".into());
    }
    failures
}

/// The copied binaries need only the runtime libraries: each library they
/// name is libc's, or is in libibverbs1 or librdmacm1, by name or by what
/// the package provides (Debian 13's `librdmacm1t64` provides
/// `librdmacm1`). ibverbs-providers is loaded by libibverbs at run time.
fn runtime_libraries(dir: &std::path::Path) -> Vec<String> {
    let mut failures = Vec::new();
    let mut seen = 0;
    for b in rdma_lab::catalog::binaries() {
        let path = dir.join(b);
        if !path.is_file() {
            continue;
        }
        seen += 1;
        let out = std::process::Command::new("readelf")
            .arg("-d")
            .arg(&path)
            .output();
        let Ok(out) = out else {
            return vec!["readelf (binutils) is not installed".into()];
        };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some(lib) = line
                .split("Shared library: [")
                .nth(1)
                .and_then(|r| r.strip_suffix(']'))
            else {
                continue;
            };
            if !rdma_lab::host::setup::runtime_library_ok(lib) {
                failures.push(format!("{b} needs {lib}, which no runtime package has"));
            }
        }
    }
    if seen == 0 {
        failures.push(format!("no binaries in {}", dir.display()));
    }
    failures
}

/// The handout of the two-host batch, written into its result dir and
/// checked in Chromium; whether it passed.
fn handout_test(report: Option<&LabReport>) -> bool {
    let failures = match report {
        None => vec!["the two-host batch did not run".to_string()],
        Some(r) => {
            let missing: Vec<&str> = rdma_lab::catalog::handout_scenarios()
                .iter()
                .map(|s| s.name.as_str())
                .filter(|n| !r.outcomes.iter().any(|j| j.name() == *n))
                .collect();
            if !missing.is_empty() {
                vec![format!("the batch did not run {}", missing.join(", "))]
            } else {
                let paper = rdma_lab::present::handout::Paper::default();
                match rdma_lab::present::handout::write(r, &r.dir.join("handout"), paper) {
                    Err(e) => vec![e],
                    Ok(html) => match rdma_lab::host::setup::ensure_print_tools(true) {
                        Ok(()) => rdma_lab::present::handout::check_in_chromium(&html, paper),
                        Err(e) => vec![e],
                    },
                }
            }
        }
    };
    if failures.is_empty() {
        println!("test {HANDOUT_TEST} ... ok");
    } else {
        println!(
            "test {HANDOUT_TEST} ... FAILED\n  {}",
            failures.join("\n  ")
        );
    }
    failures.is_empty()
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("softroce: {e}");
            return ExitCode::from(2);
        }
    };
    let mut tests = selected(&args);
    let handout = handout_selected(&args);
    if handout {
        add_handout_scenarios(&mut tests);
    }
    if args.list {
        list(&tests, handout);
        return ExitCode::SUCCESS;
    }
    // Each batch's own tests: the doctor, the kernel, the reports (and
    // across two VMs, the copied binaries).
    let extras: usize = [Mode::SingleHost, Mode::TwoHosts]
        .iter()
        .filter(|m| tests.iter().any(|t| t.mode == **m))
        .map(|m| batch_tests(m).len())
        .sum();
    let total = tests.len() + usize::from(handout) + extras;
    println!("\nrunning {total} tests");
    if !args.ignored {
        report_ignored(&tests, handout, total);
        return ExitCode::SUCCESS;
    }
    let failed = run_all(&tests, handout, total);
    if let Some(dir) = agent_exe()
        .parent()
        .filter(|d| d.ends_with(format!("agent-{}", std::process::id())))
    {
        let _ = std::fs::remove_dir_all(dir);
    }
    let verdict = if failed == 0 { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {} passed; {failed} failed; 0 ignored\n",
        total - failed
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(101)
    }
}

/// Whether the filters select the handout's test (no filter does).
fn handout_selected(args: &Args) -> bool {
    args.filters.is_empty()
        || args.filters.iter().any(|f| {
            if args.exact {
                f == HANDOUT_TEST
            } else {
                HANDOUT_TEST.contains(f.as_str())
            }
        })
}

/// The handout is written from the two-host batch: it needs every pair
/// and exercise in it, added to `tests` where missing.
fn add_handout_scenarios(tests: &mut Vec<Test>) {
    for s in rdma_lab::catalog::handout_scenarios() {
        let name = format!("{}_two_hosts", s.name);
        if !tests.iter().any(|t| t.name == name) {
            tests.push(Test {
                name,
                mode: Mode::TwoHosts,
                scenario: s,
            });
        }
    }
}

/// `--list`: every selected test's name, each batch's own and the
/// handout's.
fn list(tests: &[Test], handout: bool) {
    for t in tests {
        println!("{}: test", t.name);
    }
    for m in [Mode::SingleHost, Mode::TwoHosts] {
        if tests.iter().any(|t| t.mode == m) {
            for name in batch_tests(&m) {
                println!("{name}: test");
            }
        }
    }
    if handout {
        println!("{HANDOUT_TEST}: test");
    }
}

/// Without `--ignored`: every test said ignored, as libtest says it.
fn report_ignored(tests: &[Test], handout: bool, total: usize) {
    for t in tests {
        println!(
            "test {} ... ignored, boots Soft-RoCE VMs; run by cargo xtask test",
            t.name
        );
    }
    if handout {
        println!("test {HANDOUT_TEST} ... ignored, boots Soft-RoCE VMs; run by cargo xtask test");
    }
    println!("\ntest result: ok. 0 passed; 0 failed; {total} ignored\n");
}

/// Runs each mode's batch, side by side, then the handout from the
/// two-host one; how many tests failed. The batches' and tests' times go
/// to [`SOFTROCE_FILE`] under the target dir.
fn run_all(tests: &[Test], handout: bool, total: usize) -> usize {
    let counter = Arc::new(Mutex::new(Counter::new(total)));
    let modes: Vec<(Mode, Vec<&Test>)> = [Mode::SingleHost, Mode::TwoHosts]
        .into_iter()
        .map(|m| (m.clone(), tests.iter().filter(|t| t.mode == m).collect()))
        .filter(|(_, batch): &(Mode, Vec<&Test>)| !batch.is_empty())
        .collect();
    if !modes.iter().any(|(m, _)| *m == Mode::SingleHost) {
        tell_one_host_done();
    }
    let results: Vec<(Mode, usize, Option<LabReport>)> = std::thread::scope(|scope| {
        let runs: Vec<_> = modes
            .iter()
            .map(|(mode, batch)| {
                let counter = &counter;
                scope.spawn(move || {
                    let (f, r) = run_mode(mode, batch, counter);
                    if *mode == Mode::SingleHost {
                        tell_one_host_done();
                    }
                    (mode.clone(), f, r)
                })
            })
            .collect();
        runs.into_iter().filter_map(|r| r.join().ok()).collect()
    });
    let mut failed: usize = results.iter().map(|r| r.1).sum();
    let two_host_report = results
        .iter()
        .find(|r| r.0 == Mode::TwoHosts)
        .and_then(|r| r.2.as_ref());
    if handout && !handout_test(two_host_report) {
        failed += 1;
    }
    if let Ok(c) = counter.lock() {
        write_times(&results, &c.times);
    }
    failed
}

/// Leaves the file that the test command waits for
/// ([`ONE_HOST_DONE_ENV`]), when it gave one: the one-host batch's VMs
/// are down, and its next VM test may boot beside the two-host batch.
fn tell_one_host_done() {
    if let Some(path) = std::env::var_os(ONE_HOST_DONE_ENV) {
        if let Err(e) = std::fs::write(&path, b"") {
            println!("note: {}: {e}", PathBuf::from(path).display());
        }
    }
}

/// The batches' and the tests' times, for the test command's table.
fn write_times(results: &[(Mode, usize, Option<LabReport>)], tests: &[TestTime]) {
    let batches = results
        .iter()
        .filter_map(|(mode, _, r)| {
            let r = r.as_ref()?;
            let vms = match mode {
                Mode::SingleHost => lanes(),
                _ => 2,
            };
            Some(Batch {
                name: format!("Soft-RoCE suite, {}: {vms} VMs side by side", mode.label()),
                boot_secs: r.vms.as_ref().map_or(0.0, |v| v.boot.as_secs_f64()),
                secs: r.elapsed.as_secs_f64(),
                cpu_secs: r.vms.as_ref().and_then(|v| v.cpu_secs),
            })
        })
        .collect();
    let accel = results
        .iter()
        .find_map(|r| Some(r.2.as_ref()?.vms.as_ref()?.accel.to_string()))
        .unwrap_or_default();
    let times = Times {
        batches,
        tests: tests.to_vec(),
        accel,
        ..Times::default()
    };
    let path = times::path(
        &rdma_lab::base::workspace::target_dir(),
        times::SOFTROCE_FILE,
    );
    if let Err(e) = times.write(&path) {
        println!("note: the times were not kept: {e}");
    }
}
