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

/// Each side looks for its device before it waits for, or connects to, a
/// peer: on a host without RDMA (like CI's), or with a device name that does
/// not exist, the server fails at once instead of listening, and the client
/// before it connects. One line, exit 1, within seconds.
#[test]
fn a_bad_device_fails_before_any_peer() {
    let has_rdma = Path::new("/sys/class/infiniband")
        .read_dir()
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    let port = free_port().to_string();
    let mut args: Vec<&str> = vec!["-p", &port];
    if has_rdma {
        args.extend(["-d", "no_such_dev9"]);
    }
    let client_args = [&args[..], &["127.0.0.1"]].concat();
    for (side, args) in [("server", &args[..]), ("client", &client_args[..])] {
        let started = std::time::Instant::now();
        let out = run(args);
        let err = testkit::one_line_error(&out, side);
        let stdout = text(&out.stdout);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{side}: waited"
        );
        assert!(!stdout.contains("waiting on port"), "{side}: {stdout}");
        assert!(!stdout.contains("TCP connection"), "{side}: {stdout}");
        assert!(stdout.contains("test result is 1"), "{side}: {stdout}");
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
    }
}

/// `-h` and `--help` print the usage, with every option with its default, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn rc_example_help_lists_every_option() {
    common::testkit::help_lists_every_option(BIN, "pdig");
}
