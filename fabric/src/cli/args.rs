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

/// The program whose command line this process reads, once set.
pub fn program() -> Option<Program> {
    PROGRAM.get().copied()
}

/// The program's name: `rdma-fabric` unless set.
pub fn prog() -> &'static str {
    PROGRAM.get().map_or("rdma-fabric", |p| p.name)
}

/// Where a user reads more: `rdma-lab lab --help`, or the commands'.
pub fn see_help(cmd: Option<&str>) -> String {
    match cmd {
        Some(c) => format!("`{} {c} --help` shows its options", prog()),
        None => format!("`{} --help` lists the commands", prog()),
    }
}

pub use crate::model::typo::{closest, did_you_mean};

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
            "--mcast {}: give an IPv4 multicast address (224.0.0.0/4), as the examples' -m takes",
            crate::base::text::shown(g)
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
