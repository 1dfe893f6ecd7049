//! The built `rdma-lab` binary (the lab that `cargo xtask` runs), run as a user runs it: what it does with a
//! stdout it cannot write, and with option values it must refuse.

// The lab's functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

use std::fs::File;
use std::process::{Command, Output, Stdio};

/// `xtask ARGS` with stdout on `stdout`, its stderr captured.
fn xtask(args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("the built xtask runs")
}

#[test]
fn a_stdout_that_cannot_be_written_is_one_error_line_and_exit_1() {
    for args in [&["--help"][..], &["list"], &["lab", "--help"]] {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let out = xtask(args, full.into());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("rdma-lab: write to stdout"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // A stream whose reader is gone: every write meets EPIPE, as after
    // `| head -1` has read its line.
    let (reader, writer) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(reader);
    let out = xtask(&["list"], std::os::fd::OwnedFd::from(writer).into());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn a_value_that_is_not_a_device_or_an_address_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("F");
    let evil = format!("x;touch {};:", marker.display());
    let (dev, ip) = ("--dev \"", "--ip \"");
    for (args, names) in [
        (&["lab", "--local", "--dev", &evil][..], dev),
        (&["doctor", "--dev", &evil], dev),
        (&["lab", "--local", "--dev", "x;touch F;:"], dev),
        (&["lab", "--local", "--ip", "1.2.3.4;touch F"], ip),
        (
            &["lab", "--local", "--peer", "$(touch F)", "--ip", "10.0.0.1"],
            "--peer \"",
        ),
        (&["doctor", "--ip", "10.0.0.1\ntouch F"], ip),
        (
            &["doctor", "--ip", "10.0.0.1", "--peer", "host.example"],
            "--peer \"",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
            .args(args)
            .current_dir(tmp.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(names), "{args:?}: {stderr}");
        let allowed = if names == dev {
            "a device name is 1 to 64 of A-Z a-z 0-9 _ . : -"
        } else {
            "not an IPv4 or IPv6 address"
        };
        assert!(stderr.contains(allowed), "{args:?}: {stderr}");
    }
    assert!(!marker.exists());
    assert!(!tmp.path().join("F").exists());
}

#[test]
fn the_command_line_keeps_the_conventions_users_know() {
    let out = xtask(&["--version"], Stdio::piped());
    assert_eq!(out.status.code(), Some(0));
    let version = String::from_utf8_lossy(&out.stdout);
    assert_eq!(version, format!("rdma-lab {}\n", env!("CARGO_PKG_VERSION")));
    for args in [&["help", "mesh"][..], &["mesh", "--help"]] {
        let out = xtask(args, Stdio::piped());
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            text.contains("--coordinator") && !text.contains("keygen FILE"),
            "{args:?}: {text}"
        );
    }
    let out = xtask(&["lab", "--two-host"], Stdio::piped());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr,
        "rdma-lab: unknown option `--two-host` for `lab` (did you mean `--two-hosts`?); \
         `rdma-lab lab --help` shows its options\n"
    );
}
