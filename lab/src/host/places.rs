//! The lab's places for the fabric's commands (`doctor`, `mesh`): a copied
//! `rdma-lab`'s example binaries beside it, else the source tree's build,
//! made first; the results in the build's target dir, `./rdma-lab/`
//! beside a copy.

use crate::base::rundir::Dir;
use crate::base::workspace::{copy_root, exe_dir, results_root, target_dir};
use rdma_fabric::host::places::{holds_binaries, Places, PlacesError};
use std::path::PathBuf;

/// The places of `rdma-lab` and `cargo xtask`.
#[derive(Debug, Clone, Copy)]
pub struct Workspace;

/// This binary's dir when the example binaries are beside it, as in a copy
/// taken to a host, or in the build's `target/release`, where every one
/// must be (a copy may hold only those its scenarios start).
fn copy_dir() -> Option<PathBuf> {
    let exe = exe_dir()?;
    let built_here = exe.starts_with(target_dir());
    holds_binaries(&exe, built_here).then_some(exe)
}

impl Places for Workspace {
    fn binaries(&self) -> Option<PathBuf> {
        copy_dir().or_else(|| Some(target_dir().join("release")))
    }

    fn built_binaries(&self) -> Result<PathBuf, PlacesError> {
        if let Some(dir) = copy_dir() {
            return Ok(dir);
        }
        crate::host::lab::build().map_err(PlacesError::Build)?;
        Ok(target_dir().join("release"))
    }

    fn results_root(&self, kind: &str) -> Result<Dir, PlacesError> {
        Ok(match copy_dir() {
            Some(_) => copy_root(kind),
            None => results_root(kind),
        }?)
    }
}
