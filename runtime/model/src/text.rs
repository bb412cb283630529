//! Bounded text: what hookdex passes on from rules (context, reasons, notes)
//! is cut to a length with a marker saying how much went, so no rule can make
//! a reply or a log line unbounded.

/// The most characters of one context, reason or note passed on: Claude
/// Code's own cap on injected hook text.
pub const MAX_TEXT: usize = 10_000;

/// `text` cut to at most about `max` bytes, on a character boundary, with a
/// marker naming what was cut; unchanged when it fits.
///
/// ```
/// use hookdex_model::text::cut;
/// assert_eq!(cut("short", 100), "short");
/// assert!(cut(&"x".repeat(500), 100).ends_with("[hookdex: 440 more bytes cut]"));
/// ```
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let marker_room = 40.min(max);
    let mut end = max - marker_room;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… [hookdex: {} more bytes cut]",
        &text[..end],
        text.len() - end
    )
}

/// The word of `known` nearest to `word` by edit distance (Levenshtein,
/// by character), if one is near enough to be a typo of it: at most one
/// edit for a word of up to four characters, a third of its length above.
///
/// ```
/// use hookdex_model::text::nearest;
/// assert_eq!(nearest("comand", &["type", "command", "timeout"]), Some("command"));
/// assert_eq!(nearest("colour", &["mode", "action"]), None);
/// ```
pub fn nearest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (edit_distance(word, k), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The number of single-character insertions, deletions and substitutions
/// that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod nearest_tests {
    use super::*;

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("reasn", "reason"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn nearest_takes_typos_only() {
        let keys = ["regex", "script", "reason"];
        assert_eq!(nearest("reasn", &keys), Some("reason"));
        assert_eq!(nearest("scirpt", &keys), Some("script"));
        assert_eq!(nearest("colour", &keys), None);
        assert_eq!(nearest("rx", &keys), None);
    }
}
