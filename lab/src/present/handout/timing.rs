//! How long a lab takes a student, estimated from its student's edition
//! as printed: its prose at a technical reader's pace, and a time for each
//! packet ladder, exercise and question. A lab longer than one sitting is
//! split: its first chapter (with the primer) in class, the rest as
//! homework.

// The rates are a newcomer's, not an expert's: a reader who worked lab 1
// from its student's edition put it at three and a half to four hours,
// an exercise at 10 to 20 minutes and a question at 5 to 8 written by
// hand, where these rates' forerunners (120 words, 12 and 4 minutes)
// said three.

/// Words a minute of technical prose, read to be understood by a
/// newcomer to RDMA.
pub const READ_WPM: usize = 100;
/// Minutes to follow one packet ladder with its table.
pub const LADDER_MIN: usize = 10;
/// Minutes for one exercise: the prediction, the check and its reading.
pub const EXERCISE_MIN: usize = 15;
/// Minutes for one "check yourself" question, its answer written by hand.
pub const QUESTION_MIN: usize = 6;
/// One sitting: a lab estimated longer is split.
pub const SESSION_MIN: usize = 130;

/// What a part of a student's edition asks of its reader.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Estimate {
    /// Words of prose: not code, transcripts, ladders or header tables.
    pub words: usize,
    /// Packet ladders.
    pub ladders: usize,
    /// Exercises.
    pub exercises: usize,
    /// "Check yourself" questions.
    pub questions: usize,
}

impl Estimate {
    /// What `html` (a part of a student's edition) asks.
    pub fn of(html: &str) -> Estimate {
        let mut prose = html.to_string();
        for (open, close) in [
            ("<style", "</style>"),
            ("<svg", "</svg>"),
            ("<pre", "</pre>"),
            ("<table class=\"anatomy\"", "</table>"),
        ] {
            prose = without(&prose, open, close);
        }
        Estimate {
            // A tag ends a word: `</td><td>` parts two.
            words: super::plain_text(&prose.replace('<', " <"))
                .split_whitespace()
                .count(),
            ladders: html.matches("<div class=\"wire\">").count(),
            exercises: html.matches("<div class=\"exercise\">").count(),
            questions: html.matches("<div class=\"room\">").count(),
        }
    }

    /// Its minutes.
    pub fn minutes(&self) -> usize {
        self.words.div_ceil(READ_WPM)
            + self.ladders * LADDER_MIN
            + self.exercises * EXERCISE_MIN
            + self.questions * QUESTION_MIN
    }

    /// Both together.
    pub fn plus(self, o: Estimate) -> Estimate {
        Estimate {
            words: self.words + o.words,
            ladders: self.ladders + o.ladders,
            exercises: self.exercises + o.exercises,
            questions: self.questions + o.questions,
        }
    }
}

/// `html` without each element from `open` to its `close`.
fn without(html: &str, open: &str, close: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(a) = rest.find(open) {
        out += &rest[..a];
        rest = rest[a..]
            .find(close)
            .map_or("", |b| &rest[a + b + close.len()..]);
    }
    out + rest
}

/// `minutes` to the nearest quarter hour, in minutes.
fn to_quarter(minutes: usize) -> usize {
    (minutes + 7) / 15 * 15
}

/// `minutes` in words: "about an hour and a half", to the quarter hour.
pub fn duration(minutes: usize) -> String {
    let quarters = to_quarter(minutes) / 15;
    let (hours, q) = (quarters / 4, quarters % 4);
    let h = match hours {
        0 => String::new(),
        1 => "an hour".to_string(),
        n => format!("{n} hours"),
    };
    let part = ["", "a quarter", "a half", "three quarters"][q];
    match (hours, q) {
        (0, 0) => "a few minutes".to_string(),
        (0, _) => format!("{} minutes", quarters * 15),
        (_, 0) => h,
        _ => format!("{h} and {part}"),
    }
}

/// A lab's time as its front page says it: the estimate with how it was
/// made, and where it is longer than one sitting, the split. `first` is
/// its first chapter's estimate (with the primer's and the front's),
/// `rest` the other chapters'.
pub fn time_text(first: Estimate, rest: Estimate) -> String {
    let all = first.plus(rest);
    let how = format!(
        "estimated from this edition: its prose at {READ_WPM} words a minute ({} words), \
         {LADDER_MIN} minutes a packet ladder, {EXERCISE_MIN} an exercise, {QUESTION_MIN} a \
         \"check yourself\" question",
        all.words
    );
    let split = all.minutes() > SESSION_MIN && rest != Estimate::default();
    // A split's parts, each to the quarter hour, add up to the whole.
    let whole = if split {
        to_quarter(first.minutes()) + to_quarter(rest.minutes())
    } else {
        all.minutes()
    };
    let mut text = format!("About {} ({how})", duration(whole));
    if split {
        text += &format!(
            ". For one sitting: up to the first chapter's end in class (about {}), the rest as \
             homework (about {})",
            duration(first.minutes()),
            duration(rest.minutes())
        );
    }
    text
}

#[cfg(test)]
mod tests;
