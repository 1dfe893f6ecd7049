//! The wire facts of a scenario ([`crate::model::PacketFact`]) held against
//! the packets of its run.

use crate::model::{glob_match, Addrs, Kind, Packet, PacketFact, Side};

/// For each packet, whether it is one sent before (see
/// [`Packet::resend_key`]).
pub fn resent(packets: &[&Packet]) -> Vec<bool> {
    let mut sent = std::collections::HashSet::new();
    packets
        .iter()
        .map(|p| {
            // TCP's own retransmissions, as tshark's analysis marks them.
            p.info.starts_with("[TCP Retransmission]")
                || p.resend_key().is_some_and(|k| !sent.insert(k))
        })
        .collect()
}

fn matching<'a>(
    packets: &'a [Packet],
    addrs: &'a Addrs,
    from: Side,
    what: &'a str,
) -> impl Iterator<Item = &'a Packet> + 'a {
    packets
        .iter()
        .filter(move |p| p.from(addrs) == Some(from) && glob_match(what, &p.what))
}

fn other(s: Side) -> Side {
    match s {
        Side::Server => Side::Client,
        Side::Client => Side::Server,
    }
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Server => "server",
        Side::Client => "client",
    }
}

/// Every way `packets` fall short of `facts`; empty means they hold.
pub fn check(facts: &[PacketFact], packets: &[Packet], addrs: &Addrs) -> Vec<String> {
    let mut failures = Vec::new();
    for fact in facts {
        failures.extend(match *fact {
            PacketFact::Count { from, what, n, len } => {
                wire_count(packets, addrs, from, what, n, len)
            }
            PacketFact::Carries { from, what, text } => {
                wire_carries(packets, addrs, from, what, text)
            }
            PacketFact::Qps { from, what, n } => wire_qps(packets, addrs, from, what, n),
            PacketFact::InOrder(steps) => wire_in_order(packets, addrs, steps),
            PacketFact::TargetsAdvertised {
                what,
                by,
                msg_len,
                addr_at,
                rkey_at,
            } => wire_targets_advertised(packets, addrs, what, by, msg_len, addr_at, rkey_at),
            PacketFact::PrivateData { from, what, begins } => {
                wire_private_data(packets, addrs, from, what, begins)
            }
            PacketFact::To { from, what, addr } => wire_to(packets, addrs, from, what, addr),
            PacketFact::ToFirstConnection { from, what } => {
                wire_to_first_connection(packets, addrs, from, what)
            }
            PacketFact::Joins { from, group } => wire_joins(packets, addrs, from, group),
            PacketFact::Aeth { from, says, n } => wire_aeth(packets, addrs, from, says, n),
            PacketFact::Resent { from, what, n } => wire_resent(packets, addrs, from, what, n),
        });
    }
    failures
}

/// The failures of [`PacketFact::Count`]: `n` messages `what` from `from`, each
/// `len` bytes if it says.
fn wire_count(
    packets: &[Packet],
    addrs: &Addrs,
    from: Side,
    what: &str,
    n: usize,
    len: Option<usize>,
) -> Vec<String> {
    let mut failures = Vec::new();
    // Retransmissions (Soft-RoCE under emulation has its share)
    // are the same message again: counted once.
    let all: Vec<&Packet> = matching(packets, addrs, from, what).collect();
    let got: Vec<&Packet> = all
        .iter()
        .zip(resent(&all))
        .filter(|(_, again)| !again)
        .map(|(p, _)| *p)
        .collect();
    if got.len() != n {
        failures.push(format!(
            "wire: {n} `{what}` from the {} expected, {} seen",
            side_name(from),
            got.len()
        ));
    }
    if let Some(len) = len {
        if let Some(p) = got.iter().find(|p| p.message_len() != len) {
            failures.push(format!(
                "wire: `{what}` from the {} should carry {len} bytes, frame {} carries {}",
                side_name(from),
                p.frame,
                p.message_len()
            ));
        }
    }
    failures
}

/// The failure of [`PacketFact::Carries`]: no `what` from `from` carries `text`.
fn wire_carries(
    packets: &[Packet],
    addrs: &Addrs,
    from: Side,
    what: &str,
    text: &str,
) -> Vec<String> {
    let found = matching(packets, addrs, from, what).any(|p| {
        p.payload
            .windows(text.len().max(1))
            .any(|w| w == text.as_bytes())
    });
    let mut failures = Vec::new();
    if !found {
        failures.push(format!(
            "wire: no `{what}` from the {} carries {text:?}",
            side_name(from)
        ));
    }
    failures
}

