//! Text from programs and peers made safe for a terminal.
//!
//! The lab prints what the example programs wrote, and a program prints
//! what its peer sent it; the agent logs what the peer's agent said. Such
//! text may carry escape sequences that a terminal would obey (retitle the
//! window, move the cursor, rewrite the screen), on root's terminal, and
//! Unicode's invisible format characters: a right-to-left override
//! (U+202E) or isolate (U+2066..U+2069) makes a line read other than it
//! is (a name that shows as `rc_example` and is not), a zero-width space
//! or joiner hides in a name.

use std::fmt::Write as _;

/// Unicode's format characters (general category Cf, Unicode 15.1) and
/// the line and paragraph separators: invisible, and some reorder or hide
/// the text around them.
const INVISIBLE: &[(u32, u32)] = &[
    (0x00ad, 0x00ad),
    (0x0600, 0x0605),
    (0x061c, 0x061c),
    (0x06dd, 0x06dd),
    (0x070f, 0x070f),
    (0x0890, 0x0891),
    (0x08e2, 0x08e2),
    (0x180e, 0x180e),
    (0x200b, 0x200f),
    (0x2028, 0x202e),
    (0x2060, 0x2064),
    (0x2066, 0x206f),
    (0xfeff, 0xfeff),
    (0xfff9, 0xfffb),
    (0x110bd, 0x110bd),
    (0x110cd, 0x110cd),
    (0x13430, 0x1343f),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0001, 0xe0001),
    (0xe0020, 0xe007f),
];

/// Whether `c` is a format character or a line or paragraph separator
/// ([`INVISIBLE`]).
pub fn is_invisible(c: char) -> bool {
    let c = u32::from(c);
    INVISIBLE.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// `s` with every control character but `\n` and `\t`, and every format
/// character, shown escaped and visible: C0 and DEL as `\x1b`, C1 and
/// the format characters as `\u{9b}`, `\u{202e}`. The rest is unchanged.
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            // C0 and DEL: a byte of their own.
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            // C1 (U+0080..U+009F), e.g. the one-character CSI U+009B, and
            // the direction overrides and zero-width characters.
            c if c.is_control() || is_invisible(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of text from a peer, as one line: every
/// control and format character escaped as [`escape_controls`] does, and
/// newlines and tabs too (`\n`, `\t`), so that it cannot start a line of
/// its own under another's label; `…` when it was longer. Quotes and
/// backslashes are kept as they are (unlike [`escaped`]).
pub fn one_line(text: &str, max: usize) -> String {
    let cut: String = text.chars().take(max).collect();
    let mut s = escape_controls(&cut)
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    if text.chars().nth(max).is_some() {
        s.push('…');
    }
    s
}

/// At most the first 60 characters of a line from a peer, every control
/// character escaped: what a log or an error may show of it.
pub fn shown(line: &str) -> String {
    escaped(line, 60)
}

/// At most `max` characters of text from a peer, every control and
/// format character escaped (Rust's `escape_debug`, which also escapes
/// the format characters), and `…` when it was longer.
pub fn escaped(text: &str, max: usize) -> String {
    let mut s: String = text
        .chars()
        .take(max)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().nth(max).is_some() {
        s.push('…');
    }
    s
}

/// `s` as one word of a POSIX shell: as it is when it holds only
/// characters no shell treats specially, else in single quotes.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The UTC date (`YYYY-MM-DD`) of `secs` since the Unix epoch, by the
/// proleptic Gregorian calendar (days to a civil date, as in Howard
/// Hinnant's `civil_from_days`).
pub fn date_of(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2) + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Today's UTC date, `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    date_of(secs)
}

#[cfg(test)]
mod tests;
