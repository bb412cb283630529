//! The `explanation_tail` finder: inside a literal, the span from the first
//! cue that starts an explanation (`because`, `since`, `which means`,
//! `so that`, `;`) to the literal's end.
//!
//! Cues are looked for in the literal's own text only, never inside an
//! f-string's `{…}` or a template's `${…}` (`{since}` is a variable), and a
//! `;` that ends a character reference (`&amp;`) is not a cue.

use crate::{markup, python, script, Literal, LiteralKind};

/// The explanation tail of each literal that has one, as byte spans into
/// `text`, in the literals' order; the caller attaches the reason
/// `explanation tail`. The words are matched whole and in any case; the
/// tail starts at the earliest cue and runs to the end of the literal.
///
/// A literal that does not lie in `text` on character boundaries is skipped,
/// so any slice of literals is safe to pass.
///
/// ```
/// use hookdex_literals::{explanation_tail, string_literals, Language};
///
/// let line = r#"reason += f"; Claude has {placeable['claude']} free seats""#;
/// let literals = string_literals(line, Language::Python);
/// let tails = explanation_tail(line, &literals);
/// assert_eq!(&line[tails[0].0..tails[0].1], "; Claude has {placeable['claude']} free seats");
///
/// let js = "label = `Last run ${since} ago`; hint = 'Retry later because the queue is full'";
/// let tails = explanation_tail(js, &string_literals(js, Language::Script));
/// assert_eq!(tails.len(), 1);
/// assert_eq!(&js[tails[0].0..tails[0].1], "because the queue is full");
/// ```
#[must_use]
pub fn explanation_tail(text: &str, literals: &[Literal]) -> Vec<(usize, usize)> {
    literals
        .iter()
        .filter(|l| l.start <= l.end && text.get(l.start..l.end).is_some())
        .filter_map(|l| {
            let pieces = match l.kind {
                LiteralKind::FString => python::pieces(text, l.start, l.end),
                LiteralKind::Template => script::pieces(text, l.start, l.end),
                _ => vec![(l.start, l.end)],
            };
            pieces
                .into_iter()
                .find_map(|(start, end)| cue(text, start, end))
                .map(|at| (at, l.end))
        })
        .collect()
}

/// Where the first cue in `text[start..end]` starts.
fn cue(text: &str, start: usize, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    (start..end).find(|&at| match bytes[at] {
        b';' => !markup::closes_entity(bytes, at),
        b'b' | b'B' | b's' | b'S' | b'w' | b'W' if word_starts(text, at) => {
            let rest = &bytes[at..end];
            [
                &["because"][..],
                &["since"],
                &["which", "means"],
                &["so", "that"],
            ]
            .iter()
            .any(|words| phrase(rest, words))
        }
        _ => false,
    })
}

/// Whether a word may start at `at`: no letter, digit or `_` right before it.
fn word_starts(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
}

/// Whether `rest` starts with `words`, separated by blanks, the last one whole.
fn phrase(mut rest: &[u8], words: &[&str]) -> bool {
    for (i, word) in words.iter().enumerate() {
        if rest.len() < word.len() || !rest[..word.len()].eq_ignore_ascii_case(word.as_bytes()) {
            return false;
        }
        rest = &rest[word.len()..];
        if i + 1 < words.len() {
            let blanks = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if blanks == 0 {
                return false;
            }
            rest = &rest[blanks..];
        }
    }
    // The last word ends where no letter, digit or `_` follows (a non-ASCII byte starts a letter or not:
    // treat it as one, so `sinceé` is not `since`).
    rest.first()
        .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80))
}
