//! Runs the real `ibv_sockets_pingpong` binary on this host: option handling,
//! and the paths a host without a usable RDMA device takes (clear error,
//! exit 1, no panic, no hang).

use std::process::Output;
use std::time::{Duration, Instant};

use common::testkit::{
    self as testkit, free_port, has_rdma_device as has_rdma, one_line_error, text,
};

const BIN: &str = env!("CARGO_BIN_EXE_ibv_sockets_pingpong");

fn run(args: &[&str]) -> Output {
    testkit::run(BIN, args)
}

#[test]
fn help_prints_usage_with_the_original_defaults() {
    let out = run(&["-h"]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert!(s.contains("Usage:"), "{s}");
    assert!(s.contains("(default 6543)"), "{s}");
    assert!(s.contains("(default 128)"), "{s}");
    for opt in [
        "--port",
        "--ib-dev",
        "--ib-port",
        "--gid-idx",
        "--size",
        "--iters",
    ] {
        assert!(s.contains(opt), "{opt}: {s}");
    }
}

#[test]
fn bad_values_print_usage_and_exit_1() {
    for (args, why) in [
        (&["-n", "0"][..], "invalid iteration count '0' for -n"),
        (&["-n", "-5"], "for -n"),
        (&["-s", "0"], "invalid message size '0' for -s"),
        (
            &["-s", "68719476736"],
            "invalid message size '68719476736' for -s",
        ),
        (&["-s", "1G"], "for -s"),
        (&["-p", "0"], "for -p"),
        (&["-p", "70000"], "for -p"),
        (&["-i", "0"], "for -i"),
        (&["-g", "x"], "for -g"),
        (&["-d", ""], "empty device name"),
        (&["-z"], "Unrecognized option"),
        (&["-n"], "Argument to option 'n' missing"),
        (&["a", "b"], "unexpected argument 'b'"),
    ] {
        let out = run(args);
        let err = assert_clean_failure(&format!("{args:?}"), &out);
        assert!(err.starts_with("ibv_sockets_pingpong: "), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert!(text(&out.stdout).contains("Usage:"), "{args:?}");
    }
}

/// Both modes look for a device before anything else, as the original. On a
/// host without RDMA (like CI's) that is where they stop; on a host with a
/// device, a device name that does not exist is reported instead.
#[test]
fn no_usable_device_is_a_clear_error_in_both_modes() {
    let port = free_port().to_string();
    let mut args = vec!["-p", &port];
    if has_rdma() {
        args.extend(["-d", "no_such_dev9"]);
    }
    let server = run(&args);
    args.push("127.0.0.1");
    let client = run(&args);
    for (side, out) in [("server", &server), ("client", &client)] {
        let err = assert_clean_failure(side, out);
        if has_rdma() {
            assert_eq!(
                err.trim_end(),
                "fail to open device: IB device no_such_dev9 wasn't found",
                "{side}"
            );
        } else {
            assert!(
                err.starts_with("fail to get ibv dev list: "),
                "{side}: {err}"
            );
            assert!(
                err.contains("no RDMA device found") || err.contains("ibv_get_device_list failed"),
                "{side}: {err}"
            );
            // Nothing was started: no socket line, no [OK] line.
            assert_eq!(text(&out.stdout), "", "{side}");
        }
    }
}

/// Where the host has a device the client reaches its connect and must say
/// the port is closed; where it has none it stops earlier, at the device
/// list (the connect error itself is unit-tested in src/main.rs). Either way
/// it fails at once, with one line and exit 1.
#[test]
fn client_to_a_closed_port_fails_clearly() {
    let port = free_port().to_string();
    let start = Instant::now();
    let out = run(&["-p", &port, "127.0.0.1"]);
    let err = assert_clean_failure("client", &out);
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "took {:?}",
        start.elapsed()
    );
    if has_rdma() {
        assert!(
            err.contains(&format!("fail to connect to server 127.0.0.1, port {port}")),
            "{err}"
        );
        assert!(err.contains("Connection refused"), "{err}");
    } else {
        assert!(err.starts_with("fail to get ibv dev list: "), "{err}");
    }
}

/// One stderr line, no panic, exit 1.
#[track_caller]
fn assert_clean_failure(what: &str, out: &Output) -> String {
    one_line_error(out, what)
}

/// `-h` and `--help` print the usage, with every option with its default, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn ibv_sockets_pingpong_help_lists_every_option() {
    common::testkit::help_lists_every_option(BIN, "pdigsn");
}
