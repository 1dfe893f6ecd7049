//! What every stage may use and that knows nothing of the lab: its own
//! `println!` (the agent's, by textual scope in every module below),
//! text escaping, private temporary directories, files and dirs safe
//! from other users, the source tree, headless Chromium, a VM's CPU time,
//! the TCP listeners of this host. The pieces the agent needs too are
//! `rdma-lab-agent`'s, re-exported here.

/// `println!`, but a failed write ends the program with one error line
/// (`rdma_lab_agent::base::out`).
macro_rules! println {
    ($($arg:tt)*) => {
        rdma_lab_agent::println!($($arg)*)
    };
}

/// `print!`, but a failed write ends the program with one error line.
macro_rules! print {
    ($($arg:tt)*) => {
        rdma_lab_agent::print!($($arg)*)
    };
}

pub mod browser;
pub mod cpu;
pub mod workspace;

pub use rdma_fabric::base::tmp;
pub use rdma_lab_agent::base::{fsafe, netstat, out, rundir, text};
/// The core's statistics, which the benchmarks use as the judges do.
pub use rdma_lab_core::stats;
