//! The help's list of a program's commands, and each one's whole help:
//! above `args.rs` and the fabric's clap definition, whose commands it
//! lists among the program's.

use super::args::{prog, program, Command};

/// The program's commands: the fabric's unless set.
pub fn commands() -> &'static [Command] {
    program().map_or_else(super::read::fabric_commands, |p| p.commands)
}

/// The usage of every command, or one command's whole help as clap
/// makes it.
pub fn usage(only: Option<&str>) -> String {
    let help = program().map_or(super::read::long_help as fn(&str) -> Option<String>, |p| {
        p.help
    });
    if let Some(text) = only.and_then(help) {
        return text;
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
