//! The student's edition made from the teacher's: the answers, the
//! porting notes and the port's own tools left out of the text and the
//! tables.

use super::*;

/// A README section for a student: without the sentences about this
/// project's own lab tool (`cargo xtask`), which a lab sheet's reader
/// does not run; code blocks are kept whole.
pub(super) fn for_students(md: &str) -> String {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, out: &mut Vec<String>| {
        if !paragraph.is_empty() {
            let kept = without_xtask(&paragraph.join("\n"));
            if !kept.trim().is_empty() {
                out.push(kept);
            }
            paragraph.clear();
        }
    };
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut out);
            fenced = !fenced;
            out.push(line.to_string());
        } else if fenced {
            out.push(line.to_string());
        } else if line.trim().is_empty() {
            flush(&mut paragraph, &mut out);
            out.push(String::new());
        } else {
            paragraph.push(line);
        }
    }
    flush(&mut paragraph, &mut out);
    out.join("\n")
}

/// A paragraph without its sentences that name `cargo xtask`: a sentence
/// ends at a full stop and a space or line end outside a code span.
pub(super) fn without_xtask(paragraph: &str) -> String {
    let mut sentences = Vec::new();
    let (mut start, mut code) = (0, false);
    let bytes = paragraph.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'`' => code = !code,
            b'.' if !code && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()) => {
                sentences.push(&paragraph[start..=i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    sentences.push(&paragraph[start..]);
    sentences
        .into_iter()
        .filter(|s| !s.contains("cargo xtask"))
        .collect::<String>()
        .trim()
        .to_string()
}

/// `html` without what a README marks `<span class="answer">`: a detail
/// of a step (a C call's argument) that answers one of the chapter's
/// questions, which the student's edition leaves to the student.
pub(super) fn without_answers(html: &str) -> String {
    replaced(html, "<span class=\"answer\">", "span", "")
}

/// `html` with each element that starts with `open` (a `tag` element)
/// replaced by `with`, to its own end past any `tag` inside it; all of
/// the rest when it has none.
pub(super) fn replaced(html: &str, open: &str, tag: &str, with: &str) -> String {
    let (start, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find(open) {
        out += &rest[..at];
        out += with;
        rest = &rest[at..];
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, _) in rest.match_indices('<') {
            if rest[i..].starts_with(&start) {
                depth += 1;
            } else if rest[i..].starts_with(&close) {
                depth -= 1;
                if depth == 0 {
                    end = i + close.len();
                    break;
                }
            }
        }
        rest = &rest[end..];
    }
    out + rest
}

/// `html` with the column of each table whose header starts with `head`
/// taken out: the Rust function beside the manual's step and its C
/// calls, which a student reading the manual's C does not need.
pub(super) fn without_column(html: &str, head: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find("<table>") {
        let end = rest[at..]
            .find("</table>")
            .map_or(rest.len(), |e| at + e + 8);
        out += &rest[..at];
        let table = &rest[at..end];
        let cells = |row: &str| -> Vec<String> {
            row.split("</th>")
                .flat_map(|c| c.split("</td>"))
                .map(str::to_string)
                .collect()
        };
        let header = table.split("</tr>").next().unwrap_or("");
        let column = cells(header)
            .iter()
            .position(|c| plain_text(c).trim_start().starts_with(head));
        out += &match column {
            Some(k) => drop_cell(table, k),
            None => table.to_string(),
        };
        rest = &rest[end..];
    }
    out + rest
}

/// `table` with the `k`th cell of every row removed.
pub(super) fn drop_cell(table: &str, k: usize) -> String {
    let opening = |s: &str| {
        ["<td>", "<td ", "<th>", "<th "]
            .iter()
            .filter_map(|t| s.find(t))
            .min()
    };
    table
        .split_inclusive("</tr>")
        .map(|row| {
            let mut out = String::new();
            let mut rest = row;
            let mut i = 0;
            while let Some(at) = opening(rest) {
                let close = if rest[at..].starts_with("<td") {
                    "</td>"
                } else {
                    "</th>"
                };
                let end = rest[at..]
                    .find(close)
                    .map_or(rest.len(), |e| at + e + close.len());
                out += &rest[..at];
                if i != k {
                    out += &rest[at..end];
                }
                i += 1;
                rest = &rest[end..];
            }
            out + rest
        })
        .collect()
}

/// The rows a table may not leave alone at a page's foot: its first two
/// go in a body of their own that print keeps whole (`tbody.lead`).
pub(super) const LEAD_ROWS: usize = 2;

/// `html` with the first [`LEAD_ROWS`] rows of each table body longer
/// than that in a `tbody.lead` of their own, so that a printed table
/// never starts with a lone row under its header at a page's foot:
/// Chromium keeps the lead body whole and moves it to the next page.
pub(super) fn first_rows_kept(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find("<tbody>") {
        let body_at = at + "<tbody>".len();
        let end = rest[body_at..]
            .find("</tbody>")
            .map_or(rest.len(), |e| body_at + e);
        let body = &rest[body_at..end];
        let lead_end = body
            .match_indices("</tr>")
            .nth(LEAD_ROWS - 1)
            .map(|(i, m)| i + m.len())
            .filter(|_| body.matches("<tr").count() > LEAD_ROWS);
        out += &rest[..at];
        out += &match lead_end {
            Some(split) => format!(
                "<tbody class=\"lead\">{}</tbody>\n<tbody>{}",
                &body[..split],
                &body[split..]
            ),
            None => format!("<tbody>{body}"),
        };
        rest = &rest[end..];
    }
    out + rest
}
