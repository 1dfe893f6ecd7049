//! Lossy links, from the RDMA error counters that rose on both hosts'
//! ports while their pair ran. RC sends a lost packet again and the
//! programs pass, so only the counters show a link that drops packets.
//!
//! Loss is judged as a share of the packets sent, against the run's own
//! usual share: a real fabric's healthy links lose none, and an emulated
//! one's lose a few under load on every link alike, so a link is lossy
//! when it loses twice what the median link beside it does, and at
//! least [`RATE_MARGIN`] of what it sent more than that. The links beside it are
//! those that share no host with it, so that one bad NIC, which makes all
//! of its host's links lossy, does not raise its own yardstick.

use crate::stats::median;

/// The fewest packets lost that name a link lossy: one stray gap is not
/// a degrading link.
pub const LOSSY_MIN: u64 = 3;

/// How much more of its packets than the usual share a link must lose
/// to be named: on a clean fabric, the smallest share named. In the
/// fabric test a link dropping 3% of its data packets under a QP timeout
/// of 4 s, measured one pair at a time, lost 0.41% of what it sent, 0.37
/// points over the links beside it: most of its drops stalled the pair
/// until the timeout rather than being NAKed, so few packets crossed it
/// and few gaps were counted. Healthy links measured all at once lost up
/// to 0.46%, and at most 0.14 points over the links beside them (2.2
/// times theirs, which [`TIMES_USUAL`] alone would name).
pub const RATE_MARGIN: f64 = 0.0025;

/// How many times the share of the links beside it a link must lose. In
/// the fabric test, with every pair measured at once, a healthy link lost
/// 0.01% to 0.48% of what it sent while perftest ran, and a link dropping
/// 3% or 5% of its packets showed 1.2%, 2.6 to 5.5 times a healthy
/// link's: twice is the line between.
pub const TIMES_USUAL: f64 = 2.0;

/// How many times the usual count a link must lose where the ports count
/// no packets sent: with no share, no [`RATE_MARGIN`] guards it, so a few
/// stray gaps must stand out further.
pub const TIMES_USUAL_COUNT: f64 = 3.0;

/// The counters of packets a port sent: rxe's `sent_pkts`, the IB port
/// counters' `port_xmit_packets`.
pub const SENT: &[&str] = &["sent_pkts", "port_xmit_packets"];

/// Whether a counter's rise is packets lost on the way (a gap in the
/// PSNs, a drop), not packets sent again after a timeout: an emulated
/// host's late ACKs make those with no loss at all.
pub fn counts_loss(name: &str) -> bool {
    ["seq_err", "out_of_seq", "discard", "drop", "rcv_errors"]
        .iter()
        .any(|w| name.contains(w))
}

/// What a link's counters added up to while its pair ran.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Packets lost ([`counts_loss`]), on both hosts.
    pub lost: u64,
    /// Packets sent ([`SENT`]), by both hosts;
    /// 0 when the ports do not count them.
    pub sent: u64,
}

impl Tally {
    /// The tally of `counters` (each a counter's name and its rise).
    pub fn of<'a>(counters: impl IntoIterator<Item = (&'a str, u64)>) -> Tally {
        let mut t = Tally::default();
        for (name, rose) in counters {
            // Numbers a peer sent: added without wrapping around.
            if counts_loss(name) {
                t.lost = t.lost.saturating_add(rose);
            } else if SENT.contains(&name) {
                t.sent = t.sent.saturating_add(rose);
            }
        }
        t
    }

    /// The share of its packets the link lost, when they were counted.
    pub fn rate(&self) -> Option<f64> {
        (self.sent > 0).then(|| self.lost as f64 / self.sent as f64)
    }

    /// The tally as its own link's yardstick for the links beside it.
    pub fn yard(&self) -> Yard {
        Yard {
            rate: self.rate(),
            lost: self.lost as f64,
        }
    }
}

/// What a link lost, as the links beside it are judged against: its
/// share of the packets, where counted, and its count. Where its hosts
/// count what they received, neither host alone can lower it
/// ([`crate::judge::trust::loss`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Yard {
    /// Its share of the packets, when they were counted.
    pub rate: Option<f64>,
    /// Its count.
    pub lost: f64,
}

/// What the run's median link lost: its share of the packets, where the
/// ports count them, and its count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usual {
    /// The median share over the links whose packets were counted.
    pub rate: Option<f64>,
    /// The median count over every link.
    pub lost: f64,
}

