//! `ladder`: the packet ladders of a kept two-host run with `--capture`.

use super::define::LadderArgs;
use crate::catalog;
use crate::model::Mode;

/// `ladder DIR [NAME...]`.
pub(super) fn ladder_cmd(a: LadderArgs) -> Result<bool, String> {
    let (dir, names) = (&a.dir, &a.names);
    let addrs = Mode::TwoHosts
        .addrs()
        .expect("the two-host lab has addresses");
    let run = crate::base::rundir::Dir::open(std::path::Path::new(dir)).map_err(|e| {
        format!("{dir} is not the result dir of a two-host run with --capture ({e})")
    })?;
    let captures = crate::capture::split(&run)?;
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
        let wire = crate::capture::verdict::on_wire(catalog::find(&c.scenario), &c.packets, &addrs);
        let (text, held) = crate::present::summary::ladder_text(&c.scenario, &wire, &addrs);
        out += &text;
        ok &= held;
    }
    // One write: a closed pipe (`| head`) ends the output, quietly. The
    // ladders are drawn from packets, which a peer writes.
    print!("{}", crate::base::text::escape_controls(&out));
    Ok(ok)
}
