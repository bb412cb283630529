//! Word cooking: quote removal ([`cook`] into [`Cooked`], built by
//! [`Builder`]), `$'…'` decoding, the expansions in a word, what a program word
//! names, and the questions asked of a word's source (an assignment, a number,
//! a tilde, a glob, anything the text does not tell).

use std::borrow::Cow;

use crate::braces::has_braces;
use crate::budget::charge;
use crate::nested::{any_unquoted, expansion_end};
use crate::types::Reason;

/// A word after quote removal; expansions are kept as their source text.
pub(crate) struct Cooked<'a> {
    pub(crate) text: Cow<'a, str>,
    /// Length of `text` up to the end of its last expansion; 0 without one.
    pub(crate) expanded_to: usize,
    /// Length of `text` before its first expansion.
    pub(crate) literal_to: usize,
}

/// Output of quote removal: borrows the source until the first change.
struct Builder<'a> {
    raw: &'a str,
    owned: Option<String>,
    expanded_to: usize,
    literal_to: Option<usize>,
}

impl Builder<'_> {
    /// Keeps `raw[from..to]` unchanged.
    fn keep(&mut self, from: usize, to: usize) {
        if let Some(s) = &mut self.owned {
            s.push_str(&self.raw[from..to]);
        }
    }

    /// The owned output, at the first change at `at` in the source.
    fn change(&mut self, at: usize) -> &mut String {
        let raw = self.raw;
        self.owned.get_or_insert_with(|| raw[..at].to_owned())
    }

    fn len(&self, at: usize) -> usize {
        self.owned.as_ref().map_or(at, String::len)
    }

    /// Keeps `raw[from..to]`, an expansion unless it is one character.
    fn keep_expansion(&mut self, from: usize, to: usize) {
        if to == from + 1 {
            return self.keep(from, to);
        }
        self.literal_to.get_or_insert(self.len(from));
        self.keep(from, to);
        self.expanded_to = self.len(to);
    }
}

/// Removes quotes and escapes from a word's source text.
pub(crate) fn cook(raw: &str) -> Cooked<'_> {
    if !charge(raw.len()) {
        // Out of budget: the word is not read, so nothing of it is known.
        return Cooked {
            text: Cow::Borrowed(raw),
            expanded_to: raw.len(),
            literal_to: 0,
        };
    }
    // A word that is one single-quoted string borrows its content.
    if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        if !inner.contains('\'') {
            return Cooked {
                text: Cow::Borrowed(inner),
                expanded_to: 0,
                literal_to: inner.len(),
            };
        }
    }
    let b = raw.as_bytes();
    let mut out = Builder {
        raw,
        owned: None,
        expanded_to: 0,
        literal_to: None,
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let s = out.change(i);
                match raw[i + 1..].chars().next() {
                    Some(c) => {
                        if c != '\n' {
                            s.push(c);
                        }
                        i += 1 + c.len_utf8();
                    }
                    None => i += 1,
                }
            }
            b'\'' => {
                let close = raw[i + 1..].find('\'').map_or(b.len(), |k| i + 1 + k);
                out.change(i).push_str(&raw[i + 1..close]);
                i = (close + 1).min(b.len());
            }
            b'"' => {
                out.change(i);
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    let from = i;
                    match (b[i], b.get(i + 1)) {
                        (b'\\', Some(b'$' | b'`' | b'"' | b'\\')) => {
                            out.change(i).push(char::from(b[i + 1]));
                            i += 2;
                        }
                        (b'\\', Some(b'\n')) => i += 2,
                        (b'$' | b'`', _) => {
                            i = expansion_end(b, i);
                            out.keep_expansion(from, i);
                        }
                        _ => {
                            i += 1;
                            while i < b.len() && !matches!(b[i], b'"' | b'\\' | b'$' | b'`') {
                                i += 1;
                            }
                            out.keep(from, i);
                        }
                    }
                }
                i = (i + 1).min(b.len());
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => {
                i = ansi_c(raw, i + 2, out.change(i));
            }
            b'$' if b.get(i + 1) == Some(&b'"') => {
                // `$"…"` is a translated double-quoted string: drop the `$`.
                out.change(i);
                i += 1;
            }
            b'$' | b'`' | b'<' | b'>' => {
                let from = i;
                i = expansion_end(b, i);
                out.keep_expansion(from, i);
            }
            _ => {
                let from = i;
                while i < b.len()
                    && !matches!(b[i], b'\\' | b'\'' | b'"' | b'$' | b'`' | b'<' | b'>')
                {
                    i += 1;
                }
                out.keep(from, i);
            }
        }
    }
    let text = out.owned.map_or(Cow::Borrowed(raw), Cow::Owned);
    Cooked {
        literal_to: out.literal_to.unwrap_or(text.len()),
        expanded_to: out.expanded_to,
        text,
    }
}

