//! The fabric tool of rdma-examples: what an administrator runs on real
//! hosts. The doctor (a host's RDMA set-up, and with a peer the path to
//! it), the mesh (every pair of N hosts, under Slurm, another launcher or
//! ssh, with its matrix, diagnosis and reports) and the key they share.
//!
//! It knows no VM, no set-up, no build, no browser and no handout, and it
//! never looks for a source tree: where it finds the example binaries and
//! puts its results is a [`host::places::Places`] that its caller gives
//! (the `rdma-fabric` binary's: beside itself; the lab's: its build).
//! Its folders are stages as the lab's are (ARCHITECTURE.md).

// Functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

// The agent's `println!` and `print!`, which shadow std's in every module
// (the `macro_use` prelude): a failed write to stdout is an error, not a
// panic.
#[macro_use]
extern crate rdma_lab_agent;

pub mod base;

pub mod cli;
pub mod host;
pub mod present;

// The core's and the agent's stages, at the paths every stage above
// names them by.
pub use rdma_lab_agent::{guest, results};
pub use rdma_lab_core::{catalog, judge, model};
