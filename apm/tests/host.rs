//! Runs the real `apm` binary on this host: the checks of the manual's main
//! (one line on stderr, exit 1, after the configuration block), option
//! errors (usage, exit 1), and a run without RDMA or server (one clear line).

use std::process::Output;
use std::time::{Duration, Instant};

use common::testkit::{self, one_line_error, text};

const APM: &str = env!("CARGO_BIN_EXE_apm");

fn run(args: &[&str]) -> Output {
    testkit::run(APM, args)
}

#[test]
fn checks_of_main() {
    for (args, msg) in [
        (&[][..], "server address must be specified for client mode"),
        (&["-s", "-d", "5"], "-d and -r must be used together"),
        (
            &["-a", "192.0.2.1", "-r", "2"],
            "-d and -r must be used together",
        ),
        (
            &["-a", "192.0.2.1", "-c", "5", "-m", "6"],
            "num_iterations_then_migrate must be less than msg_count",
        ),
        (
            &["-a", "192.0.2.1", "-c", "5", "-m", "5"],
            "num_iterations_then_migrate must be less than msg_count",
        ),
    ] {
        let out = run(args);
        assert_one_line_error(&out, msg);
        // The configuration block comes first, as in C.
        assert!(text(&out.stdout).starts_with("mode:    "), "{args:?}");
    }
}

#[test]
fn bad_values_give_usage() {
    for args in [
        &["-a", "192.0.2.1", "-c", "0"][..],
        &["-a", "192.0.2.1", "-l", "0"],
        &["-a", "192.0.2.1", "-m", "-1"],
        &["-a", "192.0.2.1", "-w", "-1"],
        &["-a", "192.0.2.1", "-w", "soon"],
        &["-a", "192.0.2.1", "-d", "65536", "-r", "1"],
        &["-a", "192.0.2.1", "-p", "port"],
        &["-z"],
    ] {
        let out = run(args);
        assert_one_line_error(&out, "apm: ");
        assert!(
            text(&out.stdout).starts_with("usage: apm [-s or -a required]"),
            "{args:?}"
        );
    }
}

#[test]
fn without_rdma_or_server_fails_clearly() {
    let start = Instant::now();
    let out = run(&["-a", "192.0.2.1", "-p", "51297", "-c", "1", "-w", "0"]);
    assert_one_line_error(&out, "rdma_");
    assert!(text(&out.stdout).contains("rdma_getaddrinfo"));
    assert!(start.elapsed() < Duration::from_secs(40));
}

#[track_caller]
fn assert_one_line_error(out: &Output, starts: &str) {
    let err = one_line_error(out, starts);
    assert!(err.starts_with(starts), "{err}");
}

/// `-h` and `--help` print the usage, with every option with its default, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn apm_help_lists_every_option() {
    common::testkit::help_lists_every_option(APM, "sapcldrmw");
}
