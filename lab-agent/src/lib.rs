//! The agent: what runs on a host under test, in one of the lab's VMs or
//! on a real host. It sets up Soft-RoCE where asked, runs a scenario's
//! sides and writes the result dir ([`results`]), speaks the
//! authenticated control channel to its peer, runs the doctor, and plays
//! a mesh host's part and the mesh's coordinator ([`guest`]).
//!
//! It knows nothing of VMs, captures, reports or how it was launched:
//! those are `rdma-lab`'s, which the compiler keeps from it. It takes its
//! scenarios and their judges from `rdma-lab-core`, re-exported here at
//! the paths its modules name them by (`crate::model`, ...).

// The lab's functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

// First, so that its `println!` and `print!` shadow std's in every module
// below (textual scope): a failed write to stdout is an error, not a panic.
#[macro_use]
pub mod base;

pub mod guest;
pub mod results;

pub use rdma_lab_core::{catalog, judge, model};
