//! The handout as Chromium prints it: the PDF, and the checks of what it
//! rendered (every supplied file there, the DOM, a screenshot, each lab's
//! pages: none half empty, none ending in a heading, no answer leaked
//! into a student's edition, the ladders' smallest text, the layout's
//! checks of [`layout`]).

use super::*;

/// Prints `html` to `pdf` with headless Chromium.
pub fn pdf(html: &Path, pdf: &Path) -> Result<(), String> {
    crate::base::browser::chromium(
        html,
        &[
            format!("--print-to-pdf={}", pdf.display()),
            "--no-pdf-header-footer".into(),
        ],
    )?;
    if fs::metadata(pdf).map(|m| m.len()).unwrap_or(0) == 0 {
        return Err(format!("chromium wrote no {}", pdf.display()));
    }
    Ok(())
}

/// Opens the handout in headless Chromium and looks at what it rendered:
/// the DOM after layout (every chapter, a ladder per pair, the
/// transcripts), a screenshot (a picture of the page, not a blank one) and
/// a PDF print (a page per chapter at least). Every way it falls short.
pub fn check_in_chromium(html: &Path, paper: Paper) -> Vec<String> {
    let dir = html.parent().unwrap_or(Path::new("."));
    let mut failures = check_dom(html);
    failures.extend(check_screenshot(html, dir));
    failures.extend(check_print(html, dir, paper));
    failures.extend(check_teacher(dir));
    failures.extend(check_labs(dir, paper));
    failures.extend(check_supplied(html, dir));
    failures
}

/// Every capture and transcript the student's edition points to, there
/// beside it.
pub(super) fn check_supplied(html: &Path, dir: &Path) -> Vec<String> {
    let text = fs::read_to_string(html).unwrap_or_default();
    supplied(&text)
        .into_iter()
        .filter(|f| !dir.join(f).is_file())
        .map(|f| format!("the handout points to {f}, which is not beside it"))
        .collect()
}

/// The files under `pcaps/`, `transcripts/` and `standins/` that `html`
/// names.
pub fn supplied(html: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for dir in ["pcaps/", "transcripts/", STANDINS, CHECKS] {
        for (at, _) in html.match_indices(dir) {
            let name: String = html[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "/._-".contains(*c))
                .collect();
            let name = name.trim_end_matches('.').to_string();
            if name.len() > dir.len() && !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

/// What Chromium rendered of the student's combined edition: its
/// chapters and notes, no answer, its ladders and what every handout has.
pub(super) fn check_dom(html: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let worked = |s: &&Scenario| !READING_NOTES.contains(&s.package);
    let pairs = catalog::all()
        .iter()
        .filter(worked)
        .filter(|s| s.pair)
        .count();
    let chapters_worked = catalog::chapters().len() - READING_NOTES.len();
    match crate::base::browser::chromium(html, &["--dump-dom".into()]) {
        Err(e) => failures.push(e),
        Ok(dom) => {
            let chapters = dom.matches("<section class=\"chapter\"").count();
            if chapters != chapters_worked {
                failures.push(format!(
                    "{chapters} chapters rendered, {chapters_worked} expected (and {} notes)",
                    READING_NOTES.len()
                ));
            }
            if dom.contains("class=\"answer\"") {
                failures.push("an exercise's answer is in the student edition".into());
            }
            let ladders = dom.matches("<svg").count();
            if ladders < pairs {
                failures.push(format!(
                    "{ladders} ladders rendered, at least {pairs} expected (one per pair)"
                ));
            }
            for want in [
                "hostA$ rc_example",
                "RC RDMA Read Request",
                "Exercise 1.1",
                "<b>Check it yourself:</b> ",
                "Reading note: ",
                "<table>",
            ] {
                if !dom.contains(want) {
                    failures.push(format!("the rendered page has no `{want}`"));
                }
            }
        }
    }
    failures
}

/// A screenshot of the page: a picture, not a blank one.
pub(super) fn check_screenshot(html: &Path, dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let png = dir.join("handout.png");
    match crate::base::browser::chromium(
        html,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,2400".into(),
        ],
    ) {
        Err(e) => failures.push(e),
        Ok(_) => {
            let bytes = fs::read(&png).unwrap_or_default();
            // The IHDR chunk: width and height, big-endian, at 16 and 20.
            let dims = (bytes.len() > 24 && bytes.starts_with(b"\x89PNG")).then(|| {
                let be = |i: usize| {
                    u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]])
                };
                (be(16), be(20))
            });
            if dims != Some((1200, 2400)) {
                failures.push(format!("the screenshot is not a 1200x2400 PNG: {dims:?}"));
            }
            // A blank or near-blank page compresses to a few KiB; the first
            // screenful of text and tables does not.
            if bytes.len() < 100_000 {
                failures.push(format!(
                    "the screenshot is nearly blank ({} bytes)",
                    bytes.len()
                ));
            }
        }
    }
    failures
}

