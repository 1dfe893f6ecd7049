//! Temporary dirs: the lab runs as root on hosts that others share, where a
//! fixed or guessable name in the world-writable temporary dir is a trap
//! any local user can set first.

/// A fresh temporary dir that only this user may enter (0700), under an
/// unpredictable name that starts with `prefix`, removed when dropped;
/// `what` names its user in the error.
pub fn private_tempdir(prefix: &str, what: &str) -> Result<tempfile::TempDir, String> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(prefix)
        // tempfile's own default is 0777 less the umask.
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| format!("a temporary dir for {what}: {e}"))
}
