//! Where the workspace and its build are, and the cargo that ran us: what
//! setup, the build and the tests all need, below every stage.

use crate::base::fsafe;
use crate::base::rundir::Dir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root the lab was built in (the lab lives one level below
/// it); see [`source_tree`] for whether it is here.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the lab is inside the workspace")
        .to_path_buf()
}

/// Whether the source tree the lab was built in is on this host: not so
/// for `rdma-lab` copied to a host without it.
pub fn source_tree() -> bool {
    let root = workspace_root();
    root.join("Cargo.toml").is_file() && root.join("lab/src/lib.rs").is_file()
}

pub use rdma_fabric::host::places::exe_dir;

/// The cargo target dir; without the source tree (a copied `rdma-lab`),
/// `rdma-lab/` in the current directory, where its results go.
pub fn target_dir() -> PathBuf {
    if beside_a_copy() {
        return std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("."))
            .join("rdma-lab");
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                workspace_root().join(d)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// Whether the default result dirs are `./rdma-lab/` in the working
/// directory: a copied `rdma-lab`, without the source tree or
/// `CARGO_TARGET_DIR`.
fn beside_a_copy() -> bool {
    std::env::var_os("CARGO_TARGET_DIR").is_none() && !source_tree()
}

/// The default result root of `kind` (`lab`, `mesh`), opened once:
/// `./rdma-lab/KIND` beside a copy (refused when the working directory is
/// open to other users without the sticky bit, [`fsafe::shared_cwd_refused`]),
/// else `KIND` in the build's target dir (cargo's, which may be a link of
/// yours, or `CARGO_TARGET_DIR`); each dir made if missing and refused
/// when another user could redirect what the runs write there
/// ([`fsafe::own_dir`], [`fsafe::open_root`]). A run makes its own fresh
/// dir inside ([`fsafe::fresh_run`]).
pub fn results_root(kind: &str) -> Result<Dir, fsafe::FsError> {
    if beside_a_copy() {
        return copy_root(kind);
    }
    fsafe::own_dir(&fsafe::open_root(&target_dir(), "", true)?, kind)
}

/// `./rdma-lab/KIND` in the working directory, as [`results_root`] opens
/// it beside a copy.
pub fn copy_root(kind: &str) -> Result<Dir, fsafe::FsError> {
    rdma_fabric::host::places::copy_root("rdma-lab", kind)
}

/// The cargo that runs this (`CARGO`, as cargo sets it for what it
/// runs), else the one on PATH.
pub fn cargo_program() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The build of the workspace's release binaries, which every run of the
/// lab and the test command make alike: cargo unifies dependencies'
/// features over the packages it is given, so a build of a few packages
/// would compile the bindings and all above them again.
pub const RELEASE_BUILD: &[&str] = &["build", "--release", "--workspace", "--bins"];

/// `cargo`, as cargo itself told us when it ran us.
pub fn cargo() -> Command {
    let mut c = Command::new(cargo_program());
    c.current_dir(workspace_root());
    c
}
