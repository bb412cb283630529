//! The skeleton every lexer here shares: a [`Cursor`] over one range of the
//! fragment, writing what it finds to the reading's [`Log`], with the steps
//! each language takes the same way (look ahead, step over a word, a line
//! comment, or past a byte). Each lexer holds one and adds its own grammar.

use crate::fragment::{is_word, Log, LINE_BREAKS};

/// Where a lexer is in `text[..end]`, and the log its reading fills.
pub(crate) struct Cursor<'t, 'l, 'p> {
    pub(crate) text: &'t str,
    pub(crate) bytes: &'t [u8],
    pub(crate) pos: usize,
    /// Where this lexer stops: the fragment's end, or the end of a nested range.
    pub(crate) end: usize,
    pub(crate) log: &'l mut Log<'p>,
}

impl<'t, 'l, 'p> Cursor<'t, 'l, 'p> {
    /// A cursor at `pos` reading `text` up to `end`.
    pub(crate) fn new(text: &'t str, pos: usize, end: usize, log: &'l mut Log<'p>) -> Self {
        Cursor {
            text,
            bytes: text.as_bytes(),
            pos,
            end,
            log,
        }
    }

    /// The byte `ahead` of the cursor, if before the end.
    pub(crate) fn peek(&self, ahead: usize) -> Option<u8> {
        let at = self.pos + ahead;
        (at < self.end).then(|| self.bytes[at])
    }

    /// Steps over a run of word bytes (a name, a keyword or a number).
    pub(crate) fn word(&mut self) {
        while self.peek(0).is_some_and(is_word) {
            self.pos += 1;
        }
    }

    /// Steps to the next line break: the rest of a line comment.
    pub(crate) fn line_comment(&mut self) {
        self.pos = LINE_BREAKS.find(self.bytes, self.pos, self.end);
    }

    /// Skips past the next `byte` (or to the end).
    pub(crate) fn skip_past_byte(&mut self, byte: u8) {
        match self.bytes[self.pos..self.end]
            .iter()
            .position(|&b| b == byte)
        {
            Some(at) => self.pos += at + 1,
            None => self.pos = self.end,
        }
    }

    /// The first byte after the cursor that is not a space or a tab: what
    /// follows a literal, telling a key or a statement from a value.
    pub(crate) fn next_after_blanks(&self) -> Option<&'t u8> {
        self.bytes[self.pos..self.end]
            .iter()
            .find(|&&b| b != b' ' && b != b'\t')
    }
}
