//! `help [COMMAND]`, and the answer to a command that is none: the
//! program's own, whichever commands it has.

use super::args::*;
use super::usage::{commands, usage};
use std::process::ExitCode;

/// `help [COMMAND]`: the usage of every command, or of COMMAND.
pub fn help_cmd(rest: &[String]) -> Result<bool, String> {
    match rest {
        [] => print!("{}", usage(None)),
        [c] if commands().iter().any(|k| k.0 == c) => print!("{}", usage(Some(c))),
        [c] => {
            let near = closest(c, commands().iter().map(|k| k.0));
            return Err(format!(
                "no command `{c}`{}; {}",
                did_you_mean(near),
                see_help(None)
            ));
        }
        [_, extra, ..] => {
            return Err(format!(
                "unexpected argument `{extra}` for `help`; {}",
                see_help(None)
            ))
        }
    }
    Ok(true)
}

/// The one line that refuses `other`, which is no command of the program.
pub fn unknown_command(other: &str) -> String {
    let near = closest(other, commands().iter().map(|c| c.0));
    format!(
        "unknown command `{other}`{}; {}",
        did_you_mean(near),
        see_help(None)
    )
}

/// Runs `real_main` on this process's command line as `program`; its exit
/// code. A failure is one line on stderr.
pub fn run_main(program: Program, real_main: fn(&[String]) -> Result<bool, String>) -> ExitCode {
    set_program(program);
    let name = program.name;
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
