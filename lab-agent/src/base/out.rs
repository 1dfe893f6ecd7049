//! The lab's `println!` and `print!`, which shadow std's: std's panic when
//! stdout cannot be written (a full disk, `> /dev/full`), and a write that
//! is ignored loses the output with exit status 0. These end the program
//! the way every other failure does, with one line on stderr naming the
//! write and exit status 1, as the examples' `common/src/out.rs` does
//! (the lab cannot depend on `common`: it builds without rdma-core).
//!
//! This crate gets them by textual scope (`out` is its first module);
//! the fabric and the lab by `#[macro_use] extern crate rdma_lab_agent`. A
//! closed pipe (`rdma-lab list | head -1`) is not a failure: the reader
//! has all it wanted, so the rest of the output is dropped, quietly, and
//! the command ends with its own status.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// The name the failed write's line begins with: the program's
/// (`rdma-lab`, or `xtask` under `cargo xtask`), as [`set_program`] set it.
static PROGRAM: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Names the program in the line of a failed write.
pub fn set_program(name: &'static str) {
    let _ = PROGRAM.set(name);
}

/// Set once a write met a closed pipe: later output has no reader.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` (and a newline when `newline`) to stdout, or ends the
/// program with the write's error in one line.
#[doc(hidden)]
pub fn write(args: fmt::Arguments<'_>, newline: bool) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    check(written);
}

/// Flushes stdout, checked like every write: what `print!` left in the
/// buffer is written here, and std's own flush at exit ignores errors.
/// `main` calls it last.
pub fn flush() {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    check(io::stdout().lock().flush());
}

/// Ends the program on a failed write; notes a closed pipe.
fn check(written: io::Result<()>) {
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => CLOSED.store(true, Ordering::Relaxed),
        Err(e) => {
            let name = PROGRAM.get().copied().unwrap_or("rdma-lab");
            eprintln!("{name}: write to stdout failed: {e}");
            std::process::exit(1);
        }
    }
}

/// `println!`, but a failed write ends the program with one error line.
#[macro_export]
macro_rules! println {
    () => {
        $crate::base::out::write(::std::format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::base::out::write(::std::format_args!($($arg)*), true)
    };
}

/// `print!`, but a failed write ends the program with one error line.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::base::out::write(::std::format_args!($($arg)*), false)
    };
}
