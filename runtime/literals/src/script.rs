//! The JavaScript and TypeScript lexer: quoted strings, template literals
//! with `${…}` nested to any depth, regex literals told from division by the
//! previous token, comments, and in JSX dialects elements with their text
//! and attribute strings (a `<` opens an element only where an expression
//! may start, and `<T,>` / `<T extends U>` / `<T = U>` stay generics).
//!
//! What is left out and why: module specifiers (`from "x"`, `import("x")`,
//! `require("x")`, `declare module "x"`) and directives (`"use strict"`) are
//! for the runtime; object keys (`{"k": v}`), `case "k":` labels and whole
//! subscripts (`row["k"]`) are names; tagged templates other than `html`
//! are DSLs (`css`, `gql`, `sql`, `styled.div`). Strings inside a template's
//! holes belong to the template.

use crate::attributes::Tag;
use crate::cursor::Cursor;
use crate::fragment::{self, is_word, line_break, trim, ByteSet, Log, MAX_DEPTH};
use crate::LiteralKind;

/// Where a reading starts: in code, or inside a construct the fragment cut.
#[derive(Clone, Copy)]
enum Start {
    Code,
    LineComment,
    BlockComment,
    Inside(u8),
}

const STARTS: [Start; 6] = [
    Start::Code,
    Start::BlockComment,
    Start::LineComment,
    Start::Inside(b'`'),
    Start::Inside(b'"'),
    Start::Inside(b'\''),
];

/// The literals of a script fragment, in order; `jsx` lets `<` open elements.
pub(crate) fn literals(text: &str, jsx: bool) -> Vec<crate::Literal> {
    fragment::read(&STARTS, |start, log| {
        let mut lexer = Lexer::new(text, 0, text.len(), jsx, log);
        lexer.marks = true;
        lexer.nest = 1;
        match start {
            Start::Code => {}
            Start::LineComment => lexer.cur.line_comment(),
            Start::BlockComment => lexer.block_comment(0),
            Start::Inside(b'`') => {
                lexer.template_body();
            }
            Start::Inside(quote) => {
                lexer.string_body(quote);
            }
        }
        lexer.nest = 0;
        lexer.code(false);
    })
}

/// Lexes `start..end` of `text` as a whole script (a `<script>` block) into `log`.
pub(crate) fn program(text: &str, start: usize, end: usize, jsx: bool, log: &mut Log<'_>) {
    Lexer::new(text, start, end, jsx, log).code(false);
}

/// Lexes an expression from `start` up to its unmatched `}` or `end` (a
/// Svelte or Vue interpolation, a Vue directive's value) into `log`; returns
/// where it stopped. A string alone there is no directive.
pub(crate) fn expression(text: &str, start: usize, end: usize, log: &mut Log<'_>) -> usize {
    let mut lexer = Lexer::new(text, start, end, false, log);
    lexer.prev = Tok::Open(b'(');
    lexer.code(true);
    lexer.cur.pos.min(end)
}

/// The text pieces of the template literal whose content is `start..end`:
/// the spans between its `${…}` holes.
pub(crate) fn pieces(text: &str, start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut log = Log::scratch();
    let mut lexer = Lexer::new(text, start, end, true, &mut log);
    lexer.nest = 1;
    let mut pieces = Vec::new();
    let mut from = start;
    while lexer.cur.pos < end {
        let at = lexer.cur.pos;
        match lexer.cur.bytes[at] {
            b'\\' => lexer.cur.pos += 2,
            b'$' if lexer.cur.peek(1) == Some(b'{') => {
                pieces.push((from, at));
                lexer.cur.pos += 2;
                lexer.hole();
                from = lexer.cur.pos.min(end);
            }
            _ => lexer.cur.pos += 1,
        }
    }
    pieces.push((from, end));
    pieces
}

/// The previous token, as far as regexes, JSX and the skipping rules need it.
#[derive(Clone, Copy, PartialEq)]
enum Tok {
    /// The fragment's start or a `;`: a statement starts.
    Statement,
    Open(u8),
    Close(u8),
    Comma,
    /// An identifier or keyword, by its span.
    Word(usize, usize),
    /// A number, string, template, regex or JSX element.
    Value,
    /// Any other punctuator.
    Other,
}

