//! The numbers of a handout's answers, taken from the capture each answer
//! is about rather than written by hand. An exercise's answer says
//! `{count:FILTER}` (the frames a Wireshark display filter matches),
//! `{distinct:FIELD:FILTER}` (how many values FIELD takes in them),
//! `{first:FIELD:FILTER}` (its value in the first),
//! `{high32:FIELD:FILTER}` (that value's upper 32 bits),
//! `{hex:FIELD:FILTER}` (that value in hex, as a ladder prints it),
//! `{last:FIELD:FILTER}` and `{hexlast:FIELD:FILTER}` (the same of the
//! last: a run of two connections gives the second's away too) or
//! `{per:FIELD:FILTER:PER}` (how many values FIELD takes in FILTER's
//! frames for each it takes in PER's: a PSN's packets per message, which
//! resends do not change; FIELD may name several, `a,b`, to key each
//! value by another, a PSN by its QP), each on its own
//! scenario's capture or, as `KIND@SCENARIO:...`, on another's. A README,
//! which people read as it is, keeps its number and says where it comes
//! from in a comment, `98<!--{count:FILTER}-->`: the handout checks the
//! number against the capture and fails when they differ. A filter holds
//! no `}`, and `per`'s first filter no `:` (a MAC address, a slice).

/// What a placeholder asks of the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// How many frames match.
    Count,
    /// How many values the field takes in them.
    Distinct,
    /// The field's value in the first.
    First,
    /// The upper 32 bits of the field's value in the first, as `0x%08x`.
    High32,
    /// The field's value in the first as a ladder prints it, `0x%x`.
    Hex,
    /// The field's value in the last.
    Last,
    /// The field's value in the last as a ladder prints it, `0x%x`.
    HexLast,
    /// How many values the field takes in them for each it takes in the
    /// frames of a second filter: a whole number, or an error.
    Per,
}

/// One placeholder, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query<'a> {
    /// What it asks.
    pub kind: Kind,
    /// The scenario whose capture it asks, when not the answer's own.
    pub scenario: Option<&'a str>,
    /// The field whose values it reads (`frame.number` for a count).
    pub field: &'a str,
    /// The display filter that picks the frames.
    pub filter: &'a str,
    /// [`Kind::Per`]'s second filter.
    pub per: Option<&'a str>,
}

const KINDS: [(&str, Kind); 8] = [
    ("count", Kind::Count),
    ("distinct", Kind::Distinct),
    ("first", Kind::First),
    ("high32", Kind::High32),
    ("hex", Kind::Hex),
    ("last", Kind::Last),
    ("hexlast", Kind::HexLast),
    ("per", Kind::Per),
];

/// `spec` (what is between the braces) as a query; `None` when it does
/// not start with a kind, so that other braces stay text.
pub fn parse(spec: &str) -> Option<Result<Query<'_>, String>> {
    let (head, rest) = spec.split_once(':')?;
    let (kind, scenario) = match head.split_once('@') {
        Some((k, s)) => (k, Some(s)),
        None => (head, None),
    };
    let kind = KINDS.iter().find(|(name, _)| *name == kind)?.1;
    let (field, filter) = match kind {
        Kind::Count => ("frame.number", rest),
        _ => match rest.split_once(':') {
            Some(pair) => pair,
            None => return Some(Err(format!("{{{spec}}}: no FIELD:FILTER"))),
        },
    };
    let (filter, per) = match (kind, filter.split_once(':')) {
        (Kind::Per, Some((filter, per))) => (filter, Some(per)),
        (Kind::Per, None) => return Some(Err(format!("{{{spec}}}: no second filter"))),
        _ => (filter, None),
    };
    if [field, filter, per.unwrap_or(field)]
        .iter()
        .any(|s| s.trim().is_empty())
    {
        return Some(Err(format!("{{{spec}}}: an empty field or filter")));
    }
    if field
        .split(',')
        .any(|f| f.is_empty() || f.contains(char::is_whitespace))
    {
        return Some(Err(format!(
            "{{{spec}}}: a field list `{field}` with an empty or spaced name"
        )));
    }
    Some(Ok(Query {
        kind,
        scenario,
        field,
        filter,
        per,
    }))
}

/// What `q` says of `values`, the field's values in the matching frames
/// (and `per`, those in [`Query::per`]'s).
pub fn value(q: &Query, values: &[String], per: &[String]) -> Result<String, String> {
    // tshark prints an empty value for a matching frame without the
    // field: a frame counts only with every field it is asked for.
    let present = |v: &&String| v.split('\t').all(|f| !f.is_empty());
    let values: Vec<String> = values.iter().filter(present).cloned().collect();
    let per: Vec<String> = per.iter().filter(present).cloned().collect();
    let (values, per) = (values.as_slice(), per.as_slice());
    let distinct = |values: &[String]| {
        let mut v: Vec<&String> = values.iter().collect();
        v.sort();
        v.dedup();
        v.len()
    };
    let first = || {
        values
            .first()
            .ok_or_else(|| format!("no frame matches `{}`", q.filter))
    };
    let last = || {
        values
            .last()
            .ok_or_else(|| format!("no frame matches `{}`", q.filter))
    };
    match q.kind {
        Kind::Count => Ok(values.len().to_string()),
        Kind::Distinct => Ok(distinct(values).to_string()),
        Kind::Per => {
            let (n, d) = (distinct(values), distinct(per));
            if d == 0 || n % d != 0 {
                return Err(format!(
                    "{n} values of {} for {d} of the second filter's: not a whole number each",
                    q.field
                ));
            }
            Ok((n / d).to_string())
        }
        Kind::First => first().cloned(),
        Kind::Last => last().cloned(),
        Kind::High32 | Kind::Hex | Kind::HexLast => {
            let s = if q.kind == Kind::HexLast {
                last()?
            } else {
                first()?
            };
            let n = match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            }
            .map_err(|_| format!("`{s}` of {} is not a number", q.field))?;
            Ok(match q.kind {
                Kind::Hex | Kind::HexLast => format!("{n:#x}"),
                _ => format!("0x{:08x}", n >> 32),
            })
        }
    }
}

