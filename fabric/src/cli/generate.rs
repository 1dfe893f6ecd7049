//! `--generate KIND`: the man pages or a shell's completions, made from
//! the same clap definition as the parser and the help
//! ([`super::define`]).

use super::args::see_help;
use super::define::root;
use clap_complete::Shell;
use std::path::Path;

/// What `--generate` makes, in the order its refusal lists them.
const KINDS: &[&str] = &["man DIR", "bash", "zsh", "fish", "elvish", "powershell"];

/// `--generate man DIR`: a new DIR with a page for the program and one
/// for each command (`rdma-fabric-mesh.1`); `--generate SHELL`: its
/// completions, on stdout.
pub(super) fn generate_cmd(rest: &[String]) -> Result<bool, String> {
    match rest {
        [man, dir] if man == "man" => {
            let made = man_pages(Path::new(dir))?;
            println!("--generate man: wrote {} in {dir}", made.join(", "));
        }
        [shell] if shell != "man" => {
            let text = completions(shell)?;
            // Through the checked print: a full disk is one line and exit 1.
            print!("{}", String::from_utf8_lossy(&text));
        }
        _ => {
            return Err(format!(
                "--generate: give one of {}; {}",
                KINDS.join(", "),
                see_help(None)
            ))
        }
    }
    Ok(true)
}

/// The completions of `shell`, as bytes.
pub fn completions(shell: &str) -> Result<Vec<u8>, String> {
    let shell: Shell = shell.parse().map_err(|_| {
        format!(
            "--generate {}: give one of {}",
            crate::base::text::shown(shell),
            KINDS.join(", ")
        )
    })?;
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut root("rdma-fabric"), "rdma-fabric", &mut out);
    Ok(out)
}

/// The man pages, in `dir`, made here (so that nothing planted in it is
/// written through); the names of the pages.
pub fn man_pages(dir: &Path) -> Result<Vec<String>, String> {
    let shown = crate::base::text::shown(&dir.to_string_lossy());
    std::fs::create_dir(dir).map_err(|e| format!("--generate man {shown}: {e}"))?;
    clap_mangen::generate_to(root("rdma-fabric"), dir)
        .map_err(|e| format!("--generate man {shown}: {e}"))?;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("--generate man {shown}: {e}"))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}