/// The failure of [`PacketFact::Qps`]: `what` from `from` goes to other than `n`
/// destination QPs.
fn wire_qps(packets: &[Packet], addrs: &Addrs, from: Side, what: &str, n: usize) -> Vec<String> {
    let mut qps: Vec<u32> = matching(packets, addrs, from, what)
        .filter_map(|p| p.dest_qp)
        .collect();
    qps.sort_unstable();
    qps.dedup();
    let mut failures = Vec::new();
    if qps.len() != n {
        failures.push(format!(
            "wire: `{what}` from the {} should go to {n} destination QP(s), went to {}",
            side_name(from),
            qps.len()
        ));
    }
    failures
}

/// The failure of [`PacketFact::InOrder`]: the first of `steps` missing after
/// those before it.
fn wire_in_order(packets: &[Packet], addrs: &Addrs, steps: &[(Side, &str)]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut rest = packets.iter();
    for (from, what) in steps {
        if !rest
            .by_ref()
            .any(|p| p.from(addrs) == Some(*from) && glob_match(what, &p.what))
        {
            failures.push(format!(
                "wire: `{what}` from the {} missing, or out of order",
                side_name(*from)
            ));
            break;
        }
    }
    failures
}

/// The failures of [`PacketFact::TargetsAdvertised`]: each `what` with a RETH
/// must target the address and rkey that `by` sent on the side channel.
fn wire_targets_advertised(
    packets: &[Packet],
    addrs: &Addrs,
    what: &[&str],
    by: Side,
    msg_len: usize,
    addr_at: usize,
    rkey_at: usize,
) -> Vec<String> {
    let (addr, rkey) = match advertised(packets, addrs, by, msg_len, addr_at, rkey_at) {
        Ok(target) => target,
        Err(failure) => return vec![failure],
    };
    let mut failures = Vec::new();
    for w in what {
        let targets: Vec<&Packet> = packets
            .iter()
            .filter(|p| glob_match(w, &p.what) && p.reth.is_some())
            .collect();
        if targets.is_empty() {
            failures.push(format!("wire: no `{w}` with a RETH"));
        }
        for p in targets {
            let r = p.reth.expect("filtered");
            if (r.va, r.rkey) != (addr, rkey) {
                failures.push(format!(
                    "wire: `{w}` (frame {}) targets 0x{:x} rkey 0x{:x}; the {} sent 0x{addr:x} rkey 0x{rkey:x}",
                    p.frame,
                    r.va,
                    r.rkey,
                    side_name(by)
                ));
            }
        }
    }
    failures
}

/// The address and rkey that `by` advertised: in its first `msg_len`-byte
/// side-channel message, at `addr_at` and `rkey_at`; else the failure.
fn advertised(
    packets: &[Packet],
    addrs: &Addrs,
    by: Side,
    msg_len: usize,
    addr_at: usize,
    rkey_at: usize,
) -> Result<(u64, u32), String> {
    let advert = packets.iter().find(|p| {
        matches!(p.kind, Kind::Tcp { .. })
            && p.from(addrs) == Some(by)
            && p.payload.len() == msg_len
    });
    let Some(advert) = advert else {
        return Err(format!(
            "wire: no {msg_len}-byte side-channel message from the {}",
            side_name(by)
        ));
    };
    let b = &advert.payload;
    let field = |at: usize, n: usize| {
        b.get(at..at + n)
            .map(|f| f.iter().fold(0u64, |v, x| v << 8 | u64::from(*x)))
    };
    let (Some(addr), Some(rkey)) = (field(addr_at, 8), field(rkey_at, 4)) else {
        return Err(format!(
            "wire: the {msg_len}-byte message has no 8-byte address at {addr_at} and 4-byte rkey at {rkey_at}"
        ));
    };
    Ok((addr, rkey as u32))
}

