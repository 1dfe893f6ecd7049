//! The model: what a scenario is and what a run of it produced, the lab's
//! addresses and modes. It knows no table, no run and no report.

pub mod baseline;
pub mod mesh;
pub mod mode;
pub mod numa;
pub mod outcome;
pub mod packet;
pub mod params;
pub mod pattern;
pub mod rails;
pub mod scenario;
pub mod session;
pub mod typo;

pub use mode::*;
pub use outcome::*;
pub use packet::*;
pub use params::*;
pub use pattern::*;
pub use scenario::*;

#[cfg(test)]
pub(crate) mod tests;
