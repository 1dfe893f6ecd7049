//! The CPU time of a process group, read from `/proc`: what a VM's
//! processes (vng, QEMU) have used so far, so that a test run can say
//! where its CPU went per VM batch and not only as a whole.

use std::cell::Cell;

/// A `/proc/PID/stat` line's CPU ticks (user and system, its own and its
/// waited-for children's) when its process group is `pgid`.
pub fn stat_ticks(stat: &str, pgid: u32) -> Option<u64> {
    // The command name is in parentheses and may hold anything: the
    // fields are counted after its last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // state ppid pgrp ... utime(14) stime cutime cstime: indices from 3.
    if fields.get(2)?.parse::<u32>().ok()? != pgid {
        return None;
    }
    fields
        .get(11..15)?
        .iter()
        .map(|f| f.parse::<u64>().ok())
        .sum()
}

/// How many live processes group `pgid` has and the CPU seconds they
/// have used, each with the children it has waited for; `None` when
/// `/proc` cannot be read.
pub fn group_secs(pgid: u32) -> Option<(usize, f64)> {
    let ticks_a_sec = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .filter(|t| *t > 0)
        .unwrap_or(100) as f64;
    let ticks: Vec<u64> = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|s| stat_ticks(&s, pgid))
        .collect();
    Some((ticks.len(), ticks.iter().sum::<u64>() as f64 / ticks_a_sec))
}

/// Samples group `pgid`'s CPU every two seconds, in a thread of its own,
/// until the group has no process left; the most seen, in milliseconds
/// (a process's time is its own until its parent waits for it, then its
/// parent's: the group's total only grows).
pub fn sample_group(pgid: u32) -> std::sync::Arc<std::sync::atomic::AtomicU64> {
    use std::sync::atomic::Ordering;
    let most = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let seen = most.clone();
    std::thread::spawn(move || {
        while let Some((n, secs)) = group_secs(pgid) {
            if n == 0 {
                break;
            }
            seen.fetch_max((secs * 1000.0) as u64, Ordering::Relaxed);
            std::thread::sleep(std::time::Duration::from_secs(2));
        }
    });
    most
}

thread_local! {
    /// CPU seconds of the VMs this thread has waited for to their end.
    static ENDED: Cell<f64> = const { Cell::new(0.0) };
}

/// Adds an ended VM's CPU seconds to this thread's.
pub fn add_ended(secs: f64) {
    ENDED.with(|c| c.set(c.get() + secs));
}

/// This thread's ended VMs' CPU seconds since the last call, and starts
/// again from zero: a batch of VMs is booted and waited for by one thread.
pub fn take_ended() -> f64 {
    ENDED.with(|c| c.replace(0.0))
}

#[cfg(test)]
mod tests;
