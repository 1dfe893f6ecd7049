//! A stop flag raised by SIGINT/SIGTERM, for servers that run until told to stop.
//!
//! The handler only stores to an atomic (async-signal-safe); the program's
//! loop waits with a timeout and checks [`stop_requested`], then releases its
//! resources in order and exits normally.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Make SIGINT and SIGTERM raise the stop flag instead of killing the process.
pub fn install_stop_handler() -> Result<()> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: sigaction is plain data; zero is "no flags, empty mask".
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
        // SAFETY: sa.sa_mask is a valid sigset_t.
        unsafe { libc::sigemptyset(&mut sa.sa_mask) };
        // SAFETY: installing a handler that only touches an atomic.
        if unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) } != 0 {
            return Err(Error::last_os("sigaction"));
        }
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
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
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
mod tests {
    use super::*;

    #[test]
    fn sigterm_raises_the_flag_and_does_not_kill() {
        install_stop_handler().unwrap();
        assert!(!stop_requested());
        // SAFETY: sending ourselves a signal whose handler is installed.
        assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
        assert!(stop_requested());
        // A stop cuts a sleep short.
        let t = std::time::Instant::now();
        assert!(!sleep_unless_stopped(std::time::Duration::from_secs(5)));
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
    }
}
