//! Runs the real `mckey` and `mc` binaries on this host: option handling, and
//! what a host without RDMA gets (one clear error line, exit 1, no panic).

use std::process::Output;

use common::testkit::{has_rdma_cm, one_line_error, run, text};

const MCKEY: &str = env!("CARGO_BIN_EXE_mckey");
const MC: &str = env!("CARGO_BIN_EXE_mc");

#[test]
fn mckey_usage_errors_print_the_usage() {
    for args in [
        &[][..],
        &["-s"],
        &["-M", "ff0e::1"],
        &["-m", "239.255.1.1", "-M", "ff0e::1", "-b", "192.0.2.1"],
        &["-m", "239.255.1.1", "-C", "x"],
        &["-m", "239.255.1.1", "-C", "-1"],
        &["-m", "239.255.1.1", "-S", "x"],
        &["-m", "239.255.1.1", "-S", "1k"],
        &["-m", "239.255.1.1", "-c", "x"],
        &["-m", "239.255.1.1", "-c", "0"],
        &["-m", "239.255.1.1", "-p", "0x3"],
        &["-m", "239.255.1.1", "-z"],
        &["-m", "239.255.1.1", "stray"],
        &["-m"],
    ] {
        let out = run(MCKEY, args);
        assert_one_line_error(&out, &format!("{args:?}"), "mckey: ");
        let usage = text(&out.stdout);
        assert!(usage.starts_with("usage: mckey\n"), "{args:?}: {usage}");
        assert!(
            usage.contains("\t-m multicast_address (required, or -M)\n"),
            "{usage}"
        );
        assert!(
            usage.contains("\t replaces -m and requires -b\n"),
            "{usage}"
        );
        assert!(
            usage.contains("\t[-p port_space - 0x111 for UDP (default), 0x2 for IPOIB]\n"),
            "{usage}"
        );
    }
}

#[test]
fn mckey_names_the_missing_address_and_bind() {
    let out = run(MCKEY, &[]);
    assert!(text(&out.stderr).contains("a multicast address (-m or -M) is required"));
    let out = run(MCKEY, &["-M", "ff0e::1"]);
    assert!(text(&out.stderr)
        .contains("unmapped multicast address requires binding to source address (-b)"));
}

#[test]
fn mc_usage_errors_print_the_usage() {
    for args in [
        &[][..],
        &["-s"],
        &["-m", "239.255.1.1", "-c", "x"],
        &["-m", "239.255.1.1", "-c", "-2"],
        &["-m", "239.255.1.1", "-l", "x"],
        &["-m", "239.255.1.1", "-l", "64b"],
        &["-m", "239.255.1.1", "-q"],
        &["-m", "239.255.1.1", "stray"],
    ] {
        let out = run(MC, args);
        assert_one_line_error(&out, &format!("{args:?}"), "mc: ");
        let usage = text(&out.stdout);
        assert_eq!(
            usage,
            "usage: mc -m mc_address\n\t-m mc_address (required)\n\t-s[ender mode] (default: receiver)\n\t-b bind_address (default: the device the route to the group takes)\n\t-p port_number (default 51216)\n\t-c msg_count (default 4)\n\t-l msg_length (default 64)\n\t-h print this help\n",
            "{args:?}"
        );
    }
    let out = run(MC, &["-s"]);
    assert_eq!(
        text(&out.stderr),
        "mc: multicast address must be specified with -m\n"
    );
}

#[test]
fn without_rdma_both_fail_with_one_clear_line() {
    if has_rdma_cm() {
        // With rdma_cm present, an unresolvable name is the error instead.
        let out = run(MCKEY, &["-m", "no-such-host.invalid"]);
        assert_one_line_error(
            &out,
            "mckey",
            "getaddrinfo failed - invalid hostname or IP address: no-such-host.invalid",
        );
        assert!(text(&out.stdout).contains("return status 1"));
        let out = run(MC, &["-m", "no-such-host.invalid"]);
        assert_one_line_error(
            &out,
            "mc",
            "rdma_getaddrinfo (mcast): getaddrinfo failed - invalid hostname or IP address",
        );
        return;
    }
    let out = run(MCKEY, &["-m", "239.255.1.1", "-s"]);
    assert_one_line_error(
        &out,
        "mckey",
        "mckey: failed to create event channel: rdma_create_event_channel failed: ",
    );
    let out = run(MC, &["-m", "239.255.1.1", "-s"]);
    assert_one_line_error(&out, "mc", "rdma_create_event_channel failed: ");
}

#[track_caller]
fn assert_one_line_error(out: &Output, what: &str, contains: &str) {
    let err = one_line_error(out, what);
    assert!(err.contains(contains), "{what}: {err}");
}

/// `-h` and `--help` print the usage, with every option with its default, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn mckey_help_lists_every_option() {
    common::testkit::help_lists_every_option(MCKEY, "mMsbcCSp");
}

/// `-h` and `--help` print the usage, with every option with its default, and exit 0;
/// a stdout that cannot be written gives one error line instead.
#[test]
fn mc_help_lists_every_option() {
    common::testkit::help_lists_every_option(MC, "sbmpcl");
}
