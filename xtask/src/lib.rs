//! The lab of rdma-examples: installs the Soft-RoCE tooling, boots
//! throwaway QEMU VMs with virtme-ng and runs the example pairs in them.
//!
//! The scenarios are data ([`scenarios::all`]); the lab's PASS/FAIL
//! summary and the Soft-RoCE tests (`xtask/tests/softroce/`) judge runs
//! with the same [`scenarios::check`].

pub mod agent;
pub mod bench;
pub mod ci;
pub mod handout;
pub mod lab;
pub mod ladder;
pub mod scenarios;
pub mod setup;
pub mod vm;
pub mod wire;

pub use lab::{run_scenarios, LabOptions, LabReport, Mode};
pub use scenarios::{check, Outcome, Scenario, SideOutcome};
