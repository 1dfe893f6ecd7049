//! The fabric's command line: `doctor | mesh | keygen`; see `help`. It
//! parses and dispatches: each command's file reads its options and calls
//! the stage that does the work. The lab's command line dispatches the
//! same three here ([`dispatch`]), with its own places.

pub mod args;
pub mod define;
mod doctor;
mod generate;
pub mod help;
mod keygen;
mod mesh;
pub mod read;
mod refuse;
pub mod usage;

use crate::host::places::{BesideBinary, Places};
use args::*;
use define::FabricCommand;
use std::process::ExitCode;
use usage::usage;

/// The fabric tool's places: the binaries beside it, the results in
/// `./rdma-fabric-results/` (not `./rdma-fabric/`: the tool itself may be
/// there, in the dir it is run from).
const PLACES: BesideBinary = BesideBinary {
    top: "rdma-fabric-results",
};

/// Runs the fabric's command `cmd` with the arguments `rest`, its binaries
/// and results where `places` says; `None` when `cmd` is not one of
/// [`define::FabricCommand`]'s.
pub fn dispatch(cmd: &str, rest: &[String], places: &dyn Places) -> Option<Result<bool, String>> {
    if !define::names().iter().any(|n| n == cmd) {
        return None;
    }
    let read = match read::read(cmd, rest) {
        Ok(Some(read)) => read,
        Ok(None) => return Some(Ok(true)),
        Err(e) => return Some(Err(e)),
    };
    let read::Read { command, given } = read;
    Some(match command {
        FabricCommand::Doctor(a) => doctor::doctor_cmd(a, places),
        FabricCommand::Mesh(a) => mesh::mesh_cmd(&a, &given, places),
        FabricCommand::Keygen(a) => keygen::keygen_cmd(a),
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
        "--generate" => generate::generate_cmd(rest),
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
            commands: read::fabric_commands(),
            help: read::long_help,
            footer: "(--generate man DIR | --generate SHELL: the man pages, or bash, zsh, fish, elvish or powershell completions)",
        },
        real_main,
    )
}

#[cfg(test)]
mod tests;