/// The placeholders of `text`, in order: each one's spec.
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        let Some(end) = rest[at..].find('}') else {
            break;
        };
        let spec = &rest[at + 1..at + end];
        if parse(spec).is_some() {
            found.push(spec);
        }
        rest = &rest[at + end + 1..];
    }
    found
}

/// What a capture says for a query: `None` when the run has no such
/// capture (a partial run), which leaves a checked number as stated and
/// a placeholder as [`NOT_CAPTURED`].
pub type Answer = Result<Option<String>, String>;

/// What a placeholder says when its run has no capture to fill it from.
pub const NOT_CAPTURED: &str = "(not captured in this run)";

/// `text` with each placeholder replaced by what `answer` gives for it,
/// and each checked number (`N<!--{spec}-->`) kept, when its capture
/// agrees or there is none; the first query that fails, or number that
/// differs, is the error.
pub fn fill(text: &str, answer: &dyn Fn(&Query) -> Answer) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        let Some(end) = rest[at..].find('}') else {
            break;
        };
        let spec = &rest[at + 1..at + end];
        let Some(q) = parse(spec) else {
            out += &rest[..=at];
            rest = &rest[at + 1..];
            continue;
        };
        let got = answer(&q?)?;
        let before = &rest[..at];
        let after = &rest[at + end + 1..];
        match (before.strip_suffix("<!--"), after.strip_prefix("-->")) {
            (Some(text), Some(after)) => {
                let digits = text.len()
                    - text
                        .trim_end_matches(|c: char| c.is_ascii_hexdigit() || c == 'x')
                        .len();
                let stated = &text[text.len() - digits..];
                if got
                    .as_ref()
                    .is_some_and(|g| !stated.eq_ignore_ascii_case(g))
                {
                    let got = got.unwrap_or_default();
                    return Err(format!(
                        "the answer says {stated}, its capture {got}: {{{spec}}}"
                    ));
                }
                out += text;
                rest = after;
            }
            _ => {
                out += before;
                out += got.as_deref().unwrap_or(NOT_CAPTURED);
                rest = after;
            }
        }
    }
    Ok(out + rest)
}

/// `text` as a reader sees it when its numbers could not be read: each
/// checked number as stated, each placeholder [`NOT_CAPTURED`].
pub fn unfilled(text: &str) -> String {
    fill(text, &|_| Ok(None)).unwrap_or_else(|_| text.to_string())
}

/// Words after a number that make it a count of packets, and words
/// before one that make it a packet's own number (a PSN, a frame, a QP).
#[cfg(test)]
const COUNTED: &[&str] = &[
    "packet",
    "packets",
    "psn",
    "psns",
    "frame",
    "frames",
    "nak",
    "naks",
    "ack",
    "acks",
    "acknowledges",
    "resends",
    "first",
    "middle",
    "last",
];
#[cfg(test)]
const NUMBERED: &[&str] = &["psn", "frame", "frames", "qp", "#"];

/// The numbers `text` states about a capture by hand: a number followed
/// by what it counts ("164 Send First", "100 distinct PSNs") or following
/// what it numbers ("PSN 4", "frame 26", "QP 0x13"). Placeholders and
/// checked numbers are not hand-written; numbers in code spans (options,
/// program lines) are not about the capture. The build's check
/// (`no_answer_states_a_capture_number_by_hand`) runs it on every answer.
#[cfg(test)]
pub fn hand_written(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut rest = text;
    // Drop placeholders with the numbers they check, and code spans.
    while let Some(at) = rest.find(['{', '`']) {
        let brace = rest[at..].starts_with('{');
        let mut before = &rest[..at];
        if let Some(b) = before.strip_suffix("<!--").filter(|_| brace) {
            before = b.trim_end_matches(|c: char| c.is_ascii_hexdigit() || c == 'x');
        }
        plain += before;
        plain.push(' ');
        let close = if brace { '}' } else { '`' };
        let end = rest[at + 1..]
            .find(close)
            .map_or(rest.len(), |e| at + 1 + e + 1);
        rest = &rest[end..];
        rest = rest.strip_prefix("-->").unwrap_or(rest);
    }
    plain += rest;
    let words: Vec<String> = plain
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .map(|w| {
            w.trim_matches(|c: char| ",.;:".contains(c))
                .to_ascii_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    // A number, or a range of them ("4..7", "26-29").
    let is_number = |w: &str| {
        w.split("..").flat_map(|p| p.split('-')).all(|p| {
            p.strip_prefix("0x").map_or(
                !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()),
                |h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()),
            )
        })
    };
    let skip = ["distinct", "rc", "send", "more"];
    let mut found = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !is_number(w) {
            continue;
        }
        let next = words[i + 1..].iter().find(|n| !skip.contains(&n.as_str()));
        let counted = next.is_some_and(|n| COUNTED.contains(&n.as_str()));
        let numbered = i > 0 && NUMBERED.contains(&words[i - 1].as_str());
        if counted || numbered {
            let end = (i + 3).min(words.len());
            found.push(words[i.saturating_sub(1)..end].join(" "));
        }
    }
    found
}

#[cfg(test)]
mod tests;
