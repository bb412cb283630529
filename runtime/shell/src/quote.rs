//! Quoting a word for a POSIX shell ([`quote`]).

/// Quotes `word` for a POSIX shell when it needs it: plain words stay as they
/// are, anything else is single-quoted.
#[must_use]
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
