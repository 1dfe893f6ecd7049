//! The examples' `println!` and `print!`: std's panic when stdout cannot be
//! written (a full disk, `> /dev/full`); these end the program the way every
//! other failure does, with one line on stderr and exit status 1.
//!
//! An example imports them (`use common::{print, println};`), which shadows
//! std's macros of the same names, so its code still reads `println!(...)`.
//! A closed pipe never gets here: the programs restore SIGPIPE's default
//! action, and the shell's pipeline ends them as it does `cat`.

use std::fmt;
use std::io::{self, Write};

/// Writes `args` (and a newline when `newline`) to stdout, or ends the
/// program with the write's error in one line.
#[doc(hidden)]
pub fn write(args: fmt::Arguments<'_>, newline: bool) {
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = written {
        let errno = e.raw_os_error().unwrap_or(0);
        eprintln!("{}", crate::Error::with_errno("write to stdout", errno));
        std::process::exit(1);
    }
}

/// `println!`, but a failed write ends the program with one error line.
#[macro_export]
macro_rules! println {
    () => {
        $crate::out::write(::std::format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::out::write(::std::format_args!($($arg)*), true)
    };
}

/// `print!`, but a failed write ends the program with one error line.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::out::write(::std::format_args!($($arg)*), false)
    };
}
