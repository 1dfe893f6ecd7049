//! The catalog: every scenario, one table per example (and for the
//! doctor's and the lab's own cells), the fault matrix's generated cells,
//! and what selects among them.

use crate::catalog::cells::{Kill, SideChannel, Waiting};
use crate::model::typo::{closest, did_you_mean};
use crate::model::{Local, Mode, Scenario, SERVER_IP};

// One file per example (and for the doctor's and the lab's own cells), in
// file-name order: an example's file is registered once, in `EXAMPLES`;
// another table in `OTHER_TABLES` (a test checks that every file is).
pub mod cells;

mod apm;
pub mod bench;
mod doctor;
pub mod fabric;
mod ibv_sockets_pingpong;
mod lab;
mod mckey;
mod peers;
pub mod perf;
pub(crate) mod rc_example;
mod rdmacm_client_server;
mod srq;

/// One example of the workspace: its crate, its binaries, its place in the
/// handout and its catalog file's tables. Every list of examples (what the
/// lab builds and copies, the handout's chapters, the fault matrix's
/// declarations) is derived from [`EXAMPLES`].
#[derive(Debug)]
pub struct Example {
    /// The crate: its folder, its package, the scenarios' `package`, and
    /// the name of its catalog file.
    pub krate: &'static str,
    /// The programs it builds, which a host without the source tree needs.
    pub binaries: &'static [&'static str],
    /// Its chapter of the handout (and its place in the README's table).
    pub chapter: usize,
    /// Its pair and error paths.
    pub scenarios: fn() -> Vec<Scenario>,
    /// Its servers that wait for a first peer ([`Waiting`]).
    pub waiting: fn() -> Vec<Waiting>,
    /// Its pair's kill cells ([`Kill`]).
    pub kills: fn() -> Vec<Kill>,
    /// Its TCP side channel's cells ([`SideChannel`]).
    pub side_channels: fn() -> Vec<SideChannel>,
}

/// The examples, in file-name order (the tables' order).
pub const EXAMPLES: &[Example] = &[
    Example {
        krate: "apm",
        binaries: &["apm"],
        // Last: the handout's reading note (RoCE shows no migration).
        chapter: 6,
        scenarios: apm::scenarios,
        waiting: apm::waiting,
        kills: apm::kills,
        side_channels: Vec::new,
    },
    Example {
        krate: "ibv_sockets_pingpong",
        binaries: &["ibv_sockets_pingpong"],
        chapter: 2,
        scenarios: ibv_sockets_pingpong::scenarios,
        waiting: ibv_sockets_pingpong::waiting,
        kills: ibv_sockets_pingpong::kills,
        side_channels: ibv_sockets_pingpong::side_channels,
    },
    Example {
        krate: "mckey",
        binaries: &["mckey", "mc"],
        chapter: 5,
        scenarios: mckey::scenarios,
        waiting: mckey::waiting,
        kills: mckey::kills,
        side_channels: Vec::new,
    },
    Example {
        krate: "rc_example",
        binaries: &["rc_example"],
        chapter: 1,
        scenarios: rc_example::scenarios,
        waiting: rc_example::waiting,
        kills: rc_example::kills,
        side_channels: rc_example::side_channels,
    },
    Example {
        krate: "rdmacm_client_server",
        binaries: &["rdmacm_server", "rdmacm_client"],
        chapter: 3,
        scenarios: rdmacm_client_server::scenarios,
        waiting: rdmacm_client_server::waiting,
        kills: rdmacm_client_server::kills,
        side_channels: Vec::new,
    },
    Example {
        krate: "srq",
        binaries: &["srq"],
        chapter: 4,
        scenarios: srq::scenarios,
        waiting: srq::waiting,
        kills: srq::kills,
        side_channels: Vec::new,
    },
];

/// A file's table of scenarios, by the file's name.
type Table = (&'static str, fn() -> Vec<Scenario>);

/// The tables that are no example's, by their file's name.
const OTHER_TABLES: &[Table] = &[
    ("doctor", doctor::scenarios),
    ("lab", lab::scenarios),
    ("peers", peers::scenarios),
];

/// Every scenario file's table, in file-name order.
fn tables() -> Vec<Table> {
    let mut all: Vec<_> = EXAMPLES
        .iter()
        .map(|e| (e.krate, e.scenarios))
        .chain(OTHER_TABLES.iter().copied())
        .collect();
    all.sort_by_key(|(file, _)| *file);
    all
}

/// The examples in the handout's order, its chapters.
pub fn chapters() -> &'static [&'static str] {
    static CHAPTERS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    CHAPTERS.get_or_init(|| {
        let mut e: Vec<_> = EXAMPLES.iter().collect();
        e.sort_by_key(|e| e.chapter);
        e.iter().map(|e| e.krate).collect()
    })
}

