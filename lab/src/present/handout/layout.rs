//! The print's layout as Chromium made it, read back from the PDF: no
//! block split across pages that would fit on one, every writing box at
//! its height, no word of a command broken across lines.
//!
//! A copy of the page is printed with a script that marks each block's
//! top and bottom with a word in white 3 px text, placed absolutely so
//! that it moves nothing; poppler's `pdftotext -bbox` then gives each
//! mark's page and height. The marked copy is only checked, never handed
//! out.

use super::Paper;
use std::collections::BTreeMap;

/// A kind of block that must not split across pages when it fits on one:
/// its letter in the marks, the CSS selector of its elements, and its name
/// in a failure.
pub struct Block {
    /// The letter its marks carry (`QZ<letter><n>S`, `...E`).
    pub letter: char,
    /// The elements of this kind, as a CSS selector.
    pub selector: &'static str,
    /// What a failure calls it.
    pub name: &'static str,
}

/// The blocks that must not split across pages when they fit on one. A
/// table of every arrow's headers (`table.anatomy`) may: its rows go on
/// with their header repeated.
pub const BLOCKS: [Block; 7] = [
    Block {
        letter: 'T',
        selector: "table:not(.anatomy)",
        name: "table",
    },
    Block {
        letter: 'S',
        selector: ".sides",
        name: "pair of transcripts",
    },
    Block {
        letter: 'P',
        selector: "pre",
        name: "transcript or code block",
    },
    Block {
        letter: 'B',
        selector: ".prediction, .room",
        name: "writing box",
    },
    Block {
        letter: 'O',
        selector: ".observed",
        name: "\"What you saw\" box",
    },
    Block {
        letter: 'F',
        selector: "figure",
        name: "ladder",
    },
    Block {
        letter: 'A',
        selector: "aside",
        name: "boxed note",
    },
];

/// The least height of a writing box (`.prediction`, `.room`): 1.5 in.,
/// in points.
pub const BOX_LEAST_PT: f64 = 108.0;

/// `html` with the marking script and its style before `</body>`.
pub fn marked(html: &str) -> Option<String> {
    let kinds: Vec<String> = BLOCKS
        .iter()
        .map(|b| format!("[\"{}\", \"{}\"]", b.letter, b.selector))
        .collect();
    let script = MARK_SCRIPT.replace("KINDS", &kinds.join(", "));
    let at = html.rfind("</body>")?;
    Some(format!(
        "{}<style>{MARK_STYLE}</style>\n<script>{script}</script>\n{}",
        &html[..at],
        &html[at..]
    ))
}

/// The marks' look: white, tiny, out of the flow.
const MARK_STYLE: &str =
    ".qzmk { position: absolute; left: 0; font-size: 3px; line-height: 1; color: #fff; white-space: nowrap; }";

/// Marks each block of each kind (`KINDS`: letter and selector) at its top
/// and bottom, numbered in document order within a kind's pass.
const MARK_SCRIPT: &str = r#"
(function () {
  var n = 0;
  function mark(el, text, edge) {
    var s = document.createElement("span");
    s.className = "qzmk";
    s.textContent = text;
    s.style[edge] = "0";
    el.appendChild(s);
  }
  [KINDS].forEach(function (kind) {
    document.querySelectorAll(kind[1]).forEach(function (el) {
      n += 1;
      el.style.position = "relative";
      mark(el, "QZ" + kind[0] + n + "S", "top");
      mark(el, "QZ" + kind[0] + n + "E", "bottom");
    });
  });
})();
"#;

/// Where a mark printed: its page (from 1) and its top and bottom, in
/// points from the page's top.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct At {
    /// The page, from 1.
    pub page: usize,
    /// Its top.
    pub top: f64,
    /// Its bottom.
    pub bottom: f64,
}

/// A block's top and bottom marks, as printed (a block not printed, as
/// the screen's copy of a table, has neither).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Marks {
    /// Its top.
    pub start: Option<At>,
    /// Its bottom.
    pub end: Option<At>,
}

/// A PDF's words as `pdftotext -bbox` gives them: each page's height, and
/// each word's text with where it printed.
#[derive(Debug, Default)]
pub struct Words {
    /// Each page's height, in points.
    pub heights: Vec<f64>,
    /// Each word's text and place.
    pub words: Vec<(String, At)>,
}

