//! The fabric's command line: `doctor | mesh | keygen`; see `help`. It
//! parses and dispatches: each command's file reads its options and calls
//! the stage that does the work. The lab's command line dispatches the
//! same three here ([`dispatch`]), with its own places.

pub mod args;
mod doctor;
pub mod help;
mod keygen;
mod mesh;

use crate::host::places::{BesideBinary, Places};
use args::*;
use std::process::ExitCode;

/// The fabric tool's places: the binaries beside it, the results in
/// `./rdma-fabric-results/` (not `./rdma-fabric/`: the tool itself may be
/// there, in the dir it is run from).
const PLACES: BesideBinary = BesideBinary {
    top: "rdma-fabric-results",
};

/// Runs the fabric's command `cmd` with the arguments `rest`, its binaries
/// and results where `places` says; `None` when `cmd` is not one of
/// [`args::COMMANDS`].
pub fn dispatch(cmd: &str, rest: &[String], places: &dyn Places) -> Option<Result<bool, String>> {
    Some(match cmd {
        "doctor" => doctor::doctor_cmd(rest, places),
        "mesh" => mesh::mesh_cmd(rest, places),
        "keygen" => keygen::keygen_cmd(rest),
        _ => return None,
    })
}

fn real_main(args: &[String]) -> Result<bool, String> {
    let Some(cmd) = args.first() else {
        print!("{}", usage(None));
        return Ok(false);
    };
    let rest = &args[1..];
    if let Some(done) = dispatch(cmd, rest, &PLACES) {
        return done;
    }
    match cmd.as_str() {
        "help" | "-h" | "--help" => help::help_cmd(rest),
        "--version" | "-V" => {
            println!("{} {}", prog(), env!("CARGO_PKG_VERSION"));
            Ok(true)
        }
        other => Err(help::unknown_command(other)),
    }
}

/// Runs this process's command line as `rdma-fabric`; its exit code.
pub fn main() -> ExitCode {
    help::run_main(
        Program {
            name: "rdma-fabric",
            commands: COMMANDS,
            footer: "",
        },
        real_main,
    )
}

#[cfg(test)]
mod tests;
