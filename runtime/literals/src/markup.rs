//! The HTML lexer, with the template syntax of Vue (`{{ … }}`, `:prop`,
//! `@event`, `v-*`) and Svelte (`{…}` in text and attributes, `{#if}` blocks):
//! text nodes, the attribute values people read, and the literals of the
//! script in `<script>` blocks, interpolations and bound attributes.
//!
//! Comments, `<!…>`, `<?…>` and `<style>` blocks are skipped; entities are
//! left as written. A fragment may be all script (an edit inside a
//! `<script>` block): a text line ending in `;` or `{`, a stray `>` or a
//! stray `</script>` is an error, and the reading that starts inside a
//! script block then wins.

use crate::attributes::Tag;
use crate::cursor::Cursor;
use crate::fragment::{self, line_break, trim, ByteSet};
use crate::{script, LiteralKind};

/// The template syntax on top of HTML.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Flavor {
    Html,
    Vue,
    Svelte,
}

/// Where a reading starts: in text, or inside a construct the fragment cut.
#[derive(Clone, Copy)]
enum Start {
    Text,
    Comment,
    Tag,
    Script,
    Style,
}

const STARTS: [Start; 5] = [
    Start::Text,
    Start::Comment,
    Start::Tag,
    Start::Script,
    Start::Style,
];

/// The literals of a markup fragment, in order.
pub(crate) fn literals(text: &str, flavor: Flavor) -> Vec<crate::Literal> {
    fragment::read(&STARTS, |start, log| {
        let mut markup = Markup {
            cur: Cursor::new(text, 0, text.len(), log),
            flavor,
        };
        match start {
            Start::Text => {}
            Start::Comment => markup.skip_past("-->"),
            Start::Tag => markup.rest_of_tag(),
            Start::Script => markup.raw_text("script", Some(true)),
            Start::Style => markup.raw_text("style", None),
        }
        markup.text();
    })
}

/// Whether the `;` at `at` closes a character reference (`&amp;`, `&#39;`, `&#x2014;`).
pub(crate) fn closes_entity(bytes: &[u8], at: usize) -> bool {
    let before = &bytes[..at];
    let run = before
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let name = &before[at - run..];
    match (&before[..at - run], name) {
        (_, []) => false,
        ([.., b'&', b'#'], [b'x' | b'X', hex @ ..]) => {
            !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit)
        }
        ([.., b'&', b'#'], digits) => digits.iter().all(u8::is_ascii_digit),
        ([.., b'&'], [first, ..]) => first.is_ascii_alphabetic(),
        _ => false,
    }
}

struct Markup<'t, 'l, 'p> {
    cur: Cursor<'t, 'l, 'p>,
    flavor: Flavor,
}

impl<'t> Markup<'t, '_, '_> {
    /// Skips past the next `needle`; without one, to the end (an error: the
    /// construct is unclosed, or the reading started in the wrong place).
    fn skip_past(&mut self, needle: &str) {
        self.cur.pos = match self.cur.text[self.cur.pos..].find(needle) {
            Some(at) => self.cur.pos + at + needle.len(),
            None => {
                self.cur.log.error(self.cur.pos);
                self.cur.text.len()
            }
        };
    }

    /// Skips the rest of a tag the fragment starts in; a `<` before its `>`
    /// means the fragment did not (an error).
    fn rest_of_tag(&mut self) {
        let before = self.cur.text.find('>').unwrap_or(self.cur.text.len());
        if self.cur.text[..before].contains('<') {
            self.cur.log.error(0);
        }
        self.skip_past(">");
    }

