//! The built `xtask` binary, run as a user runs it: what it does with a
//! stdout it cannot write, and with option values it must refuse.

use std::fs::File;
use std::process::{Command, Output, Stdio};

/// `xtask ARGS` with stdout on `stdout`, its stderr captured.
fn xtask(args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
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
        assert!(stderr.contains("write to stdout"), "{args:?}: {stderr}");
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
