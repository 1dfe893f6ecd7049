//! `handout`: the lab handout, from a new run or a kept one.

use super::define::{HandoutArgs, PaperName};
use crate::present::handout::{Paper, Publish};
use crate::{base, host};

/// `handout [OPTIONS]`.
pub(super) fn handout_cmd(a: HandoutArgs) -> Result<bool, String> {
    let paper = match a.paper {
        PaperName::A4 => Paper::A4,
        PaperName::Letter => Paper::Letter,
    };
    let out = a
        .out
        .unwrap_or_else(|| base::workspace::target_dir().join("handout"));
    if a.pdf || a.check {
        // Before the run: a missing Chromium is better said at once.
        host::setup::ensure_print_tools(a.check)?;
    }
    let tcg = a.tcg || host::lab::tcg_from_env();
    let report = host::lab::handout_run(a.from.as_deref(), tcg)?;
    crate::present::handout::publish(
        &report,
        &out,
        &Publish {
            from_kept: a.from.is_some(),
            key: a.key,
            pdf: a.pdf,
            check: a.check,
            paper,
        },
    )
}
