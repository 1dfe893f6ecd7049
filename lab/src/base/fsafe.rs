//! Files and dirs on a host that other users share: a secret file must be
//! this user's own, and what the lab writes must not go through a dir or a
//! link another user planted.

use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

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
/// user or root, with no permission for anyone else; why not, in words.
pub fn own_private_file(meta: &Metadata) -> Result<(), String> {
    if !meta.file_type().is_file() {
        return Err("not a regular file (a FIFO, a device or a dir): give a file".into());
    }
    if !trusted_owner(meta.uid()) {
        return Err(format!(
            "owned by {}, not by you ({}) or root: make your own with `rdma-lab keygen FILE`",
            user_name(meta.uid()),
            user_name(euid())
        ));
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!("open to other users (mode {mode:o}): chmod 600 it"));
    }
    Ok(())
}

/// Makes `dir` (mode 0700) if it is missing; else it must be a dir, not a
/// link, that this user owns and no one else may write. What a run then
/// makes under it (a fresh dir of its own, created exclusively) cannot be
/// swapped for a link or read by another user; a dir another user made
/// first is refused in one line naming it and its owner.
pub fn own_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    let shown = dir.display();
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("{shown}: {e}")),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("{shown}: {e}"))?;
    let owner = user_name(meta.uid());
    let elsewhere = "the lab writes its results only into a dir of yours that no one else may \
                     write: remove it, or give the results another place (--out, CARGO_TARGET_DIR)";
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{shown} is a symbolic link, made by {owner}: {elsewhere}"
        ));
    }
    if !meta.is_dir() {
        return Err(format!(
            "{shown} is not a dir (its owner: {owner}): {elsewhere}"
        ));
    }
    if meta.uid() != euid() {
        return Err(format!(
            "{shown} belongs to {owner}, not to you ({}): {elsewhere}",
            user_name(euid())
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(format!(
            "{shown} (owned by {owner}) is writable by other users (mode {mode:o}): chmod go-w it"
        ));
    }
    Ok(())
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
