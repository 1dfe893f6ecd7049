//! Shared code of the rdma-examples workspace: small RAII wrappers over
//! rdma-sys, the error type, the TCP side channel and the wire formats.
//!
//! This is the only crate of the workspace with `unsafe` code; the examples
//! are written against the safe API here and read like the manual's flow.

pub mod cm;
pub mod cm_sync;
pub mod error;
pub mod opts;
pub mod signals;
pub mod sock;
pub mod testkit;
pub mod verbs;
pub mod wire;

pub use error::{Error, Result, ResultExt};
/// The raw bindings, for constants (`sys::ibv_mtu::IBV_MTU_256`, ...).
pub use rdma_sys as sys;
