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
    /// Why the agent could not start the side at all (`timeout`, which
    /// runs it, did not run): the command and the system's error.
    pub cannot_start: Option<String>,
}

impl SideOutcome {
    /// Why this side never started, when it did not: the agent's own word
    /// ([`SideOutcome::cannot_start`]), else what `timeout` or a shell
    /// said ([`not_started`]).
    pub fn not_started(&self) -> Option<String> {
        match &self.cannot_start {
            Some(why) => Some(format!("could not start {why}")),
            None => not_started(self.exit, &self.stderr),
        }
    }
}

/// Why a program never started, from its exit status and stderr, when it
/// did not: `timeout` (and a shell) exit 126 for a program found but not
/// executable, 127 for one not found, and say which and why
/// (`timeout: failed to run command '/x/p': Permission denied`): "could
/// not start /x/p: Permission denied (exit 126)", or with the first
/// stderr line where no such line names the program.
pub fn not_started(exit: Option<i32>, stderr: &str) -> Option<String> {
    let code = exit.filter(|c| [126, 127].contains(c))?;
    let named = stderr.lines().find_map(|l| {
        let rest = l.split_once("failed to run command '")?.1;
        let (path, reason) = rest.split_once("': ")?;
        Some(format!(
            "could not start {path}: {} (exit {code})",
            reason.trim()
        ))
    });
    Some(named.unwrap_or_else(|| {
        let first = stderr.lines().find(|l| !l.trim().is_empty());
        let why = if code == 126 {
            "not executable"
        } else {
            "not found"
        };
        match first {
            Some(l) => format!(
                "could not start a program ({why}, exit {code}): {}",
                l.trim()
            ),
            None => format!("could not start a program ({why}, exit {code})"),
        }
    }))
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
