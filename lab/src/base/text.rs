//! Text from programs and peers made safe for a terminal.
//!
//! The lab prints what the example programs wrote, and a program prints
//! what its peer sent it; the agent logs what the peer's agent said. Such
//! text may carry escape sequences that a terminal would obey (retitle the
//! window, move the cursor, rewrite the screen), on root's terminal.

use std::fmt::Write as _;

/// `s` with every control character but `\n` and `\t` shown escaped and
/// visible: C0 and DEL as `\x1b`, C1 as `\u{9b}`. The rest is unchanged.
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            // C0 and DEL: a byte of their own.
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            // C1 (U+0080..U+009F), e.g. the one-character CSI U+009B.
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// At most the first 60 characters of a line from a peer, every control
/// character escaped: what a log or an error may show of it.
pub fn shown(line: &str) -> String {
    escaped(line, 60)
}

/// At most `max` characters of text from a peer, every control character
/// escaped, and `…` when it was longer.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_but_newline_and_tab_are_shown_escaped() {
        assert_eq!(
            escape_controls("a\tb\nc\x1b]0;owned\x07\r\x00\x7f\u{9b}2J\u{85}"),
            "a\tb\nc\\x1b]0;owned\\x07\\x0d\\x00\\x7f\\u{9b}2J\\u{85}"
        );
    }

    #[test]
    fn other_text_is_unchanged() {
        let text = "PASS rc_example: ümlaut, 日本, \\x1b as typed, ~ \u{a0} \u{100}\n";
        assert_eq!(escape_controls(text), text);
        assert_eq!(escape_controls(""), "");
    }

    #[test]
    fn every_control_character_is_escaped() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let shown = escape_controls(&c.to_string());
            let kept = c == '\n' || c == '\t' || !c.is_control();
            assert_eq!(shown == c.to_string(), kept, "{:?}", c);
            assert!(!shown
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'));
        }
    }
}
