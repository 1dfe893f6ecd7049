//! What would answer a question before the student's edition asks it.
//! Each question declares its give-aways (an exercise in the catalog, a
//! "check yourself" question in a comment of its README); the student's
//! edition blanks them in the run it shows, and is refused where its text
//! before a question, or a stand-in the student is sent to, holds one.

use super::*;
use crate::capture::ladder::Rung;

/// A README question's give-aways: a comment on the line after it,
/// `<!-- gives away: A | B -->`, that the handout takes out of its text.
pub const MARKER: &str = "<!-- gives away:";

/// What stands in the student's edition for a value or words it blanks.
pub const BLANK: &str = "___";

/// A question of the student's edition and what would give it away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// Its chapter's package.
    pub package: String,
    /// How the page names it: `Exercise 1.1`, `Check yourself 1.2`.
    pub name: String,
    /// Where it starts in the chapter: `<h4>Exercise 1.1</h4>`, or the
    /// chapter's `k`-th "check yourself" question.
    pub at: Place,
    /// Words of an answer, given away wherever the student reads them
    /// first: the whole edition before the question, and the stand-ins.
    pub phrases: Vec<String>,
    /// Values of this run (their capture placeholders filled): given away
    /// only in the chapter, whose run is the one they are of.
    pub values: Vec<String>,
}

/// Where a question starts in its chapter's HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// At this text (an exercise's heading).
    Text(String),
    /// The `k`-th item (from 1) after the "check yourself" heading.
    CheckYourself(usize),
}

/// The questions of a "check yourself" section (Markdown), each with its
/// declared give-aways, in order.
pub fn readme_questions(body: &str) -> Vec<Vec<String>> {
    let mut questions: Vec<Vec<String>> = Vec::new();
    for line in body.lines() {
        let numbered = line
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if numbered {
            questions.push(Vec::new());
        } else if let Some(rest) = line.trim().strip_prefix(MARKER) {
            let list = rest.trim_end().trim_end_matches("-->");
            if let Some(q) = questions.last_mut() {
                q.extend(
                    list.split(" | ")
                        .map(str::trim)
                        .filter(|g| !g.is_empty())
                        .map(str::to_string),
                );
            }
        }
    }
    questions
}

