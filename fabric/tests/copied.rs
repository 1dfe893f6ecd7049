//! The fabric tool as an administrator copies it to a node: alone in a
//! directory, it builds nothing and looks for no source tree; what it
//! lacks it says in one line.

use std::path::Path;
use std::process::Command;

/// `rdma-fabric` copied alone into a fresh dir, and that dir.
fn lone_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("rdma-fabric");
    std::fs::copy(env!("CARGO_BIN_EXE_rdma-fabric"), &tool).unwrap();
    (dir, tool)
}

/// Runs the copy in its own dir, with a `cargo` on PATH that would leave
/// a mark had anything run it; (exit code, stderr).
fn run_in(dir: &Path, tool: &Path, args: &[&str]) -> (Option<i32>, String) {
    let fake = dir.join("fake-bin");
    std::fs::create_dir(&fake).unwrap();
    let cargo = fake.join("cargo");
    let mark = dir.join("cargo-ran");
    std::fs::write(&cargo, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    let mut perms = std::fs::metadata(&cargo).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&cargo, perms).unwrap();
    let mut cmd = Command::new(tool);
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", format!("{}:/usr/bin:/bin", fake.display()))
        .env_remove("CARGO")
        .env_remove("CARGO_TARGET_DIR");
    let out = output_when_not_busy(&mut cmd);
    assert!(!mark.exists(), "the fabric tool ran cargo");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `cmd`'s output. The copy (or the fake cargo) may still be open for
/// writing in a child that the other test forked meanwhile, until that
/// child execs: "text file busy" for a moment, which is not the tool's.
fn output_when_not_busy(cmd: &mut Command) -> std::process::Output {
    for _ in 0..100 {
        match cmd.output() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => {
                std::thread::sleep(std::time::Duration::from_millis(50))
            }
            other => return other.unwrap(),
        }
    }
    panic!("the copy stayed busy for 5 s")
}

#[test]
fn a_copy_without_the_examples_says_so_and_builds_nothing() {
    let (dir, tool) = lone_copy();
    let (code, err) = run_in(dir.path(), &tool, &["mesh", "--ssh", "node1,node2"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no example binary is beside this one in")
            && err.contains(&dir.path().display().to_string())
            && err.contains("--bin-dir"),
        "{err}"
    );
    // Refused before the run's dir was made: nothing but the copy.
    let mut made: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    made.sort();
    assert_eq!(made, ["fake-bin", "rdma-fabric"]);
}

#[test]
fn the_lab_s_commands_are_not_the_fabric_s() {
    let (dir, tool) = lone_copy();
    for cmd in ["setup", "test", "fmt", "lab", "handout"] {
        let (code, err) = run_in(dir.path(), &tool, &[cmd]);
        assert_eq!(code, Some(1), "{cmd}: {err}");
        assert!(err.contains(&format!("unknown command `{cmd}`")), "{err}");
        std::fs::remove_dir_all(dir.path().join("fake-bin")).unwrap();
    }
}
