//! What the terminal shows of the doctor's report: what it saw and its
//! notes on stdout, each finding as one line on stderr.

use crate::base::text::escape_controls;
use crate::results::HostCheck;

/// Prints `check`; whether it found nothing.
pub fn print(check: &HostCheck) -> bool {
    // Names and text the system's tools, and the peer, gave.
    for l in &check.lines {
        println!("{}", escape_controls(l));
    }
    for n in &check.notes {
        println!("note: {}", escape_controls(n));
    }
    for f in &check.findings {
        eprintln!("{}", escape_controls(f));
    }
    check.findings.is_empty()
}
