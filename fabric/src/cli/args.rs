//! What every command shares: the commands and their help, the name the
//! program runs under, and reading a command line into options, refused
//! in one line that says where to read more. The lab's command line uses
//! the same, with its own commands beside these.

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
    /// A command's whole help, when it is one of the program's.
    pub help: fn(&str) -> Option<String>,
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
