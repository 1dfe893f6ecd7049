//! A result dir held open: a run opens its root once, and makes and reads
//! every dir and file of the run relative to that handle (`openat`,
//! `mkdirat`, `unlinkat`), each step refusing a link. Another user who
//! swaps a component of the root's path for a link after the root was
//! opened changes nothing the run writes: the handle is the dir itself,
//! not its path again. The path is kept only to be shown, and for the
//! programs that can only be given one (QEMU, a VM's shared dir).

use nix::errno::Errno;
use nix::fcntl::{openat, OFlag, AT_FDCWD};
use nix::sys::stat::{fstat, fstatat, mkdirat, FileStat, Mode, SFlag};
use nix::unistd::{unlinkat, UnlinkatFlags};
use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A dir, opened once; everything below it is reached through it.
#[derive(Clone)]
pub struct Dir {
    fd: Arc<OwnedFd>,
    path: PathBuf,
    /// Its device and inode: what makes two handles the same dir.
    id: (u64, u64),
}

impl std::fmt::Debug for Dir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Dir({})", self.path.display())
    }
}

impl AsFd for Dir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl PartialEq for Dir {
    fn eq(&self, other: &Dir) -> bool {
        self.id == other.id
    }
}

/// How a dir is opened: never through a link, never kept by a child.
fn dir_flags() -> OFlag {
    OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
}

/// An errno as the `io::Error` the rest of the lab reads, a link named as
/// one (`O_NOFOLLOW` says `ELOOP`).
fn io_err(e: Errno) -> io::Error {
    match e {
        Errno::ELOOP => link_err(),
        e => io::Error::from(e),
    }
}

/// What a link where a dir or a file was to be is told: its own type in
/// the `io::Error`, which [`is_link`] tells apart from any other error.
fn link_err() -> io::Error {
    io::Error::other(IsLink)
}

/// The error inside an `io::Error` for a link where a dir or a file was
/// to be.
#[derive(Debug, thiserror::Error)]
#[error("it is a symbolic link")]
struct IsLink;

/// Whether `e` says a link was where a dir or a file was to be.
pub fn is_link(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<IsLink>())
}

/// Opens the dir `name` in `at` without following a link: a link there
/// is said to be one (with `O_DIRECTORY` the kernel says only "not a
/// directory").
fn open_dir_at<Fd: AsFd>(at: Fd, name: &Path) -> io::Result<OwnedFd> {
    match openat(at.as_fd(), name, dir_flags(), Mode::empty()) {
        Ok(fd) => Ok(fd),
        Err(Errno::ENOTDIR) => {
            let st = fstatat(at, name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW);
            match st.map(|st| SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT) {
                Ok(SFlag::S_IFLNK) => Err(link_err()),
                _ => Err(io::Error::from(Errno::ENOTDIR)),
            }
        }
        Err(e) => Err(io_err(e)),
    }
}

/// The parts of a path relative to a dir; `..`, `.`, an empty part and an
/// absolute path are refused, so that nothing leaves the dir.
fn parts(rel: &str) -> io::Result<Vec<&str>> {
    let v: Vec<&str> = rel.split('/').collect();
    if v.iter().any(|p| p.is_empty() || *p == "." || *p == "..") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{rel:?} is not a path inside the dir"),
        ));
    }
    Ok(v)
}

/// Mode bits of a stat, permissions and the sticky bit.
pub fn mode_of(st: &FileStat) -> u32 {
    st.st_mode & 0o7777
}

impl Dir {
    /// Opens `path` as it is (a link in its last part refused), with no
    /// check of its owner: a dir the lab itself made (a private temporary
    /// dir, the dir a VM's agent was given).
    pub fn open(path: &Path) -> io::Result<Dir> {
        Dir::of(open_dir_at(AT_FDCWD, path)?, path.to_path_buf())
    }

    /// Opens `path`, following a link in its last part too: a dir the
    /// user named whose path may be a link of theirs (cargo's target
    /// dir); what it leads to is the dir held, and checked, from then on.
    pub fn open_followed(path: &Path) -> io::Result<Dir> {
        let flags = dir_flags() & !OFlag::O_NOFOLLOW;
        let fd = openat(AT_FDCWD, path, flags, Mode::empty()).map_err(io_err)?;
        Dir::of(fd, path.to_path_buf())
    }

