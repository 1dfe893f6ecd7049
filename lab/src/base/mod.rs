//! What every stage may use and that knows nothing of the lab: its own
//! `println!`, text escaping, private temporary directories, files and
//! dirs safe from other users (a run's dir held open, everything in it
//! made through the handle), the source tree, the TCP listeners of this
//! host.

#[macro_use]
pub mod out;

pub mod browser;
pub mod cpu;
pub mod fsafe;
pub mod netstat;
pub mod rundir;
pub mod text;
pub mod tmp;
pub mod workspace;

/// The core's statistics, which the benchmarks use as the judges do.
pub use rdma_lab_core::stats;