/// Reads `pdftotext -bbox` output.
pub fn words(bbox: &str) -> Words {
    let mut w = Words::default();
    for line in bbox.lines().map(str::trim) {
        if line.starts_with("<page ") {
            w.heights.push(attr(line, "height").unwrap_or(0.0));
        } else if line.starts_with("<word ") {
            let text = line.split('>').nth(1).and_then(|r| r.split('<').next());
            if let (Some(text), Some(top), Some(bottom)) =
                (text, attr(line, "yMin"), attr(line, "yMax"))
            {
                let page = w.heights.len();
                w.words.push((xml_text(text), At { page, top, bottom }));
            }
        }
    }
    w
}

/// The text of an XML text node: its five entities read.
fn xml_text(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The number in attribute `name="..."` of a line of `pdftotext -bbox`.
fn attr(line: &str, name: &str) -> Option<f64> {
    let at = line.find(&format!(" {name}=\""))? + name.len() + 3;
    line[at..].split('"').next()?.parse().ok()
}

/// Each marked block's marks, by its letter and number. A mark may print
/// in one word with its neighbour, so each word is searched.
pub fn marks(words: &Words) -> BTreeMap<(char, usize), Marks> {
    let mut found: BTreeMap<(char, usize), Marks> = BTreeMap::new();
    for (text, at) in &words.words {
        let mut rest = text.as_str();
        while let Some(i) = rest.find("QZ") {
            rest = &rest[i..];
            let len = mark_len(rest);
            if len == 0 {
                rest = &rest[2..];
                continue;
            }
            let (letter, n, edge) = (
                rest.as_bytes()[2],
                &rest[3..len - 1],
                rest.as_bytes()[len - 1],
            );
            if let Ok(n) = n.parse::<usize>() {
                let m = found.entry((char::from(letter), n)).or_default();
                if edge == b'S' {
                    m.start = Some(*at);
                } else {
                    m.end = Some(*at);
                }
            }
            rest = &rest[len..];
        }
    }
    found
}

/// `text` (of the marked PDF) without the marks.
pub fn unmarked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("QZ") {
        let len = mark_len(&rest[i..]);
        // Not a mark: keep its `QZ` and look on after it.
        let kept = if len == 0 { i + 2 } else { i };
        out.push_str(&rest[..kept]);
        rest = &rest[i + len.max(2)..];
    }
    out + rest
}

/// The length of the mark `text` starts with (`QZ`, a letter, digits, `S`
/// or `E`), or 0.
fn mark_len(text: &str) -> usize {
    let b = text.as_bytes();
    if b.len() < 5 || !b.starts_with(b"QZ") || !b[2].is_ascii_uppercase() {
        return 0;
    }
    let digits = b[3..].iter().take_while(|c| c.is_ascii_digit()).count();
    match b.get(3 + digits) {
        Some(b'S' | b'E') if digits > 0 => 4 + digits,
        _ => 0,
    }
}

/// Whether page `n`, `fill` of its height inked, is under half full with
/// cause: what opens the next page, down to the end of its first block
/// kept whole, is taller than the room left on page `n`.
pub fn pushed_over(words: &Words, n: usize, fill: f64, paper: Paper) -> bool {
    let (margin, _) = paper.margins_pt();
    let Some(height) = words.heights.get(n.wrapping_sub(1)) else {
        return false;
    };
    let room = height * (1.0 - fill) - margin;
    marks(words)
        .values()
        .filter_map(|m| Some((m.start?, m.end?)))
        .filter(|(s, e)| s.page == n + 1 && e.page == n + 1)
        .min_by(|a, b| a.0.top.total_cmp(&b.0.top))
        .is_some_and(|(_, e)| e.bottom - margin > room)
}

