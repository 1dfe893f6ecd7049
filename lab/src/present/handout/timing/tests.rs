use super::*;

/// Prose is counted without code, transcripts, ladders or header tables;
/// ladders, exercises and questions by their boxes.
#[test]
fn an_estimate_counts_prose_and_what_is_asked() {
    let html = "<p>one two three</p><pre>not prose at all</pre><svg><text>no</text></svg>\
                <table class=\"anatomy\"><tr><td>no no</td></tr></table>\
                <div class=\"wire\"></div><div class=\"exercise\"><p>four</p></div>\
                <div class=\"room\"></div><div class=\"room\"></div>";
    let e = Estimate::of(html);
    assert_eq!(
        e,
        Estimate {
            words: 4,
            ladders: 1,
            exercises: 1,
            questions: 2
        }
    );
    assert_eq!(
        e.minutes(),
        1 + LADDER_MIN + EXERCISE_MIN + 2 * QUESTION_MIN
    );
}

/// Minutes said to the quarter hour.
#[test]
fn a_duration_reads_as_said() {
    assert_eq!(duration(60), "an hour");
    assert_eq!(duration(95), "an hour and a half");
    assert_eq!(duration(179), "3 hours");
    assert_eq!(duration(140), "2 hours and a quarter");
    assert_eq!(duration(40), "45 minutes");
}

/// A lab longer than a sitting is split, and says how it was estimated;
/// a short one is not.
#[test]
fn a_long_lab_is_split_and_says_how_it_was_estimated() {
    let ch = |words, exercises, questions| Estimate {
        words,
        ladders: 1,
        exercises,
        questions,
    };
    let long = time_text(ch(5000, 3, 5), ch(1800, 2, 5));
    assert!(long.starts_with("About 3 hours and three quarters (estimated from this edition: its prose at 100 words a minute (6800 words)"), "{long}");
    assert!(
        long.contains("in class (about 2 hours and a quarter)"),
        "{long}"
    );
    assert!(
        long.contains("homework (about an hour and a half)"),
        "{long}"
    );
    let short = time_text(ch(2000, 1, 5), ch(300, 0, 0));
    assert!(!short.contains("homework"), "{short}");
}

/// A split lab's parts, each said to the quarter hour, add up to the
/// whole it states: 67 minutes and 67 read as an hour each, so the lab
/// reads as 2 hours, not the 134 minutes' 2 hours and a quarter.
#[test]
fn a_split_adds_up_to_the_whole() {
    let part = Estimate {
        words: 1500,
        ladders: 1,
        exercises: 2,
        questions: 2,
    };
    assert_eq!(part.minutes(), 67);
    let text = time_text(part, part);
    assert!(text.starts_with("About 2 hours ("), "{text}");
    assert!(text.contains("in class (about an hour)"), "{text}");
    assert!(text.contains("homework (about an hour)"), "{text}");
}
