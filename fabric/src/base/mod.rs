//! What every stage may use and that knows nothing of the fabric: private
//! temporary directories, and the agent's text escaping and files
//! safe from other users, re-exported.

pub mod tmp;

pub use rdma_lab_agent::base::{fsafe, out, rundir, text};
