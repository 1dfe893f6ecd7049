//! Where the workspace and its build are, and the cargo that ran us: what
//! setup, the build and the tests all need, below every stage.

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

/// The directory of the running binary: where a copied `rdma-lab` finds
/// the example binaries beside it.
pub fn exe_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()?
        .parent()
        .map(Path::to_path_buf)
}

/// The cargo target dir; without the source tree (a copied `rdma-lab`),
/// `rdma-lab/` in the current directory, where its results go.
pub fn target_dir() -> PathBuf {
    if std::env::var_os("CARGO_TARGET_DIR").is_none() && !source_tree() {
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

/// The default result dir of `kind` (`lab`, `mesh`) under
/// [`target_dir`]: made if missing, refused when another user could
/// redirect what the runs write there ([`crate::base::fsafe::own_dir`]):
/// `./rdma-lab/` beside a copy is checked too, cargo's `target/` is not.
pub fn results_dir(kind: &str) -> Result<PathBuf, String> {
    let root = target_dir();
    if std::env::var_os("CARGO_TARGET_DIR").is_none() && !source_tree() {
        crate::base::fsafe::own_dir(&root)?;
    } else {
        std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    }
    let dir = root.join(kind);
    crate::base::fsafe::own_dir(&dir)?;
    Ok(dir)
}

/// The cargo that runs this (`CARGO`, as cargo sets it for what it
/// runs), else the one on PATH.
pub fn cargo_program() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// `cargo`, as cargo itself told us when it ran us.
pub fn cargo() -> Command {
    let mut c = Command::new(cargo_program());
    c.current_dir(workspace_root());
    c
}
