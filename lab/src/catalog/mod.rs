//! The catalog: every scenario, one table per example (and for the
//! doctor's and the lab's own cells), the fault matrix's generated cells,
//! and what selects among them.

use crate::catalog::cells::{Kill, SideChannel, Waiting};
use crate::model::{Local, Mode, Scenario, SERVER_IP};

// One file per example (and for the doctor's and the lab's own cells), in
// file-name order: a new file is declared here, in `TABLES`, and in the
// fault matrix's lists where it has their declarations (a test checks it).
pub mod cells;

mod apm;
pub mod bench;
mod doctor;
mod ibv_sockets_pingpong;
mod lab;
mod mckey;
mod peers;
pub(crate) mod rc_example;
mod rdmacm_client_server;
mod srq;

/// Each scenario file's table, in file-name order.
const TABLES: &[fn() -> Vec<Scenario>] = &[
    apm::scenarios,
    doctor::scenarios,
    ibv_sockets_pingpong::scenarios,
    lab::scenarios,
    mckey::scenarios,
    peers::scenarios,
    rc_example::scenarios,
    rdmacm_client_server::scenarios,
    srq::scenarios,
];

/// The files' [`Waiting`] declarations.
const WAITINGS: &[fn() -> Vec<Waiting>] = &[
    apm::waiting,
    ibv_sockets_pingpong::waiting,
    mckey::waiting,
    rc_example::waiting,
    rdmacm_client_server::waiting,
    srq::waiting,
];

/// The files' [`Kill`] declarations.
const KILLS: &[fn() -> Vec<Kill>] = &[
    apm::kills,
    ibv_sockets_pingpong::kills,
    mckey::kills,
    rc_example::kills,
    rdmacm_client_server::kills,
    srq::kills,
];

/// The files' [`SideChannel`] declarations.
const SIDE_CHANNELS: &[fn() -> Vec<SideChannel>] = &[
    ibv_sockets_pingpong::side_channels,
    rc_example::side_channels,
];

/// Every scenario, in table order, then the fault matrix's cells of every
/// [`Waiting`], [`Kill`] and [`SideChannel`] declaration.
pub fn build() -> Vec<Scenario> {
    let tables = TABLES.iter().flat_map(|t| t());
    let waiting = WAITINGS.iter().flat_map(|w| w()).flat_map(|w| w.cells());
    let kills = KILLS.iter().flat_map(|k| k()).flat_map(|k| k.cells());
    let side_channels = SIDE_CHANNELS
        .iter()
        .flat_map(|c| c())
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

/// The scenario with this name.
pub fn find(name: &str) -> Option<&'static Scenario> {
    all().iter().chain(bench_runs()).find(|s| s.name == name)
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

/// The fault matrix's cells, of every example or of those named (by
/// package, or by the program that starts the cells' names: `mc`,
/// `rdmacm`), in table order; a name that selects nothing is an error.
pub fn faults(examples: &[&str]) -> Result<Vec<&'static Scenario>, String> {
    let of = |s: &Scenario, e: &str| {
        s.package == e
            || s.name
                .strip_prefix(e)
                .is_some_and(|rest| rest.starts_with('_'))
    };
    let cells = || all().iter().filter(|s| s.fault.is_some());
    if let Some(e) = examples.iter().find(|e| !cells().any(|s| of(s, e))) {
        return Err(format!("no fault cells for `{e}`"));
    }
    Ok(cells()
        .filter(|s| examples.is_empty() || examples.iter().any(|e| of(s, e)))
        .collect())
}

/// Resolves names (empty = every pair) to scenarios, or names the unknown one.
pub fn select(names: &[&str]) -> Result<Vec<&'static Scenario>, String> {
    if names.is_empty() {
        return Ok(pairs().collect());
    }
    names
        .iter()
        .map(|n| {
            find(n).ok_or_else(|| {
                let known: Vec<_> = all().iter().map(|s| s.name.as_str()).collect();
                format!("unknown scenario `{n}`; known: {}", known.join(", "))
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
