//! What a host that holds the mesh's secret can say about its links, and
//! what of it the diagnosis takes: nothing one host says can get another
//! host named.
//!
//! A host reports its own side of each measurement in its own `done`
//! ([`SideReport`]): the report its perftest wrote, and what its port
//! received meanwhile. A direction's bandwidth is then the figure of the
//! host that sent it, cross-checked by the host that received it: no more
//! than its port could have received over the measurement (its receive
//! counters over the same interval), the lesser counting. A liar can
//! lower its own links' figures, which only names itself or its own
//! links, and only eases everyone else's yardstick; it cannot raise them,
//! which would make the yardstick of the hosts beside it too high. A
//! latency is the greater of the two sides' (each runs the same ping-pong
//! and reports it), for the same reason. A figure that no port could give
//! (not a finite number, below zero, or beyond the lesser rate of the
//! two ports) is refused and named as the sender's.
//!
//! Loss is judged the same way: counts that cannot be true (more lost
//! than the link sent, more packets than the port could move in the
//! pair's time) are refused and named, and a link's share beside another
//! is the larger of what each of its hosts saw of the packets it received
//! itself ([`loss`]), which the other host's counts cannot lower.
//!
//! A run recorded before the hosts reported their own sides (no
//! [`SideReport`] in a cell) is judged by its transcripts, as it was,
//! with impossible figures refused and no one named for them: who wrote
//! a transcript's figure cannot be told.

use super::finding::{Finding, FindingKind};
use super::loss::{Tally, Yard};
use super::units::gbps_text;
use crate::catalog::perf::{
    bandwidth, figure, DURATION_SECS, LAT_KEY, SEND_LAT, WRITE_BW, WRITE_BW_BACK,
};
use crate::model::mesh::{Measure, MeshRun, Pair, PairCell, SideReport};

/// How far past its ports' rate a figure may go and still be true:
/// perftest's duration ends at an alarm that may ring late, and a port
/// counts its own headers too.
pub const RATE_SLACK: f64 = 1.1;

/// The counters of the bytes a port received, each with the bytes one of
/// its units is: the IB port counters' `port_rcv_data` counts 4-byte
/// words; EFA's and bnxt_re's `rx_bytes`, bytes.
pub const RECEIVED_BYTES: &[(&str, f64)] = &[("port_rcv_data", 4.0), ("rx_bytes", 1.0)];

/// The counters of the packets a port received: rxe's `rcvd_pkts`, the IB
/// port counters' `port_rcv_packets`, EFA's and bnxt_re's `rx_pkts`.
pub const RECEIVED_PACKETS: &[&str] = &["rcvd_pkts", "port_rcv_packets", "rx_pkts"];

/// The most one packet is taken to carry where the port's MTU is not
/// known, and at most in any case: IB's largest MTU.
pub const MTU_MAX: u32 = 4096;

/// The fewest bytes a RoCE packet takes on the wire (an Ethernet frame's
/// least): a port of a given rate moves no more packets than this allows.
pub const FRAME_MIN: f64 = 64.0;

/// A figure or a count that cannot be true, and who reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Impossible {
    /// The host that reported it.
    pub rank: usize,
    /// The other host of the link it is about.
    pub peer: usize,
    /// What it reported, in words: `3200.00 Gb/s on a 100 Gb/s port`.
    pub what: String,
}

/// A link's figures as its two hosts' reports give them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    /// Its bandwidth: the lesser of its directions.
    pub gbps: Option<f64>,
    /// Its latency: the greater of its two sides'.
    pub usec: Option<f64>,
    /// Whether a direction's figure had only one host behind it (the
    /// receiver counted nothing, or the sender reported none of its own).
    pub one_sided_gbps: bool,
    /// Whether only one side reported a latency.
    pub one_sided_usec: bool,
    /// What was refused, and who reported it.
    pub impossible: Vec<Impossible>,
}

/// The measurement `scenario` as host `rank` reported it in `reports`.
fn measure<'a>(reports: &'a [SideReport], rank: usize, scenario: &str) -> Option<&'a Measure> {
    let side = reports.iter().find(|r| r.rank == rank)?;
    side.measures.iter().find(|m| m.scenario == scenario)
}

/// Whether `gbps` is a bandwidth a link whose ports run at `rate` could
/// show: a finite figure, not below zero (a direction that completed no
/// message is 0), and within the rate.
pub fn possible_gbps(gbps: f64, rate: Option<f64>) -> bool {
    gbps.is_finite() && gbps >= 0.0 && rate.is_none_or(|r| gbps <= r * RATE_SLACK)
}

