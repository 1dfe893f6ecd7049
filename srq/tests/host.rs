//! Runs the real `srq` binary on this host: option errors give one line on
//! stderr, the usage and exit 1; a missing `-a` gives the manual's message;
//! without RDMA (or without a server) the run fails with one clear line.

use std::process::Output;
use std::time::{Duration, Instant};

use common::testkit::{self, one_line_error, text};

const SRQ: &str = env!("CARGO_BIN_EXE_srq");

fn run(args: &[&str]) -> Output {
    testkit::run(SRQ, args)
}

#[test]
fn bad_values_give_usage() {
    for args in [
        &["-a", "192.0.2.1", "-q", "0"][..],
        &["-a", "192.0.2.1", "-w", "0"],
        &["-a", "192.0.2.1", "-c", "0"],
        &["-a", "192.0.2.1", "-l", "0"],
        &["-a", "192.0.2.1", "-c", "-3"],
        &["-a", "192.0.2.1", "-q", "four"],
        &["-a", "192.0.2.1", "-p", "0"],
        &["-a", "192.0.2.1", "-x"],
        &["-a"],
    ] {
        let out = run(args);
        assert_one_line_error(&out, "srq: ");
        assert!(
            text(&out.stdout).starts_with("usage: srq -a server_address"),
            "{args:?}: {}",
            text(&out.stdout)
        );
    }
}

#[test]
fn address_is_required() {
    for args in [&[][..], &["-s"], &["-c", "10"]] {
        let out = run(args);
        assert_one_line_error(&out, "server address required (use -a)!");
    }
}

#[test]
fn without_rdma_or_server_fails_clearly() {
    // With no RDMA device librdmacm fails at once; with one, nobody listens
    // on this port of the lab's address (or the address does not resolve).
    let start = Instant::now();
    let out = run(&["-a", "192.0.2.1", "-p", "51297"]);
    assert_one_line_error(&out, "rdma_");
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
fn srq_help_lists_every_option() {
    common::testkit::help_lists_every_option(SRQ, "sapclqw");
}
