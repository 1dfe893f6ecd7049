//! `keygen`: a new key, the secret two hosts or a mesh share.

use super::define::KeygenArgs;
use crate::guest;

/// `keygen FILE`.
pub(super) fn keygen_cmd(a: KeygenArgs) -> Result<bool, String> {
    let path = a.file.as_path();
    guest::control::keygen(path).map_err(|e| format!("keygen: {e}"))?;
    println!(
        "keygen: wrote a new key to {} (mode 600): copy it to the other hosts privately and give \
         each --secret-file with it",
        path.display()
    );
    Ok(true)
}