/// An impossible bandwidth in words, with the rate it exceeds.
fn gbps_words(gbps: f64, rate: Option<f64>) -> String {
    match rate {
        Some(r) if gbps.is_finite() && gbps > r * RATE_SLACK => {
            format!("{} on a {r} Gb/s port", gbps_text(gbps))
        }
        _ => gbps_text(gbps),
    }
}

/// The most a port received over its side of a measurement, in Gb/s over
/// the measurement's duration: its received bytes, or its received
/// packets each at its MTU (at most [`MTU_MAX`]). `None` when it counts
/// neither. An upper bound: the interval holds the whole program, warm-up
/// and headers included.
pub fn received_gbps(m: &Measure) -> Option<f64> {
    let count = |name: &str| m.received.iter().find(|(n, _)| n == name).map(|c| c.1);
    let bytes = RECEIVED_BYTES
        .iter()
        .find_map(|(name, unit)| count(name).map(|v| v as f64 * unit))
        .or_else(|| {
            let mtu = m.mtu.unwrap_or(MTU_MAX).min(MTU_MAX);
            let packets = RECEIVED_PACKETS.iter().find_map(|name| count(name))?;
            Some(packets as f64 * f64::from(mtu))
        })?;
    Some(bytes * 8.0 / f64::from(DURATION_SECS) / 1e9)
}

/// One direction's bandwidth, from `sender` to `receiver`, and whether
/// only one host is behind it; `None` when there is no possible figure.
/// The sender's own figure, else the receiver's copy of it (perftest's
/// passive side prints its peer's report), capped by what the receiver
/// counted.
fn way(
    reports: &[SideReport],
    (sender, receiver): (usize, usize),
    scenario: &str,
    rate: Option<f64>,
    refused: &mut Vec<Impossible>,
) -> Option<(f64, bool)> {
    let seen = measure(reports, receiver, scenario);
    let (claim, own) = match measure(reports, sender, scenario).and_then(|m| bandwidth(&m.report)) {
        Some(g) if !possible_gbps(g, rate) => {
            refused.push(Impossible {
                rank: sender,
                peer: receiver,
                what: gbps_words(g, rate),
            });
            return None;
        }
        Some(g) => (g, true),
        // A copy that cannot be true names no one: either host may have
        // written it.
        None => (
            seen.and_then(|m| bandwidth(&m.report))
                .filter(|g| possible_gbps(*g, rate))?,
            false,
        ),
    };
    match seen.and_then(received_gbps) {
        Some(most) => Some((claim.min(most), !own)),
        None => Some((claim, true)),
    }
}

/// The figures of `pair`'s measurements in `reports` (a round's, or
/// those measured again alone), on ports whose lesser rate is `rate`.
pub fn measured(pair: Pair, reports: &[SideReport], rate: Option<f64>) -> Checked {
    let mut c = Checked::default();
    let ways = [
        (WRITE_BW, (pair.client, pair.server)),
        (WRITE_BW_BACK, (pair.server, pair.client)),
    ];
    for (scenario, hosts) in ways {
        if let Some((g, one_sided)) = way(reports, hosts, scenario, rate, &mut c.impossible) {
            c.gbps = Some(c.gbps.map_or(g, |l: f64| l.min(g)));
            c.one_sided_gbps |= one_sided;
        }
    }
    let mut sides = 0;
    for (rank, peer) in [(pair.server, pair.client), (pair.client, pair.server)] {
        match measure(reports, rank, SEND_LAT).and_then(|m| figure(&m.report, LAT_KEY)) {
            Some(u) if u > 0.0 => {
                c.usec = Some(c.usec.map_or(u, |l: f64| l.max(u)));
                sides += 1;
            }
            Some(u) => c.impossible.push(Impossible {
                rank,
                peer,
                what: format!("{u:.1} usec"),
            }),
            None => {}
        }
    }
    c.one_sided_usec = sides == 1;
    c
}

/// What one host of a link counted while their pair ran: its tally, and
/// the packets its port received, when it counts them.
fn counted(cell: &PairCell, rank: usize) -> (Tally, Option<u64>) {
    let mine = || {
        cell.counters
            .iter()
            .filter(move |(r, _, _)| *r == rank)
            .map(|(_, n, v)| (n.as_str(), *v))
    };
    // The first of the names a port counts them by, never two added.
    let received = RECEIVED_PACKETS
        .iter()
        .find_map(|name| mine().find(|(n, _)| n == name).map(|(_, v)| v));
    (Tally::of(mine()), received)
}

