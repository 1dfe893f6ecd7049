//! Temporary dirs: the lab runs as root on hosts that others share, where a
//! fixed or guessable name in the world-writable temporary dir is a trap
//! any local user can set first.

/// A temporary dir that could not be made: `what` it was for, and why.
#[derive(Debug, thiserror::Error)]
#[error("a temporary dir for {what}: {source}")]
pub struct TempDirError {
    /// What the dir was for.
    pub what: String,
    /// What the kernel said.
    pub source: std::io::Error,
}

rdma_lab_core::message_of!(TempDirError);

/// A fresh temporary dir that only this user may enter (0700), under an
/// unpredictable name that starts with `prefix`, removed when dropped;
/// `what` names its user in the error.
pub fn private_tempdir(prefix: &str, what: &str) -> Result<tempfile::TempDir, TempDirError> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(prefix)
        // tempfile's own default is 0777 less the umask.
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|source| TempDirError {
            what: what.to_string(),
            source,
        })
}
