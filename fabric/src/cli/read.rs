//! Reading a command with clap, and what the help lists of a program's
//! commands: the command read, or its help printed, or its refusal in one
//! line. The fabric's commands ([`super::define`]) and the lab's own read
//! the same way.

use super::args::{prog, Command};
use super::define::{root, FabricCommand};
use clap::parser::ValueSource;
use clap::{ArgAction, FromArgMatches};

/// A command as read: the command, and the options given on the command
/// line (by id: `min_bw_ratio`), not by default.
#[derive(Debug)]
pub struct Read<T> {
    /// The command and its options.
    pub command: T,
    /// The options the command line gave.
    pub given: Vec<String>,
}

/// `cmd` (one of the fabric's commands) with the arguments `rest`:
/// `Ok(None)` when its help was asked for, which is then printed.
pub fn read(cmd: &str, rest: &[String]) -> Result<Option<Read<FabricCommand>>, String> {
    read_in(root(prog()), cmd, rest)
}

/// `cmd`, one of `root`'s subcommands, with the arguments `rest`, as `T`
/// reads it: `Ok(None)` when its help was asked for, which is then
/// printed.
pub fn read_in<T: FromArgMatches>(
    root: clap::Command,
    cmd: &str,
    rest: &[String],
) -> Result<Option<Read<T>>, String> {
    let argv = [prog(), cmd]
        .into_iter()
        .map(String::from)
        .chain(rest.iter().cloned());
    let m = match root.try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            print!("{}", e.render());
            return Ok(None);
        }
        Err(e) => return Err(super::refuse::refusal(cmd, &e)),
    };
    let command = T::from_arg_matches(&m).map_err(|e| super::refuse::refusal(cmd, &e))?;
    let given = m.subcommand().map_or_else(Vec::new, |(_, sub)| {
        sub.ids()
            .filter(|id| sub.value_source(id.as_str()) == Some(ValueSource::CommandLine))
            .map(|id| id.to_string())
            .collect()
    });
    Ok(Some(Read { command, given }))
}

/// `cmd`'s whole help, when it is one of the fabric's commands.
pub fn long_help(cmd: &str) -> Option<String> {
    long_help_in(root(prog()), cmd)
}

/// `cmd`'s whole help, when it is one of `root`'s subcommands.
pub fn long_help_in(root: clap::Command, cmd: &str) -> Option<String> {
    root.find_subcommand(cmd)?;
    match root.try_get_matches_from([prog(), cmd, "--help"]) {
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => Some(e.render().to_string()),
        _ => None,
    }
}

/// The fabric's commands as the help lists them: each one's name, its
/// synopsis and what it does.
pub fn fabric_commands() -> &'static [Command] {
    static ALL: std::sync::OnceLock<Vec<Command>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| listed(&root("rdma-fabric")))
}

/// `root`'s subcommands as the help lists them, made once a process (the
/// help's list lives as long as the process).
pub fn listed(root: &clap::Command) -> Vec<Command> {
    let kept = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    root.get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| {
            let what = c.get_about().map_or(String::new(), |a| a.to_string());
            (kept(c.get_name().into()), kept(synopsis(c)), kept(what))
        })
        .collect()
}

/// `c`'s synopsis from its arguments: `mesh [OPTIONS] [NAME...]`.
fn synopsis(c: &clap::Command) -> String {
    let mut s = c.get_name().to_string();
    if c.get_arguments().any(|a| !a.is_positional()) {
        s += " [OPTIONS]";
    }
    for a in c.get_positionals() {
        let name = a
            .get_value_names()
            .and_then(|v| v.first())
            .map_or(a.get_id().to_string(), |v| v.to_string());
        let many = if matches!(a.get_action(), ArgAction::Append) {
            "..."
        } else {
            ""
        };
        s += &if a.is_required_set() {
            format!(" {name}{many}")
        } else {
            format!(" [{name}{many}]")
        };
    }
    s
}
