//! The name a mistyped word was meant to be, for "did you mean".

/// The one of `known` that `word` is a likely typo of: at most a third of
/// its letters (and at least one) edited away.
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let most = (word.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (edits(word, k), k))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The Levenshtein distance between `a` and `b`, by characters.
pub fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diag = above;
        }
    }
    row[b.len()]
}

/// ` (did you mean `X`?)` when there is a close one, else nothing.
pub fn did_you_mean(x: Option<&str>) -> String {
    x.map(|x| format!(" (did you mean `{x}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
