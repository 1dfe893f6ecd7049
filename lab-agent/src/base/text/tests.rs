use super::*;

#[test]
fn controls_but_newline_and_tab_are_shown_escaped() {
    assert_eq!(
        escape_controls("a\tb\nc\x1b]0;owned\x07\r\x00\x7f\u{9b}2J\u{85}"),
        "a\tb\nc\\x1b]0;owned\\x07\\x0d\\x00\\x7f\\u{9b}2J\\u{85}"
    );
}

#[test]
fn direction_overrides_and_zero_width_characters_are_escaped_everywhere() {
    let evil = "rc_\u{202e}elpmaxe\u{2066}x\u{2069}\u{200b}\u{200f}\u{feff}\u{e0041}";
    let shown = escape_controls(evil);
    assert_eq!(
        shown,
        "rc_\\u{202e}elpmaxe\\u{2066}x\\u{2069}\\u{200b}\\u{200f}\\u{feff}\\u{e0041}"
    );
    assert!(!escaped(evil, 100).chars().any(is_invisible));
    // What Rust's own escaping calls invisible, this does too.
    for c in INVISIBLE
        .iter()
        .flat_map(|&(lo, hi)| lo..=hi)
        .filter_map(char::from_u32)
    {
        assert_ne!(escape_controls(&c.to_string()), c.to_string(), "{c:?}");
        assert_ne!(escaped(&c.to_string(), 5), c.to_string(), "{c:?}");
    }
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
        let kept = c == '\n' || c == '\t' || !(c.is_control() || is_invisible(c));
        assert_eq!(shown == c.to_string(), kept, "{:?}", c);
        assert!(!shown
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'));
    }
}

#[test]
fn a_date_is_the_civil_date_of_its_day() {
    assert_eq!(date_of(0), "1970-01-01");
    assert_eq!(date_of(951_782_400), "2000-02-29");
    assert_eq!(date_of(1_795_866_088), "2026-11-28");
    assert_eq!(date_of(86_399), "1970-01-01");
}

#[test]
fn one_line_keeps_a_peers_text_on_its_line() {
    assert_eq!(
        one_line("it's \"odd\"\nserver host: forged\r\x1b[2J\tx", 100),
        "it's \"odd\"\\nserver host: forged\\x0d\\x1b[2J\\tx"
    );
    assert_eq!(one_line("abcdef", 3), "abc…");
    assert!(!one_line(&"\n\u{85}\u{2028}".repeat(9), 20)
        .chars()
        .any(|c| c.is_control() || is_invisible(c)));
}
