//! A command line clap refused, in one line: what was refused, and where
//! to read more. Read from the error's kind and context, never its text;
//! a value's own parser words its refusal ([`super::define`]).

use super::args::see_help;
use crate::base::text::shown;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The one line that refuses `cmd`'s command line for `e`.
pub fn refusal(cmd: &str, e: &clap::Error) -> String {
    let arg = context(e, ContextKind::InvalidArg);
    let opt = arg.first().map_or(String::new(), |a| name_of(a));
    let help = see_help(Some(cmd));
    match e.kind() {
        ErrorKind::ValueValidation => match std::error::Error::source(e) {
            Some(why) => why.to_string(),
            None => format!("{opt}: a value it does not take; {help}"),
        },
        ErrorKind::UnknownArgument if opt.starts_with('-') => {
            let near = context(e, ContextKind::SuggestedArg);
            format!(
                "unknown option `{}` for `{cmd}`{}; {help}",
                shown(&opt),
                super::args::did_you_mean(near.first().map(String::as_str))
            )
        }
        ErrorKind::UnknownArgument => {
            format!("unexpected argument `{}` for `{cmd}`; {help}", shown(&opt))
        }
        // An operand's value is the command's.
        ErrorKind::InvalidValue if !opt.starts_with('-') => invalid_value(e, cmd, &help),
        ErrorKind::InvalidValue => invalid_value(e, &opt, &help),
        ErrorKind::ArgumentConflict => {
            let prior = context(e, ContextKind::PriorArg);
            match prior.first().map(|p| name_of(p)) {
                Some(p) if p != opt => format!("{opt} and {p} exclude each other"),
                _ => format!("{opt}: give it once; {help}"),
            }
        }
        ErrorKind::MissingRequiredArgument => {
            let missing: Vec<String> = arg.iter().map(|a| name_of(a)).collect();
            format!("{cmd}: give {}; {help}", missing.join(" and "))
        }
        ErrorKind::TooManyValues if !opt.is_empty() => {
            let value = context(e, ContextKind::InvalidValue);
            let given = value.first().map_or(String::new(), |v| shown(v));
            format!("{opt} takes no value, not `{given}`; {help}")
        }
        other => format!(
            "{}: {}; {help}",
            if opt.is_empty() { cmd } else { &opt },
            other.as_str().unwrap_or("a command line it does not take")
        ),
    }
}

/// A value that is none of those an option takes, or no value at all.
fn invalid_value(e: &clap::Error, opt: &str, help: &str) -> String {
    let value = context(e, ContextKind::InvalidValue);
    let valid = context(e, ContextKind::ValidValue);
    match value.first().filter(|v| !v.is_empty()) {
        None => format!("{opt} needs a value; {help}"),
        Some(v) if valid.is_empty() => format!("{opt} {}: {help}", shown(v)),
        Some(v) => format!("{opt} {}: give {}", shown(v), valid.join(" or ")),
    }
}

/// The strings of `e`'s context of `kind`, none when it has none.
fn context(e: &clap::Error, kind: ContextKind) -> Vec<String> {
    match e.get(kind) {
        Some(ContextValue::String(s)) => vec![s.clone()],
        Some(ContextValue::Strings(v)) => v.clone(),
        _ => Vec::new(),
    }
}

/// An argument as the user knows it: `--star` for clap's `--star <HOST>`,
/// `FILE` for its `<FILE>`, `NAME...` for its `[NAME]...`.
fn name_of(arg: &str) -> String {
    let first = arg.split(' ').next().unwrap_or(arg);
    if first.starts_with('-') {
        return first.to_string();
    }
    first.replace(['<', '>', '[', ']'], "")
}

#[cfg(test)]
mod tests;