/// The example programs the workspace builds, in the handout's order:
/// what a host that runs them without the source tree needs copied from
/// `target/release`.
pub fn binaries() -> &'static [&'static str] {
    static BINARIES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    BINARIES.get_or_init(|| {
        chapters()
            .iter()
            .filter_map(|c| EXAMPLES.iter().find(|e| e.krate == *c))
            .flat_map(|e| e.binaries.iter().copied())
            .collect()
    })
}

/// Every scenario, in table order, then the fault matrix's cells of every
/// [`Waiting`], [`Kill`] and [`SideChannel`] declaration.
pub fn build() -> Vec<Scenario> {
    let tables = tables().into_iter().flat_map(|(_, t)| t());
    let waiting = EXAMPLES
        .iter()
        .flat_map(|e| (e.waiting)())
        .flat_map(|w| w.cells());
    let kills = EXAMPLES
        .iter()
        .flat_map(|e| (e.kills)())
        .flat_map(|k| k.cells());
    let side_channels = EXAMPLES
        .iter()
        .flat_map(|e| (e.side_channels)())
        .flat_map(|c| c.cells());
    tables
        .chain(waiting)
        .chain(kills)
        .chain(side_channels)
        .collect()
}

/// [`build`]'s table, built once: every scenario of a run borrows from it.
pub fn all() -> &'static [Scenario] {
    static ALL: std::sync::OnceLock<Vec<Scenario>> = std::sync::OnceLock::new();
    ALL.get_or_init(build)
}

/// The bench's runs ([`bench::scenarios`]), built once.
pub fn bench_runs() -> &'static [Scenario] {
    static BENCH: std::sync::OnceLock<Vec<Scenario>> = std::sync::OnceLock::new();
    BENCH.get_or_init(bench::scenarios)
}

/// The mesh's measurements ([`perf::scenarios`]), built once.
pub fn perf_runs() -> &'static [Scenario] {
    static PERF: std::sync::OnceLock<Vec<Scenario>> = std::sync::OnceLock::new();
    PERF.get_or_init(perf::scenarios)
}

/// The scenario with this name.
pub fn find(name: &str) -> Option<&'static Scenario> {
    all()
        .iter()
        .chain(bench_runs())
        .chain(perf_runs())
        .find(|s| s.name == name)
}

/// The scenarios a handout needs: every pair and every exercise.
pub fn handout_scenarios() -> Vec<&'static Scenario> {
    all()
        .iter()
        .filter(|s| s.pair || s.exercise.is_some())
        .collect()
}

/// The scenario of the doctor's probe between two hosts: one RC message.
pub const PROBE: &str = "doctor_rc_probe";

/// The most memory one process of `list` registers, in KiB, and which
/// scenario that is: what `ulimit -l` must allow (at least one page).
pub fn largest_registration<'a>(list: &[&'a Scenario]) -> (u64, &'a str) {
    list.iter()
        .map(|s| (s.locked_kib.max(4), s.name.as_str()))
        .max_by_key(|(kib, _)| *kib)
        .unwrap_or((4, "rc_example"))
}

/// The main example pairs, in table order.
pub fn pairs() -> impl Iterator<Item = &'static Scenario> {
    all().iter().filter(|s| s.pair)
}

/// Why names did not select scenarios.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// No scenario has this name.
    #[error("unknown scenario `{name}`{}; `rdma-lab list` names all {count}", did_you_mean(*.near))]
    Unknown {
        /// The name given.
        name: String,
        /// The known name it is likely a typo of.
        near: Option<&'static str>,
        /// How many scenarios there are.
        count: usize,
    },
    /// No cell of the fault matrix is of this example.
    #[error("no fault cells for `{name}`{}", did_you_mean(*.near))]
    NoFaultCells {
        /// The example given.
        name: String,
        /// The example with cells it is likely a typo of.
        near: Option<&'static str>,
    },
}

