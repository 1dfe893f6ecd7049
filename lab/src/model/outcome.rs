//! What a scenario run produced, side by side.

/// What one side did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SideOutcome {
    /// Exit status; `None` when the side never produced a status (the agent
    /// did not get to it, or the VM died). 124 means `timeout` killed it.
    pub exit: Option<i32>,
    /// Wall time in milliseconds, when known.
    pub elapsed_ms: Option<u64>,
    /// Captured stdout.
    pub stdout: String,
    /// Captured stderr.
    pub stderr: String,
}

/// What a scenario run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The scenario's name.
    pub scenario: String,
    /// Server side, when the scenario has one.
    pub server: Option<SideOutcome>,
    /// Client side, when the scenario has one.
    pub client: Option<SideOutcome>,
    /// The user objects (`rdma res show` lines) the run left in the kernel
    /// once both sides had ended: none, for every scenario.
    pub leftover: String,
    /// Its packets between the two hosts, when the run recorded them.
    pub capture: Option<Vec<crate::model::Packet>>,
}

// The lab's addresses and ports, which the scenarios' placeholders and
// the agents' control connection use.

/// Exit status of `timeout` when it had to kill the command.
pub const TIMED_OUT: i32 = 124;
