//! What every command shares: the commands and their help, the name the
//! program runs under, and reading a command line into options, refused
//! in one line that says where to read more. The lab's command line uses
//! the same, with its own commands beside these.

use crate::model;

/// A command: its name, its synopsis and what it does.
pub type Command = (&'static str, &'static str, &'static str);

/// A binary's command line as its help shows it.
#[derive(Debug, Clone, Copy)]
pub struct Program {
    /// The name it was called by: `rdma-fabric`, `rdma-lab`, `cargo xtask`.
    pub name: &'static str,
    /// Its commands, in the order the help lists them.
    pub commands: &'static [Command],
    /// A line the help ends with, if any.
    pub footer: &'static str,
}

/// The program whose command line this process reads.
static PROGRAM: std::sync::OnceLock<Program> = std::sync::OnceLock::new();

/// Sets the program whose command line this process reads (once; a
/// second call changes nothing).
pub fn set_program(p: Program) {
    let _ = PROGRAM.set(p);
}

/// The program's name: `rdma-fabric` unless set.
pub fn prog() -> &'static str {
    PROGRAM.get().map_or("rdma-fabric", |p| p.name)
}

/// The program's commands: the fabric's unless set.
pub fn commands() -> &'static [Command] {
    PROGRAM
        .get()
        .map_or_else(super::read::fabric_commands, |p| p.commands)
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
    let footer = PROGRAM.get().map_or("", |p| p.footer);
    if only.is_none() && !footer.is_empty() {
        text += &format!("\n  {footer}\n");
    }
    text
}

/// Where a user reads more: `rdma-lab lab --help`, or the commands'.
pub fn see_help(cmd: Option<&str>) -> String {
    match cmd {
        Some(c) => format!("`{} {c} --help` shows its options", prog()),
        None => format!("`{} --help` lists the commands", prog()),
    }
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

pub use crate::model::typo::{closest, did_you_mean};

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

/// `--NAME N`, a number, or `default`.
pub fn num_opt<T: Whole>(m: &getopts::Matches, name: &str, default: T) -> Result<T, String> {
    Ok(whole_opt(m, name)?.unwrap_or(default))
}

/// Option `name`'s value as a whole number of `T`'s range, if given; one
/// line naming the option, its value and the range otherwise.
pub fn whole_opt<T: Whole>(m: &getopts::Matches, name: &str) -> Result<Option<T>, String> {
    m.opt_str(name)
        .map(|v| {
            v.parse()
                .map_err(|_| not_whole::<T>(&format!("--{name}"), &v))
        })
        .transpose()
}

/// The one line that refuses `v`, given to `opt`, as no whole number of
/// `T`'s range.
pub fn not_whole<T: Whole>(opt: &str, v: &str) -> String {
    let range = T::MAX.map_or(String::new(), |max| format!(" from 0 to {max}"));
    format!(
        "{opt} {}: give a whole number{range}",
        crate::base::text::shown(v)
    )
}

/// The unsigned integers that options take, with their largest value.
pub trait Whole: std::str::FromStr {
    /// The largest value, as the message of a value past it says; `None`
    /// where no one could mean one past it.
    const MAX: Option<u64>;
}

impl Whole for u16 {
    const MAX: Option<u64> = Some(u16::MAX as u64);
}

impl Whole for u32 {
    const MAX: Option<u64> = Some(u32::MAX as u64);
}

impl Whole for u64 {
    const MAX: Option<u64> = None;
}

impl Whole for usize {
    const MAX: Option<u64> = None;
}

/// Refuses a `--dev` that is not a device name and an `--ip` or `--peer`
/// that is not an IP address, before anything runs: the values reach the
/// scenarios' command lines.
pub fn check_values(m: &getopts::Matches) -> Result<(), String> {
    for v in m.opt_strs("dev") {
        model::check_dev("--dev", &v)?;
    }
    // A command that has no such option has no such value to check.
    for opt in ["ip", "peer"].into_iter().filter(|o| m.opt_defined(o)) {
        if let Some(v) = m.opt_str(opt) {
            model::check_ip(&format!("--{opt}"), &v)?;
        }
    }
    if let Some(v) = m
        .opt_defined("netdev")
        .then(|| m.opt_str("netdev"))
        .flatten()
    {
        model::check_dev("--netdev", &v)?;
    }
    Ok(())
}

/// `--mcast GROUP`: an IPv4 multicast address, the only kind whose route
/// the doctor knows how to fix.
pub fn mcast_group(g: &str) -> Result<(), String> {
    match g.parse::<std::net::Ipv4Addr>() {
        Ok(a) if a.is_multicast() => Ok(()),
        _ => Err(format!(
            "--mcast {g}: give an IPv4 multicast address (224.0.0.0/4), as the examples' -m takes"
        )),
    }
}

/// The `--allow` addresses, each an IP address.
pub fn allow_list(m: &getopts::Matches) -> Result<Vec<std::net::IpAddr>, String> {
    m.opt_strs("allow")
        .iter()
        .map(|a| {
            a.parse()
                .map_err(|e| format!("--allow {a}: {e}: give an IP address"))
        })
        .collect()
}

/// The options with a value that `lab --local` and `doctor` share: the
/// device, the addresses and the two-host session's.
pub const TWO_HOST_VALUES: &[&str] = &[
    "dev",
    "ip",
    "gid-idx",
    "peer",
    "port",
    "wait",
    "bin-dir",
    "secret-file",
];
