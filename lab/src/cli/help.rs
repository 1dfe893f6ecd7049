//! `help [COMMAND]`.

use super::args::*;

/// `help [COMMAND]`: the usage of every command, or of COMMAND.
pub(super) fn help_cmd(rest: &[String]) -> Result<bool, String> {
    match rest {
        [] => print!("{}", usage(None)),
        [c] if COMMANDS.iter().any(|k| k.0 == c) => print!("{}", usage(Some(c))),
        [c] => {
            let near = closest(c, COMMANDS.iter().map(|k| k.0));
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
