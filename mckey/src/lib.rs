//! What the two multicast programs of the manual, `mckey` (7.4) and `mc`
//! (8.2), both do the same way: name resolution with `getaddrinfo`, printing
//! the group's GID as `inet_ntop(AF_INET6, ...)` does.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use common::verbs::AhAttr;

/// A signaled UD send completes as soon as it has left; a sender that waits
/// longer than this for its sends gives up (the originals waited forever).
pub const SEND_TIMEOUT: Duration = Duration::from_secs(10);
pub use common::signals::TICK;

/// The first address `getaddrinfo(name, NULL, ...)` gives, as the C programs
/// take `res->ai_addr`; when the name does not resolve, the original's
/// message with the resolver's reason after it.
pub fn get_addr(name: &str) -> Result<SocketAddr, String> {
    // Port 0: the programs resolve hosts only, and rdma_cm ignores the port of
    // a multicast address.
    let why = match (name, 0).to_socket_addrs() {
        Ok(mut addrs) => match addrs.next() {
            Some(a) => return Ok(a),
            None => "no address".to_string(),
        },
        Err(e) => e.to_string(),
    };
    Err(format!(
        "getaddrinfo failed - invalid hostname or IP address: {name} ({why})"
    ))
}

/// The destination GID of an address vector as glibc's `inet_ntop(AF_INET6)`
/// prints it (the "joined dgid" lines), e.g. `::ffff:239.255.1.1` for the
/// group of an IPv4 multicast address on RoCE, `ff12:401b:ffff::1` on IB.
pub fn dgid_text(ah_attr: &AhAttr) -> String {
    inet_ntop6(&ah_attr.grh.unwrap_or_default().dgid.0)
}

/// glibc's `inet_ntop6`: the longest run (first of equals) of two or more zero
/// groups becomes `::`, and `::a.b.c.d` / `::ffff:a.b.c.d` keep the IPv4
/// tail in dotted form. Rust's `Ipv6Addr` display differs for `::a.b.c.d`.
pub fn inet_ntop6(b: &[u8; 16]) -> String {
    let words: Vec<u16> = b
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    // (base, len) of the longest zero run.
    let mut best: Option<(usize, usize)> = None;
    let mut cur: Option<(usize, usize)> = None;
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            cur = Some(match cur {
                Some((base, len)) => (base, len + 1),
                None => (i, 1),
            });
        } else if let Some(c) = cur.take() {
            if best.is_none_or(|b| c.1 > b.1) {
                best = Some(c);
            }
        }
    }
    if let Some(c) = cur {
        if best.is_none_or(|b| c.1 > b.1) {
            best = Some(c);
        }
    }
    let best = best.filter(|b| b.1 >= 2);
    let mut out = String::new();
    let mut i = 0;
    while i < 8 {
        if let Some((base, len)) = best {
            if i >= base && i < base + len {
                if i == base {
                    out.push(':');
                }
                i += 1;
                continue;
            }
        }
        if i != 0 {
            out.push(':');
        }
        if i == 6
            && best.is_some_and(|(base, len)| {
                base == 0 && (len == 6 || (len == 5 && words[5] == 0xffff))
            })
        {
            out.push_str(&format!("{}.{}.{}.{}", b[12], b[13], b[14], b[15]));
            return out;
        }
        out.push_str(&format!("{:x}", words[i]));
        i += 1;
    }
    if best.is_some_and(|(base, len)| base + len == 8) {
        out.push(':');
    }
    out
}

#[cfg(test)]
mod tests;
