//! What every stage may use and that knows nothing of the fabric: its own
//! `println!` (the agent's, by textual scope in every module below),
//! private temporary directories, and the agent's text escaping and files
//! safe from other users, re-exported.

/// `println!`, but a failed write ends the program with one error line
/// (`rdma_lab_agent::base::out`).
macro_rules! println {
    ($($arg:tt)*) => {
        rdma_lab_agent::println!($($arg)*)
    };
}

/// `print!`, but a failed write ends the program with one error line.
macro_rules! print {
    ($($arg:tt)*) => {
        rdma_lab_agent::print!($($arg)*)
    };
}

pub mod tmp;

pub use rdma_lab_agent::base::{fsafe, out, rundir, text};
