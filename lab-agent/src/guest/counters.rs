//! The RDMA error counters of a port, read before and after a pair runs:
//! a link that drops packets shows in them (packets sent again, sequence
//! errors, NAKs, RNR and timeout retries, drops) even when the programs,
//! which RC's retransmission shields, pass.

use crate::judge::loss::SENT;
use crate::judge::trust::{RECEIVED_BYTES, RECEIVED_PACKETS};
use std::path::Path;

/// The words of a counter's name that mean a packet was lost or sent
/// again: rxe's (`rcvd_seq_err`, `completer_retry_err`, `duplicate_request`,
/// `out_of_seq_request`, `retry_exceeded_err`), mlx5's
/// (`packet_seq_err`, `local_ack_timeout_err`, `rnr_nak_retry_err`,
/// `implied_nak_seq_err`, `roce_adp_retrans`, `out_of_sequence`) and the
/// IB port counters' (`port_rcv_errors`, `port_xmit_discards`).
const LOSS_WORDS: &[&str] = &[
    "seq_err",
    "out_of_seq",
    "retry",
    "retrans",
    "duplicate_request",
    "nak",
    "rnr",
    "timeout",
    "discard",
    "drop",
    "rcv_errors",
];

/// Whether the counter `name` counts loss or what loss causes.
pub fn is_loss(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    LOSS_WORDS.iter().any(|w| name.contains(w))
}

/// The counters in `dir` (a port's `hw_counters` or `counters`): each
/// file's name and number, in name order; what does not read as a number
/// is left out.
pub fn read_dir(dir: &Path) -> Vec<(String, u64)> {
    let mut found: Vec<(String, u64)> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let value = std::fs::read_to_string(e.path()).ok()?;
                    let name = e.file_name().to_string_lossy().into_owned();
                    Some((name, value.trim().parse().ok()?))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// The counters of `rdma -j statistic show link DEV/PORT`'s output: each
/// number-valued key but the port's, in name order; what is not
/// that JSON gives none.
pub fn parse_rdma_statistic(json: &str) -> Vec<(String, u64)> {
    let Ok(serde_json::Value::Array(links)) = serde_json::from_str(json) else {
        return Vec::new();
    };
    links
        .iter()
        .filter_map(|l| l.as_object())
        .flat_map(|l| l.iter())
        .filter(|(name, _)| !["port", "ifindex"].contains(&name.as_str()))
        .filter_map(|(name, v)| Some((name.clone(), v.as_u64()?)))
        .collect()
}

/// Every counter of `dev`'s port `port`: its sysfs `hw_counters` and
/// `counters`, and those `rdma statistic show` adds (a driver's optional
/// counters, which netlink shows and sysfs does not).
pub fn read(dev: &str, port: u32) -> Vec<(String, u64)> {
    let dir = Path::new(hints::SYS_IB)
        .join(dev)
        .join(format!("ports/{port}"));
    let mut all = read_dir(&dir.join("hw_counters"));
    all.extend(read_dir(&dir.join("counters")));
    let link = format!("{dev}/{port}");
    let netlink = super::sys::output("rdma", &["-j", "statistic", "show", "link", &link]);
    for (name, value) in parse_rdma_statistic(&netlink.unwrap_or_default()) {
        if !all.iter().any(|(n, _)| *n == name) {
            all.push((name, value));
        }
    }
    all
}

/// The loss counters, the packets sent ([`SENT`], loss is judged as a
/// share of them) and received (a host's own share of what reached it,
/// [`crate::judge::trust::loss`]) that rose from `before` to `after`, and
/// by how much.
pub fn rose(before: &[(String, u64)], after: &[(String, u64)]) -> Vec<(String, u64)> {
    let kept = |n: &str| is_loss(n) || SENT.contains(&n) || RECEIVED_PACKETS.contains(&n);
    rises(before, after, kept)
}

/// The counters of `after` that `keep` keeps and that rose from `before`,
/// and by how much.
fn rises(
    before: &[(String, u64)],
    after: &[(String, u64)],
    keep: impl Fn(&str) -> bool,
) -> Vec<(String, u64)> {
    after
        .iter()
        .filter(|(name, _)| keep(name))
        .filter_map(|(name, now)| {
            // A counter not read before (a failed read) has no rise to
            // tell: its whole count is the port's lifetime's.
            let (_, was) = before.iter().find(|(n, _)| n == name)?;
            (now > was).then(|| (name.clone(), now - was))
        })
        .collect()
}

/// Whether the counter `name` counts what the port received: bytes or
/// packets.
fn is_received(name: &str) -> bool {
    RECEIVED_BYTES.iter().any(|(n, _)| *n == name) || RECEIVED_PACKETS.contains(&name)
}

/// A port's counters read as a measurement begins, to tell what the port
/// received by the time it ends: this host's word on the direction its
/// peer sent ([`crate::judge::trust`]).
pub struct Around {
    dev: String,
    port: u32,
    before: Vec<(String, u64)>,
}

impl Around {
    /// Reads `dev`'s port `port` now.
    pub fn start(dev: &str, port: u32) -> Around {
        Around {
            dev: dev.to_string(),
            port,
            before: read(dev, port),
        }
    }

    /// Reads the port again and writes to `path` what its receive
    /// counters rose by meanwhile, a `name rise` line each.
    pub fn finish(self) -> String {
        let after = read(&self.dev, self.port);
        rises(&self.before, &after, is_received)
            .iter()
            .map(|(n, v)| format!("{n} {v}\n"))
            .collect()
    }
}

/// The rises in a text [`Around::finish`] made.
pub fn parse_rises(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let (name, v) = l.split_once(' ')?;
            Some((name.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests;
