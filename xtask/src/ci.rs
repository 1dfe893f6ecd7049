//! `cargo xtask test`: the one test command of CI and the README.

use crate::lab::cargo;
use std::process::Stdio;

/// The steps after setup, as cargo argument lists.
pub const STEPS: &[&[&str]] = &[
    &["fmt", "--all", "--check"],
    &[
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ],
    &["test", "--workspace"],
    // The VM tests are #[ignore]d so that plain `cargo test` stays host-only.
    &[
        "test",
        "-p",
        "xtask",
        "--test",
        "softroce",
        "--",
        "--ignored",
        "--test-threads=1",
    ],
];

/// Runs setup and every step, even after a failure (CI gets the whole
/// picture from one run); returns the failed steps.
pub fn run() -> Vec<String> {
    let mut failed = Vec::new();
    println!("$ cargo xtask setup");
    if let Err(e) = crate::setup::ensure() {
        println!("setup failed: {e}");
        // Without the tools nothing below can pass; say so once.
        return vec!["cargo xtask setup".into()];
    }
    for step in STEPS {
        let line = format!("cargo {}", step.join(" "));
        println!("$ {line}");
        let ok = cargo()
            .args(*step)
            .stdin(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("FAILED: {line}");
            failed.push(line);
        }
    }
    failed
}