    /// The working directory, opened as it is now (`.`), shown by its path.
    pub fn cwd() -> io::Result<Dir> {
        Dir::of(
            open_dir_at(AT_FDCWD, Path::new("."))?,
            std::env::current_dir()?,
        )
    }

    fn of(fd: OwnedFd, path: PathBuf) -> io::Result<Dir> {
        let st = fstat(&fd)?;
        Ok(Dir {
            fd: Arc::new(fd),
            path,
            id: (st.st_dev, st.st_ino),
        })
    }

    /// The path it was opened by: to show, or to hand to a program.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `rel`'s path below it: to show, or to hand to a program.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    /// What `fstat` says of the dir opened.
    pub fn stat(&self) -> io::Result<FileStat> {
        Ok(fstat(self.fd.as_fd())?)
    }

    fn borrow(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The child dir `name` of this one, opened without following a link.
    fn child(&self, name: &str) -> io::Result<Dir> {
        let fd = open_dir_at(self.borrow(), Path::new(name))?;
        Dir::of(fd, self.path.join(name))
    }

    /// The existing dir `rel` below this one, each part opened without
    /// following a link.
    pub fn dir(&self, rel: &str) -> io::Result<Dir> {
        let mut d = self.clone();
        for p in parts(rel)? {
            d = d.child(p)?;
        }
        Ok(d)
    }

    /// The dir `rel` below this one, each missing part made (mode 0700),
    /// none followed if it is a link.
    pub fn make_dir(&self, rel: &str) -> io::Result<Dir> {
        let mut d = self.clone();
        for p in parts(rel)? {
            match mkdirat(d.borrow(), p, Mode::from_bits_truncate(0o700)) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(io_err(e)),
            }
            d = d.child(p)?;
        }
        Ok(d)
    }

    /// A new dir `name` in this one (mode 0700): an error if anything is
    /// there, so that a run never writes into a dir it did not make.
    pub fn fresh_dir(&self, name: &str) -> io::Result<Dir> {
        parts(name)?;
        mkdirat(self.borrow(), name, Mode::from_bits_truncate(0o700)).map_err(io_err)?;
        self.child(name)
    }

