//! Runs the real `rdmacm_server` and `rdmacm_client` binaries on this host:
//! argument errors, and what a host without RDMA gets (clear error, exit 1).

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::testkit::{has_rdma_cm, one_line_error, run};

const SERVER: &str = env!("CARGO_BIN_EXE_rdmacm_server");
const CLIENT: &str = env!("CARGO_BIN_EXE_rdmacm_client");

#[test]
fn client_usage_errors() {
    for args in [
        &[][..],
        &["192.0.2.1"],
        &["192.0.2.1", "1", "2"],
        &["192.0.2.1", "port"],
        &["192.0.2.1", "0"],
        &["192.0.2.1", "65536"],
        &["no-such-host.invalid", "12345"],
    ] {
        let out = run(CLIENT, args);
        assert_one_line_error(
            &out,
            "rdmacm_client: ",
            "usage: rdmacm_client <server-address> <server-port>",
        );
    }
}

#[test]
fn server_usage_errors() {
    for args in [
        &["192.0.2.1", "port"][..],
        &["192.0.2.1", "70000"],
        &["192.0.2.1", "1", "2"],
        &["no-such-host.invalid"],
    ] {
        let out = run(SERVER, args);
        assert_one_line_error(
            &out,
            "rdmacm_server: ",
            "usage: rdmacm_server [bind-address [port]]",
        );
    }
}

#[test]
fn client_without_rdma_fails_clearly() {
    if has_rdma_cm() {
        // With rdma_cm present, a client to a local port nobody listens on
        // must be rejected (or time out) with a clear error, not hang.
        let start = Instant::now();
        let out = run(CLIENT, &["127.0.0.1", "1"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(start.elapsed() < Duration::from_secs(20));
        return;
    }
    let out = run(CLIENT, &["127.0.0.1", "12345"]);
    assert_one_line_error(&out, "rdma_create_event_channel failed: ", &hint_here());
}

/// The hint of a failed `rdma_create_event_channel` on this host, as it is
/// now: "no RDMA device on this host" without one, never a node that is
/// there called missing.
fn hint_here() -> String {
    common::hints::rdma_cm_hint_here().map_or(String::new(), |h| format!("(hint: {h})"))
}

#[test]
fn server_without_rdma_fails_clearly_or_stops_on_sigterm() {
    if !has_rdma_cm() {
        let out = run(SERVER, &[]);
        assert_one_line_error(&out, "rdma_create_event_channel failed: ", &hint_here());
        return;
    }
    let mut child = Command::new(SERVER)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // SIGTERM once the server says it listens (its handler is installed by then).
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("listening on port"), "{first}");
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[track_caller]
fn assert_one_line_error(out: &Output, starts: &str, contains: &str) {
    let err = one_line_error(out, starts);
    assert!(err.starts_with(starts), "{err}");
    assert!(err.contains(contains), "{err}");
}

/// `-h` and `--help` print the usage, with its operands with their defaults, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn rdmacm_server_help_lists_its_operands() {
    common::testkit::help_lists_every_option(SERVER, "");
}

/// `-h` and `--help` print the usage, with its operands with their defaults, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn rdmacm_client_help_lists_its_operands() {
    common::testkit::help_lists_every_option(CLIENT, "");
}
