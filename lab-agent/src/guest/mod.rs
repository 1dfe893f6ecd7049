//! The guest: what runs on a host under test (in a VM or on a real host):
//! the agent that sets up Soft-RoCE and runs a scenario's sides, the
//! authenticated control channel between two agents, and the doctor.

pub mod agent;
pub mod control;
pub mod counters;
pub mod doctor;
pub mod gate;
pub mod mesh;
pub mod numa;
pub mod ports;
pub mod sys;
