//! The lab of rdma-examples: installs the Soft-RoCE tooling, boots
//! throwaway QEMU VMs with virtme-ng and runs the example pairs in them.
//!
//! The scenarios are data ([`scenarios::all`]); the lab's PASS/FAIL
//! summary and the Soft-RoCE tests (`lab/tests/softroce/`) judge runs
//! with the same [`scenarios::check`].

// The lab's functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

// First, so that its `println!` and `print!` shadow std's in every module
// below (textual scope): a failed write to stdout is an error, not a panic.
#[macro_use]
pub mod out;

pub mod agent;
pub mod bench;
pub mod capture;
pub mod ci;
pub mod cli;
pub mod control;
pub mod doctor;
pub mod handout;
pub use hints;
pub mod lab;
pub mod ladder;
pub mod mode;
pub mod netstat;
pub mod report;
pub mod results;
pub mod scenarios;
pub mod setup;
pub mod text;
pub mod tmp;
pub mod vm;
pub mod workspace;

/// The example programs the workspace builds: what a host that runs them
/// without the source tree needs copied from `target/release`.
pub const EXAMPLE_BINARIES: &[&str] = &[
    "rc_example",
    "ibv_sockets_pingpong",
    "rdmacm_server",
    "rdmacm_client",
    "srq",
    "apm",
    "mckey",
    "mc",
];

pub use lab::{run_scenarios, LabOptions, LabReport, Mode};
pub use scenarios::{check, Outcome, Scenario, SideOutcome};