    /// Reads text, tags and interpolations to the end.
    fn text(&mut self) {
        while !self.cur.log.mark(self.cur.pos, 0) {
            const SPECIAL: ByteSet = ByteSet::of(b"<{>\n\r");
            let start = self.cur.pos;
            loop {
                self.cur.pos = SPECIAL.find(self.cur.bytes, self.cur.pos, self.cur.bytes.len());
                let Some(byte) = self.cur.peek(0) else {
                    self.code_like(start);
                    break;
                };
                let opens_tag = byte == b'<'
                    && self
                        .cur
                        .peek(1)
                        .is_some_and(|b| b.is_ascii_alphabetic() || b"/!?".contains(&b));
                let opens_expression = match self.flavor {
                    Flavor::Html => false,
                    Flavor::Vue => byte == b'{' && self.cur.peek(1) == Some(b'{'),
                    Flavor::Svelte => byte == b'{',
                };
                if opens_tag || opens_expression {
                    break;
                }
                if byte == b'>' {
                    self.cur.log.error(self.cur.pos);
                }
                let newline = line_break(self.cur.bytes, self.cur.pos);
                if newline > 0 {
                    self.code_like(start);
                }
                self.cur.pos += newline.max(1);
            }
            let (text_start, text_end) = trim(self.cur.text, start, self.cur.pos);
            self.cur
                .log
                .literal(self.cur.text, text_start, text_end, LiteralKind::TextNode);
            if self.cur.pos >= self.cur.bytes.len() {
                return;
            }
            match (self.cur.bytes[self.cur.pos], self.cur.peek(1)) {
                (b'<', Some(b'!')) if self.cur.text[self.cur.pos..].starts_with("<!--") => {
                    self.skip_past("-->")
                }
                (b'<', Some(b'!' | b'?')) => self.skip_past(">"),
                (b'<', Some(b'/')) => {
                    let name = &self.cur.bytes[self.cur.pos + 2..];
                    let named =
                        |n: &[u8]| name.len() >= n.len() && name[..n.len()].eq_ignore_ascii_case(n);
                    if named(b"script") || named(b"style") {
                        self.cur.log.error(self.cur.pos);
                    }
                    self.skip_past(">");
                }
                (b'<', _) => self.tag(),
                (b'{', _) => {
                    self.cur.pos += if self.flavor == Flavor::Vue { 2 } else { 1 };
                    self.interpolation();
                    if self.flavor == Flavor::Vue && self.cur.peek(0) == Some(b'}') {
                        self.cur.pos += 1;
                    }
                }
                _ => self.cur.pos += 1,
            }
        }
    }

    /// A text line (ending at `pos`, in a run from `start`) whose last byte
    /// is a `;` (not an entity's) or a `{` reads as code: an error.
    fn code_like(&mut self, start: usize) {
        let line = &self.cur.bytes[start..self.cur.pos];
        let Some(at) = line.iter().rposition(|&b| b != b' ' && b != b'\t') else {
            return;
        };
        let code = match line[at] {
            b';' => !closes_entity(self.cur.bytes, start + at),
            b'{' => true,
            _ => false,
        };
        if code {
            self.cur.log.error(start + at);
        }
    }

    /// Lexes an interpolation after its `{` up to and past its `}`; a Svelte
    /// block closer (`{/if}`) has no expression.
    fn interpolation(&mut self) {
        if self.cur.peek(0) == Some(b'/') {
            return self.skip_past("}");
        }
        self.cur.pos = script::expression(
            self.cur.text,
            self.cur.pos,
            self.cur.bytes.len(),
            self.cur.log,
        );
        if self.cur.peek(0) == Some(b'}') {
            self.cur.pos += 1;
        }
    }

    /// Lexes an opening tag at its `<`, and the raw text of a script or style element.
    fn tag(&mut self) {
        self.cur.pos += 1;
        let name_start = self.cur.pos;
        while self
            .cur
            .peek(0)
            .is_some_and(|b| !b.is_ascii_whitespace() && b != b'/' && b != b'>')
        {
            self.cur.pos += 1;
        }
        let bytes = self.cur.bytes;
        let element = &bytes[name_start..self.cur.pos];
        let mut tag = Tag::new(element);
        let mut typescript = false;
        let open = loop {
            while self.cur.peek(0).is_some_and(|b| b.is_ascii_whitespace()) {
                self.cur.pos += 1;
            }
            match (self.cur.peek(0), self.cur.peek(1)) {
                (None, _) => {
                    self.cur.log.error(self.cur.pos);
                    break false;
                }
                (Some(b'>'), _) => {
                    self.cur.pos += 1;
                    break true;
                }
                (Some(b'/'), Some(b'>')) => {
                    self.cur.pos += 2;
                    break false;
                }
                (Some(b'{'), _) if self.flavor == Flavor::Svelte => {
                    self.cur.pos += 1;
                    self.interpolation();
                }
                _ => {
                    let name_start = self.cur.pos;
                    while self
                        .cur
                        .peek(0)
                        .is_some_and(|b| !b.is_ascii_whitespace() && b != b'=' && b != b'>')
                        && !(self.cur.peek(0) == Some(b'/') && self.cur.peek(1) == Some(b'>'))
                    {
                        self.cur.pos += 1;
                    }
                    if self.cur.pos == name_start {
                        self.cur.pos += 1;
                        continue;
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
                        if let Some((start, end)) = self.value(&mut tag, name) {
                            if name.eq_ignore_ascii_case(b"lang") {
                                typescript = bytes[start..end].eq_ignore_ascii_case(b"ts");
                            }
                        }
                    }
                }
            }
        };
        if let Some((start, end)) = tag.finish() {
            self.cur
                .log
                .literal(self.cur.text, start, end, LiteralKind::Attribute);
        }
        if open && element.eq_ignore_ascii_case(b"script") {
            self.raw_text("script", Some(!typescript));
        } else if open && element.eq_ignore_ascii_case(b"style") {
            self.raw_text("style", None);
        }
    }

