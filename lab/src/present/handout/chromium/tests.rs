use super::super::tests::{rendered, teacher};
use super::*;

#[test]
fn a_stranded_heading_and_small_ladder_text_are_found() {
    let heads = headings(
        "<h3 id=\"x\">On the wire</h3><h4>Exercise 1.1</h4><h2>rc_example: <code>a</code></h2>",
    );
    assert_eq!(heads, ["rc_example: a", "On the wire", "Exercise 1.1"]);
    let page = "text of the page\n\n   On the wire\n\n\u{c}";
    assert_eq!(
        ends_with_heading(page, &heads).as_deref(),
        Some("On the wire")
    );
    assert_eq!(ends_with_heading("On the wire\nthe figure\n", &heads), None);
    let bbox = "<word xMin=\"10\" yMin=\"100.0\" xMax=\"40\" yMax=\"109.5\">time,</word>\n\
                <word xMin=\"42\" yMin=\"100.0\" xMax=\"80\" yMax=\"109.5\">frames</word>\n\
                <word xMin=\"10\" yMin=\"300.0\" xMax=\"40\" yMax=\"306.0\">time,</word>\n\
                <word xMin=\"42\" yMin=\"300.0\" xMax=\"80\" yMax=\"306.0\">frames</word>\n";
    assert_eq!(smallest_ladder_text(&layout::words(bbox)), Some(6.0));
    assert_eq!(
        smallest_ladder_text(&layout::words("<word>frames</word>")),
        None
    );
}

/// A page's fill is how far down its ink goes.
#[test]
fn a_page_fill_is_read_from_its_pixels() {
    let (w, h) = (4, 10);
    let mut pgm = format!("P5\n{w} {h}\n255\n").into_bytes();
    let mut px = vec![255u8; w * h];
    px[3 * w + 1] = 0;
    pgm.extend(&px);
    assert_eq!(page_fill(&pgm), Some(0.4));
    px[9 * w] = 10;
    let mut full = format!("P5\n{w} {h}\n255\n").into_bytes();
    full.extend(&px);
    assert_eq!(page_fill(&full), Some(1.0));
    assert_eq!(page_fill(b"P6 1 1 255 x"), None);
}

/// The check that finds an answer in a student's PDF: each answer's
/// opening words, found in the text whatever its line breaks; none is in
/// the student's edition, every one in the teacher's.
#[test]
fn an_answer_in_the_students_text_is_found() {
    let openings = answer_openings();
    assert!(openings.len() >= 20, "{}", openings.len());
    assert_eq!(
        opening("<p>A payload is <code>padded</code> to a multiple of 4 bytes, and more</p>"),
        "A payload is padded to a multiple of"
    );
    let text = "blah A payload is padded to a\nmultiple of 4 bytes.\n";
    let want = vec!["A payload is padded to a multiple of".to_string()];
    assert_eq!(leaked(text, &want), want);
    assert!(leaked("A payload is padded", &want).is_empty());
    let student = plain_text(&rendered());
    assert_eq!(leaked(&student, &openings), Vec::<String>::new());
    let teacher = plain_text(&teacher());
    assert_eq!(leaked(&teacher, &openings).len(), openings.len());
}

/// The files a handout points its reader to, for the check that each is
/// beside it.
#[test]
fn the_files_a_handout_names_are_found() {
    let h = "see <a href=\"pcaps/rc_example.pcap\">x</a>; in `transcripts/rc_example_rnr_nak.hostB.txt`. and pcaps/ alone, run `standins/rc_example_peer.py`";
    assert_eq!(
        supplied(h),
        [
            "pcaps/rc_example.pcap",
            "transcripts/rc_example_rnr_nak.hostB.txt",
            "standins/rc_example_peer.py"
        ]
    );
    // What the exercises name is written beside the handout.
    let out = tempfile::tempdir().unwrap();
    write_standins(out.path()).unwrap();
    assert!(out.path().join("standins/rc_example_peer.py").is_file());
    let names = supplied(&rendered());
    assert!(
        names.contains(&"pcaps/rc_example.pcap".to_string()),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.starts_with("transcripts/")),
        "{names:?}"
    );
}