/// `md` without its give-away comments, which a student's HTML must not
/// carry even unseen.
pub fn without_markers(md: &str) -> String {
    md.lines()
        .filter(|l| !l.trim_start().starts_with(MARKER))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The questions of `package`'s chapter, its exercises first, with their
/// give-aways as `report`'s run fills them.
pub fn chapter_asked(report: &LabReport, package: &str) -> Vec<Asked> {
    if READING_NOTES.contains(&package) {
        return Vec::new();
    }
    let split = |own: &str, gives: &[&str]| {
        let (values, phrases): (Vec<&str>, Vec<&str>) = gives
            .iter()
            .partition(|g| !numbers::placeholders(g).is_empty());
        (
            phrases.iter().map(|g| g.to_string()).collect(),
            values
                .iter()
                .map(|g| wire_numbers(report, own, g))
                .collect(),
        )
    };
    let mut asked = Vec::new();
    for n in numbered(package) {
        let (phrases, values) = split(&n.scenario.name, n.exercise.gives_away);
        let name = format!("Exercise {}", n.number());
        asked.push(Asked {
            package: package.to_string(),
            at: Place::Text(format!("<h4>{name}</h4>")),
            name,
            phrases,
            values,
        });
    }
    let root = base::workspace::workspace_root();
    let md = fs::read_to_string(root.join(package).join("README.md")).unwrap_or_default();
    let chapter = chapter_number(package);
    for (_, body) in read_readme(&md, &[CHAPTER_SECTIONS[4]]).sections {
        for (k, gives) in readme_questions(&body).into_iter().enumerate() {
            let gives: Vec<&str> = gives.iter().map(String::as_str).collect();
            let (phrases, values) = split(package, &gives);
            asked.push(Asked {
                package: package.to_string(),
                name: format!("Check yourself {chapter}.{}", k + 1),
                at: Place::CheckYourself(k + 1),
                phrases,
                values,
            });
        }
    }
    asked
}

/// Every give-away of `asked`, phrases and values.
pub fn all_gives(asked: &[Asked]) -> Vec<String> {
    asked
        .iter()
        .flat_map(|a| a.phrases.iter().chain(&a.values))
        .cloned()
        .collect()
}

/// `text` compared as the check compares: without case, its spaces and
/// line breaks one space.
fn folded(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
}

/// Where `needle` is in `hay` from `from` on, without case, as whole
/// words: `QP 0x13` is not in `QP 0x131`.
fn find_words(hay: &str, needle: &str, from: usize) -> Option<usize> {
    let (hay_l, needle_l) = (hay.to_ascii_lowercase(), needle.to_ascii_lowercase());
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let mut at = from;
    while let Some(i) = hay_l[at..].find(&needle_l) {
        let (a, b) = (at + i, at + i + needle_l.len());
        let starts = !(word(needle.chars().next()) && word(hay[..a].chars().next_back()));
        let ends = !(word(needle.chars().next_back()) && word(hay[b..].chars().next()));
        if starts && ends {
            return Some(a);
        }
        at = a + hay_l[a..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// `s` with each give-away of `gives` blanked: a value from its first
/// digit to the end of that word (`pad 3 B` becomes `pad ___ B`,
/// `QP 0x13` `QP ___`), words whole.
pub fn blanked(s: &str, gives: &[String]) -> String {
    let mut out = s.to_string();
    for g in gives.iter().filter(|g| !g.trim().is_empty()) {
        let mut from = 0;
        while let Some(a) = find_words(&out, g, from) {
            let (start, end) = match g.find(|c: char| c.is_ascii_digit()) {
                Some(d) => {
                    let word = out[a + d..].find(|c: char| !c.is_ascii_alphanumeric());
                    (a + d, a + d + word.unwrap_or(out.len() - a - d))
                }
                None => (a, a + g.len()),
            };
            out.replace_range(start..end, BLANK);
            from = start + BLANK.len();
        }
    }
    out
}

/// A ladder's arrows as the student's edition draws them: `gives` blanked
/// in what each says, and a cause that would answer left blank whole.
pub fn blank_rungs(rungs: &[Rung], gives: &[String]) -> Vec<Rung> {
    rungs
        .iter()
        .map(|r| Rung {
            label: blanked(&r.label, gives),
            note: blanked(&r.note, gives),
            headers: r.headers.iter().map(|l| blanked(l, gives)).collect(),
            cause: r
                .cause
                .map(|c| if blanked(c, gives) == c { c } else { BLANK }),
            ..r.clone()
        })
        .collect()
}

/// Where `a` starts in `html` (a whole edition), and where its chapter
/// does; `None` when the edition does not ask it.
fn place(html: &str, a: &Asked) -> Option<(usize, usize)> {
    let chapter = html.find(&format!("<section class=\"chapter\" id=\"{}\">", a.package))?;
    let end = html[chapter..]
        .find("</section>")
        .map_or(html.len(), |e| chapter + e);
    let within = &html[chapter..end];
    let at = match &a.at {
        Place::Text(t) => within.find(t.as_str())?,
        Place::CheckYourself(k) => {
            let cy = within.find(&format!("<h3>{}</h3>", CHAPTER_SECTIONS[4]))?;
            let items: Vec<usize> = within[cy..]
                .match_indices("<li>")
                .map(|(i, _)| cy + i)
                .collect();
            *items.get(k - 1)?
        }
    };
    Some((chapter, chapter + at))
}

/// What in `html` (a student's edition) gives a question of `asked` away
/// before it is asked, one line each; a question it does not ask where
/// its chapter is is named too, as the check could not see it.
pub fn leaks(html: &str, asked: &[Asked]) -> Vec<String> {
    let mut found = Vec::new();
    for a in asked {
        if !html.contains(&format!("id=\"{}\"", a.package)) {
            continue;
        }
        let Some((chapter, at)) = place(html, a) else {
            found.push(format!("{}: not found in its chapter", a.name));
            continue;
        };
        let before = folded(&plain_text(&html[..at]));
        let in_chapter = folded(&plain_text(&html[chapter..at]));
        let shown = |text: &str, g: &str| {
            let g = folded(g);
            find_words(text, &g, 0).map(|i| {
                let from = text[..i].char_indices().rev().nth(40).map_or(0, |(j, _)| j);
                let to = text[i..]
                    .char_indices()
                    .nth(g.chars().count() + 40)
                    .map_or(text.len(), |(j, _)| i + j);
                text[from..to].to_string()
            })
        };
        for g in &a.phrases {
            if let Some(context) = shown(&before, g) {
                found.push(format!(
                    "{}: \"{g}\" before it: \"...{context}...\"",
                    a.name
                ));
            }
        }
        for g in &a.values {
            if let Some(context) = shown(&in_chapter, g) {
                found.push(format!(
                    "{}: \"{g}\" before it: \"...{context}...\"",
                    a.name
                ));
            }
        }
    }
    found
}

/// What in the stand-ins the student is sent to (`(file, text)`) gives a
/// question of `asked` away, one line each.
pub fn standin_leaks(standins: &[(String, String)], asked: &[Asked]) -> Vec<String> {
    let mut found = Vec::new();
    for (file, text) in standins {
        let text = folded(text);
        for a in asked {
            for g in a.phrases.iter().filter(|g| text.contains(&folded(g))) {
                found.push(format!("{}: \"{g}\" in {file}", a.name));
            }
        }
    }
    found
}

/// The stand-ins' scripts of the workspace, as [`write`] copies them.
pub fn standin_texts() -> Vec<(String, String)> {
    let dir = base::workspace::workspace_root().join("lab").join(STANDINS);
    let mut texts: Vec<(String, String)> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "py"))
        .map(|e| {
            let name = format!("{STANDINS}{}", e.file_name().to_string_lossy());
            (name, fs::read_to_string(e.path()).unwrap_or_default())
        })
        .collect();
    texts.sort();
    texts
}

/// Every leak of the student's editions of `report`'s handout: each
/// lab's, the combined one's, and the stand-ins'.
pub fn check_leaks(report: &LabReport) -> Result<(), String> {
    let mut found = Vec::new();
    let everything: Vec<Asked> = catalog::chapters()
        .iter()
        .flat_map(|p| chapter_asked(report, p))
        .collect();
    // The combined edition too: a lab without the primer is read after
    // the lab that has it.
    let editions = LABS.iter().map(Some).chain([None]);
    for lab in editions {
        let html = edition_html(report, Edition::Student, lab);
        let name = lab.map_or("the combined handout".to_string(), |l| {
            format!("lab {}", l.n)
        });
        found.extend(
            leaks(&html, &everything)
                .into_iter()
                .map(|l| format!("{name}: {l}")),
        );
    }
    found.extend(standin_leaks(&standin_texts(), &everything));
    match found.as_slice() {
        [] => Ok(()),
        _ => Err(format!(
            "handout: the student's edition gives answers away before it asks: {}",
            found.join("; ")
        )),
    }
}

#[cfg(test)]
mod tests;
