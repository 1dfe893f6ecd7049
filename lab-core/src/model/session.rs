//! The lab's session line as it crosses the wire: `MAC BODY`, a MAC of
//! [`MAC_HEX`] hex digits, a space, the body; at most [`LINE_MAX`] bytes.
//! The agents write and check it (`guest::control`, which holds the key);
//! a capture reads its bodies without the key (`capture`).

/// The longest line of a session but a result file's: the scenario list,
/// the doctor's findings, the protocol's steps.
pub const LINE_MAX: usize = 64 * 1024;

/// A line's MAC is this many hex digits, then a space, then the body.
pub const MAC_HEX: usize = 64;

/// The body of a session line as a capture shows it (`MAC BODY`), for
/// whoever reads the control stream without the key.
pub fn body_of(line: &str) -> &str {
    match split_mac(line) {
        Some((mac, body)) if mac.bytes().all(|b| b.is_ascii_hexdigit()) => body,
        _ => line,
    }
}

/// `MAC BODY` split at the space after the MAC's hex digits.
pub fn split_mac(line: &str) -> Option<(&str, &str)> {
    let mac = line.get(..MAC_HEX)?;
    let body = line.get(MAC_HEX..)?.strip_prefix(' ')?;
    Some((mac, body))
}

#[cfg(test)]
mod tests;
