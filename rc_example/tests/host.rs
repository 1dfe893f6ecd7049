//! Runs the real `rc_example` binary on this host: option handling, and the
//! path a host without a usable RDMA device takes (clear error, exit 1, no panic).

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::testkit::{self, free_port, text};

const BIN: &str = env!("CARGO_BIN_EXE_rc_example");

fn run(args: &[&str]) -> Output {
    testkit::run(BIN, args)
}

#[test]
fn help_prints_usage_with_the_true_default_port() {
    let out = run(&["-h"]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert!(s.contains("Usage:"), "{s}");
    assert!(s.contains("(default 19875)"), "{s}");
    assert!(!s.contains("18515"), "{s}");
    assert!(s.contains("--gid-idx"), "{s}");
}

#[test]
fn bad_values_print_usage_and_exit_1() {
    for args in [
        &["-p", "0"][..],
        &["-p", "70000"],
        &["-p", "port"],
        &["-i", "0"],
        &["-i", "-1"],
        &["-g", "x"],
        &["-g", "-1"],
        &["-z"],
        &["-p"],
        &["a", "b"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(
            err.lines().count(),
            1,
            "{args:?}: one error line expected: {err}"
        );
        assert!(err.starts_with("rc_example: "), "{args:?}: {err}");
        assert!(text(&out.stdout).contains("Usage:"), "{args:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn arguments_that_are_not_utf8_are_refused_without_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff");
    for args in [
        vec![OsStr::new("-p"), bad],
        vec![OsStr::new("-d"), bad, bad],
    ] {
        let out = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("run rc_example");
        testkit::one_line_error(&out, &format!("{args:?}"));
    }
}

#[test]
fn client_to_a_closed_port_fails_clearly() {
    let port = free_port().to_string();
    let out = run(&["-p", &port, "127.0.0.1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "failed to establish TCP connection to server 127.0.0.1, port {port}"
        )),
        "{err}"
    );
    assert!(err.contains("Connection refused"), "{err}");
    assert!(text(&out.stdout).contains("test result is 1"));
}

#[test]
fn unresolvable_server_name_fails_clearly() {
    let out = run(&["no-such-host.invalid"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("getaddrinfo failed for no-such-host.invalid"),
        "{err}"
    );
}

/// Both sides connect over loopback TCP and then look for a device. On a host
/// without RDMA (like CI's) both must say so and exit 1; on a host with a
/// device, a device name that does not exist must be reported instead.
#[test]
fn no_usable_device_is_a_clear_error_on_both_sides() {
    let has_rdma = Path::new("/sys/class/infiniband")
        .read_dir()
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    let port = free_port().to_string();
    let mut common: Vec<String> = vec!["-p".into(), port];
    if has_rdma {
        common.extend(["-d".into(), "no_such_dev9".into()]);
    }
    let server = Command::new(BIN)
        .args(&common)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server");
    // The client connects once the server listens.
    let port: u16 = common[1].parse().unwrap();
    assert!(
        testkit::wait_tcp_listen(port, Duration::from_secs(20)),
        "the server never listened on port {port}"
    );
    let mut client_args: Vec<&str> = common.iter().map(String::as_str).collect();
    client_args.push("127.0.0.1");
    let client = run(&client_args);
    let server = server.wait_with_output().unwrap();
    for (side, out) in [("server", &server), ("client", &client)] {
        let err = text(&out.stderr);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{side}: {stdout}{err}");
        assert!(
            stdout.contains("TCP connection was established"),
            "{side}: {stdout}"
        );
        assert!(
            stdout.contains("searching for IB devices in host"),
            "{side}: {stdout}"
        );
        assert!(stdout.contains("test result is 1"), "{side}: {stdout}");
        assert_eq!(
            err.lines().count(),
            1,
            "{side}: one error line expected: {err}"
        );
        assert!(
            err.starts_with("failed to create resources: "),
            "{side}: {err}"
        );
        if has_rdma {
            assert!(
                err.contains("IB device no_such_dev9 wasn't found"),
                "{side}: {err}"
            );
        } else {
            assert!(
                err.contains("found 0 device(s)") || err.contains("ibv_get_device_list failed"),
                "{side}: {err}"
            );
        }
        assert!(!err.contains("panicked"), "{side}: {err}");
    }
}

/// `-h` and `--help` print the usage, with every option with its default, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn rc_example_help_lists_every_option() {
    common::testkit::help_lists_every_option(BIN, "pdig");
    common::testkit::full_stdout_is_one_error_line(BIN);
}
