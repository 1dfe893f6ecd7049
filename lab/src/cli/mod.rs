//! The lab's command line, the same under both of its names: `cargo xtask`
//! (the developer's, in the source tree) and `rdma-lab` (the binary that
//! runs from a copy): `setup | lab | doctor | keygen | list | handout | ladder | fmt
//! | test | bench`; see `help`. It parses and dispatches: each command's
//! file reads its options and calls the stage that does the work.

// The lab's functions stay short (threshold in clippy.toml); CI denies it.

mod args;
mod bench;
mod doctor;
mod handout;
mod help;
mod keygen;
mod lab;
mod ladder;
mod list;
mod mesh;

use crate::{guest, host};
use args::*;
use std::process::ExitCode;

fn real_main(args: &[String]) -> Result<bool, String> {
    let Some(cmd) = args.first() else {
        print!("{}", usage(None));
        return Ok(false);
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "setup" => {
            if !no_args("setup", rest)? {
                return Ok(true);
            }
            let t = host::setup::ensure()?;
            println!("setup: ok; VMs boot {}", t.kernel.image.display());
            Ok(true)
        }
        "lab" => lab::lab_cmd(rest),
        "doctor" => doctor::doctor_cmd(rest),
        "ladder" => ladder::ladder_cmd(rest),
        "handout" => handout::handout_cmd(rest),
        "list" => list::list_cmd(rest),
        "mesh" => mesh::mesh_cmd(rest),
        "keygen" => keygen::keygen_cmd(rest),
        "fmt" | "test" | "fabric-record" if !crate::base::workspace::source_tree() => Err(format!(
            "`{cmd}` works in the source tree, with cargo: run `cargo xtask {cmd}` there"
        )),
        "fmt" => {
            let mut opts = getopts::Options::new();
            opts.optflag("", "check", "");
            match parse("fmt", opts, rest)? {
                Some(m) => Ok(host::ci::fmt(m.opt_present("check"))),
                None => Ok(true),
            }
        }
        "test" => {
            if !no_args("test", rest)? {
                return Ok(true);
            }
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
        "fabric-record" => fabric_record_cmd(rest),
        "bench" => bench::bench_cmd(rest),
        "agent" => guest::agent::run(guest::agent::AgentConfig::from_cli(rest)?)
            .map(|()| true)
            .map_err(|e| e.to_string()),
        "help" | "-h" | "--help" => help::help_cmd(rest),
        "--version" | "-V" => {
            println!("{} {}", prog(), env!("CARGO_PKG_VERSION"));
            Ok(true)
        }
        other => {
            let near = closest(other, COMMANDS.iter().map(|c| c.0));
            Err(format!(
                "unknown command `{other}`{}; {}",
                did_you_mean(near),
                see_help(None)
            ))
        }
    }
}

/// Runs the command line of this process as the lab called `name`; its
/// exit code. A failure is one line on stderr.
pub fn main(name: &'static str) -> ExitCode {
    let _ = PROG.set(name);
    crate::base::out::set_program(name.rsplit(' ').next().unwrap_or(name));
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = real_main(&args);
    // What `print!` left buffered is written now, checked like the rest.
    crate::base::out::flush();
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{}: {e}", prog().rsplit(' ').next().unwrap_or(prog()));
            ExitCode::FAILURE
        }
    }
}

/// `fabric-record [NAME...]`: the record scripts NAMEd (all by default),
/// each step's record kept as its declaration says; whether all were.
fn fabric_record_cmd(rest: &[String]) -> Result<bool, String> {
    let Some(m) = parse("fabric-record", getopts::Options::new(), rest)? else {
        return Ok(true);
    };
    let (kept, not) = host::fabric_run::record(&m.free)?;
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
