//! A stop flag raised by SIGINT/SIGTERM, for servers that run until told to stop.
//!
//! The handler only stores to an atomic (async-signal-safe); the program's
//! loop waits with a timeout and checks [`stop_requested`], then releases its
//! resources in order and exits normally.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::sys::signal::{sigaction, signal, SaFlags, SigAction, SigHandler, SigSet, Signal};

use crate::error::{Error, Result};

static STOP: AtomicBool = AtomicBool::new(false);

/// How often a wait wakes to look at what may end it early: the stop flag
/// (SIGINT/SIGTERM), a peer that went away, a deadline. Short enough that
/// Ctrl-C feels immediate, long enough to cost nothing.
pub const TICK: std::time::Duration = std::time::Duration::from_millis(100);

extern "C" fn on_signal(_sig: c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Make SIGINT and SIGTERM raise the stop flag instead of killing the process.
pub fn install_stop_handler() -> Result<()> {
    // No SA_RESTART: a blocking wait returns EINTR and sees the flag.
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::empty(),
        SigSet::empty(),
    );
    for sig in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is
        // async-signal-safe.
        unsafe { sigaction(sig, &action) }.map_err(|e| Error::with_errno("sigaction", e as i32))?;
    }
    Ok(())
}

/// Let a write to a closed stdout end the program quietly, as it ends the C
/// original, instead of making `println!` panic.
///
/// Rust starts programs with SIGPIPE ignored; sockets are unaffected by
/// restoring it, because std's TCP writes use `MSG_NOSIGNAL`.
pub fn default_sigpipe() {
    // SAFETY: SIG_DFL is a valid disposition for SIGPIPE; no handler runs.
    let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
}

/// True once SIGINT or SIGTERM arrived after [`install_stop_handler`].
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Sleep for `d`, or less if SIGINT/SIGTERM arrives meanwhile (a plain
/// sleep resumes after the handler ran); false when it was cut short.
pub fn sleep_unless_stopped(d: std::time::Duration) -> bool {
    let end = std::time::Instant::now() + d;
    loop {
        if stop_requested() {
            return false;
        }
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests;
