//! `list`: the scenarios, and with `--full` everything each declares.

use super::args::*;
use crate::catalog;

/// `list [--full]`.
pub(super) fn list_cmd(rest: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    opts.optflag("", "full", "");
    let Some(m) = parse("list", opts, rest)? else {
        return Ok(true);
    };
    no_operands("list", &m)?;
    if m.opt_present("full") {
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
