//! What every stage may use and that knows nothing of the lab: its own
//! `println!`, text escaping, files and dirs safe from other users (a
//! run's dir held open, everything in it made through the handle), the
//! TCP listeners of this host.

#[macro_use]
pub mod out;

pub mod fsafe;
pub mod netstat;
pub mod rundir;
pub mod text;
