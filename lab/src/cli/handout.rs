//! `handout`: the lab handout, from a new run or a kept one.

use super::args::*;
use crate::{base, host};

pub(super) fn handout_cmd(args: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    opts.optflag("", "pdf", "");
    opts.optflag("", "check", "");
    opts.optflag("", "key", "");
    opts.optflag("", "tcg", "");
    opts.optopt("", "out", "", "");
    opts.optopt("", "from", "", "");
    opts.optopt("", "paper", "", "");
    let Some(m) = parse("handout", opts, args)? else {
        return Ok(true);
    };
    no_operands("handout", &m)?;
    let paper = match m.opt_str("paper").as_deref() {
        None => crate::present::handout::Paper::default(),
        Some(p) => crate::present::handout::Paper::from_name(p)
            .ok_or_else(|| format!("handout: --paper {p}: not a4 or letter"))?,
    };
    let out = m.opt_str("out").map_or_else(
        || base::workspace::target_dir().join("handout"),
        std::path::PathBuf::from,
    );
    if m.opt_present("pdf") || m.opt_present("check") {
        // Before the run: a missing Chromium is better said at once.
        host::setup::ensure_print_tools(m.opt_present("check"))?;
    }
    let from = m.opt_str("from").map(std::path::PathBuf::from);
    let tcg = m.opt_present("tcg") || host::lab::tcg_from_env();
    let report = host::lab::handout_run(from.as_deref(), tcg)?;
    crate::present::handout::publish(
        &report,
        &out,
        &crate::present::handout::Publish {
            from_kept: from.is_some(),
            key: m.opt_present("key"),
            pdf: m.opt_present("pdf"),
            check: m.opt_present("check"),
            paper,
        },
    )
}
