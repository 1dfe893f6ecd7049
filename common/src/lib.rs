//! Shared code of the rdma-examples workspace: small RAII wrappers over
//! rdma-core-sys, the error type, the TCP side channel and the wire formats.
//!
//! This is the only crate of the workspace with `unsafe` code; the examples
//! are written against the safe API here and read like the manual's flow.

pub mod cli;
pub mod cm;
pub mod error;
pub mod gid;
pub mod handle;
/// The examples' error hints and the GID choice on RoCE ports (the
/// `hints` crate, which the doctor shares).
pub use hints;
pub mod c_structs;
pub mod opts;
pub mod out;
pub mod signals;
pub mod sock;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod verbs;

pub use error::{Error, Result, ResultExt};

/// The exit status of an example: success, or failure after its error was
/// printed as one line on stderr.
pub fn exit_code(result: Result<()>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The command line, argv\[0\] first. `std::env::args` panics on an argument
/// that is not UTF-8; here such bytes become U+FFFD, which no option value
/// or device name accepts, so the program refuses it with its usage line.
pub fn args() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The program's name as it was invoked (the file name of `argv[0]`), for
/// usage and error lines; `default` when there is none.
pub fn program_name(args: &[String], default: &str) -> String {
    args.first()
        .and_then(|a| a.rsplit('/').next())
        .filter(|a| !a.is_empty())
        .unwrap_or(default)
        .to_string()
}

#[cfg(test)]
mod tests;