    /// Lexes an attribute's value; returns the span of a static value.
    fn value(&mut self, tag: &mut Tag<'t>, name: &[u8]) -> Option<(usize, usize)> {
        let bytes = self.cur.bytes;
        let (start, end) = match self.cur.peek(0)? {
            quote @ (b'"' | b'\'') => {
                let start = self.cur.pos + 1;
                let Some(at) = bytes[start..].iter().position(|&b| b == quote) else {
                    self.cur.log.error(self.cur.pos);
                    self.cur.pos = bytes.len();
                    return None;
                };
                self.cur.pos = start + at + 1;
                (start, start + at)
            }
            b'{' if self.flavor == Flavor::Svelte => {
                self.cur.pos += 1;
                self.interpolation();
                return None;
            }
            _ => {
                let start = self.cur.pos;
                while self
                    .cur
                    .peek(0)
                    .is_some_and(|b| !b.is_ascii_whitespace() && b != b'>')
                {
                    self.cur.pos += 1;
                }
                (start, self.cur.pos)
            }
        };
        let bound = self.flavor == Flavor::Vue
            && (matches!(name.first(), Some(b':' | b'@' | b'#')) || name.starts_with(b"v-"));
        if bound {
            script::expression(self.cur.text, start, end, self.cur.log);
            return None;
        }
        let span = trim(self.cur.text, start, end);
        if !tag.readable(name, span, &bytes[start..end]) {
            // A Svelte value's `{…}` parts are script even when its text is not read.
            if self.flavor == Flavor::Svelte {
                self.pieces(start, end, false);
            }
            return Some((start, end));
        }
        if self.flavor == Flavor::Svelte {
            self.pieces(start, end, true);
        } else {
            self.cur
                .log
                .literal(self.cur.text, span.0, span.1, LiteralKind::Attribute);
        }
        Some((start, end))
    }

    /// Reads a Svelte attribute value `start..end`: its text pieces (reported
    /// when `read`) around `{…}` expressions.
    fn pieces(&mut self, start: usize, end: usize, read: bool) {
        let mut from = start;
        let mut at = start;
        while at < end {
            if self.cur.bytes[at] != b'{' {
                at += 1;
                continue;
            }
            if read {
                let (s, e) = trim(self.cur.text, from, at);
                self.cur
                    .log
                    .literal(self.cur.text, s, e, LiteralKind::Attribute);
            }
            at = script::expression(self.cur.text, at + 1, end, self.cur.log);
            at = (at + 1).min(end);
            from = at;
        }
        if read {
            let (s, e) = trim(self.cur.text, from, end);
            self.cur
                .log
                .literal(self.cur.text, s, e, LiteralKind::Attribute);
        }
    }

    /// Reads a script (`jsx` says which dialect) or style element's body up
    /// to its closing tag and past it.
    fn raw_text(&mut self, element: &str, script: Option<bool>) {
        let close = self.closing(element);
        if let Some(jsx) = script {
            script::program(self.cur.text, self.cur.pos, close, jsx, self.cur.log);
        }
        self.cur.pos = close;
        if close < self.cur.bytes.len() {
            self.skip_past(">");
        }
    }

    /// Where the next `</element` is (any case), or the end.
    fn closing(&self, element: &str) -> usize {
        let mut from = self.cur.pos;
        while let Some(at) = self.cur.text[from..].find("</") {
            let name = &self.cur.bytes[from + at + 2..];
            if name.len() >= element.len()
                && name[..element.len()].eq_ignore_ascii_case(element.as_bytes())
            {
                return from + at;
            }
            from += at + 2;
        }
        self.cur.bytes.len()
    }
}
