//! Where a command finds the example binaries and puts its results: a seam
//! the caller fills. The `rdma-fabric` binary's are beside itself, as on a
//! node it was copied to ([`BesideBinary`]); the lab's are its source
//! tree's build. So the fabric never builds and never acts on a source
//! tree, whoever runs it.

use crate::base::fsafe;
use crate::base::rundir::Dir;
use std::path::{Path, PathBuf};

/// Why the places could not give what was asked: a caller tells the user
/// (its words are one line), and decides on the variant.
#[derive(Debug, thiserror::Error)]
pub enum PlacesError {
    /// This binary's own dir is unknown.
    #[error("this binary's own dir is unknown: give --bin-dir DIR")]
    NoOwnDir,
    /// No example binary is beside this one, in the dir given.
    #[error(
        "no example binary is beside this one in {}: copy them there, or give --bin-dir DIR",
        .0.display()
    )]
    NoBinaries(PathBuf),
    /// The build the binaries come from failed, as it said.
    #[error("{0}")]
    Build(String),
    /// The results' root could not be made or is not safe.
    #[error(transparent)]
    Results(#[from] fsafe::FsError),
}

rdma_lab_core::message_of!(PlacesError);

/// Where the example binaries are and where results go, when the command
/// line names neither (`--bin-dir`, `--out`).
pub trait Places {
    /// The example binaries' dir as it is: nothing is built, and a binary
    /// may be missing (the doctor says so).
    fn binaries(&self) -> Option<PathBuf>;
    /// The example binaries' dir, ready to run the pairs from (a build's
    /// made first where there is one to make).
    fn built_binaries(&self) -> Result<PathBuf, PlacesError>;
    /// The root of the result dirs of `kind` (`mesh`), opened once and
    /// refused when another user could redirect what is written there.
    fn results_root(&self, kind: &str) -> Result<Dir, PlacesError>;
}

/// The fabric tool's places: the example binaries beside this binary, the
/// results in `./TOP/KIND` in the working directory.
#[derive(Debug, Clone, Copy)]
pub struct BesideBinary {
    /// The results' folder in the working directory (`rdma-fabric-results`).
    pub top: &'static str,
}

impl Places for BesideBinary {
    fn binaries(&self) -> Option<PathBuf> {
        exe_dir()
    }

    fn built_binaries(&self) -> Result<PathBuf, PlacesError> {
        let dir = exe_dir().ok_or(PlacesError::NoOwnDir)?;
        if holds_binaries(&dir, false) {
            Ok(dir)
        } else {
            Err(PlacesError::NoBinaries(dir))
        }
    }

    fn results_root(&self, kind: &str) -> Result<Dir, PlacesError> {
        Ok(copy_root(self.top, kind)?)
    }
}

/// The example binaries a command runs: `given` (`--bin-dir`), else
/// where `places` has them, built.
pub fn bin_dir(given: Option<&Path>, places: &dyn Places) -> Result<PathBuf, PlacesError> {
    match given {
        Some(d) => Ok(d.to_path_buf()),
        None => places.built_binaries(),
    }
}

/// The directory of the running binary.
pub fn exe_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()?
        .parent()
        .map(Path::to_path_buf)
}

/// Whether `dir` holds the example binaries: every one (`all`, a build's
/// dir), or at least one (a copy holds only those its scenarios start, as
/// the ssh launcher's does).
pub fn holds_binaries(dir: &Path, all: bool) -> bool {
    let has = |b: &&str| dir.join(b).is_file();
    let mut binaries = crate::catalog::binaries().iter();
    if all {
        binaries.all(has)
    } else {
        binaries.any(has)
    }
}

/// `./TOP/KIND` in the working directory, each made if missing (refused
/// when the working directory is open to other users without the sticky
/// bit, [`fsafe::shared_cwd_refused`], or another user could redirect
/// what is written there, [`fsafe::own_dir`]).
pub fn copy_root(top: &str, kind: &str) -> Result<Dir, fsafe::FsError> {
    let cwd = Dir::cwd().map_err(fsafe::FsError::NoCwd)?;
    fsafe::shared_cwd_refused(&cwd)?;
    fsafe::own_dir(&fsafe::own_dir(&cwd, top)?, kind)
}
