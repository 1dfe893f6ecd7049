//! The lab's decisions, without I/O: what a scenario is and what a run of
//! it produced ([`model`]), every scenario as data ([`catalog`]), and the
//! judges that turn an outcome into findings ([`judge`]).
//!
//! Nothing here opens a file, starts a process or a socket, or reads the
//! environment (`lab-core/clippy.toml` denies them outside tests): the
//! lab, the agent and the fabric tool read and run, and hand this crate
//! values. The modules import in this order only, which the crate
//! boundary and `rdma-lab`'s architecture test hold: `stats` and `model`,
//! then `catalog`, then `judge`.

// The lab's functions stay short (threshold in lab-core/clippy.toml).
#![warn(clippy::too_many_lines)]
// The tests write scratch files and read the scripts beside the crate.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

/// `impl From<E> for String` by `E`'s `Display`, for each error type
/// named: the bridge from a typed error to a caller that still returns
/// its message (a command's top, which prints it and decides nothing).
/// Each crate names its own types (the orphan rule); this one's use it
/// by name, in scope below.
#[macro_export]
macro_rules! message_of {
    ($($e:ty),+ $(,)?) => {
        $(impl From<$e> for String {
            fn from(e: $e) -> String {
                e.to_string()
            }
        })+
    };
}

pub mod catalog;
pub mod judge;
pub mod model;
pub mod stats;
