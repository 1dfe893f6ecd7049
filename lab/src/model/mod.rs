//! The model: what a scenario is and what a run of it produced, the lab's
//! addresses and modes. It knows no table, no run and no report.

pub mod mesh;
pub mod mode;
pub mod outcome;
pub mod packet;
pub mod params;
pub mod pattern;
pub mod scenario;
pub mod session;

pub use mode::*;
pub use outcome::*;
pub use packet::*;
pub use params::*;
pub use pattern::*;
pub use scenario::*;

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

#[cfg(test)]
pub(crate) mod tests;
