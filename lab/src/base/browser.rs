//! Headless Chromium, which renders and prints the lab's HTML pages (the
//! handout, a mesh run's page) so that what a reader sees can be checked.

use std::path::Path;
use std::process::{Command, Stdio};

/// The names a Chromium goes by, on PATH.
const CHROMIUMS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// A Chromium on PATH, if there is one (setup installs Debian's, where
/// it is asked to: `host::setup::ensure_print_tools`).
pub fn on_path() -> Option<&'static str> {
    let found = |name: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .any(|d| d.join(name).is_file())
    };
    CHROMIUMS.iter().copied().find(|c| found(c))
}

/// A Chromium on PATH, or why there is none and what to do.
pub fn find_chromium() -> Result<&'static str, String> {
    on_path().ok_or_else(|| {
        "no Chromium on PATH (chromium, chromium-browser, google-chrome): install one to print \
         or check the handout (Debian: apt-get install --no-install-recommends chromium; on \
         Ubuntu: snap install chromium); the HTML is written without it"
            .into()
    })
}

/// Headless Chromium on `html`, with extra arguments (`--print-to-pdf=F`,
/// `--screenshot=F`, `--dump-dom`); its stdout.
pub fn chromium(html: &Path, args: &[String]) -> Result<String, String> {
    let program = find_chromium()?;
    let url = format!(
        "file://{}",
        html.canonicalize()
            .map_err(|e| format!("{}: {e}", html.display()))?
            .display()
    );
    // --no-sandbox: Chromium's sandbox does not start as root, which the
    // lab's machines and CI are.
    let out = Command::new("timeout")
        .args([
            "120",
            program,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
        ])
        .args(args)
        .arg(&url)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run chromium: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "chromium {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