/// The page printed to PDF: a title page and a page a chapter at least,
/// the print's checks on its marked copy ([`check_marked`]), and no
/// answer in its text.
pub(super) fn check_print(html: &Path, dir: &Path, paper: Paper) -> Vec<String> {
    let mut failures = Vec::new();
    let pdf_file = dir.join("handout.pdf");
    match pdf(html, &pdf_file) {
        Err(e) => failures.push(e),
        Ok(()) => {
            let bytes = fs::read(&pdf_file).unwrap_or_default();
            let pages = pdf_pages(&pdf_file);
            if !bytes.starts_with(b"%PDF") || pages < catalog::chapters().len() + 1 {
                failures.push(format!(
                    "the PDF has {pages} page(s); a title page and one per chapter at least were expected"
                ));
            }
            let html_text = fs::read_to_string(html).unwrap_or_default();
            failures.extend(check_marked(
                &html_text,
                (paper, paper),
                dir,
                "handout",
                Some(pages),
            ));
            for answer in leaked(&pdf_text(&pdf_file), &answer_openings()) {
                failures.push(format!("the student's PDF holds an answer: `{answer}`"));
            }
        }
    }
    failures
}

/// The most pages a lab's student edition may print to: about twenty,
/// for a lab of about two hours.
pub const LAB_PAGES_MAX: usize = 26;

/// Each lab's student edition printed on both papers (`labN.pdf` on
/// `paper`, the one it was written for; the other marked only, in a
/// directory of its own) and checked on its marked copy
/// ([`check_marked`]).
pub(super) fn check_labs(dir: &Path, paper: Paper) -> Vec<String> {
    let other = match crate::base::tmp::private_tempdir("rdma-examples-handout-paper-", "print") {
        Ok(d) => d,
        Err(e) => return vec![e.to_string()],
    };
    let mut failures = layout_canary(other.path());
    for lab in &LABS {
        let html = dir.join(Edition::Student.file(&format!("lab{}", lab.n)));
        let html_text = fs::read_to_string(&html).unwrap_or_default();
        let delivered = dir.join(format!("lab{}.pdf", lab.n));
        if let Err(e) = pdf(&html, &delivered) {
            failures.push(format!("lab {}: {e}", lab.n));
            continue;
        }
        for on in Paper::ALL {
            let name = format!("lab {} on {}", lab.n, on.name());
            let stem = format!("lab{}-{}", lab.n, on.name());
            let pages = (on == paper).then(|| pdf_pages(&delivered));
            failures.extend(
                check_marked(&html_text, (paper, on), other.path(), &stem, pages)
                    .into_iter()
                    .map(|f| format!("{name}: {f}")),
            );
        }
    }
    failures
}

