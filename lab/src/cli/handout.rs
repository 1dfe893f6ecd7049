//! `handout`: the lab handout, from a new run or a kept one.

use super::args::*;
use crate::host::lab::LabOptions;
use crate::model::Mode;
use crate::{base, host};

pub(super) fn handout_cmd(args: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    opts.optflag("", "pdf", "");
    opts.optflag("", "check", "");
    opts.optflag("", "key", "");
    opts.optflag("", "tcg", "");
    opts.optopt("", "out", "", "");
    opts.optopt("", "from", "", "");
    let Some(m) = parse("handout", opts, args)? else {
        return Ok(true);
    };
    no_operands("handout", &m)?;
    let out = m.opt_str("out").map_or_else(
        || base::workspace::target_dir().join("handout"),
        std::path::PathBuf::from,
    );
    if m.opt_present("pdf") || m.opt_present("check") {
        // Before the run: a missing Chromium is better said at once.
        host::setup::ensure_print_tools(m.opt_present("check"))?;
    }
    let opts = LabOptions {
        keep: true,
        tcg: m.opt_present("tcg") || host::lab::tcg_from_env(),
        capture: true,
        ..LabOptions::new(
            Mode::TwoHosts,
            std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?,
        )
    };
    let names: Vec<&str> = crate::present::handout::scenarios()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let report = match m.opt_str("from") {
        Some(dir) => host::lab::load_two_host_run(
            std::path::Path::new(&dir),
            &crate::present::handout::scenarios(),
        )?,
        None => crate::host::lab::run_scenarios(&opts, &names)?,
    };
    let failed = if m.opt_present("from") {
        let failed: Vec<&str> = report
            .outcomes
            .iter()
            .filter(|j| !j.passed())
            .map(|j| j.name())
            .collect();
        if !failed.is_empty() {
            println!("handout: in that run, these failed: {}", failed.join(", "));
        }
        failed.len()
    } else {
        crate::present::summary::print_summary(&report)
    };
    let html = crate::present::handout::write(&report, &out)?;
    println!("handout: {}", html.display());
    if m.opt_present("key") {
        let key = crate::present::handout::write_key(&report, &out)?;
        println!("handout: the instructor's key, {}", key.display());
    }
    if m.opt_present("pdf") {
        let pdf = out.join("handout.pdf");
        crate::present::handout::pdf(&html, &pdf)?;
        println!("handout: {}", pdf.display());
    }
    let mut looks_right = true;
    if m.opt_present("check") {
        let failures = crate::present::handout::check_in_chromium(&html);
        for f in &failures {
            println!("handout check: {f}");
        }
        looks_right = failures.is_empty();
        if looks_right {
            println!("handout check: Chromium renders every chapter and ladder, and prints it");
        }
    }
    Ok(failed == 0 && report.notes.is_empty() && looks_right)
}
