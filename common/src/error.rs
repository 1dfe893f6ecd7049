//! The one error type of the workspace: which call failed, and the errno text.
//!
//! The three C conventions are each mapped by their own constructor, because
//! reading `errno` after a verb that returns its error code (or the code after a
//! call that sets `errno`) reports a stale, unrelated error:
//! - `ibv_*` verbs that return `int` return the errno value itself: [`Error::from_ret`];
//! - pointer-returning verbs return NULL and set `errno`: [`Error::last_os`];
//! - `rdma_*` calls return -1 and set `errno`: [`Error::last_os`] as well.

use std::fmt;
use std::io;

/// A failed step: a human-readable message, with the errno when a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    msg: String,
    errno: Option<i32>,
}

/// Shorthand used throughout the workspace.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error that is not from a failed call (bad input, protocol mismatch, ...).
    pub fn msg(msg: impl Into<String>) -> Error {
        Error {
            msg: msg.into(),
            errno: None,
        }
    }

    /// `verb` returned `ret`, an errno value (the `ibv_*` int convention).
    ///
    /// Providers bend it two ways, each read as it means: -1 with the reason
    /// in `errno`, or a negated errno (`-EINVAL`) that leaves `errno` stale.
    pub fn from_ret(verb: &str, ret: i32) -> Error {
        let errno = match ret {
            -1 => io::Error::last_os_error().raw_os_error().unwrap_or(0),
            r if r < 0 => r.saturating_neg(),
            r => r,
        };
        Error::with_errno(verb, errno)
    }

    /// `verb` failed and left its reason in `errno` (NULL pointer or -1 return).
    ///
    /// Must be called right after the failing call, before anything else can
    /// overwrite `errno`.
    pub fn last_os(verb: &str) -> Error {
        let errno = io::Error::last_os_error().raw_os_error().unwrap_or(0);
        Error::with_errno(verb, errno)
    }

    /// `verb` failed with the given errno value.
    pub fn with_errno(verb: &str, errno: i32) -> Error {
        let text = if errno == 0 {
            "unknown error (errno not set)".to_string()
        } else {
            errno_text(errno)
        };
        let mut msg = format!("{verb} failed: {text}");
        if let Some(hint) = hint_for(verb, errno) {
            msg.push_str(" (hint: ");
            msg.push_str(&hint);
            msg.push(')');
        }
        Error {
            msg,
            errno: (errno != 0).then_some(errno),
        }
    }

    /// Wrap an I/O error from `what` (a socket call, a file read).
    pub fn io(what: &str, e: &io::Error) -> Error {
        match e.raw_os_error() {
            // The same "text (ENAME)" as the verbs' errors, not Rust's "(os error N)".
            Some(errno) => Error::with_errno(what, errno),
            None => Error {
                msg: format!("{what} failed: {e}"),
                errno: None,
            },
        }
    }

    /// A wait for a peer or a device that ran out of time (errno ETIMEDOUT,
    /// so callers can tell it from other failures with [`Error::is_timeout`]).
    pub fn timed_out(msg: impl Into<String>) -> Error {
        Error {
            msg: msg.into(),
            errno: Some(libc::ETIMEDOUT),
        }
    }

    /// Whether this is a wait that ran out of time.
    pub fn is_timeout(&self) -> bool {
        self.errno == Some(libc::ETIMEDOUT)
    }

    /// Add a likely cause or fix at the end: "message (hint: ...)".
    pub fn hint(self, hint: impl fmt::Display) -> Error {
        Error {
            msg: format!("{} (hint: {hint})", self.msg),
            errno: self.errno,
        }
    }

    /// Put what the caller was doing in front: "context: inner message".
    /// A context the message already starts with (the verb that failed,
    /// named again by a caller) is not repeated.
    pub fn context(self, context: impl fmt::Display) -> Error {
        let context = context.to_string();
        let named = self
            .msg
            .strip_prefix(context.as_str())
            .is_some_and(|rest| rest.starts_with([':', ' ']));
        if named {
            return self;
        }
        // "ibv_query_port on port 9 failed" over "ibv_query_port failed: X"
        // says the verb and "failed" once: "... on port 9 failed: X".
        let verb = context.split_whitespace().next().unwrap_or_default();
        let repeated = format!("{verb} failed: ");
        if let (true, Some(rest)) = (
            context.ends_with(" failed"),
            self.msg.strip_prefix(&repeated),
        ) {
            return Error {
                msg: format!("{context}: {rest}"),
                errno: self.errno,
            };
        }
        Error {
            msg: format!("{context}: {}", self.msg),
            errno: self.errno,
        }
    }

    /// The errno of the failed call, when there was one.
    pub fn errno(&self) -> Option<i32> {
        self.errno
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

/// Adds [`Error::context`] to results.
pub trait ResultExt<T> {
    /// Prefix the error, if any, with what was being done.
    fn context(self, context: impl fmt::Display) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn context(self, context: impl fmt::Display) -> Result<T> {
        self.map_err(|e| e.context(context))
    }
}

/// `strerror` text without Rust's " (os error N)" suffix, plus the errno name.
fn errno_text(errno: i32) -> String {
    let full = io::Error::from_raw_os_error(errno).to_string();
    let text = match full.find(" (os error") {
        Some(i) => &full[..i],
        None => &full,
    };
    match errno_name(errno) {
        Some(name) => format!("{text} ({name})"),
        None => format!("{text} (errno {errno})"),
    }
}

fn errno_name(errno: i32) -> Option<String> {
    match nix::errno::Errno::from_raw(errno) {
        nix::errno::Errno::UnknownErrno => None,
        e => Some(format!("{e:?}")),
    }
}

/// A pointer to the likely fix for the failures users hit most (the same
/// texts the doctor gives, from [`crate::hints`]); what depends on the host
/// is looked at first.
fn hint_for(verb: &str, errno: i32) -> Option<std::borrow::Cow<'static, str>> {
    if verb.starts_with("rdma_create_event_channel")
        && [libc::ENOENT, libc::ENODEV].contains(&errno)
    {
        return crate::hints::rdma_cm_hint_here().map(Into::into);
    }
    fixed_hint(verb, errno).map(Into::into)
}

/// The hints that hold whatever the host: they say what to check.
fn fixed_hint(verb: &str, errno: i32) -> Option<&'static str> {
    use crate::hints;
    let registers = verb.contains("reg_mr") || verb.contains("reg_msgs");
    match (verb, errno) {
        (_, libc::ENOMEM) if registers => Some(hints::MEMLOCK_ENOMEM),
        // The kernel answers EPERM, not ENOMEM, when the limit is 0 and the
        // process lacks CAP_IPC_LOCK (as in many containers).
        (_, libc::EPERM) if registers => Some(hints::MEMLOCK_EPERM),
        (v, libc::ENOSYS) if v.contains("get_device_list") => Some(hints::NO_RDMA_KERNEL),
        (v, libc::ENODEV | libc::EADDRNOTAVAIL) if v.starts_with("rdma_") => {
            Some(hints::NO_DEVICE_FOR_ADDRESS)
        }
        // Every event channel, completion channel and device context is a
        // file descriptor: many connections run out of them first.
        (v, libc::EMFILE) if v.starts_with("ibv_") || v.starts_with("rdma_") => {
            Some(hints::FD_LIMIT)
        }
        (v, libc::EINVAL) if v.contains("query_gid") => Some(hints::GID_BEYOND_TABLE),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
