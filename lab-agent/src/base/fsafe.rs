//! Files and dirs on a host that other users share: a secret file must be
//! this user's own, and what the lab writes must not go through a dir or a
//! link another user planted: its result roots are opened once and
//! checked, each run's dir is fresh and private ([`super::rundir::Dir`]).

use super::rundir::{mode_of, Dir};
use std::fs::{File, Metadata};
use std::io;
use std::os::fd::AsFd as _;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a dir or a file the lab would use is refused, or could not be
/// opened: each refusal its own variant, so that a caller decides on what
/// happened; the message (one line) names the path and what to do.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The system call on `path` failed (`what` prefixes the path: the
    /// option that named it, as `--out `).
    #[error("{what}{}: {source}", path.display())]
    Io {
        /// The option that named the path, with a space, or nothing.
        what: String,
        /// The path.
        path: PathBuf,
        /// What the kernel said.
        source: io::Error,
    },
    /// A link where a dir of the lab's was to be.
    #[error("{} is a symbolic link, made by {owner}: {ELSEWHERE}", path.display())]
    Link {
        /// The link.
        path: PathBuf,
        /// Who made it.
        owner: String,
    },
    /// Something else than a dir where a dir of the lab's was to be.
    #[error("{} is not a dir (its owner: {owner}): {ELSEWHERE}", path.display())]
    NotDir {
        /// What is there.
        path: PathBuf,
        /// Its owner.
        owner: String,
    },
    /// A dir of the lab's that another user made first.
    #[error("{} belongs to {owner}, not to you ({you}): {ELSEWHERE}", path.display())]
    NotYours {
        /// The dir.
        path: PathBuf,
        /// Its owner.
        owner: String,
        /// This user.
        you: String,
    },
    /// A dir of the lab's that other users may write.
    #[error(
        "{} (owned by {owner}) is writable by other users (mode {mode:o}): chmod go-w it",
        path.display()
    )]
    OpenToOthers {
        /// The dir.
        path: PathBuf,
        /// Its owner.
        owner: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The working directory, as a root of result dirs, is shared.
    #[error(
        "the working directory {} is writable by other users without the sticky bit (mode \
         {mode:o}), who could swap the lab's results for links: pass --out DIR, a dir of \
         yours, or run from one",
        path.display()
    )]
    SharedCwd {
        /// The working directory.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A result root owned by a user this one does not trust.
    #[error(
        "{what}{}: it belongs to {owner}, not to you ({you}) or root: give a dir of yours",
        path.display()
    )]
    RootNotTrusted {
        /// The option that named it, with a space, or nothing.
        what: String,
        /// The root.
        path: PathBuf,
        /// Its owner.
        owner: String,
        /// This user.
        you: String,
    },
    /// A result root others may add to or take from.
    #[error(
        "{what}{}: writable by other users without the sticky bit (mode {mode:o}): give a dir \
         only you may write, or chmod go-w it",
        path.display()
    )]
    RootSwappable {
        /// The option that named it, with a space, or nothing.
        what: String,
        /// The root.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A dir this process made for itself is not its own and private.
    #[error("{}: not a private dir of yours (owner {owner}, mode {mode:o})", path.display())]
    NotPrivate {
        /// The dir.
        path: PathBuf,
        /// Its owner.
        owner: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The working directory could not be opened.
    #[error("the working directory: {0}")]
    NoCwd(io::Error),
    /// The OS gave no randomness for a run dir's name.
    #[error("no randomness from the OS: {0}")]
    NoRandomness(getrandom::Error),
}

impl FsError {
    /// A failed call on `path`, named by `what` (an option and a space, or
    /// nothing).
    fn io(what: &str, path: &Path, source: io::Error) -> FsError {
        FsError::Io {
            what: what.to_string(),
            path: path.to_path_buf(),
            source,
        }
    }
}

rdma_lab_core::message_of!(FsError);

/// Why an opened file is not a secret's ([`own_private_file`]).
#[derive(Debug, thiserror::Error)]
pub enum NotPrivateFile {
    /// A FIFO, a device or a dir.
    #[error("not a regular file (a FIFO, a device or a dir): give a file")]
    NotAFile,
    /// Owned by a user this one does not trust.
    #[error(
        "owned by {owner}, not by you ({you}) or root: make your own with `rdma-lab keygen FILE`"
    )]
    NotTrusted {
        /// Its owner.
        owner: String,
        /// This user.
        you: String,
    },
    /// Others may read or write it.
    #[error("open to other users (mode {0:o}): chmod 600 it")]
    OpenToOthers(u32),
}

/// Opens `path` for reading without following a link in its last part and
/// without waiting (a FIFO with no writer would block forever).
pub fn open_nofollow(path: &Path) -> io::Result<File> {
    use nix::fcntl::OFlag;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK).bits())
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(code) if code == nix::errno::Errno::ELOOP as i32 => {
                io::Error::other("it is a symbolic link: give the file itself")
            }
            _ => e,
        })
}

/// This process's user, as the kernel checks it.
pub fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Whether `uid` may own what this user trusts: this user, or root.
pub fn trusted_owner(uid: u32) -> bool {
    uid == euid() || uid == 0
}

/// The owner's name of `uid` (from /etc/passwd), else its number.
pub fn user_name(uid: u32) -> String {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map_or_else(|| format!("uid {uid}"), |u| u.name)
}