/// The failure of [`PacketFact::PrivateData`]: the first `what` from `from`
/// missing, or its private data not beginning with `begins`.
fn wire_private_data(
    packets: &[Packet],
    addrs: &Addrs,
    from: Side,
    what: &str,
    begins: &[u8],
) -> Vec<String> {
    let mut failures = Vec::new();
    match matching(packets, addrs, from, what).next() {
        None => failures.push(format!("wire: no `{what}` from the {}", side_name(from))),
        Some(p) if !p.payload.starts_with(begins) => failures.push(format!(
            "wire: `{what}` private data should begin {begins:02x?}, begins {:02x?}",
            &p.payload[..p.payload.len().min(begins.len())]
        )),
        Some(_) => {}
    }
    failures
}

/// The failures of [`PacketFact::To`]: `what` from `from` seen, and all of it
/// sent to `addr`.
fn wire_to(packets: &[Packet], addrs: &Addrs, from: Side, what: &str, addr: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let got: Vec<&Packet> = matching(packets, addrs, from, what).collect();
    if got.is_empty() {
        failures.push(format!("wire: no `{what}` from the {}", side_name(from)));
    }
    if let Some(p) = got.iter().find(|p| p.dst != addr) {
        failures.push(format!(
            "wire: `{what}` (frame {}) went to {}, not {addr}",
            p.frame, p.dst
        ));
    }
    failures
}

/// The failures of [`PacketFact::ToFirstConnection`]: `what` from `from` seen,
/// and all of it sent to the QP of the other side's first ConnectRequest.
fn wire_to_first_connection(
    packets: &[Packet],
    addrs: &Addrs,
    from: Side,
    what: &str,
) -> Vec<String> {
    let first = packets.iter().find_map(|p| {
        (p.what == "CM ConnectRequest" && p.from(addrs) != Some(from))
            .then_some(p.local_qpn)
            .flatten()
    });
    let Some(qp) = first else {
        return vec![format!(
            "wire: no ConnectRequest from the {} names a QP",
            side_name(other(from))
        )];
    };
    let mut failures = Vec::new();
    let got: Vec<&Packet> = matching(packets, addrs, from, what).collect();
    if got.is_empty() {
        failures.push(format!("wire: no `{what}` from the {}", side_name(from)));
    }
    if let Some(p) = got.iter().find(|p| p.dest_qp != Some(qp)) {
        failures.push(format!(
            "wire: `{what}` (frame {}) went to QP {:#x}, not to the first connection's QP {qp:#x}",
            p.frame,
            p.dest_qp.unwrap_or(0)
        ));
    }
    failures
}

/// The failure of [`PacketFact::Aeth`]: not exactly `n` AETHs from `from` say
/// `says`.
fn wire_aeth(packets: &[Packet], addrs: &Addrs, from: Side, says: &str, n: usize) -> Vec<String> {
    let got = packets
        .iter()
        .filter(|p| p.from(addrs) == Some(from))
        .filter_map(|p| p.headers.iter().find_map(|h| h.strip_prefix("AETH: ")))
        .filter(|aeth| glob_match(says, aeth.split(", MSN").next().unwrap_or(aeth)))
        .count();
    if got == n {
        Vec::new()
    } else {
        vec![format!(
            "wire: the {} sent {got} AETH(s) saying `{says}`, expected {n}",
            side_name(from)
        )]
    }
}

/// The failure of [`PacketFact::Resent`]: fewer than `n` of `from`'s packets
/// named `what` went again.
fn wire_resent(packets: &[Packet], addrs: &Addrs, from: Side, what: &str, n: usize) -> Vec<String> {
    let all: Vec<&Packet> = packets.iter().collect();
    let again = resent(&all)
        .iter()
        .zip(&all)
        .filter(|(r, p)| **r && p.from(addrs) == Some(from) && glob_match(what, &p.what))
        .count();
    if again >= n {
        Vec::new()
    } else {
        vec![format!(
            "wire: the {} sent {again} of its `{what}` again, expected at least {n}",
            side_name(from)
        )]
    }
}

/// The failure of [`PacketFact::Joins`]: `from` never reported joining `group`.
fn wire_joins(packets: &[Packet], addrs: &Addrs, from: Side, group: &str) -> Vec<String> {
    let joined = packets.iter().any(|p| {
        p.kind == Kind::Igmp
            && p.from(addrs) == Some(from)
            && p.group.as_deref() == Some(group)
            && p.info.contains("Join")
    });
    let mut failures = Vec::new();
    if !joined {
        failures.push(format!(
            "wire: the {} never reported joining {group} (IGMP)",
            side_name(from)
        ));
    }
    failures
}
