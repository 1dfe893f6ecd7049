//! `bench`: the benchmarks (ping-pong, the mesh), each a ratio in one boot.

use super::args::*;
use crate::model::Mode;

pub(super) fn bench_cmd(args: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    opts.optflag("", "two-hosts", "");
    opts.optflag("", "tcg", "");
    opts.optflag("", "rails", "");
    let Some(m) = parse("bench", opts, args)? else {
        return Ok(true);
    };
    if m.free == ["mesh"] {
        return Ok(crate::present::bench::print_mesh(
            &crate::host::bench::mesh(m.opt_present("rails"))?,
        ));
    }
    if m.free != ["pingpong"] {
        return Err(format!(
            "bench: which one? pingpong or mesh; {}",
            see_help(Some("bench"))
        ));
    }
    let mode = if m.opt_present("two-hosts") {
        Mode::TwoHosts
    } else {
        Mode::SingleHost
    };
    let tcg = m.opt_present("tcg") || crate::host::lab::tcg_from_env();
    let b = crate::host::bench::pingpong(mode, tcg)?;
    Ok(crate::present::bench::print_pingpong(&b))
}
