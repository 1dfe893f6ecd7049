//! Soft-RoCE tests: every scenario of `xtask::SCENARIOS`, once in one VM and
//! once across two VMs. They boot VMs, so they are `#[ignore]`d and run by
//! `cargo xtask test` (`cargo test -p xtask --test softroce -- --ignored
//! --test-threads=1`). Each mode boots once: the first test of a mode runs
//! all of that mode's scenarios in one batch and the others read the result.

use std::path::PathBuf;
use std::sync::OnceLock;
use xtask::scenarios::{self, has_line};
use xtask::{lab, LabOptions, LabReport, Mode, Outcome};

type Batch = Result<LabReport, String>;

fn batch(mode: Mode) -> Batch {
    let names: Vec<&str> = scenarios::SCENARIOS.iter().map(|s| s.name).collect();
    let opts = LabOptions {
        mode,
        agent_exe: PathBuf::from(env!("CARGO_BIN_EXE_xtask")),
        keep: false,
    };
    let report = xtask::run_scenarios(&opts, &names);
    if let Ok(r) = &report {
        eprintln!(
            "{} mode: boot + run took {:.1} s",
            opts.mode.label(),
            r.elapsed.as_secs_f64()
        );
    }
    report
}

fn single_host() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(|| batch(Mode::SingleHost))
}

fn two_hosts() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(|| batch(Mode::TwoHosts))
}

/// Asserts that `name` passed in `batch`, printing its transcripts (and the
/// run's notes) when it did not; returns the outcome for further asserts.
fn passed(batch: &'static Batch, name: &str) -> &'static Outcome {
    let report = match batch {
        Ok(r) => r,
        Err(e) => panic!("the lab could not run: {e}"),
    };
    let scenario = scenarios::find(name).expect("scenario in the table");
    let outcome = report
        .outcomes
        .iter()
        .find(|o| o.scenario == name)
        .expect("the batch runs every scenario");
    let failures = xtask::check(scenario, outcome);
    if !failures.is_empty() {
        lab::print_transcripts(std::slice::from_ref(outcome));
        for n in &report.notes {
            eprintln!("note: {n}");
        }
        eprintln!("results in {}", report.dir.display());
        panic!("{name} failed:\n  {}", failures.join("\n  "));
    }
    outcome
}

fn stdout_of(side: &Option<xtask::SideOutcome>) -> &str {
    side.as_ref().map(|s| s.stdout.as_str()).unwrap_or("")
}

/// Each side must see the other's GID (`::ffff:<ip>`); across two VMs
/// these differ, which proves the traffic crossed the wire.
fn assert_remote_gids(o: &Outcome, server_sees: &str, client_sees: &str) {
    let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
    let pat = |tail: &str| format!("Remote GID =*{tail}");
    assert!(
        has_line(s, &pat(server_sees)),
        "server should see the client's GID (…{server_sees}):\n{s}"
    );
    assert!(
        has_line(c, &pat(client_sees)),
        "client should see the server's GID (…{client_sees}):\n{c}"
    );
}

macro_rules! softroce_tests {
    ($($scenario:ident => $single:ident, $two:ident $(, |$o:ident, $mode:ident| $extra:block)?;)*) => {
        /// The scenarios this file has tests for.
        const COVERED: &[&str] = &[$(stringify!($scenario)),*];
        $(
            #[test]
            #[ignore = "boots Soft-RoCE VMs; run by cargo xtask test"]
            fn $single() {
                let _o = passed(single_host(), stringify!($scenario));
                $({ let ($o, $mode) = (_o, Mode::SingleHost); $extra })?
            }

            #[test]
            #[ignore = "boots Soft-RoCE VMs; run by cargo xtask test"]
            fn $two() {
                let _o = passed(two_hosts(), stringify!($scenario));
                $({ let ($o, $mode) = (_o, Mode::TwoHosts); $extra })?
            }
        )*
    };
}

softroce_tests! {
    rc_example => rc_example_single_host, rc_example_two_hosts, |o, mode| {
        // c000:0201 is 192.0.2.1 (server), c000:0202 is 192.0.2.2 (client).
        match mode {
            Mode::TwoHosts => assert_remote_gids(o, "ff:ff:c0:00:02:02", "ff:ff:c0:00:02:01"),
            _ => assert_remote_gids(o, "ff:ff:c0:00:02:01", "ff:ff:c0:00:02:01"),
        }
    };
    rc_example_wrong_device => rc_example_wrong_device_single_host, rc_example_wrong_device_two_hosts;
    rc_example_closed_port => rc_example_closed_port_single_host, rc_example_closed_port_two_hosts;
    rc_example_client_dies => rc_example_client_dies_single_host, rc_example_client_dies_two_hosts, |o, _mode| {
        let server = o.server.as_ref().expect("server side ran");
        let limit = u64::from(scenarios::find("rc_example_client_dies").unwrap().timeout_secs) * 1000;
        assert!(
            server.elapsed_ms.is_some_and(|ms| ms < limit / 2),
            "the server must notice the dead client at once, not near the timeout: {:?} ms",
            server.elapsed_ms
        );
    };
    rdmacm_client_server => rdmacm_client_server_single_host, rdmacm_client_server_two_hosts, |o, _mode| {
        // Two clients in a row, each with a full exchange, then SIGTERM.
        let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
        let count = |text: &str, pat: &str| text.lines().filter(|l| scenarios::glob_match(pat, l)).count();
        assert_eq!(count(s, "received connection request."), 2, "server:\n{s}");
        assert_eq!(count(s, "received message: message from active/client side with pid *"), 2, "server:\n{s}");
        assert_eq!(count(s, "peer disconnected."), 2, "server:\n{s}");
        assert_eq!(count(c, "received message: message from passive/server side with pid *"), 2, "client:\n{c}");
        assert_eq!(count(c, "disconnected."), 2, "client:\n{c}");
        // The two clients are different processes: their pids differ.
        let pids: Vec<&str> = s.lines().filter_map(|l| l.strip_prefix("received message: message from active/client side with pid ")).collect();
        assert!(pids.len() == 2 && pids[0] != pids[1] && pids.iter().all(|p| p.parse::<u32>().is_ok()), "{pids:?}");
    };
    rdmacm_nobody_listening => rdmacm_nobody_listening_single_host, rdmacm_nobody_listening_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert!(
            c.stderr.contains("RDMA_CM_EVENT_REJECTED") || c.stderr.contains("RDMA_CM_EVENT_UNREACHABLE"),
            "{}", c.stderr
        );
        assert!(c.elapsed_ms.is_some_and(|ms| ms < 5000), "must fail within 5 s: {:?} ms", c.elapsed_ms);
    };
    rdmacm_no_such_host => rdmacm_no_such_host_single_host, rdmacm_no_such_host_two_hosts;
    ibv_rc_pingpong => ibv_rc_pingpong_single_host, ibv_rc_pingpong_two_hosts, |o, mode| {
        if mode == Mode::TwoHosts {
            let s = stdout_of(&o.server);
            assert!(has_line(s, "*remote address: *GID ::ffff:192.0.2.2"), "server should talk to VM B:\n{s}");
        }
    };
    rping => rping_single_host, rping_two_hosts;
}

/// Not ignored: a scenario added to the table without tests here fails.
#[test]
fn every_scenario_has_softroce_tests() {
    let table: Vec<&str> = scenarios::SCENARIOS.iter().map(|s| s.name).collect();
    assert_eq!(
        table, COVERED,
        "keep softroce_tests! in step with SCENARIOS"
    );
}
