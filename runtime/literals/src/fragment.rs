//! Reading a fragment whose first byte may sit inside a string or a comment:
//! the plain reading first, and only when it met errors, readings that assume
//! the fragment starts inside each construct, kept when they err less.
//!
//! A lexer writes what it finds into a [`Log`]. The plain reading also records
//! marks: offsets where the lexer stood in its base state (a newline in
//! top-level code, the text after a tag). An alternative reading stops at the
//! first mark it shares with the plain one, since from there both read alike;
//! so an alternative costs a line or two, not a second pass.

use crate::{Literal, LiteralKind};

/// What one reading of a fragment found.
pub(crate) struct Log<'p> {
    literals: Vec<Literal>,
    errors: Vec<usize>,
    marks: Vec<(usize, u8)>,
    /// The plain reading's marks, when this is an alternative reading.
    plain: Option<&'p [(usize, u8)]>,
    cursor: usize,
    joined: Option<usize>,
}

impl<'p> Log<'p> {
    fn new(plain: Option<&'p [(usize, u8)]>) -> Self {
        Log {
            literals: Vec::new(),
            errors: Vec::new(),
            marks: Vec::new(),
            plain,
            cursor: 0,
            joined: None,
        }
    }

    /// A log that keeps nothing anyone reads: for scanning the holes of one literal.
    pub(crate) fn scratch() -> Log<'static> {
        Log::new(None)
    }

    /// Records the literal `start..end` of `text`; one that is empty or only
    /// whitespace (JSX's `{' '}`) has nothing to read and is dropped. Lexers
    /// report in source order, except an attribute whose readability is known
    /// only at the end of its tag, which is inserted in place.
    pub(crate) fn literal(&mut self, text: &str, start: usize, end: usize, kind: LiteralKind) {
        if text[start..end].trim().is_empty() {
            return;
        }
        let literal = Literal { start, end, kind };
        match self.literals.last() {
            Some(last) if last.start > start => {
                let at = self.literals.partition_point(|l| l.start < start);
                self.literals.insert(at, literal);
            }
            _ => self.literals.push(literal),
        }
    }

    /// Records something a well-formed fragment read from the right start
    /// would not contain: an unterminated string, a stray closer.
    pub(crate) fn error(&mut self, at: usize) {
        self.errors.push(at);
    }

    /// Marks `at` as a base-state offset with the lexer state `key`. Returns
    /// true when an alternative reading has met the plain one there: the
    /// lexer stops, the plain reading covers the rest.
    pub(crate) fn mark(&mut self, at: usize, key: u8) -> bool {
        let Some(plain) = self.plain else {
            self.marks.push((at, key));
            return false;
        };
        while self.cursor < plain.len() && plain[self.cursor].0 < at {
            self.cursor += 1;
        }
        if plain.get(self.cursor) == Some(&(at, key)) {
            self.joined = Some(at);
            return true;
        }
        false
    }
}

/// Reads `text` from `starts[0]` (plain code or text), and when that reading
/// has errors, from each other start; the reading with the fewest errors wins,
/// the earlier start on a tie. `run` lexes the whole text into the log.
pub(crate) fn read<S: Copy>(starts: &[S], run: impl Fn(S, &mut Log<'_>)) -> Vec<Literal> {
    let mut plain = Log::new(None);
    run(starts[0], &mut plain);
    if plain.errors.is_empty() {
        return plain.literals;
    }
    let mut best: Option<(Vec<Literal>, usize)> = None;
    let mut fewest = plain.errors.len();
    for &start in &starts[1..] {
        let mut alternative = Log::new(Some(&plain.marks));
        run(start, &mut alternative);
        let joined = alternative.joined.unwrap_or(usize::MAX);
        let errors =
            alternative.errors.len() + plain.errors.iter().filter(|&&e| e >= joined).count();
        if errors < fewest {
            fewest = errors;
            best = Some((alternative.literals, joined));
        }
    }
    match best {
        None => plain.literals,
        Some((mut literals, joined)) => {
            let rest = plain.literals.partition_point(|l| l.start < joined);
            literals.extend_from_slice(&plain.literals[rest..]);
            literals
        }
    }
}

/// Nesting limit for templates in holes in templates, JSX in JSX, f-strings
/// in f-strings; a deeper construct ends the reading (an error), which keeps
/// the stack bounded on any input.
pub(crate) const MAX_DEPTH: u32 = 32;

/// The span of `text[start..end]` without its leading and trailing whitespace.
pub(crate) fn trim(text: &str, start: usize, end: usize) -> (usize, usize) {
    let piece = &text[start..end];
    let body = piece.trim_start();
    let start = start + (piece.len() - body.len());
    (start, start + body.trim_end().len())
}

/// The length of the line break at `at` (`\n`, `\r\n` or a lone `\r`), 0 if none.
pub(crate) fn line_break(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(b'\n') => 1,
        Some(b'\r') if bytes.get(at + 1) == Some(&b'\n') => 2,
        Some(b'\r') => 1,
        _ => 0,
    }
}

/// Whether `byte` continues an identifier; bytes of non-ASCII characters do,
/// so a lexer never cuts inside a character.
pub(crate) fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// A set of bytes: a lexer skips the bytes outside it in one tight loop
/// (a string's letters, a comment, a text node's words).
pub(crate) struct ByteSet([bool; 256]);

impl ByteSet {
    pub(crate) const fn of(set: &[u8]) -> ByteSet {
        let mut table = [false; 256];
        let mut i = 0;
        while i < set.len() {
            table[set[i] as usize] = true;
            i += 1;
        }
        ByteSet(table)
    }

    /// The first offset from `at` below `end` whose byte is in the set, or `end`.
    pub(crate) fn find(&self, bytes: &[u8], at: usize, end: usize) -> usize {
        let at = at.min(end);
        bytes[at..end]
            .iter()
            .position(|&b| self.0[usize::from(b)])
            .map_or(end, |i| at + i)
    }
}

/// Line breaks, where line comments end.
pub(crate) const LINE_BREAKS: ByteSet = ByteSet::of(b"\n\r");
