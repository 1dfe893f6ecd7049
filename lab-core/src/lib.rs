//! The lab's decisions, without I/O: what a scenario is and what a run of
//! it produced ([`model`]), every scenario as data ([`catalog`]), and the
//! judges that turn an outcome into findings ([`judge`]).
//!
//! Nothing here opens a file, starts a process or a socket, or reads the
//! environment (`lab-core/clippy.toml` denies them outside tests): the
//! lab, the agent and the fabric tool read and run, and hand this crate
//! values. The modules import in this order only, which the crate
//! boundary and `rdma-lab`'s architecture test hold: `stats` and `model`,
//! then `catalog`, then `judge`.

// The lab's functions stay short (threshold in lab-core/clippy.toml).
#![warn(clippy::too_many_lines)]
// The tests write scratch files and read the scripts beside the crate.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

pub mod catalog;
pub mod judge;
pub mod model;
pub mod stats;
