//! The host: installs what the lab needs, boots the VMs, and runs a
//! batch of scenarios in one of the topologies (one VM, two VMs, this
//! host, two real hosts); the benchmarks and the CI steps.

pub mod bench;
pub mod ci;
pub mod fabric;
pub mod fabric_run;
pub mod lab;
pub mod places;
pub mod setup;
pub mod vm;
