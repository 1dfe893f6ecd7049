//! The lab's command line, the same under both of its names: `cargo xtask`
//! (the developer's, in the source tree) and `rdma-lab` (the binary that
//! runs from a copy): `setup | lab | doctor | mesh | keygen | list | handout |
//! ladder | fmt | test | bench`; see `help`. It parses and dispatches: each
//! command's file reads its options and calls the stage that does the work;
//! `doctor`, `mesh` and `keygen` are the fabric's (`rdma_fabric::cli`), run
//! with the lab's places (its build, its target dir).

// The lab's functions stay short (threshold in clippy.toml); CI denies it.

mod args;
mod bench;
mod define;
mod handout;
mod lab;
mod ladder;
mod list;

use crate::{guest, host};
use args::*;
use define::LabCommand;
use rdma_fabric::cli::read::{long_help_in, read_in, Read};
use std::process::ExitCode;

/// The lab's command line under `name`.
fn lab_program(name: &'static str) -> Program {
    Program {
        name,
        commands: lab_commands(),
        footer: "(agent ...  internal: the runner inside the VMs)",
        help: lab_help,
    }
}

/// A command's whole help: the lab's own, or the fabric's.
fn lab_help(cmd: &str) -> Option<String> {
    long_help_in(define::root(prog()), cmd).or_else(|| rdma_fabric::cli::read::long_help(cmd))
}

fn real_main(args: &[String]) -> Result<bool, String> {
    // As `main` set it, else (the tests') under the developer's name.
    set_program(lab_program("cargo xtask"));
    let Some(cmd) = args.first() else {
        print!("{}", usage(None));
        return Ok(false);
    };
    let rest = &args[1..];
    if let Some(done) = rdma_fabric::cli::dispatch(cmd, rest, &host::places::Workspace) {
        return done;
    }
    match cmd.as_str() {
        "lab" if rest.iter().any(|a| a == "--mesh") => lab::mesh_alias(rest),
        "fmt" | "test" | "fabric-record" if !crate::base::workspace::source_tree() => Err(format!(
            "`{cmd}` works in the source tree, with cargo: run `cargo xtask {cmd}` there"
        )),
        "help" | "-h" | "--help" => rdma_fabric::cli::help::help_cmd(rest),
        "--version" | "-V" => {
            println!("{} {}", prog(), env!("CARGO_PKG_VERSION"));
            Ok(true)
        }
        c if define::root(prog()).find_subcommand(c).is_some() => run(c, rest),
        other => Err(rdma_fabric::cli::help::unknown_command(other)),
    }
}

/// Runs the lab's own command `cmd` with the arguments `rest`.
fn run(cmd: &str, rest: &[String]) -> Result<bool, String> {
    let Some(Read { command, given }) = read_in::<LabCommand>(define::root(prog()), cmd, rest)?
    else {
        return Ok(true);
    };
    match command {
        LabCommand::Setup => {
            let t = host::setup::ensure()?;
            println!("setup: ok; VMs boot {}", t.kernel.image.display());
            Ok(true)
        }
        LabCommand::Lab(a) => lab::lab_cmd(*a, &given),
        LabCommand::List(a) => list::list_cmd(a),
        LabCommand::Handout(a) => handout::handout_cmd(a),
        LabCommand::Ladder(a) => ladder::ladder_cmd(a),
        LabCommand::Fmt(a) => Ok(host::ci::fmt(a.check)),
        LabCommand::Test => test_cmd(),
        LabCommand::FabricRecord(a) => fabric_record_cmd(&a.names),
        LabCommand::Bench(a) => bench::bench_cmd(a),
        LabCommand::Agent(a) => guest::agent::run(guest::agent::AgentConfig::from_file(&a.config)?)
            .map(|()| true)
            .map_err(|e| e.to_string()),
    }
}

/// `test`: set-up and every step, the time table, and whether all passed.
fn test_cmd() -> Result<bool, String> {
    let (failed, times) = host::ci::run();
    print!("{}", crate::present::times::table(&times));
    let path = crate::results::times::path(
        &crate::base::workspace::target_dir(),
        crate::results::times::RUN_FILE,
    );
    if let Err(e) = times.write(&path) {
        println!("the times were not kept: {e}");
    }
    if failed.is_empty() {
        println!("all steps passed");
    } else {
        println!("failed steps:\n  {}", failed.join("\n  "));
    }
    Ok(failed.is_empty())
}

/// Runs the command line of this process as the lab called `name`; its
/// exit code. A failure is one line on stderr.
pub fn main(name: &'static str) -> ExitCode {
    rdma_fabric::cli::help::run_main(lab_program(name), real_main)
}

/// `fabric-record [NAME...]`: the record scripts NAMEd (all by default),
/// each step's record kept as its declaration says; whether all were.
fn fabric_record_cmd(names: &[String]) -> Result<bool, String> {
    let (kept, not) = host::fabric_run::record(names)?;
    println!(
        "fabric-record: kept {} in {}",
        kept.join(", "),
        host::fabric_run::records_dir().display()
    );
    for n in &not {
        println!("fabric-record: {n}");
    }
    Ok(not.is_empty())
}

#[cfg(test)]
mod tests;
