//! `keygen`: a new key, the secret two hosts or a mesh share.

use super::args::*;
use crate::guest;

/// `keygen FILE`.
pub(super) fn keygen_cmd(args: &[String]) -> Result<bool, String> {
    let Some(m) = parse("keygen", getopts::Options::new(), args)? else {
        return Ok(true);
    };
    let [file] = &m.free[..] else {
        return Err(format!(
            "keygen: give one FILE; {}",
            see_help(Some("keygen"))
        ));
    };
    let path = std::path::Path::new(file);
    guest::control::keygen(path).map_err(|e| format!("keygen: {e}"))?;
    println!(
        "keygen: wrote a new key to {} (mode 600): copy it to the other hosts privately and give \
         each --secret-file with it",
        path.display()
    );
    Ok(true)
}
