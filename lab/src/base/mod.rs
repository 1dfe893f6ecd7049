//! What every stage may use and that knows nothing of the lab: text
//! escaping, private temporary directories, files and dirs safe
//! from other users, the source tree, headless Chromium, a VM's CPU time,
//! the TCP listeners of this host. The pieces the agent needs too are
//! `rdma-lab-agent`'s, re-exported here.

pub mod browser;
pub mod cpu;
pub mod workspace;

pub use rdma_fabric::base::tmp;
pub use rdma_lab_agent::base::{fsafe, netstat, out, rundir, text};
/// The core's statistics, which the benchmarks use as the judges do.
pub use rdma_lab_core::stats;
