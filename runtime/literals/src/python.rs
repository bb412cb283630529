//! The Python lexer: string, f-string and t-string literals with every prefix
//! and quote form, comments, continuations, and Python 3.12 replacement
//! fields, whose strings may reuse the enclosing quote.
//!
//! What is left out and why: bytes literals (`b"…"`, `rb'…'`) are data, not
//! text a person reads; docstrings and other expression-statement strings are
//! documentation; dict keys (`{"k": v}`) and whole subscripts (`row["k"]`)
//! are names. Strings inside replacement fields belong to their f-string.

use crate::cursor::Cursor;
use crate::fragment::{self, is_word, line_break, ByteSet, Log, MAX_DEPTH};
use crate::LiteralKind;

/// Where a reading starts: in code, or inside a construct the fragment cut.
#[derive(Clone, Copy)]
enum Start {
    Code,
    Comment,
    Inside { quote: u8, triple: bool },
}

const STARTS: [Start; 6] = [
    Start::Code,
    Start::Comment,
    Start::Inside {
        quote: b'"',
        triple: true,
    },
    Start::Inside {
        quote: b'\'',
        triple: true,
    },
    Start::Inside {
        quote: b'"',
        triple: false,
    },
    Start::Inside {
        quote: b'\'',
        triple: false,
    },
];

/// The literals of a Python fragment, in order.
pub(crate) fn literals(text: &str) -> Vec<crate::Literal> {
    fragment::read(&STARTS, |start, log| {
        let mut lexer = Lexer::new(text, 0, text.len(), log);
        match start {
            Start::Code => {}
            Start::Comment => lexer.cur.line_comment(),
            Start::Inside { quote, triple } => {
                lexer.nest = 1;
                lexer.body(quote, triple, NO_PREFIX);
                lexer.nest = 0;
            }
        }
        lexer.code(false);
    })
}

/// The text pieces of the f-string whose content is `start..end`: the spans
/// between its replacement fields.
pub(crate) fn pieces(text: &str, start: usize, end: usize) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    // The prefix sits before the quotes; `\N{…}` is a field only in raw strings.
    let quotes = bytes[..start]
        .iter()
        .rev()
        .take_while(|&&b| b == b'"' || b == b'\'')
        .count();
    let letters = bytes[..start - quotes]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphabetic());
    let raw = letters.clone().any(|b| b.eq_ignore_ascii_case(&b'r'));
    let mut log = Log::scratch();
    let mut lexer = Lexer::new(text, start, end, &mut log);
    lexer.nest = 1;
    let mut pieces = Vec::new();
    let mut from = start;
    while lexer.cur.pos < end {
        let at = lexer.cur.pos;
        match (bytes[at], bytes.get(at + 1)) {
            (b'\\', Some(b'N')) if !raw && bytes.get(at + 2) == Some(&b'{') => {
                lexer.cur.skip_past_byte(b'}')
            }
            (b'\\', Some(b'{')) => lexer.cur.pos += 1,
            (b'\\', _) => lexer.cur.pos += 2,
            (b'{', Some(b'{')) => lexer.cur.pos += 2,
            (b'{', _) => {
                pieces.push((from, at));
                lexer.cur.pos += 1;
                lexer.field();
                from = lexer.cur.pos.min(end);
            }
            _ => lexer.cur.pos += 1,
        }
    }
    pieces.push((from, end));
    pieces
}

/// A string prefix, read case-insensitively.
#[derive(Clone, Copy)]
struct Prefix {
    format: bool,
    raw: bool,
    /// False for bytes, and for a word that is no prefix (`ur"…"`, a syntax error).
    shown: bool,
}

const NO_PREFIX: Prefix = Prefix {
    format: false,
    raw: false,
    shown: true,
};

impl Prefix {
    /// The prefix spelled by `word` (`r`, `u`, `b`, `f`, `t` and the
    /// two-letter pairs of `r` with `b`, `f` or `t`); any other word before a
    /// quote is a syntax error, its string not shown.
    fn of(word: &[u8]) -> Prefix {
        let (mut raw, mut bytes, mut format) = (0, 0, 0);
        for byte in word {
            match byte.to_ascii_lowercase() {
                b'r' => raw += 1,
                b'b' => bytes += 1,
                b'f' | b't' => format += 1,
                // `u` is a prefix only alone, which the length check below sees.
                b'u' => {}
                _ => {
                    return Prefix {
                        format: false,
                        raw: false,
                        shown: false,
                    }
                }
            }
        }
        let valid = match word.len() {
            1 => true,
            2 => raw == 1 && bytes + format == 1,
            _ => false,
        };
        Prefix {
            format: valid && format == 1,
            raw: raw == 1,
            shown: valid && bytes == 0,
        }
    }
}

