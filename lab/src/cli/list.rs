//! `list`: the scenarios, and with `--full` everything each declares.

use super::define::ListArgs;
use crate::catalog;

/// `list [--full]`.
pub(super) fn list_cmd(a: ListArgs) -> Result<bool, String> {
    if a.full {
        let bench = catalog::bench_runs();
        for s in catalog::all().iter().chain(bench) {
            print!("{}", crate::catalog::describe(s));
        }
        return Ok(true);
    }
    for s in catalog::all() {
        let kind = match (s.pair, s.fault) {
            (true, _) => "pair".to_string(),
            (false, Some(f)) => format!("fault: {}", f.label()),
            (false, None) => "test-only".to_string(),
        };
        // A closed pipe (`| head`) ends the listing, quietly.
        println!("{:28} {kind}", s.name);
    }
    Ok(true)
}