    /// A new dir in this one named `prefix`, then `prefix-2`, `-3`...: the
    /// first of them not there yet.
    pub fn numbered_dir(&self, prefix: &str) -> io::Result<Dir> {
        for n in 1.. {
            let name = match n {
                1 => prefix.to_string(),
                n => format!("{prefix}-{n}"),
            };
            match self.fresh_dir(&name) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                other => return other,
            }
        }
        unreachable!("some number is free")
    }

    /// The dir of `rel`'s last part, and that part.
    fn parent_of<'a>(&self, rel: &'a str) -> io::Result<(Dir, &'a str)> {
        let v = parts(rel)?;
        let (last, above) = v.split_last().expect("split gives a part");
        let mut d = self.clone();
        for p in above {
            d = d.child(p)?;
        }
        Ok((d, last))
    }

    /// A new file at `rel` with `mode`, replacing what is there without
    /// following it: a link there is removed, never written through
    /// (`O_CREAT | O_EXCL | O_NOFOLLOW`).
    pub fn create_mode(&self, rel: &str, mode: u32) -> io::Result<File> {
        let (d, name) = self.parent_of(rel)?;
        match unlinkat(d.borrow(), name, UnlinkatFlags::NoRemoveDir) {
            Ok(()) | Err(Errno::ENOENT) => {}
            Err(e) => return Err(io_err(e)),
        }
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = openat(d.borrow(), name, flags, Mode::from_bits_truncate(mode)).map_err(io_err)?;
        Ok(File::from(fd))
    }

    /// [`Dir::create_mode`], mode 0600.
    pub fn create(&self, rel: &str) -> io::Result<File> {
        self.create_mode(rel, 0o600)
    }

    /// Writes `bytes` to a new file at `rel` ([`Dir::create`]).
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> io::Result<()> {
        self.create(rel)?.write_all(bytes.as_ref())
    }

    /// [`Dir::write`], the dirs above `rel` made first ([`Dir::make_dir`]).
    pub fn write_deep(&self, rel: &str, bytes: impl AsRef<[u8]>) -> io::Result<()> {
        match rel.rsplit_once('/') {
            Some((above, name)) => self.make_dir(above)?.write(name, bytes),
            None => self.write(rel, bytes),
        }
    }

    /// Copies the file at `src` to a new file `name` here, with `src`'s
    /// permissions (a program stays executable).
    pub fn copy_from(&self, src: &Path, name: &str) -> io::Result<u64> {
        use std::os::unix::fs::PermissionsExt;
        let mut from = File::open(src)?;
        let mode = from.metadata()?.permissions().mode() & 0o777;
        io::copy(&mut from, &mut self.create_mode(name, mode)?)
    }

    /// The file at `rel` to add to (made, mode 0600, when missing), never
    /// through a link.
    pub fn append(&self, rel: &str) -> io::Result<File> {
        let (d, name) = self.parent_of(rel)?;
        let flags = OFlag::O_WRONLY
            | OFlag::O_APPEND
            | OFlag::O_CREAT
            | OFlag::O_NOFOLLOW
            | OFlag::O_CLOEXEC;
        let fd =
            openat(d.borrow(), name, flags, Mode::from_bits_truncate(0o600)).map_err(io_err)?;
        Ok(File::from(fd))
    }

    /// The bytes of the regular file at `rel`, never through a link, never
    /// waiting on a FIFO.
    pub fn read(&self, rel: &str) -> io::Result<Vec<u8>> {
        self.read_at_most(rel, u64::MAX).map(|(bytes, _)| bytes)
    }

    /// [`Dir::read`] of at most `max` bytes, and whether there were more.
    pub fn read_at_most(&self, rel: &str, max: u64) -> io::Result<(Vec<u8>, bool)> {
        let (d, name) = self.parent_of(rel)?;
        let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let fd = openat(d.borrow(), name, flags, Mode::empty()).map_err(io_err)?;
        let kind = SFlag::from_bits_truncate(fstat(&fd)?.st_mode) & SFlag::S_IFMT;
        if kind != SFlag::S_IFREG {
            return Err(io::Error::other("not a regular file"));
        }
        let mut bytes = Vec::new();
        File::from(fd)
            .take(max.saturating_add(1))
            .read_to_end(&mut bytes)?;
        let more = bytes.len() as u64 > max;
        bytes.truncate(usize::try_from(max).unwrap_or(usize::MAX));
        Ok((bytes, more))
    }

    /// Whether anything (a link included) is at `rel`.
    pub fn exists(&self, rel: &str) -> bool {
        self.parent_of(rel).is_ok_and(|(d, name)| {
            fstatat(d.borrow(), name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW).is_ok()
        })
    }

    /// Removes `name` from this dir, and everything in it when it is a dir,
    /// each step relative to the dir above it and never through a link.
    pub fn remove_tree(&self, name: &str) -> io::Result<()> {
        parts(name)?;
        match unlinkat(self.borrow(), name, UnlinkatFlags::NoRemoveDir) {
            Ok(()) | Err(Errno::ENOENT) => return Ok(()),
            Err(Errno::EISDIR) => {}
            Err(e) => return Err(io_err(e)),
        }
        let sub = self.child(name)?;
        for entry in sub.entries()? {
            sub.remove_tree(&entry)?;
        }
        unlinkat(self.borrow(), name, UnlinkatFlags::RemoveDir).map_err(io_err)
    }

    /// The names in the dir, `.` and `..` left out.
    pub fn entries(&self) -> io::Result<Vec<String>> {
        let fd = openat(self.borrow(), ".", dir_flags(), Mode::empty()).map_err(io_err)?;
        let mut listing = nix::dir::Dir::from_fd(fd)?;
        let mut names = Vec::new();
        for e in listing.iter() {
            let name = e?.file_name().to_string_lossy().into_owned();
            if name != "." && name != ".." {
                names.push(name);
            }
        }
        Ok(names)
    }
}

#[cfg(test)]
mod tests;