struct Lexer<'t, 'l, 'p> {
    cur: Cursor<'t, 'l, 'p>,
    jsx: bool,
    /// Whether top-level line breaks are marks (the fragment's own reading).
    marks: bool,
    /// Templates we are inside; only the outermost literal is reported.
    nest: u32,
    /// Holes, expression containers and elements we are inside.
    depth: u32,
    prev: Tok,
    prev2: Tok,
}

impl<'t, 'l, 'p> Lexer<'t, 'l, 'p> {
    fn new(text: &'t str, pos: usize, end: usize, jsx: bool, log: &'l mut Log<'p>) -> Self {
        Lexer {
            cur: Cursor::new(text, pos, end, log),
            jsx,
            marks: false,
            nest: 0,
            depth: 0,
            prev: Tok::Statement,
            prev2: Tok::Statement,
        }
    }

    fn tok(&mut self, tok: Tok) {
        self.prev2 = self.prev;
        self.prev = tok;
    }

    fn word_is(&self, tok: Tok, words: &[&[u8]]) -> bool {
        matches!(tok, Tok::Word(s, e) if words.contains(&&self.cur.bytes[s..e]))
    }

    /// Whether an expression may start here, so `/` opens a regex and `<` an element.
    fn expression_may_start(&self) -> bool {
        match self.prev {
            Tok::Value | Tok::Close(b')' | b']') => false,
            Tok::Word(..) => self.word_is(self.prev, KEYWORDS_BEFORE_EXPRESSION),
            _ => true,
        }
    }

