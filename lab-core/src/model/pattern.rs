//! The patterns of the expectations: `*` globs over whole lines, and the
//! address placeholders of expected lines.

use crate::model::{Addrs, SideOutcome};

/// Whole-string glob match where `*` matches any run of characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    // Greedy leftmost matching of the middle parts is enough for `*` only.
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether some line of `text` (trailing whitespace ignored) matches.
pub fn has_line(text: &str, pattern: &str) -> bool {
    text.lines().any(|l| glob_match(pattern, l.trim_end()))
}

/// `pattern` with the address placeholders filled in; `None` when it names
/// an address and none is known (a real fabric's GIDs need not carry the
/// IPv4 address, so such a line is not checked there).
pub fn expand(pattern: &str, addrs: Option<&Addrs>) -> Option<String> {
    let names_addr = |p: &str| p.contains("{server_ip") || p.contains("{client_ip");
    if !names_addr(pattern) {
        return Some(pattern.to_string());
    }
    // An IPv4-mapped GID prints the address as bytes: 192.0.2.2 is c0:00:02:02.
    let hex = |ip: &str| {
        ip.split('.')
            .map(|o| format!("{:02x}", o.parse::<u8>().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(":")
    };
    let filled = match addrs {
        Some(a) => pattern
            .replace("{server_ip_hex}", &hex(&a.server_ip))
            .replace("{client_ip_hex}", &hex(&a.client_ip))
            .replace("{server_ip}", &a.server_ip)
            .replace("{client_ip}", &a.client_ip),
        None => pattern.to_string(),
    };
    (!names_addr(&filled)).then_some(filled)
}

/// The number of lines of `text` (trailing whitespace ignored) that match.
pub fn count(text: &str, pattern: &str) -> usize {
    text.lines()
        .filter(|l| glob_match(pattern, l.trim_end()))
        .count()
}

/// A side's stdout, or "" when it did not run.
pub fn stdout_of(side: &Option<SideOutcome>) -> &str {
    side.as_ref().map_or("", |s| s.stdout.as_str())
}
