//! The lab of rdma-examples: installs the Soft-RoCE tooling, boots
//! throwaway QEMU VMs with virtme-ng and runs the example pairs in them.
//!
//! The crate is a pipeline of stages, each a folder that imports only the
//! stages above it in [`STAGES`] (a test holds it to that; see
//! ARCHITECTURE.md). The first three, the model, the catalog and the
//! judges, are `rdma-lab-core`'s, without I/O, re-exported here at the
//! paths the other stages name them by: the scenarios are data
//! ([`catalog::all`]), and the lab's PASS/FAIL summary and the Soft-RoCE
//! tests (`lab/tests/`) judge runs with the same [`judge::check`].

// The lab's functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

// The agent's `println!` and `print!`, which shadow std's in every module
// (the `macro_use` prelude): a failed write to stdout is an error, not a
// panic.
#[macro_use]
extern crate rdma_lab_agent;

pub mod base;

pub mod capture;
pub mod cli;
pub mod host;
pub mod present;

// The core's and the agent's stages, at the paths every stage above
// names them by.
pub use rdma_lab_agent::{guest, results};
pub use rdma_lab_core::{catalog, judge, model};

/// The stages, in order: a module may import only from its own stage and
/// those before it (`cli`, the binary's argument parsing, comes last).
pub const STAGES: &[&str] = &[
    "stats", "base", "model", "catalog", "judge", "results", "guest", "capture", "host", "present",
    "cli",
];

/// What a stage may not know although [`STAGES`]' order would allow it:
/// (stage, the earlier stage it may not import, why). ARCHITECTURE.md
/// states each as "`STAGE` does not import `OTHER`", and
/// `lab/tests/architecture.rs` checks the source and the document.
pub const MAY_NOT_KNOW: &[(&str, &str, &str)] = &[
    (
        "capture",
        "guest",
        "it reads the session's lines by their format (`model::session`), not by the agent's code",
    ),
    (
        "present",
        "guest",
        "it shows what a run produced, not how a host under test ran it",
    ),
    (
        "present",
        "host",
        "it shows what a run produced (`results::report`), not how the run was carried out; the \
         host installs what prints a page, `base::browser` runs it",
    ),
];