/// Decodes a `$'…'` string from `i` (after the opening quote) into `out`; returns the
/// index after its closing quote.
fn ansi_c(raw: &str, mut i: usize, out: &mut String) -> usize {
    let b = raw.as_bytes();
    while i < b.len() {
        match b[i] {
            b'\'' => return i + 1,
            b'\\' if i + 1 < b.len() => {
                let (c, len) = ansi_c_escape(&raw[i + 1..]);
                out.push(c);
                i += 1 + len;
            }
            _ => {
                let c = raw[i..].chars().next().unwrap_or('\u{fffd}');
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    i
}

/// One escape of a `$'…'` string (after its backslash): the character and the length read.
fn ansi_c_escape(s: &str) -> (char, usize) {
    let numeric = |radix: u32, skip: usize, max: usize| {
        let digits = s.as_bytes()[skip..]
            .iter()
            .take(max)
            .take_while(|d| char::from(**d).is_digit(radix))
            .count();
        let value = u32::from_str_radix(&s[skip..skip + digits], radix).ok();
        match value.and_then(char::from_u32) {
            Some(c) => (c, skip + digits),
            // No digits: the escape stands for itself.
            None if digits == 0 => ('\\', 0),
            None => ('\u{fffd}', skip + digits),
        }
    };
    let Some(c) = s.chars().next() else {
        return ('\\', 0);
    };
    let simple = match c {
        'a' => '\u{7}',
        'b' => '\u{8}',
        'e' | 'E' => '\u{1b}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\u{b}',
        '\\' | '\'' | '"' | '?' => c,
        'x' => return numeric(16, 1, 2),
        'u' => return numeric(16, 1, 4),
        'U' => return numeric(16, 1, 8),
        '0'..='7' => return numeric(8, 0, 3),
        _ => return ('\\', 0),
    };
    (simple, 1)
}

/// The source texts of the expansions bash performs in the word whose source is
/// `raw` (`$x`, `${x}`, `$(…)`, backticks, quoted or not), or with `heredoc`, in
/// the body of a heredoc whose delimiter is unquoted, where quotes are text.
pub(crate) fn expansions(raw: &str, heredoc: bool) -> Vec<&str> {
    if !charge(raw.len()) {
        return vec![raw];
    }
    let b = raw.as_bytes();
    let mut found = Vec::new();
    let mut double = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' if !double && !heredoc => {
                i = raw[i + 1..].find('\'').map_or(b.len(), |k| i + k + 2);
            }
            b'"' if !heredoc => {
                double = !double;
                i += 1;
            }
            b'$' if b.get(i + 1) == Some(&b'\'') && !double && !heredoc => {
                // `$'…'` is quoted text; its backslash escapes its quote.
                let mut text = String::new();
                i = ansi_c(raw, i + 2, &mut text);
            }
            b'$' | b'`' => {
                let end = expansion_end(b, i);
                if end > i + 1 {
                    found.push(&raw[i..end.min(b.len())]);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    found
}

/// The `env -S` escapes that differ from the shell's: `\_` is a space outside single
/// quotes and `\c` ends the string.
pub(crate) fn env_escapes(line: Cow<'_, str>) -> Cow<'_, str> {
    if !line.contains("\\_") && !line.contains("\\c") {
        return line;
    }
    let mut out = String::with_capacity(line.len());
    let mut single = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => single = !single,
            '\\' if !single => match chars.next() {
                Some('_') => {
                    out.push(' ');
                    continue;
                }
                Some('c') => break,
                Some(n) => {
                    out.push(c);
                    out.push(n);
                    continue;
                }
                None => {}
            },
            _ => {}
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// The part of `text` from byte `start` on.
pub(crate) fn tail(text: Cow<'_, str>, start: usize) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(&s[start..]),
        Cow::Owned(s) if start == 0 => Cow::Owned(s),
        Cow::Owned(s) => Cow::Owned(s[start..].to_owned()),
    }
}

/// What a program word names.
pub(crate) enum Name<'a> {
    /// A basename.
    Known(Cow<'a, str>),
    /// Several words, from brace expansion (`{kubectl,x}`): their source texts.
    Braces(Vec<String>),
    /// Nothing the text tells.
    Unknown(Reason),
    /// Nothing: the word ends in `/`.
    Empty,
}

impl Name<'_> {
    /// Drops a borrow (only `Known` has one).
    pub(crate) fn into_owned<'b>(self) -> Name<'b> {
        match self {
            Name::Known(name) => Name::Known(Cow::Owned(name.into_owned())),
            Name::Braces(words) => Name::Braces(words),
            Name::Unknown(reason) => Name::Unknown(reason),
            Name::Empty => Name::Empty,
        }
    }
}

/// The basename of a program word, unless an expansion makes it unknowable.
pub(crate) fn program_name(word: Cooked<'_>) -> Name<'_> {
    let start = match word.text[word.expanded_to..].rfind('/') {
        Some(k) => word.expanded_to + k + 1,
        None if word.expanded_to > 0 => return Name::Unknown(Reason::Expansion),
        None => 0,
    };
    if start < word.text.len() {
        Name::Known(tail(word.text, start))
    } else {
        Name::Empty
    }
}

/// Whether the word whose source is `raw` holds a command substitution as
/// text, which bash does not run where it expands the word: quoted (`'$(x)'`,
/// `$'$(x)'`) or escaped (`\$(x)`, `` \` ``).
pub(crate) fn literal_substitution(raw: &str) -> bool {
    let b = raw.as_bytes();
    let mut double = false;
    let mut braces = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if matches!(b.get(i + 1), Some(b'$' | b'`')) => return true,
            b'\\' => i += 1,
            b'$' if double && b.get(i + 1) == Some(&b'{') => braces += 1,
            b'}' if braces > 0 => braces -= 1,
            // Inside `"${…}"` single quotes quote too (`"${s:'a[$(x)]'}"`).
            b'\'' if !double || braces > 0 => {
                let ansi = i > 0 && b[i - 1] == b'$';
                let mut j = i + 1;
                while j < b.len() && b[j] != b'\'' {
                    j += 1 + usize::from(ansi && b[j] == b'\\');
                }
                let quoted = &raw[i + 1..j.min(b.len())];
                if quoted.contains("$(") || quoted.contains('`') {
                    return true;
                }
                i = j;
            }
            b'"' => double = !double,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether the text does not tell a word whose source is `raw`: it has an
/// expansion (quoted or not, its value is unknown), an unquoted glob, brace
/// expansion or extglob, or a tilde bash expands (`~` is `$HOME`, `~-` is
/// `$OLDPWD`, and both can be set on the line).
pub(crate) fn word_unknown(raw: &str) -> bool {
    has_tilde(raw) || cook(raw).expanded_to > 0 || has_glob(raw) || has_braces(raw)
}

/// Whether bash expands a tilde in the word whose source is `raw`: at its
/// start, and in an assignment's value after the `=` or a `:` (as an argument
/// too, outside POSIX mode).
fn has_tilde(raw: &str) -> bool {
    let value = match raw.find('=') {
        Some(eq) if is_assignment(raw) => &raw[eq + 1..],
        _ => "",
    };
    raw.starts_with('~') || value.starts_with('~') || value.contains(":~")
}

/// Whether a word's source has an unquoted glob character (`*`, `?`, `[…]`) or
/// extglob group (`@(…)`, `!(…)`, `+(…)`; `?(…)` and `*(…)` are globs already).
pub(crate) fn has_glob(raw: &str) -> bool {
    if !charge(raw.len()) {
        return true;
    }
    let b = raw.as_bytes();
    let last_close = raw.rfind(']');
    any_unquoted(raw, |i| match b[i] {
        b'*' | b'?' => true,
        b'[' => last_close.is_some_and(|c| c > i),
        b'@' | b'!' | b'+' => b.get(i + 1) == Some(&b'('),
        _ => false,
    })
}

/// Whether a word's source is a number whatever the variables hold: digits, a sign,
/// or a count bash keeps (`$#`, `$?`, `$$`, `$!`, `${#x}`), quoted or not.
pub(crate) fn is_number(raw: &str) -> bool {
    let word = raw.trim_matches('"');
    let count = matches!(word, "$#" | "$?" | "$$" | "$!")
        || word.strip_prefix("${#").is_some_and(|rest| {
            rest.strip_suffix('}')
                .is_some_and(|name| name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        });
    count || (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
}

/// `NAME=`, `NAME+=` or `NAME[…]=` at the start of a word's source text.
pub(crate) fn is_assignment(raw: &str) -> bool {
    let b = raw.as_bytes();
    if !b
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return false;
    }
    let mut i = 1;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if b.get(i) == Some(&b'[') {
        match raw[i..].find(']') {
            Some(k) => i += k + 1,
            None => return false,
        }
    }
    if b.get(i) == Some(&b'+') {
        i += 1;
    }
    b.get(i) == Some(&b'=')
}

/// The descriptor `path` names, when it names one of the reading process's:
/// `/dev/stdin` (0), `/dev/fd/N`, `/proc/self/fd/N` and the like, however its
/// slashes, `.` and `..` are written (`..` stops at the root, so
/// `../../dev/stdin` is one from `/`).
pub(crate) fn fd_path(path: &str) -> Option<u32> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let fd = match parts.as_slice() {
        ["dev", "stdin"] => return Some(0),
        ["dev", "fd", fd] => fd,
        ["proc", process, "fd", fd]
            if matches!(*process, "self" | "thread-self") || digits(process) =>
        {
            fd
        }
        ["proc", process, "task", task, "fd", fd]
            if (*process == "self" || digits(process)) && digits(task) =>
        {
            fd
        }
        _ => return None,
    };
    fd.parse().ok()
}

/// Whether `path` names the reading shell's stdin: `/dev/stdin`, `/dev/fd/0`,
/// `/proc/self/fd/0` and the like, however its slashes, `.` and `..` are
/// written (`..` stops at the root, so `../../dev/stdin` is one from `/`).
pub(crate) fn is_stdin_path(path: &str) -> bool {
    fd_path(path) == Some(0)
}