/// The previous token, as far as the rules on keys and docstrings need it.
#[derive(Clone, Copy, PartialEq)]
enum Tok {
    /// The start of a statement: the fragment's start, a newline outside brackets, `;`.
    Statement,
    Open(u8),
    Comma,
    /// A name, number, string or closing bracket: what a subscript follows.
    Value,
    /// An operator or keyword.
    Other,
}

struct Lexer<'t, 'l, 'p> {
    cur: Cursor<'t, 'l, 'p>,
    /// Strings we are inside (replacement fields nest them); only the outermost is reported.
    nest: u32,
    /// Replacement fields we are inside.
    depth: u32,
    brackets: u32,
    prev: Tok,
    prev2: Tok,
}

impl<'t, 'l, 'p> Lexer<'t, 'l, 'p> {
    fn new(text: &'t str, pos: usize, end: usize, log: &'l mut Log<'p>) -> Self {
        Lexer {
            cur: Cursor::new(text, pos, end, log),
            nest: 0,
            depth: 0,
            brackets: 0,
            prev: Tok::Statement,
            prev2: Tok::Statement,
        }
    }

    fn tok(&mut self, tok: Tok) {
        self.prev2 = self.prev;
        self.prev = tok;
    }

    /// Lexes code up to the end, or in a replacement field up to its `}`,
    /// `!` or `:` (left unread).
    fn code(&mut self, field: bool) {
        let mut brackets = 0u32;
        while self.cur.pos < self.cur.end {
            let byte = self.cur.bytes[self.cur.pos];
            let newline = line_break(self.cur.bytes, self.cur.pos);
            if newline > 0 {
                self.cur.pos += newline;
                if !field {
                    if self.brackets == 0 {
                        self.tok(Tok::Statement);
                    }
                    if self.cur.log.mark(self.cur.pos, 0) {
                        return;
                    }
                }
                continue;
            }
            match byte {
                b' ' | b'\t' | b'\x0c' => self.cur.pos += 1,
                b'#' => self.cur.line_comment(),
                b'\\' => self.cur.pos += 1 + line_break(self.cur.bytes, self.cur.pos + 1),
                b'"' | b'\'' => self.string(NO_PREFIX),
                b'0'..=b'9' => {
                    self.cur.word();
                    self.tok(Tok::Value);
                }
                _ if is_word(byte) => {
                    let start = self.cur.pos;
                    self.cur.word();
                    match self.cur.peek(0) {
                        Some(b'"' | b'\'') => {
                            self.string(Prefix::of(&self.cur.bytes[start..self.cur.pos]))
                        }
                        _ => self.tok(if is_keyword(&self.cur.bytes[start..self.cur.pos]) {
                            Tok::Other
                        } else {
                            Tok::Value
                        }),
                    }
                }
                b'(' | b'[' | b'{' => {
                    if field {
                        brackets += 1;
                    } else {
                        self.brackets += 1;
                    }
                    self.cur.pos += 1;
                    self.tok(Tok::Open(byte));
                }
                b'}' if field && brackets == 0 => return,
                b')' | b']' | b'}' => {
                    if field {
                        brackets = brackets.saturating_sub(1);
                    } else {
                        self.brackets = self.brackets.saturating_sub(1);
                    }
                    self.cur.pos += 1;
                    self.tok(Tok::Value);
                }
                b':' if field && brackets == 0 => return,
                b'!' if field && brackets == 0 && self.cur.peek(1) != Some(b'=') => return,
                b',' => {
                    self.cur.pos += 1;
                    self.tok(Tok::Comma);
                }
                b';' => {
                    self.cur.pos += 1;
                    self.tok(Tok::Statement);
                }
                _ => {
                    self.cur.pos += 1;
                    self.tok(Tok::Other);
                }
            }
        }
    }