/// The run's usual loss over `links`, each its own yardstick.
pub fn usual(links: &[Tally]) -> Usual {
    usual_of(&links.iter().map(Tally::yard).collect::<Vec<_>>())
}

/// The run's usual loss over the yardsticks of some links.
pub fn usual_of(yards: &[Yard]) -> Usual {
    let mut rates: Vec<f64> = yards.iter().filter_map(|y| y.rate).collect();
    let mut lost: Vec<f64> = yards.iter().map(|y| y.lost).collect();
    Usual {
        rate: median(&mut rates),
        lost: median(&mut lost).unwrap_or(0.0),
    }
}

/// Whether `link` lost enough, and enough more than the run's usual, to
/// be named lossy.
pub fn stands_out(link: &Tally, usual: &Usual) -> bool {
    if link.lost < LOSSY_MIN {
        return false;
    }
    match (link.rate(), usual.rate) {
        (Some(r), Some(m)) => r >= m + RATE_MARGIN && r >= TIMES_USUAL * m,
        _ => link.lost as f64 >= TIMES_USUAL_COUNT * usual.lost,
    }
}

/// A link of the run: its two hosts' ranks and its tally.
pub type Link = (usize, usize, Tally);

/// The most links whose yardsticks are found one by one; a larger run
/// judges each against the whole run's usual, from which a link's
/// neighbours differ by a few per cent at most.
pub const EXACT_MAX: usize = 2000;

/// The lossy links among `links`, each its own yardstick ([`judged`]).
pub fn lossy(links: &[Link]) -> Vec<(usize, Usual)> {
    judged(links, &links.iter().map(|l| l.2.yard()).collect::<Vec<_>>())
}

/// The lossy links among `links`, the links beside each judged by their
/// yardsticks (`yards`, at the same indices): each one's index and the
/// usual it was judged against. A link that may be lossy (enough lost,
/// enough of what it sent) is compared with the links that share no host
/// with it ([`beside`]). When every link loses alike, the loss is the
/// fabric's usual and none stands out. Only those that may be lossy are
/// compared, each with every other link once (or, past [`EXACT_MAX`]
/// links, with the whole run).
pub fn judged(links: &[Link], yards: &[Yard]) -> Vec<(usize, Usual)> {
    let whole = (links.len() > EXACT_MAX).then(|| usual_of(yards));
    (0..links.len())
        .filter(|&i| {
            let t = &links[i].2;
            t.lost >= LOSSY_MIN && t.rate().is_none_or(|r| r >= RATE_MARGIN)
        })
        .filter_map(|i| {
            let u = whole.unwrap_or_else(|| beside(links, yards, i));
            stands_out(&links[i].2, &u).then_some((i, u))
        })
        .collect()
}

/// The usual loss of the links beside link `i`: those that share no host
/// with it. With three hosts or fewer there are none: then the lesser of
/// the usual of the links without its one host and of those without its
/// other, since either host's NIC may be the one that loses.
fn beside(links: &[Link], yards: &[Yard], i: usize) -> Usual {
    let (a, b, _) = links[i];
    let without = |hosts: &[usize]| -> Vec<Yard> {
        let apart = |(x, y, _): &Link| !hosts.contains(x) && !hosts.contains(y);
        let kept = links.iter().zip(yards).filter(|(l, _)| apart(l));
        kept.map(|(_, y)| *y).collect()
    };
    let others = without(&[a, b]);
    if !others.is_empty() {
        return usual_of(&others);
    }
    let (ua, ub) = (usual_of(&without(&[a])), usual_of(&without(&[b])));
    let less = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    Usual {
        rate: less(ua.rate, ub.rate),
        lost: ua.lost.min(ub.lost),
    }
}

/// How `link` compares with the run's usual, in words.
pub fn compared(link: &Tally, usual: &Usual) -> String {
    match (link.rate(), usual.rate) {
        (Some(r), Some(m)) => format!(
            "{} packets lost of {} sent ({}; the other links lose {} at the median)",
            link.lost,
            link.sent,
            percent(r),
            percent(m)
        ),
        _ => format!(
            "{} packets lost (the other links lose {} at the median)",
            link.lost, usual.lost
        ),
    }
}

/// A share as a percentage with the digits that matter.
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

#[cfg(test)]
mod tests;
