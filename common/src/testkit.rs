//! Helpers for the examples' host tests, which run the real binaries and
//! judge their exit status and output.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run `bin` with `args`, stdin closed, and collect its output.
pub fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"))
}

/// Captured bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A TCP port that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"))
}

/// True when this host has an RDMA device (a real HCA, or rxe set up).
pub fn has_rdma_device() -> bool {
    Path::new("/sys/class/infiniband")
        .read_dir()
        .map(|mut d| d.next().is_some())
        .unwrap_or(false)
}

/// True when the RDMA connection manager device exists.
pub fn has_rdma_cm() -> bool {
    Path::new("/dev/infiniband/rdma_cm").exists()
}

/// Assert the examples' failure contract: exit status 1, exactly one line on
/// stderr, no panic. Returns that line; `what` labels the case in messages.
#[track_caller]
pub fn one_line_error(out: &Output, what: &str) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    assert_eq!(
        err.lines().count(),
        1,
        "{what}: one error line expected: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    err
}
