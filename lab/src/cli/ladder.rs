//! `ladder`: the packet ladders of a kept two-host run with `--capture`.

use super::args::*;
use crate::catalog;
use crate::model::Mode;

pub(super) fn ladder_cmd(args: &[String]) -> Result<bool, String> {
    let Some(m) = parse("ladder", getopts::Options::new(), args)? else {
        return Ok(true);
    };
    let Some((dir, names)) = m.free.split_first() else {
        return Err(format!(
            "ladder: which run? give a kept run's result dir; {}",
            see_help(Some("ladder"))
        ));
    };
    let addrs = Mode::TwoHosts
        .addrs()
        .expect("the two-host lab has addresses");
    let captures = crate::capture::split(std::path::Path::new(dir))?;
    if let Some(n) = names
        .iter()
        .find(|n| !captures.iter().any(|c| &c.scenario == *n))
    {
        return Err(format!("{dir} has no capture of `{n}`"));
    }
    let mut ok = true;
    let mut out = String::new();
    for c in captures
        .iter()
        .filter(|c| names.is_empty() || names.contains(&c.scenario))
    {
        let rungs = crate::capture::ladder::rungs(&c.packets, &addrs, catalog::find(&c.scenario));
        out += &crate::capture::ladder::text(&c.scenario, &rungs, &addrs);
        if catalog::find(&c.scenario).is_some_and(|s| s.pair) {
            for fault in crate::capture::ladder::faults(&rungs) {
                ok = false;
                out += &format!("{fault}\n");
            }
        }
        if let Some(s) = catalog::find(&c.scenario).filter(|s| !s.wire.is_empty()) {
            let failures = crate::judge::packets::check(s.wire, &c.packets, &addrs);
            if failures.is_empty() {
                out += &format!("wire facts: all {} hold\n", s.wire.len());
            } else {
                ok = false;
                out += &format!("wire facts: {}\n", failures.join("; "));
            }
        }
        out.push('\n');
    }
    // One write: a closed pipe (`| head`) ends the output, quietly. The
    // ladders are drawn from packets, which a peer writes.
    print!("{}", crate::base::text::escape_controls(&out));
    Ok(ok)
}