/// Every block that printed across pages though it fits on one (its
/// height, across the pages, less than a page's room between `paper`'s
/// margins), and every writing box under [`BOX_LEAST_PT`].
pub fn layout_failures(words: &Words, paper: Paper) -> Vec<String> {
    let (top, _) = paper.margins_pt();
    let bottom = top;
    let mut failures = Vec::new();
    for ((letter, n), m) in marks(words) {
        let Some(block) = BLOCKS.iter().find(|b| b.letter == letter) else {
            continue;
        };
        let (Some(s), Some(e)) = (m.start, m.end) else {
            failures.push(format!(
                "the {} marked {letter}{n} printed one mark",
                block.name
            ));
            continue;
        };
        let height_of = |page: usize| words.heights.get(page.wrapping_sub(1)).copied();
        let (Some(first), Some(last)) = (height_of(s.page), height_of(e.page)) else {
            continue;
        };
        let room = first - top - bottom;
        if e.page > s.page {
            let middle = (e.page - s.page - 1) as f64 * (last - top - bottom);
            let height = (first - bottom - s.top) + middle + (e.bottom - top);
            if height < room {
                failures.push(format!(
                    "a {} ({:.0} pt, less than a page's {room:.0}) splits across pages {} and {}",
                    block.name, height, s.page, e.page
                ));
            }
        } else if letter == 'B' && e.bottom - s.top < BOX_LEAST_PT {
            failures.push(format!(
                "a writing box on page {} is {:.0} pt high, under {BOX_LEAST_PT:.0} (1.5 in.)",
                s.page,
                e.bottom - s.top
            ));
        }
    }
    failures
}

/// The least height a printed word may have, in points: the ladders'
/// notes' size, the smallest type the handout sets.
pub const TEXT_LEAST_PT: f64 = 8.0;

/// The height of a mark's word (3 px type), in points, with room: a word
/// no higher is a mark or a piece of one (where two marks print at one
/// place, as a block's and its first child's, poppler may cut them up).
pub const MARK_PT: f64 = 3.0;

/// The smallest height of a printed word, the marks left out: what the
/// smallest type comes to on paper.
pub fn smallest_text(words: &Words) -> Option<f64> {
    words
        .words
        .iter()
        .filter(|(w, _)| !unmarked(w).trim().is_empty())
        .map(|(_, at)| at.bottom - at.top)
        .filter(|h| *h > MARK_PT)
        .reduce(f64::min)
}

/// The words of inline code (each of `tokens`, as often as it is there)
/// that the PDF does not hold whole in a word of a line: each broken
/// across two lines.
pub fn broken_words(tokens: &[String], words: &Words) -> Vec<String> {
    let mut wanted: BTreeMap<&str, usize> = BTreeMap::new();
    for t in tokens.iter().filter(|t| t.chars().count() > 1) {
        *wanted.entry(t.as_str()).or_default() += 1;
    }
    wanted
        .into_iter()
        .filter(|(t, want)| {
            let whole: usize = words.words.iter().map(|(w, _)| whole_in(w, t)).sum();
            whole < *want
        })
        .map(|(t, _)| t.to_string())
        .collect()
}

/// How often `t` is in the printed word `w` as a word of its own: not
/// inside a longer run of letters, digits, `_` and `-` (`-l` is not in
/// `TCP-like`), so that another word cannot stand in for a broken one.
fn whole_in(w: &str, t: &str) -> usize {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
    w.match_indices(t)
        .filter(|(i, _)| {
            !part(w[..*i].chars().next_back()) && !part(w[i + t.len()..].chars().next())
        })
        .count()
}

/// The words of `html`'s inline code that prints: each `<code>` outside a
/// `<pre>` and outside the tables of every arrow's headers (which the
/// page holds twice, one for the screen and one for print).
pub fn inline_code_words(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in html.match_indices("<code") {
        let before = &html[..at];
        let inside_pre = before.rfind("<pre") > before.rfind("</pre>");
        let inside_anatomy = before.rfind("<table class=\"anatomy\"") > before.rfind("</table>");
        let rest = &html[at..];
        let (Some(open_end), Some(close)) = (rest.find('>'), rest.find("</code>")) else {
            break;
        };
        if !inside_pre && !inside_anatomy && open_end < close {
            let text = super::plain_text(&rest[open_end + 1..close]);
            out.extend(text.split_whitespace().map(str::to_string));
        }
    }
    out
}

#[cfg(test)]
mod tests;