    /// Lexes code up to the end, or with `hole` up to an unmatched `}` (left unread).
    fn code(&mut self, hole: bool) {
        let mut braces = 0u32;
        while self.cur.pos < self.cur.end {
            let byte = self.cur.bytes[self.cur.pos];
            let newline = line_break(self.cur.bytes, self.cur.pos);
            if newline > 0 {
                self.cur.pos += newline;
                if self.marks
                    && self.depth == 0
                    && self
                        .cur
                        .log
                        .mark(self.cur.pos, self.expression_may_start().into())
                {
                    return;
                }
                continue;
            }
            match byte {
                b' ' | b'\t' | b'\x0b' | b'\x0c' => self.cur.pos += 1,
                b'/' if self.cur.peek(1) == Some(b'/') => self.cur.line_comment(),
                b'/' if self.cur.peek(1) == Some(b'*') => self.block_comment(2),
                b'/' if self.expression_may_start() => self.regex(),
                b'"' | b'\'' => self.string(),
                b'`' => self.template(),
                b'<' if self.jsx && self.expression_may_start() && self.element_starts() => {
                    self.element()
                }
                b'0'..=b'9' => {
                    self.cur.word();
                    self.tok(Tok::Value);
                }
                b'.' if self.cur.peek(1).is_some_and(|b| b.is_ascii_digit()) => {
                    self.cur.pos += 1;
                    self.cur.word();
                    self.tok(Tok::Value);
                }
                _ if is_word(byte) => {
                    let start = self.cur.pos;
                    self.cur.word();
                    self.tok(Tok::Word(start, self.cur.pos));
                }
                b'{' => {
                    braces += 1;
                    self.cur.pos += 1;
                    self.tok(Tok::Open(b'{'));
                }
                b'}' if hole && braces == 0 => return,
                b'}' => {
                    braces = braces.saturating_sub(1);
                    self.cur.pos += 1;
                    self.tok(Tok::Close(b'}'));
                }
                b'(' | b'[' => {
                    self.cur.pos += 1;
                    self.tok(Tok::Open(byte));
                }
                b')' | b']' => {
                    self.cur.pos += 1;
                    self.tok(Tok::Close(byte));
                }
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

    /// Skips a block comment whose body starts `skip` bytes on.
    fn block_comment(&mut self, skip: usize) {
        match self.cur.text[self.cur.pos + skip.min(self.cur.end - self.cur.pos)..self.cur.end]
            .find("*/")
        {
            Some(at) => self.cur.pos += skip + at + 2,
            None => {
                self.cur.log.error(self.cur.pos);
                self.cur.pos = self.cur.end;
            }
        }
    }

    /// Enters a nested construct; false (and the reading ends) past the depth limit.
    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.cur.log.error(self.cur.pos);
            self.cur.pos = self.cur.end;
            return false;
        }
        true
    }

    /// Lexes a `/…/flags` literal; a `/` whose line ends first was division.
    fn regex(&mut self) {
        let start = self.cur.pos;
        self.cur.pos += 1;
        let mut class = false;
        while let Some(byte) = self.cur.peek(0) {
            match byte {
                b'\\' => self.cur.pos += 2,
                b'\n' | b'\r' => break,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => {
                    self.cur.pos += 1;
                    self.cur.word();
                    self.tok(Tok::Value);
                    return;
                }
                _ => {}
            }
            if byte != b'\\' {
                self.cur.pos += 1;
            }
        }
        self.cur.log.error(start);
        self.cur.pos = start + 1;
        self.tok(Tok::Other);
    }

    /// Lexes a quoted string at `pos` and reports it when user-facing.
    fn string(&mut self) {
        let quote = self.cur.bytes[self.cur.pos];
        self.cur.pos += 1;
        let start = self.cur.pos;
        let Some(end) = self.string_body(quote) else {
            return self.tok(Tok::Value);
        };
        let (prev, prev2) = (self.prev, self.prev2);
        self.tok(Tok::Value);
        if self.nest > 0 {
            return;
        }
        let next = self.cur.next_after_blanks();
        let module = self.word_is(prev, &[b"from", b"import", b"module"])
            || (prev == Tok::Open(b'(') && self.word_is(prev2, &[b"import", b"require"]));
        let key = (matches!(prev, Tok::Open(b'{') | Tok::Comma) || self.word_is(prev, &[b"case"]))
            && next == Some(&b':');
        let subscript = prev == Tok::Open(b'[')
            && matches!(prev2, Tok::Word(..) | Tok::Value | Tok::Close(_))
            && !self.word_is(prev2, KEYWORDS_BEFORE_EXPRESSION)
            && next == Some(&b']');
        let directive = matches!(prev, Tok::Statement | Tok::Open(b'{') | Tok::Close(b'}'))
            && matches!(next, None | Some(b';' | b'\n' | b'\r'));
        if !(module || key || subscript || directive) {
            self.cur
                .log
                .literal(self.cur.text, start, end, LiteralKind::String);
        }
    }

    /// Reads a quoted string's body past its closing quote; returns where the
    /// content ends, or `None` (an error) when a line break comes first. A
    /// string cut by the fragment's end runs to it.
    fn string_body(&mut self, quote: u8) -> Option<usize> {
        const SPECIAL: ByteSet = ByteSet::of(b"\\\"'\n\r");
        loop {
            self.cur.pos = SPECIAL.find(self.cur.bytes, self.cur.pos, self.cur.end);
            let Some(byte) = self.cur.peek(0) else { break };
            match byte {
                b'\\' => self.cur.pos += 1 + line_break(self.cur.bytes, self.cur.pos + 1).max(1),
                b'\n' | b'\r' => {
                    self.cur.log.error(self.cur.pos);
                    return None;
                }
                _ if byte == quote => {
                    self.cur.pos += 1;
                    return Some(self.cur.pos - 1);
                }
                _ => self.cur.pos += 1,
            }
        }
        self.cut_off(false)
    }

    /// At the end of the range inside a literal: it runs to the end if that
    /// is the fragment's own end. Cutting a template is an error, since the
    /// fragment may have started inside one.
    fn cut_off(&mut self, template: bool) -> Option<usize> {
        self.cur.pos = self.cur.end;
        if template {
            self.cur.log.error(self.cur.end);
        }
        (self.cur.end == self.cur.text.len()).then_some(self.cur.end)
    }

    /// Lexes a template literal at `pos` and reports it when user-facing.
    fn template(&mut self) {
        let tagged = match self.prev {
            Tok::Word(..) => !self.word_is(self.prev, KEYWORDS_BEFORE_EXPRESSION),
            Tok::Close(b')' | b']') => true,
            _ => false,
        };
        let lit_html = self.word_is(self.prev, &[b"html"]);
        self.cur.pos += 1;
        let start = self.cur.pos;
        self.nest += 1;
        let end = self.template_body();
        self.nest -= 1;
        self.tok(Tok::Value);
        if let Some(end) = end {
            if self.nest == 0 && (!tagged || lit_html) {
                self.cur
                    .log
                    .literal(self.cur.text, start, end, LiteralKind::Template);
            }
        }
    }

    /// Reads a template's body past its closing backtick, lexing its holes.
    fn template_body(&mut self) -> Option<usize> {
        const SPECIAL: ByteSet = ByteSet::of(b"\\`$");
        loop {
            self.cur.pos = SPECIAL.find(self.cur.bytes, self.cur.pos, self.cur.end);
            let Some(byte) = self.cur.peek(0) else { break };
            match byte {
                b'\\' => self.cur.pos += 2,
                b'`' => {
                    self.cur.pos += 1;
                    return Some(self.cur.pos - 1);
                }
                b'$' if self.cur.peek(1) == Some(b'{') => {
                    self.cur.pos += 2;
                    self.hole();
                }
                _ => self.cur.pos += 1,
            }
        }
        self.cut_off(true)
    }

    /// Lexes the code of a `${…}` hole or a `{…}` expression container after
    /// its `{`, up to and past its `}`.
    fn hole(&mut self) {
        if !self.enter() {
            return;
        }
        let (prev, prev2) = (self.prev, self.prev2);
        self.prev = Tok::Open(b'{');
        self.code(true);
        if self.cur.peek(0) == Some(b'}') {
            self.cur.pos += 1;
        } else {
            self.cur.log.error(self.cur.pos);
        }
        (self.prev, self.prev2) = (prev, prev2);
        self.depth -= 1;
    }

    /// Whether the `<` at `pos` opens an element: `<>` or `<Name`, but not a
    /// generic's `<T,>`, `<T = U>` or `<T extends U>`.
    fn element_starts(&self) -> bool {
        let rest = &self.cur.bytes[self.cur.pos + 1..self.cur.end];
        match rest.first() {
            Some(b'>') => true,
            Some(&b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                let name = rest
                    .iter()
                    .take_while(|&&b| is_word(b) || b == b'.' || b == b'-' || b == b':')
                    .count();
                let after = &rest[name..];
                let gap = after.iter().take_while(|b| b.is_ascii_whitespace()).count();
                let after = &after[gap..];
                !(after.starts_with(b",")
                    || after.starts_with(b"=")
                    || (gap > 0
                        && after.starts_with(b"extends")
                        && after.get(7).is_some_and(|b| !is_word(*b))))
            }
            _ => false,
        }
    }

    /// Lexes a JSX element at its `<` through its closing tag.
    fn element(&mut self) {
        if !self.enter() {
            return;
        }
        self.cur.pos += 1;
        let name_start = self.cur.pos;
        while self
            .cur
            .peek(0)
            .is_some_and(|b| is_word(b) || b == b'.' || b == b'-' || b == b':')
        {
            self.cur.pos += 1;
        }
        let name = name_start..self.cur.pos;
        if self.attributes(name) {
            self.children();
        }
        self.depth -= 1;
        self.tok(Tok::Value);
    }

    /// Lexes an opening tag's attributes through its `>`; false when the tag
    /// closed itself (`/>`) or the range ended.
    fn attributes(&mut self, element: std::ops::Range<usize>) -> bool {
        let bytes = self.cur.bytes;
        let mut tag = Tag::new(&bytes[element]);
        let open = loop {
            while self.cur.peek(0).is_some_and(|b| b.is_ascii_whitespace()) {
                self.cur.pos += 1;
            }
            let Some(byte) = self.cur.peek(0) else {
                self.cur.log.error(self.cur.pos);
                break false;
            };
            match byte {
                b'>' => {
                    self.cur.pos += 1;
                    break true;
                }
                b'/' if self.cur.peek(1) == Some(b'>') => {
                    self.cur.pos += 2;
                    break false;
                }
                b'/' if self.cur.peek(1) == Some(b'*') => self.block_comment(2),
                b'{' => {
                    self.cur.pos += 1;
                    self.hole();
                }
                _ if is_word(byte) => {
                    let name_start = self.cur.pos;
                    while self
                        .cur
                        .peek(0)
                        .is_some_and(|b| is_word(b) || b == b'-' || b == b':' || b == b'.')
                    {
                        self.cur.pos += 1;
                    }
                    let name = &bytes[name_start..self.cur.pos];
                    while self.cur.peek(0).is_some_and(|b| b.is_ascii_whitespace()) {
                        self.cur.pos += 1;
                    }
                    if self.cur.peek(0) == Some(b'=') {
                        self.cur.pos += 1;
                        while self.cur.peek(0).is_some_and(|b| b.is_ascii_whitespace()) {
                            self.cur.pos += 1;
                        }
                        self.value(&mut tag, name);
                    }
                }
                _ => self.cur.pos += 1,
            }
        };
        if let Some((start, end)) = tag.finish().filter(|_| self.nest == 0) {
            self.cur
                .log
                .literal(self.cur.text, start, end, LiteralKind::Attribute);
        }
        open
    }

    /// Lexes an attribute's value: a string (no escapes in JSX), an
    /// expression container or an element.
    fn value(&mut self, tag: &mut Tag<'t>, name: &[u8]) {
        match self.cur.peek(0) {
            Some(quote @ (b'"' | b'\'')) => {
                self.cur.pos += 1;
                let start = self.cur.pos;
                match self.cur.bytes[start..self.cur.end]
                    .iter()
                    .position(|&b| b == quote)
                {
                    Some(at) => {
                        self.cur.pos = start + at + 1;
                        let span = trim(self.cur.text, start, start + at);
                        if tag.readable(name, span, &self.cur.bytes[start..start + at])
                            && self.nest == 0
                        {
                            self.cur.log.literal(
                                self.cur.text,
                                span.0,
                                span.1,
                                LiteralKind::Attribute,
                            );
                        }
                    }
                    None => {
                        self.cur.log.error(start);
                        self.cur.pos = self.cur.end;
                    }
                }
            }
            Some(b'{') => {
                self.cur.pos += 1;
                self.hole();
            }
            Some(b'<') => self.element(),
            _ => {}
        }
    }

    /// Lexes an element's children through its closing tag.
    fn children(&mut self) {
        loop {
            const SPECIAL: ByteSet = ByteSet::of(b"<{");
            let start = self.cur.pos;
            self.cur.pos = SPECIAL.find(self.cur.bytes, self.cur.pos, self.cur.end);
            if self.nest == 0 {
                let (start, end) = trim(self.cur.text, start, self.cur.pos);
                self.cur
                    .log
                    .literal(self.cur.text, start, end, LiteralKind::JsxText);
            }
            match self.cur.peek(0) {
                None => {
                    self.cur.log.error(self.cur.pos);
                    return;
                }
                Some(b'{') => {
                    self.cur.pos += 1;
                    self.hole();
                }
                Some(_) if self.cur.peek(1) == Some(b'/') => {
                    match self.cur.bytes[self.cur.pos..self.cur.end]
                        .iter()
                        .position(|&b| b == b'>')
                    {
                        Some(at) => self.cur.pos += at + 1,
                        None => {
                            self.cur.log.error(self.cur.pos);
                            self.cur.pos = self.cur.end;
                        }
                    }
                    return;
                }
                Some(_) => self.element(),
            }
        }
    }
}

/// Keywords after which an expression starts (so `/` is a regex, `<` an element).
const KEYWORDS_BEFORE_EXPRESSION: &[&[u8]] = &[
    b"return",
    b"typeof",
    b"instanceof",
    b"in",
    b"of",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"case",
    b"do",
    b"else",
    b"yield",
    b"await",
    b"extends",
    b"default",
];
