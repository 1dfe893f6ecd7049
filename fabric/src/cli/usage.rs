//! The help's list of commands, and reading a command line with getopts
//! (the lab's own commands): refused in one line that says where to read
//! more. Above `args.rs` and the fabric's clap definition, whose commands
//! it lists among the program's.

use super::args::{closest, did_you_mean, prog, program, see_help, Command};

/// The program's commands: the fabric's unless set.
pub fn commands() -> &'static [Command] {
    program().map_or_else(super::read::fabric_commands, |p| p.commands)
}

/// The usage of every command, or of one: a fabric command's as clap
/// makes it.
pub fn usage(only: Option<&str>) -> String {
    if let Some(help) = only.and_then(super::read::long_help) {
        return help;
    }
    let mut text = format!("usage: {} <command> [--help]\n\n", prog());
    for (_, synopsis, what) in commands().iter().filter(|c| only.is_none_or(|o| o == c.0)) {
        if synopsis.len() <= 8 {
            text += &format!("  {synopsis:9} {what}\n");
        } else {
            text += &format!("  {synopsis}\n            {what}\n");
        }
    }
    let footer = program().map_or("", |p| p.footer);
    if only.is_none() && !footer.is_empty() {
        text += &format!("\n  {footer}\n");
    }
    text
}

/// The long options `cmd` takes (as its clap definition or its synopsis
/// names them), `--help` among them.
pub fn options_of(cmd: &str) -> Vec<String> {
    if let Some(mut opts) = super::read::options(cmd) {
        opts.push("--help".into());
        return opts;
    }
    let synopsis = commands().iter().find(|c| c.0 == cmd).map_or("", |c| c.1);
    let mut opts: Vec<String> = synopsis
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(String::from)
        .collect();
    opts.push("--help".into());
    opts.sort();
    opts.dedup();
    opts
}

/// A command line `getopts` refused, in one line: what, the closest
/// option where one is, and where to read more.
pub fn option_error(cmd: &str, e: &getopts::Fail) -> String {
    match e {
        getopts::Fail::UnrecognizedOption(o) => {
            let o = o.trim_start_matches('-');
            let given = if o.chars().count() == 1 {
                format!("-{o}")
            } else {
                format!("--{o}")
            };
            let known = options_of(cmd);
            let near = closest(&given, known.iter().map(String::as_str));
            format!(
                "unknown option `{given}` for `{cmd}`{}; {}",
                did_you_mean(near),
                see_help(Some(cmd))
            )
        }
        other => format!("{cmd}: {other}; {}", see_help(Some(cmd))),
    }
}

/// `args` read against `opts` (each command's own, plus `--help`); `None`
/// when `--help` asked for the command's usage, which is then printed.
pub fn parse(
    cmd: &str,
    mut opts: getopts::Options,
    args: &[String],
) -> Result<Option<getopts::Matches>, String> {
    opts.optflag("h", "help", "");
    let m = opts.parse(args).map_err(|e| option_error(cmd, &e))?;
    if m.opt_present("help") {
        print!("{}", usage(Some(cmd)));
        return Ok(None);
    }
    Ok(Some(m))
}

/// `args` of a command that takes no option and no operand.
pub fn no_args(cmd: &str, args: &[String]) -> Result<bool, String> {
    let Some(m) = parse(cmd, getopts::Options::new(), args)? else {
        return Ok(false);
    };
    no_operands(cmd, &m)?;
    Ok(true)
}

/// Refuses operands to a command that takes none.
pub fn no_operands(cmd: &str, m: &getopts::Matches) -> Result<(), String> {
    match m.free.first() {
        Some(extra) => Err(format!(
            "unexpected argument `{extra}` for `{cmd}`; {}",
            see_help(Some(cmd))
        )),
        None => Ok(()),
    }
}
