//! What a host that holds the secret can make the coordinator hold: a
//! `done` line of a million values (4 MB as sent) is refused unread, and
//! the peak memory of the whole run stays within the figure the README
//! states. A test binary of its own, so that the process's peak is this
//! run's: the coordinator's, and the three stand-ins' beside it.

mod serving;
mod standins;

use rdma_lab::model::mesh::Joined;
use standins::*;

/// A field of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`).
fn status_kib(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

/// Starts this process's peak resident memory (`VmHWM`) again from what
/// it holds now (`clear_refs` 5): the start-up's peak is not the run's.
fn reset_peak() {
    std::fs::write("/proc/self/clear_refs", "5").expect("/proc/self/clear_refs");
}

/// The README's figure: how far one mesh run of three hosts raises the
/// peak resident memory, coordinator and stand-ins together, when one
/// host answers
/// with a million-element list. Parsed, that list took the coordinator
/// from 22 MB to 161 MB; read line by line and refused, the run's peak
/// is the 4 MB line as read and its 2 MB decoded, beside the stand-in's
/// own copies of what it sent.
const PEAK_MIB: usize = 32;

#[test]
fn a_million_values_from_a_host_are_refused_within_the_stated_memory() {
    reset_peak();
    let before = status_kib("VmRSS");
    let (run, _, _) = mesh_with_one(3, 2, Behaviour::HugeList);
    let peak_mib = (status_kib("VmHWM") - before) >> 10;
    println!(
        "the run's peak resident memory: {peak_mib} MiB above the {} MiB before it (bound {PEAK_MIB} MiB)",
        before >> 10
    );
    assert!(
        peak_mib < PEAK_MIB,
        "the run peaked {peak_mib} MiB above where it began"
    );
    assert!(
        matches!(&run.hosts[2].joined, Joined::Died { during } if during.contains("more than 4096 values")),
        "{:?}",
        run.hosts[2].joined
    );
}