/// What of `tally` and `received` (host `rank`'s, beside its peer's
/// `peer_sent`) cannot be true, in words: more lost than the link sent,
/// or more packets than its port could move in the pair's time.
fn impossible_counts(
    cell: &PairCell,
    rank: usize,
    (tally, received): (Tally, Option<u64>),
    peer_sent: u64,
) -> Option<String> {
    let sent = tally.sent.saturating_add(peer_sent);
    if sent > 0 && tally.lost > sent {
        return Some(format!("{} packets lost of {sent} sent", tally.lost));
    }
    let side = cell.reports.iter().find(|r| r.rank == rank)?;
    let (rate, ms) = (cell.rate_gbps?, side.elapsed_ms?);
    let secs = ms as f64 / 1000.0;
    let most = rate * RATE_SLACK * 1e9 / 8.0 * secs / FRAME_MIN;
    let moved = tally.sent.max(received.unwrap_or(0));
    (moved as f64 > most).then(|| format!("{moved} packets in {secs:.1} s on a {rate} Gb/s port"))
}

/// A link's loss: its tally as judged (both hosts' counts, but those
/// that cannot be true), the yardstick it makes for the links beside it,
/// and what was refused. Where a host counts what its port received, its
/// share is its own losses over its own received packets, and the link's
/// yardstick is the larger of its hosts' shares: a host that hides its
/// losses, or counts more packets sent than it sent, lowers no share but
/// its own, and the larger is the other's. Where neither counts what it
/// received (a record of an older run), the link's tally is its own
/// yardstick, as it was.
pub fn loss(cell: &PairCell) -> (Tally, Yard, Vec<Impossible>) {
    let hosts = [cell.pair.server, cell.pair.client];
    let mut sides = hosts.map(|h| counted(cell, h));
    let mut refused = Vec::new();
    for i in 0..2 {
        let peer_sent = sides[1 - i].0.sent;
        if let Some(what) = impossible_counts(cell, hosts[i], sides[i], peer_sent) {
            refused.push(Impossible {
                rank: hosts[i],
                peer: hosts[1 - i],
                what,
            });
            sides[i] = (Tally::default(), None);
        }
    }
    let tally = Tally {
        lost: sides[0].0.lost.saturating_add(sides[1].0.lost),
        sent: sides[0].0.sent.saturating_add(sides[1].0.sent),
    };
    let yard = if sides.iter().all(|(_, received)| received.is_none()) {
        tally.yard()
    } else {
        let share = |i: usize| {
            let (t, received) = sides[i];
            let of = received.unwrap_or(sides[1 - i].0.sent);
            (of > 0).then(|| t.lost as f64 / of as f64)
        };
        Yard {
            rate: [share(0), share(1)].into_iter().flatten().reduce(f64::max),
            lost: 2.0 * sides[0].0.lost.max(sides[1].0.lost) as f64,
        }
    };
    (tally, yard, refused)
}

/// Everything `cell`'s hosts reported that cannot be true: its
/// measurements' figures, in its round and alone, and its loss counts.
fn refused(cell: &PairCell) -> Vec<Impossible> {
    let rate = cell.rate_gbps;
    let mut all = measured(cell.pair, &cell.reports, rate).impossible;
    all.extend(measured(cell.pair, &cell.alone_reports, rate).impossible);
    all.extend(loss(cell).2);
    all
}

/// One finding per host of `run` that reported what cannot be true, in
/// rank order, each host called as `label` calls it: the first such
/// report and how many more. Its reports are refused, so its links are
/// judged by what the hosts it measured with counted.
pub fn findings(run: &MeshRun, label: &dyn Fn(usize) -> String) -> Vec<Finding> {
    let mut by_host: Vec<(usize, Vec<Impossible>)> = Vec::new();
    for i in run.cells.iter().flat_map(refused) {
        match by_host.iter_mut().find(|(r, _)| *r == i.rank) {
            Some((_, all)) => all.push(i),
            None => by_host.push((i.rank, vec![i])),
        }
    }
    by_host.sort_by_key(|(r, _)| *r);
    by_host
        .into_iter()
        .map(|(rank, all)| {
            let more = match all.len() - 1 {
                0 => String::new(),
                n => format!(", and {n} more that cannot be true"),
            };
            Finding {
                rail: 0,
                kind: FindingKind::ImpossibleReport { rank },
                text: format!(
                    "{} reported {} (its link with {}){more}: what cannot be true is \
                     refused, and its links are judged by what their other hosts counted",
                    label(rank),
                    all[0].what,
                    label(all[0].peer)
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