/// Whether an opened file is a secret's: a regular file owned by this
/// user or root, with no permission for anyone else; why not.
pub fn own_private_file(meta: &Metadata) -> Result<(), NotPrivateFile> {
    if !meta.file_type().is_file() {
        return Err(NotPrivateFile::NotAFile);
    }
    if !trusted_owner(meta.uid()) {
        return Err(NotPrivateFile::NotTrusted {
            owner: user_name(meta.uid()),
            you: user_name(euid()),
        });
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(NotPrivateFile::OpenToOthers(mode));
    }
    Ok(())
}

/// What a refused result dir is told: where the results may go instead.
const ELSEWHERE: &str = "the lab writes its results only into a dir of yours that no one else \
                         may write: remove it, or give the results another place (--out, \
                         CARGO_TARGET_DIR)";

/// Whether `mode` lets a user other than the owner add or remove entries
/// that are not their own: group or others may write, without the sticky
/// bit (which leaves each entry to its owner, as in /tmp).
fn others_may_swap(mode: u32) -> bool {
    mode & 0o022 != 0 && mode & 0o1000 == 0
}

/// The dir `name` in `parent`, made (mode 0700) if it is missing, else
/// opened without following a link: it must be a dir this user owns that
/// no one else may write. A dir another user made first, or a link, is
/// refused in one line naming it and its owner. Checked on the dir
/// opened, not on its path again: nothing can swap it in between.
pub fn own_dir(parent: &Dir, name: &str) -> Result<Dir, FsError> {
    let path = parent.join(name);
    let owner_of = |at: &Dir| -> String {
        nix::sys::stat::fstatat(at.as_fd(), name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)
            .map_or_else(|_| "someone".into(), |st| user_name(st.st_uid))
    };
    let dir = match parent.make_dir(name) {
        Ok(d) => d,
        Err(e) if super::rundir::is_link(&e) => {
            let owner = owner_of(parent);
            return Err(FsError::Link { path, owner });
        }
        Err(e) if e.raw_os_error() == Some(nix::errno::Errno::ENOTDIR as i32) => {
            let owner = owner_of(parent);
            return Err(FsError::NotDir { path, owner });
        }
        Err(e) => return Err(FsError::io("", &path, e)),
    };
    let st = dir.stat().map_err(|e| FsError::io("", &path, e))?;
    let owner = user_name(st.st_uid);
    if st.st_uid != euid() {
        let you = user_name(euid());
        return Err(FsError::NotYours { path, owner, you });
    }
    let mode = mode_of(&st);
    if mode & 0o022 != 0 {
        return Err(FsError::OpenToOthers { path, owner, mode });
    }
    Ok(dir)
}

/// The working directory as the root of the default result dirs
/// (`./rdma-lab/` beside a copy): refused, in one line, when other users
/// may write it without the sticky bit, since any of them could rename
/// what the lab makes there and plant a link in its place.
pub fn shared_cwd_refused(cwd: &Dir) -> Result<(), FsError> {
    let path = cwd.path().to_path_buf();
    let st = cwd.stat().map_err(|e| FsError::io("", &path, e))?;
    let mode = mode_of(&st);
    if others_may_swap(mode) {
        return Err(FsError::SharedCwd { path, mode });
    }
    Ok(())
}

/// A result root you named (`--out DIR`, `CARGO_TARGET_DIR`), made (mode
/// 0700) when missing and opened once, by `follow`ing a link in its last
/// part or not: the dir opened must be yours or root's, and no one else
/// may add to it or take from it unless it has the sticky bit (as /tmp).
pub fn open_root(path: &Path, what: &str, follow: bool) -> Result<Dir, FsError> {
    use std::os::unix::fs::DirBuilderExt;
    let failed = |e| FsError::io(what, path, e);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(failed)?;
    let dir = if follow {
        Dir::open_followed(path)
    } else {
        Dir::open(path)
    }
    .map_err(failed)?;
    let st = dir.stat().map_err(failed)?;
    let (what, path) = (what.to_string(), path.to_path_buf());
    if !trusted_owner(st.st_uid) {
        let (owner, you) = (user_name(st.st_uid), user_name(euid()));
        return Err(FsError::RootNotTrusted {
            what,
            path,
            owner,
            you,
        });
    }
    let mode = mode_of(&st);
    if others_may_swap(mode) {
        return Err(FsError::RootSwappable { what, path, mode });
    }
    Ok(dir)
}

/// A dir this process just made for itself (a private temporary dir),
/// opened without following a link and checked on what was opened: this
/// user's, open to no one else.
pub fn open_private(path: &Path) -> Result<Dir, FsError> {
    let dir = Dir::open(path).map_err(|e| FsError::io("", path, e))?;
    let st = dir.stat().map_err(|e| FsError::io("", path, e))?;
    let mode = mode_of(&st);
    if st.st_uid != euid() || mode & 0o077 != 0 {
        return Err(FsError::NotPrivate {
            path: path.to_path_buf(),
            owner: user_name(st.st_uid),
            mode,
        });
    }
    Ok(dir)
}

/// A fresh run dir in `root`: mode 0700, its name `prefix`, the time and
/// eight random letters or digits, made only if nothing is there.
pub fn fresh_run(root: &Dir, prefix: &str) -> Result<Dir, FsError> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(FsError::NoRandomness)?;
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let tail: String = bytes
        .iter()
        .map(|b| char::from(ALNUM[usize::from(*b) % ALNUM.len()]))
        .collect();
    let name = format!("{prefix}{secs}-{tail}");
    root.fresh_dir(&name)
        .map_err(|e| FsError::io("", &root.join(&name), e))
}

/// Writes `bytes` to `path` as a new file, replacing what is there
/// without following it: a link at `path` is removed, never written
/// through (`O_CREAT | O_EXCL | O_NOFOLLOW`).
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)?
        .write_all(bytes)
}

#[cfg(test)]
mod tests;
