use super::*;

/// `pdftotext -bbox` output of pages of A4 holding `words`: each its page,
/// top, bottom and text.
fn bbox(pages: usize, words: &[(usize, f64, f64, &str)]) -> String {
    let mut out = String::from("<doc>\n");
    for p in 1..=pages {
        out += "  <page width=\"594.959960\" height=\"841.919980\">\n";
        for (_, top, bottom, text) in words.iter().filter(|w| w.0 == p) {
            out += &format!(
                "    <word xMin=\"40.0\" yMin=\"{top}\" xMax=\"48.0\" yMax=\"{bottom}\">{text}</word>\n"
            );
        }
        out += "  </page>\n";
    }
    out + "</doc>\n"
}

/// The marks go before `</body>`, with a kind for every block declared.
#[test]
fn the_marks_are_made_for_every_kind_of_block() {
    let page = marked("<html><body><p>x</p></body></html>").expect("a body");
    assert!(page.ends_with("</script>\n</body></html>"), "{page}");
    for b in &BLOCKS {
        assert!(
            page.contains(&format!("[\"{}\", \"{}\"]", b.letter, b.selector)),
            "{}",
            b.name
        );
    }
    assert_eq!(marked("<p>no body</p>"), None);
}

/// A mark is found where it printed, alone or run into a neighbour's word.
#[test]
fn marks_are_read_from_their_words() {
    let w = words(&bbox(
        2,
        &[
            (1, 700.0, 702.5, "QZT3S"),
            (2, 60.0, 62.5, "QZT3Eafter"),
            (2, 90.0, 92.5, "QZB4S"),
            (2, 190.0, 192.5, "QZB4E"),
            (2, 300.0, 310.0, "QZ"),
            (2, 300.0, 310.0, "QZq1S"),
        ],
    ));
    assert_eq!(w.heights.len(), 2);
    let m = marks(&w);
    assert_eq!(m.len(), 2, "{m:?}");
    let t = m[&('T', 3)];
    assert_eq!(t.start.map(|a| a.page), Some(1));
    assert_eq!(t.end.map(|a| (a.page, a.bottom)), Some((2, 62.5)));
}

/// A table that would fit on a page but printed across two is named, a
/// table longer than a page is not, and a writing box under 1.5 in. is.
#[test]
fn a_split_that_fits_and_a_short_box_are_named() {
    let w = words(&bbox(
        3,
        &[
            // 99 pt left on page 1, 60 on page 2: fits.
            (1, 700.0, 702.5, "QZT1S"),
            (2, 100.0, 102.5, "QZT1E"),
            // From page 1's top to page 3: longer than a page.
            (1, 50.0, 52.5, "QZP2S"),
            (3, 100.0, 102.5, "QZP2E"),
            (3, 200.0, 202.5, "QZB3S"),
            (3, 280.5, 283.0, "QZB3E"),
            (3, 400.0, 402.5, "QZB4S"),
            (3, 520.0, 522.5, "QZB4E"),
            (3, 600.0, 602.5, "QZS5S"),
        ],
    ));
    let failures = layout_failures(&w, Paper::A4);
    assert_eq!(failures.len(), 3, "{failures:#?}");
    let said = |what: &str| failures.iter().any(|f| f.contains(what));
    assert!(said(
        "a table (159 pt, less than a page's 757) splits across pages 1 and 2"
    ));
    assert!(said("a writing box on page 3 is 83 pt high"));
    assert!(said("the pair of transcripts marked S5 printed one mark"));
}

/// A word of inline code broken across lines is missing whole from the
/// PDF's words, as often as the page has it.
#[test]
fn a_word_broken_across_lines_is_named() {
    let w = words(&bbox(
        1,
        &[
            (1, 10.0, 20.0, "checks/"),
            (1, 30.0, 40.0, "lab1.sh"),
            (1, 50.0, 60.0, "--paper,"),
            (1, 70.0, 80.0, "1.3"),
            (1, 90.0, 100.0, "&apos;Q&apos;"),
            (1, 90.0, 100.0, "&lt;server-port&gt;"),
        ],
    ));
    let tokens: Vec<String> = [
        "sh",
        "checks/lab1.sh",
        "--paper",
        "--paper",
        "1.3",
        "x",
        "'Q'",
        "<server-port>",
    ]
    .map(String::from)
    .into();
    // `sh` is in `lab1.sh`: a short word may hide in a longer one.
    assert_eq!(broken_words(&tokens, &w), ["--paper", "checks/lab1.sh"]);
}

/// An option broken after its dash is named, though a longer word holds
/// its letters (`TCP-like`); one followed by a comma is whole.
#[test]
fn an_option_broken_after_its_dash_is_named() {
    let w = words(&bbox(
        1,
        &[
            (1, 10.0, 20.0, "-"),
            (1, 30.0, 40.0, "l"),
            (1, 50.0, 60.0, "TCP-like"),
            (1, 70.0, 80.0, "-c,"),
        ],
    ));
    let tokens: Vec<String> = ["-l", "-c"].map(String::from).into();
    assert_eq!(broken_words(&tokens, &w), ["-l"]);
}

/// Inline code's words, not a code block's, nor the arrows' table's.
#[test]
fn inline_code_is_what_prints_inline() {
    let html = "<p>Run <code>sh checks/lab1.sh&#39;s</code> then <code class=\"cmd\"><span>tshark</span> <span>-r x</span></code>.</p>\
                <pre><code>not inline</code></pre>\
                <table class=\"anatomy\"><tr><td><code>twice</code></td></tr></table>\
                <table><tr><td><code>cell</code></td></tr></table>";
    assert_eq!(
        inline_code_words(html),
        ["sh", "checks/lab1.sh's", "tshark", "-r", "x", "cell"]
    );
}

/// The marks go from a page's text, and nothing else does.
#[test]
fn the_marks_leave_the_text() {
    assert_eq!(
        unmarked("QZT12Sa table QZQ QZT3 QZt1E QZP7Eend"),
        "a table QZQ QZT3 QZt1E end"
    );
}

/// A page under half full is excused when the next page opens with a
/// block kept whole that its room could not hold, not when the block
/// would have fit.
#[test]
fn a_page_is_half_empty_with_cause_when_the_next_block_did_not_fit() {
    let w = words(&bbox(
        2,
        &[(2, 60.0, 62.5, "QZS1S"), (2, 480.0, 482.5, "QZS1E")],
    ));
    // Ink to 48% of 842 pt: 395 pt left above the bottom margin.
    assert!(pushed_over(&w, 1, 0.48, Paper::A4));
    assert!(!pushed_over(&w, 1, 0.40, Paper::A4));
    assert!(!pushed_over(&w, 2, 0.48, Paper::A4));
}

/// The smallest text is the lowest word, the marks aside.
#[test]
fn the_smallest_text_leaves_the_marks_out() {
    let w = words(&bbox(
        1,
        &[
            (1, 10.0, 12.5, "QZT1S"),
            (1, 20.0, 29.5, "word"),
            (1, 40.0, 47.0, "small"),
            // A piece of a mark, which poppler may cut up.
            (1, 50.0, 52.6, "S8S"),
        ],
    ));
    assert_eq!(smallest_text(&w), Some(7.0));
    assert_eq!(
        smallest_text(&words(&bbox(1, &[(1, 10.0, 12.5, "QZT1S")]))),
        None
    );
}
