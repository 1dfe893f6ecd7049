//! The host: where the binaries and results are, this host's doctor
//! (alone or beside a peer's), and the mesh as a cluster's launcher starts
//! it (Slurm, flags, the environment) or as this host starts it over ssh.

pub mod doctor;
pub mod mesh;
pub mod places;
pub mod ssh;
