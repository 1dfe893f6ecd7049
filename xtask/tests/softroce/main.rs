//! Soft-RoCE tests: every scenario of `xtask::scenarios::all()`, once in one VM and
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
    let names: Vec<&str> = scenarios::all().iter().map(|s| s.name).collect();
    let opts = LabOptions {
        mode,
        agent_exe: PathBuf::from(env!("CARGO_BIN_EXE_xtask")),
        keep: false,
        tcg: lab::tcg_from_env(),
    };
    let report = xtask::run_scenarios(&opts, &names);
    if let Ok(r) = &report {
        let vms = r.vms.as_ref().map_or(String::new(), |v| {
            format!(" (VMs: {}, boot {:.1} s)", v.accel, v.boot.as_secs_f64())
        });
        eprintln!(
            "{} mode: boot + run took {:.1} s{vms}",
            opts.mode.label(),
            r.elapsed.as_secs_f64()
        );
    }
    report
}

pub(crate) fn single_host() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(|| batch(Mode::SingleHost))
}

pub(crate) fn two_hosts() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(|| batch(Mode::TwoHosts))
}

/// Asserts that `name` passed in `batch`, printing its transcripts (and the
/// run's notes) when it did not; returns the outcome for further asserts.
pub(crate) fn passed(batch: &'static Batch, name: &str) -> &'static Outcome {
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

pub(crate) fn stdout_of(side: &Option<xtask::SideOutcome>) -> &str {
    side.as_ref().map(|s| s.stdout.as_str()).unwrap_or("")
}

/// Each side must see the other's GID (`::ffff:<ip>`); across two VMs
/// these differ, which proves the traffic crossed the wire.
pub(crate) fn assert_remote_gids(o: &Outcome, server_sees: &str, client_sees: &str) {
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

/// `scenario => single_host_test, two_hosts_test [, |outcome, mode| { extra asserts }];`
/// for each scenario: two `#[ignore]`d tests and the module's `COVERED` list.
macro_rules! softroce_tests {
    ($($scenario:ident => $single:ident, $two:ident $(, |$o:ident, $mode:ident| $extra:block)?;)*) => {
        /// The scenarios this module has tests for.
        pub(crate) const COVERED: &[&str] = &[$(stringify!($scenario)),*];
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

// Each example's tests live in their own module; a new example adds its
// module here and its COVERED list to the check below.
mod apm;
mod ibv_sockets_pingpong;
mod mckey;
mod peers;
mod rc_example;
mod rdmacm_client_server;
mod srq;

/// Not ignored: a scenario added to the table without tests fails here.
#[test]
fn every_scenario_has_softroce_tests() {
    let mut table: Vec<&str> = scenarios::all().iter().map(|s| s.name).collect();
    let mut covered: Vec<&str> = [
        rc_example::COVERED,
        ibv_sockets_pingpong::COVERED,
        rdmacm_client_server::COVERED,
        peers::COVERED,
        srq::COVERED,
        apm::COVERED,
        mckey::COVERED,
    ]
    .concat();
    table.sort_unstable();
    covered.sort_unstable();
    assert_eq!(
        table, covered,
        "keep the softroce_tests! modules in step with the scenario tables"
    );
}