/// The fault matrix's cells, of every example or of those named (by
/// package, or by the program that starts the cells' names: `mc`,
/// `rdmacm`), in table order; a name that selects nothing is an error.
pub fn faults(examples: &[&str]) -> Result<Vec<&'static Scenario>, SelectError> {
    let of = |s: &Scenario, e: &str| {
        s.package == e
            || s.name
                .strip_prefix(e)
                .is_some_and(|rest| rest.starts_with('_'))
    };
    let cells = || all().iter().filter(|s| s.fault.is_some());
    if let Some(e) = examples.iter().find(|e| !cells().any(|s| of(s, e))) {
        let mut packages: Vec<&'static str> = cells().map(|s| s.package).collect();
        packages.dedup();
        return Err(SelectError::NoFaultCells {
            name: e.to_string(),
            near: closest(e, packages),
        });
    }
    Ok(cells()
        .filter(|s| examples.is_empty() || examples.iter().any(|e| of(s, e)))
        .collect())
}

/// Resolves names (empty = every pair) to scenarios, or names the unknown one.
pub fn select(names: &[&str]) -> Result<Vec<&'static Scenario>, SelectError> {
    if names.is_empty() {
        return Ok(pairs().collect());
    }
    names
        .iter()
        .map(|n| {
            find(n).ok_or_else(|| SelectError::Unknown {
                name: n.to_string(),
                near: closest(n, all().iter().map(|s| s.name.as_str())),
                count: all().len(),
            })
        })
        .collect()
}

/// Why `s` cannot run in `mode`, on a device port of this link layer
/// (`None`: not known, or the VMs' Soft-RoCE), if it cannot.
pub fn skip_reason(s: &Scenario, mode: &Mode, link_layer: Option<&str>) -> Option<&'static str> {
    let local = matches!(mode, Mode::Local { .. });
    if s.roce_only && link_layer == Some("InfiniBand") {
        Some("it is about a RoCE port (the GID a program picks itself), and this device's port is InfiniBand")
    } else if local && s.placement.vms_only() {
        Some("VMs only: it changes the machine it runs on (removes a device, adds a firewall rule) or runs the lab itself")
    } else if !mode.two_hosts() && s.placement.two_hosts() {
        Some("it needs two hosts")
    } else if local && mode.two_hosts() && s.placement.one_host() {
        Some("it is about one host, not the wire: run it with --local alone")
    } else {
        None
    }
}

/// Whether the Soft-RoCE suite runs `s` in `mode`: across two VMs, all
/// but what is about one host (unless the handout shows its run); in one
/// VM, what does not run across two, and each example's default pair (the
/// path of a program and its peer on one device). Anything else would
/// repeat in one VM what the two-host batch shows of it, with the wire
/// besides: the same binaries, the same expectations, the same `check`.
pub fn in_suite(s: &Scenario, mode: &Mode) -> bool {
    if skip_reason(s, mode, None).is_some() {
        return false;
    }
    match mode {
        Mode::TwoHosts => !(s.placement.one_host() && s.exercise.is_none()),
        Mode::SingleHost => s.pair || !in_suite(s, &Mode::TwoHosts),
        Mode::Local { .. } => false,
    }
}

/// Everything `s` declares, as text, and where it may run: what
/// `list --full` prints, so that a change to how the table is built can
/// show that it changed no entry.
pub fn describe(s: &Scenario) -> String {
    let mut text = String::new();
    for line in format!("{s:#?}").lines() {
        let field = line.trim_start().split(':').next().unwrap_or("");
        if ["single_host_only", "two_hosts_only", "vm_only"].contains(&field) {
            continue;
        }
        // A `verify` function's address changes from build to build.
        match line.find("0x") {
            Some(at) if field.starts_with("0x") => text.push_str(&format!("{}fn,", &line[..at])),
            _ => text.push_str(line),
        }
        text.push('\n');
    }
    let local = |role| Mode::Local {
        dev: None,
        ip: SERVER_IP.into(),
        gid_idx: None,
        role,
    };
    let modes = [
        (Mode::SingleHost, None),
        (Mode::TwoHosts, None),
        (local(Local::Alone), None),
        (local(Local::Serve), None),
        (Mode::SingleHost, Some("InfiniBand")),
    ];
    for (mode, link) in modes {
        let why = skip_reason(s, &mode, link).unwrap_or("runs");
        text.push_str(&format!(
            "  {} ({}): {why}\n",
            mode.label(),
            link.unwrap_or("RoCE")
        ));
    }
    text
}

#[cfg(test)]
mod tests;
