//! A mesh run as recorded: every host's report, as the coordinator put it
//! together for the judge (`mesh --record FILE`). `mesh --replay FILE`
//! judges and shows it again without a host, and the fabric test's real
//! runs are kept in this form (`lab/tests/data/fabric/`), so that a change
//! to the diagnosis is checked against what real runs produced.

use crate::model::mesh::MeshRun;
use std::path::Path;

/// The first line's `format`: a record of another layout is refused, not
/// misread.
pub const FORMAT: &str = "rdma-lab mesh record 1";

/// The largest record read: a mesh of 256 hosts with every transcript
/// fits many times over.
pub const MAX_BYTES: u64 = 256 << 20;

/// A recorded run and the format it was written in.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// [`FORMAT`].
    pub format: String,
    /// The run, as the judge took it.
    pub run: MeshRun,
}

/// The run as a record's text (pretty JSON: a fixture reads in a diff).
pub fn to_text(run: &MeshRun) -> String {
    let record = Record {
        format: FORMAT.into(),
        run: run.clone(),
    };
    serde_json::to_string_pretty(&record).unwrap_or_default() + "\n"
}

/// Why a record could not be written or read: each its own variant, so
/// that a caller decides on what happened; the message is one line.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be written.
    #[error("--record {}: {source}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// What the kernel said.
        source: std::io::Error,
    },
    /// The text is not a record's JSON.
    #[error("not a mesh record: {0}")]
    NotARecord(serde_json::Error),
    /// A record of another format than this tool's.
    #[error("a record of format {:?}: this rdma-lab reads {FORMAT:?}", crate::base::text::shown(.0))]
    Format(String),
    /// A host's rank is not its place in the list.
    #[error("a host's rank is not its place in the list")]
    RankOutOfPlace,
    /// A pair or a receiver names a rank past the hosts.
    #[error("a pair or a receiver names a rank past {0} hosts")]
    RankPastHosts(usize),
}

rdma_lab_core::message_of!(RecordError);

/// Writes the run to `path` as a new file, never through a link there.
pub fn write(path: &Path, run: &MeshRun) -> Result<(), RecordError> {
    crate::base::fsafe::replace_file(path, to_text(run).as_bytes()).map_err(|source| {
        RecordError::Write {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// A record's run from its text; one line on what is wrong.
pub fn from_text(text: &str) -> Result<MeshRun, RecordError> {
    let record: Record = serde_json::from_str(text).map_err(RecordError::NotARecord)?;
    if record.format != FORMAT {
        return Err(RecordError::Format(record.format));
    }
    check(&record.run)?;
    Ok(record.run)
}

/// The run's indices agree with its hosts and rails, so that judging it
/// cannot index past them.
fn check(run: &MeshRun) -> Result<(), RecordError> {
    let n = run.hosts.len();
    if run.hosts.iter().enumerate().any(|(i, h)| h.rank != i) {
        return Err(RecordError::RankOutOfPlace);
    }
    let bad_cell = run.cells.iter().any(|c| {
        c.pair.server >= n
            || c.pair.client >= n
            || c.pair.server == c.pair.client
            || c.rail >= run.rails.len().max(1)
            || c.counters.iter().any(|(r, _, _)| *r >= n)
            || (c.reports.iter().chain(&c.alone_reports)).any(|s| !c.pair.has(s.rank))
    });
    let bad_mcast = run
        .mcast
        .iter()
        .any(|m| m.sender >= n || m.receivers.iter().any(|(r, _)| *r >= n));
    if bad_cell || bad_mcast {
        return Err(RecordError::RankPastHosts(n));
    }
    Ok(())
}

/// Reads the record at `path`, at most [`MAX_BYTES`].
pub fn read(path: &Path) -> Result<MeshRun, String> {
    let text = super::read_at_most(path, MAX_BYTES)?;
    from_text(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
