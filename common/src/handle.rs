//! What every handle of [`crate::verbs`] and [`crate::cm`] is built from:
//! C enums as Rust enums, the release of an object once and its
//! `destroy(self)`, and the wait on an object's file descriptor.
//!
//! Both modules use this one and `cm` uses `verbs` (an rdma_cm id hands out
//! verbs objects); `verbs` never names `cm`, so the two cannot import each
//! other in a circle.

use std::os::fd::BorrowedFd;
use std::os::raw::c_int;
use std::sync::Arc;
use std::time::Duration;

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use crate::error::{Error, Result};

/// A C enum as a Rust enum: its named values, and `Other` for a value a
/// later rdma-core or kernel adds (a plain Rust enum would make that
/// undefined behaviour).
macro_rules! c_enum {
    ($(#[$doc:meta])* $name:ident: $raw:ident { $($(#[$vdoc:meta])* $variant:ident = $c:ident,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A value this crate has no name for.
            Other(u32),
        }

        impl $name {
            /// From the C value.
            pub fn from_raw(v: u32) -> $name {
                match v {
                    $(::rdma_core_sys::$raw::$c => $name::$variant,)*
                    other => $name::Other(other),
                }
            }

            /// The C value, as the C programs print it.
            pub fn code(self) -> u32 {
                match self {
                    $($name::$variant => ::rdma_core_sys::$raw::$c,)*
                    $name::Other(v) => v,
                }
            }
        }
    };
}
pub(crate) use c_enum;

/// The owner of one verbs or rdma_cm object: releases it once, reporting a
/// failure. `destroy(self)` of a handle runs it at once; the owner's Drop
/// runs it as the backstop of error paths, where nobody is left to report to.
pub(crate) trait Release {
    /// Destroys the object unless that was done already.
    fn release(&mut self) -> Result<()>;
}

/// The body of every `destroy(self)`: releases the object now when `inner`
/// is its last handle; otherwise reports that something still holds it (a
/// child object, a clone, or a QP that was given its memory), and releases
/// nothing, so that an object never outlives the line that said it was gone.
pub(crate) fn destroy_last<T: Release>(inner: Arc<T>, verb: &str, what: &str) -> Result<()> {
    match Arc::try_unwrap(inner) {
        Ok(mut owner) => owner.release(),
        Err(shared) => Err(Error::msg(format!(
            "{verb}: the {what} is still in use ({} other reference(s): an object made from it, a clone, or a QP that was given it)",
            Arc::strong_count(&shared) - 1
        ))),
    }
}

/// `destroy(self)` of every handle type, so that teardowns can treat alike
/// the handles they have and those an early failure left unmade (`None`).
pub trait Destroy {
    /// Releases the object now, reporting its verb's failure, or refuses
    /// while something still holds it (see each type's `destroy`).
    fn destroy(self) -> Result<()>;
}

impl<T: Destroy> Destroy for Option<T> {
    fn destroy(self) -> Result<()> {
        self.map_or(Ok(()), T::destroy)
    }
}

/// Runs teardown steps that were all tried, in order, as the C teardowns
/// do: the first failure is the one reported.
pub fn first_failure(steps: impl IntoIterator<Item = Result<()>>) -> Result<()> {
    steps.into_iter().find(Result::is_err).unwrap_or(Ok(()))
}

/// [`Destroy`] for handle types whose inherent `destroy(self)` it forwards to.
macro_rules! impl_destroy {
    ($($t:ty),*) => {$(
        impl $crate::handle::Destroy for $t {
            fn destroy(self) -> $crate::error::Result<()> {
                <$t>::destroy(self)
            }
        }
    )*};
}
pub(crate) use impl_destroy;

/// Wait until `fd` is readable; false on timeout, and when a signal handler
/// interrupted the wait: the callers wait in loops that decide themselves
/// whether a signal means stop (the programs' `signals::stop_requested`).
pub(crate) fn wait_readable(fd: c_int, timeout: Option<Duration>, what: &str) -> Result<bool> {
    let wait = match timeout {
        None => PollTimeout::NONE,
        Some(d) => PollTimeout::try_from(d).unwrap_or(PollTimeout::MAX),
    };
    // SAFETY: the caller's object owns fd and keeps it open for the call.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
    match poll(&mut fds, wait) {
        Ok(n) => Ok(n > 0),
        Err(Errno::EINTR) => Ok(false),
        Err(e) => Err(Error::with_errno(what, e as i32)),
    }
}