    /// Lexes a string whose quote is at `pos`, and reports it when it is the
    /// outermost, terminated (or cut by the fragment's end) and user-facing.
    fn string(&mut self, prefix: Prefix) {
        let quote = self.cur.bytes[self.cur.pos];
        let triple = self.cur.peek(1) == Some(quote) && self.cur.peek(2) == Some(quote);
        self.cur.pos += if triple { 3 } else { 1 };
        let start = self.cur.pos;
        self.nest += 1;
        let closed = self.body(quote, triple, prefix);
        self.nest -= 1;
        let (prev, prev2) = (self.prev, self.prev2);
        self.tok(Tok::Value);
        let end = match closed {
            Some(end) => end,
            None if self.cur.pos >= self.cur.end && self.cur.end == self.cur.text.len() => {
                self.cur.end
            }
            None => return,
        };
        if self.nest > 0 || !prefix.shown {
            return;
        }
        let next = self.cur.next_after_blanks();
        let key = matches!(prev, Tok::Open(b'{') | Tok::Comma) && next == Some(&b':');
        let subscript = prev == Tok::Open(b'[') && prev2 == Tok::Value && next == Some(&b']');
        let statement =
            prev == Tok::Statement && matches!(next, None | Some(b'\n' | b'\r' | b'#' | b';'));
        if !(key || subscript || statement) {
            let kind = if prefix.format {
                LiteralKind::FString
            } else {
                LiteralKind::String
            };
            self.cur.log.literal(self.cur.text, start, end, kind);
        }
    }

    /// Reads a string body up to and past its closing quotes; returns where
    /// the content ends, or `None` when a line break or the end comes first.
    /// A line break is an error; so is the end in a triple-quoted string,
    /// which may mean the fragment started inside one.
    fn body(&mut self, quote: u8, triple: bool, prefix: Prefix) -> Option<usize> {
        const SPECIAL: ByteSet = ByteSet::of(b"\\\"'\n\r{");
        while self.cur.pos < self.cur.end {
            self.cur.pos = SPECIAL.find(self.cur.bytes, self.cur.pos, self.cur.end);
            let at = self.cur.pos;
            if at == self.cur.end {
                break;
            }
            match self.cur.bytes[at] {
                b'\\'
                    if prefix.format
                        && !prefix.raw
                        && self.cur.peek(1) == Some(b'N')
                        && self.cur.peek(2) == Some(b'{') =>
                {
                    self.cur.skip_past_byte(b'}');
                }
                // Raw strings too: a backslash keeps the next quote or line break in the
                // string; in an f-string it does not escape a `{`, which still opens a field.
                b'\\' if prefix.format && self.cur.peek(1) == Some(b'{') => self.cur.pos += 1,
                b'\\' => self.cur.pos += 1 + line_break(self.cur.bytes, at + 1).max(1),
                byte if byte == quote => {
                    if !triple {
                        self.cur.pos += 1;
                        return Some(at);
                    }
                    if self.cur.peek(1) == Some(quote) && self.cur.peek(2) == Some(quote) {
                        self.cur.pos += 3;
                        return Some(at);
                    }
                    self.cur.pos += 1;
                }
                b'\n' | b'\r' if !triple => break,
                b'{' if prefix.format && self.cur.peek(1) == Some(b'{') => self.cur.pos += 2,
                b'{' if prefix.format => {
                    self.cur.pos += 1;
                    self.field();
                }
                _ => self.cur.pos += 1,
            }
        }
        self.cur.pos = self.cur.pos.min(self.cur.end);
        if triple || self.cur.pos < self.cur.end {
            self.cur.log.error(self.cur.pos);
        }
        None
    }

    /// Lexes a replacement field after its `{`, up to and past its `}`:
    /// the expression, a `!` conversion, a `:` format spec with nested fields.
    fn field(&mut self) {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.cur.log.error(self.cur.pos);
            self.cur.pos = self.cur.end;
            return;
        }
        let (prev, prev2, brackets) = (self.prev, self.prev2, self.brackets);
        self.code(true);
        if self.cur.peek(0) == Some(b'!') {
            self.cur.pos += 1;
            self.cur.word();
        }
        if self.cur.peek(0) == Some(b':') {
            while let Some(byte) = self.cur.peek(0) {
                match byte {
                    b'{' => {
                        self.cur.pos += 1;
                        self.field();
                    }
                    b'}' | b'"' | b'\'' | b'\n' | b'\r' => break,
                    _ => self.cur.pos += 1,
                }
            }
        }
        if self.cur.peek(0) == Some(b'}') {
            self.cur.pos += 1;
        }
        (self.prev, self.prev2, self.brackets) = (prev, prev2, brackets);
        self.depth -= 1;
    }
}

/// Keywords after which a bracket opens a list, not a subscript.
fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"and"
            | b"as"
            | b"assert"
            | b"await"
            | b"del"
            | b"elif"
            | b"else"
            | b"for"
            | b"from"
            | b"if"
            | b"import"
            | b"in"
            | b"is"
            | b"lambda"
            | b"not"
            | b"or"
            | b"return"
            | b"while"
            | b"with"
            | b"yield"
            | b"case"
            | b"match"
    )
}