/// `html` (written for `papers.0`) printed on `papers.1` from a copy
/// marked for its layout ([`layout`]) into `dir`, and checked: at most
/// [`LAB_PAGES_MAX`] pages for a lab, as many as the unmarked print
/// (`pages`, where there is one: the marks moved nothing), the print's
/// checks ([`check_pdf`]) and the layout's, and no word of inline code
/// broken across lines.
fn check_marked(
    html: &str,
    papers: (Paper, Paper),
    dir: &Path,
    stem: &str,
    pages: Option<usize>,
) -> Vec<String> {
    let Some(marked) = layout::marked(html) else {
        return vec!["the page has no </body> to mark before".into()];
    };
    let file = dir.join(format!("{stem}-marked.pdf"));
    if let Err(e) = print_on(&marked, papers.0, papers.1, &file) {
        return vec![format!("its marked copy: {e}")];
    }
    let mut failures = Vec::new();
    let printed = pdf_pages(&file);
    if stem.starts_with("lab") {
        println!("handout check: {stem} prints to {printed} pages");
        if printed > LAB_PAGES_MAX {
            failures.push(format!(
                "it prints to {printed} pages, more than {LAB_PAGES_MAX}"
            ));
        }
    }
    if pages.is_some_and(|p| p != printed) {
        failures.push(format!(
            "its marked copy prints to {printed} pages, not {pages:?}: the marks moved the page"
        ));
    }
    let words = layout::words(&pdf_bbox(&file));
    failures.extend(check_pdf(&file, printed, &headings(html), &words, papers.1));
    failures.extend(layout::layout_failures(&words, papers.1));
    if let Some(pt) = layout::smallest_text(&words).filter(|pt| *pt < layout::TEXT_LEAST_PT) {
        failures.push(format!(
            "its smallest text is {pt:.1} pt high, under {}",
            layout::TEXT_LEAST_PT
        ));
    }
    failures.extend(
        layout::broken_words(&layout::inline_code_words(html), &words)
            .into_iter()
            .map(|w| format!("the inline code `{w}` breaks across lines")),
    );
    failures
}

/// A page with a split table, a short writing box, words of code broken
/// across lines (one after its dash) and small print, printed and checked as a lab is: every way the
/// layout's checks fail to name each, so that a change of Chromium or
/// poppler cannot make them pass by seeing nothing.
fn layout_canary(dir: &Path) -> Vec<String> {
    let paper = Paper::default();
    let rows = "<tr><td>a row of a table</td></tr>".repeat(20);
    let html = format!(
        "<!DOCTYPE html><html><head><style>{} td {{ border: 1px solid #000; }}</style></head>\
         <body><div style=\"height: 650pt\"></div><table style=\"break-inside: auto\">{rows}</table>\
         <div class=\"room\" style=\"height: 60pt; border: 1px solid #000\"></div>\
         <p style=\"width: 3em; overflow-wrap: anywhere\"><code>checks/lab1.sh</code></p>\
         <p style=\"width: 2em\"><code>x-lab</code></p><p>ax-labx</p>\
         <p style=\"font-size: 4pt\">small print</p></body></html>",
        paper.css()
    );
    let Some(marked) = layout::marked(&html) else {
        return vec!["the layout's canary has no </body>".into()];
    };
    let file = dir.join("canary.pdf");
    if let Err(e) = print_on(&marked, paper, paper, &file) {
        return vec![format!("the layout's canary: {e}")];
    }
    let words = layout::words(&pdf_bbox(&file));
    let found = layout::layout_failures(&words, paper);
    let broken = layout::broken_words(&layout::inline_code_words(&html), &words);
    let small = layout::smallest_text(&words).is_some_and(|pt| pt < layout::TEXT_LEAST_PT);
    let mut failures = Vec::new();
    for (planted, seen) in [
        (
            "a split table",
            found.iter().any(|f| f.starts_with("a table (")),
        ),
        (
            "a short writing box",
            found.iter().any(|f| f.starts_with("a writing box")),
        ),
        // x-lab breaks after its dash, and a longer word holds its letters.
        ("a broken word", broken == ["checks/lab1.sh", "x-lab"]),
        ("small print", small),
    ] {
        if !seen {
            failures.push(format!(
                "the layout's checks did not name {planted} planted on a page: {found:?} {broken:?}"
            ));
        }
    }
    failures
}

