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
        return word.to_string();
    }
    // Sized for the common case (no `'` inside), so a long word is copied once.
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('\'');
    for (i, part) in word.split('\'').enumerate() {
        if i > 0 {
            quoted.push_str("'\\''");
        }
        quoted.push_str(part);
    }
    quoted.push('\'');
    quoted
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn words_are_quoted_only_when_they_need_it() {
        assert_eq!(quote("git"), "git");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("''"), r"''\'''\'''");
    }
}
