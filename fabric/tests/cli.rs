//! The built `rdma-fabric` with a stdout it cannot write: each print goes
//! through the agent's `println!` (the crate's `macro_use` prelude), so a
//! failed write is one error line and exit 1, not std's panic.

use std::fs::File;
use std::process::{Command, Stdio};

#[test]
fn a_stdout_that_cannot_be_written_is_one_error_line_and_exit_1() {
    for args in [&["--help"][..], &["mesh", "--help"], &["doctor", "--help"]] {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_rdma-fabric"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("rdma-fabric: write to stdout failed"),
            "{args:?}: {stderr}"
        );
    }
}