/// A PDF's words with their places, as poppler's `pdftotext -bbox` gives
/// them.
pub(super) fn pdf_bbox(pdf_file: &Path) -> String {
    Command::new("pdftotext")
        .arg("-bbox")
        .arg(pdf_file)
        .arg("-")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// `html` (written for `written`) printed on `on` into `pdf_file`: the
/// same page with the other page rule, beside the PDF.
fn print_on(html: &str, written: Paper, on: Paper, pdf_file: &Path) -> Result<(), String> {
    if html.matches(written.css().as_str()).count() != 1 {
        return Err(format!(
            "its page rule for {} is not there once",
            written.name()
        ));
    }
    let file = pdf_file.with_extension("html");
    fs::write(&file, html.replacen(&written.css(), &on.css(), 1))
        .map_err(|e| format!("{}: {e}", file.display()))?;
    pdf(&file, pdf_file)
}

/// The teacher's combined edition beside the student's: every worked
/// exercise's answer open.
pub(super) fn check_teacher(dir: &Path) -> Vec<String> {
    let file = dir.join(Edition::Teacher.file("handout"));
    let text = fs::read_to_string(&file).unwrap_or_default();
    let want = catalog::all()
        .iter()
        .filter(|s| !READING_NOTES.contains(&s.package) && s.exercise.is_some())
        .count();
    let open = text.matches("<details class=\"answer\" open>").count();
    if open == want {
        Vec::new()
    } else {
        vec![format!(
            "{}: {open} answers open, {want} expected",
            file.display()
        )]
    }
}

/// The number of pages of a PDF.
pub(super) fn pdf_pages(pdf_file: &Path) -> usize {
    let bytes = fs::read(pdf_file).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    text.matches("/Type /Page")
        .count()
        .saturating_sub(text.matches("/Type /Pages").count())
}

/// A PDF's text, as poppler's `pdftotext` reads it.
pub(super) fn pdf_text(pdf_file: &Path) -> String {
    Command::new("pdftotext")
        .arg(pdf_file)
        .arg("-")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The opening words of every answer of the worked chapters: each
/// exercise's and each "check yourself" question's.
pub fn answer_openings() -> Vec<String> {
    let root = base::workspace::workspace_root();
    let worked = catalog::all()
        .iter()
        .filter(|s| !READING_NOTES.contains(&s.package));
    let mut answers: Vec<String> = worked
        .filter_map(|s| s.exercise)
        .map(|e| opening(&inline(e.explain)))
        .collect();
    for p in catalog::chapters()
        .iter()
        .filter(|p| !READING_NOTES.contains(p))
    {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap_or_default();
        let check = read_readme(&md, &[CHAPTER_SECTIONS[4]]);
        for (_, body) in &check.sections {
            for part in markdown(body).split("<details>").skip(1) {
                let inside = part.split("</details>").next().unwrap_or("");
                let answer = inside.split("</summary>").nth(1).unwrap_or(inside);
                answers.push(opening(answer));
            }
        }
    }
    answers.retain(|a| a.split(' ').count() >= 4);
    answers
}

/// The text of `html`: its tags gone, its entities read.
pub fn plain_text(html: &str) -> String {
    let mut plain = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => plain.push(c),
            _ => {}
        }
    }
    plain
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The first eight words of `html`'s text.
pub(super) fn opening(html: &str) -> String {
    plain_text(html)
        .split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The answers of `openings` that `text` (a student's PDF) holds, its
/// lines joined as one.
pub fn leaked(text: &str, openings: &[String]) -> Vec<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    openings
        .iter()
        .filter(|o| flat.contains(o.as_str()))
        .cloned()
        .collect()
}

/// The texts of a page's headings (`h2` to `h4`), tags and entities gone.
pub(super) fn headings(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for level in ["<h2", "<h3", "<h4"] {
        for part in html.split(level).skip(1) {
            let inner = part.split_once('>').map_or("", |(_, r)| r);
            let text = inner.split("</h").next().unwrap_or("");
            out.push(plain_text(text).trim().to_string());
        }
    }
    out
}

/// Whether the last line of text on a page (`pdftotext` of it) is a
/// heading: a heading stranded at the foot of a page, its text on the next.
pub fn ends_with_heading(page: &str, headings: &[String]) -> Option<String> {
    let last = page.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    headings
        .iter()
        .find(|h| !h.is_empty() && last == h.as_str())
        .cloned()
}

/// The print's checks on a marked PDF ([`layout`]), read with poppler's
/// `pdftotext`: no page ends with a heading, no page under half full
/// without cause ([`half_empty_pages`]), and the ladders' smallest text
/// (their `time, frames` column header, at the notes' size) is 8 pt or
/// more.
pub(super) fn check_pdf(
    pdf: &Path,
    pages: usize,
    headings: &[String],
    words: &layout::Words,
    paper: Paper,
) -> Vec<String> {
    let mut failures = Vec::new();
    for n in 1..=pages {
        if let Some(h) = ends_with_heading(&page_text(pdf, n, true), headings) {
            failures.push(format!("page {n} of the PDF ends with the heading `{h}`"));
        }
    }
    failures.extend(half_empty_pages(pdf, pages, headings, |n, fill| {
        layout::pushed_over(words, n, fill, paper)
    }));
    match smallest_ladder_text(words) {
        None => failures.push("the PDF has no ladder text (`frames`) that pdftotext finds".into()),
        Some(pt) if pt < 8.0 => failures.push(format!(
            "the ladders' smallest text is {pt:.1} pt in the PDF, less than 8"
        )),
        Some(_) => {}
    }
    failures
}

/// Page `n`'s text (`layout`: as it stands on the page), the layout's
/// marks left out.
fn page_text(pdf: &Path, n: usize, layout: bool) -> String {
    let page = n.to_string();
    let mut cmd = Command::new("pdftotext");
    if layout {
        cmd.arg("-layout");
    }
    cmd.args(["-f", &page, "-l", &page])
        .arg(pdf)
        .arg("-")
        .output()
        .map(|o| layout::unmarked(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_default()
}

/// The pages under half full that do not end a chapter (the next page
/// starts with a chapter's title, `headings` holds them), are not the
/// last, and that `excused` (page, fill) does not excuse: each rendered
/// in grey by poppler's `pdftoppm`, its fill the lowest row with ink.
pub(super) fn half_empty_pages(
    pdf: &Path,
    pages: usize,
    headings: &[String],
    excused: impl Fn(usize, f64) -> bool,
) -> Vec<String> {
    let dir = match crate::base::tmp::private_tempdir("rdma-examples-handout-pages-", "pdftoppm") {
        Ok(d) => d,
        Err(e) => return vec![e.to_string()],
    };
    let prefix = dir.path().join("p");
    let ok = Command::new("pdftoppm")
        .args(["-r", "20", "-gray"])
        .arg(pdf)
        .arg(&prefix)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return vec!["pdftoppm could not render the PDF".into()];
    }
    let mut files: Vec<PathBuf> = fs::read_dir(dir.path())
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let first_line = |n: usize| {
        let text = page_text(pdf, n, false);
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string()
    };
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate().take(pages.saturating_sub(1)) {
        let fill = fs::read(f).ok().and_then(|b| page_fill(&b)).unwrap_or(1.0);
        if fill >= 0.5 || excused(i + 1, fill) {
            continue;
        }
        // A title may wrap: the next page's first line begins it.
        let next = first_line(i + 2);
        let chapter_ends = !next.is_empty() && headings.iter().any(|h| h.starts_with(&next));
        if !chapter_ends {
            out.push(format!(
                "page {} of the PDF is {:.0}% full and ends no chapter",
                i + 1,
                fill * 100.0
            ));
        }
    }
    out
}

/// How far down a page its ink goes (0 to 1), from a binary PGM (`P5`).
pub fn page_fill(pgm: &[u8]) -> Option<f64> {
    let text = String::from_utf8_lossy(&pgm[..pgm.len().min(64)]).into_owned();
    let mut fields = text.split_ascii_whitespace();
    if fields.next()? != "P5" {
        return None;
    }
    let w: usize = fields.next()?.parse().ok()?;
    let h: usize = fields.next()?.parse().ok()?;
    let _max = fields.next()?;
    let body = pgm.len().checked_sub(w * h)?;
    let px = &pgm[body..];
    let last = (0..h)
        .rev()
        .find(|y| px[y * w..(y + 1) * w].iter().any(|&v| v < 200))?;
    Some((last + 1) as f64 / h as f64)
}

/// The smallest height, in points, of the word `frames` that follows
/// `time,` in a PDF's words: the ladders' column header, set at their
/// smallest size.
pub fn smallest_ladder_text(words: &layout::Words) -> Option<f64> {
    words
        .words
        .windows(2)
        .filter(|w| w[0].0 == "time," && w[1].0 == "frames")
        .map(|w| w[1].1.bottom - w[1].1.top)
        .reduce(f64::min)
}

#[cfg(test)]
mod tests;
