//! The lexer: tokens (words, operators, redirections), heredoc bodies, and
//! the insides of words (quotes, `$…` forms, backticks, arithmetic), scanning
//! the commands substituted in them as it goes.

use std::borrow::Cow;

use crate::arith::{bracket_end, name_subscript};
use crate::budget::out_of_budget;
use crate::scan::{Scanner, MAX_DEPTH};
use crate::token::{Redir, Tok};
use crate::types::Reason;
use crate::words::{cook, expansions, is_assignment, is_number};

/// Whether the text inside `${…}` evaluates text bash takes from a value: a prompt
/// expansion (`x@P` runs the `$(…)` in x's value), an offset or length (`x:i`,
/// `x:'…'`: arithmetic, whose `a[$(…)]` subscripts run), or an indirection (`!x`,
/// whose value may be such a subscript).
fn parameter_evaluates(inner: &str) -> bool {
    let b = inner.as_bytes();
    let (indirect, b) = match b {
        [b'!', rest @ ..] if !rest.is_empty() => (true, rest),
        _ => (false, b),
    };
    let mut i = match b.first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => b
            .iter()
            .position(|c| !c.is_ascii_alphanumeric() && *c != b'_')
            .unwrap_or(b.len()),
        Some(c) if c.is_ascii_digit() => b
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len()),
        Some(b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => 1,
        _ => return false,
    };
    if b.get(i) == Some(&b'[') {
        match b[i..].iter().position(|c| *c == b']') {
            Some(k) => i += k + 1,
            None => return false,
        }
    }
    let rest = &b[i..];
    if indirect {
        // `${!prefix*}` and `${!a[@]}` list names and keys; the rest evaluate.
        return !matches!(rest, [b'*' | b'@'])
            && !b[..i].ends_with(b"[@]")
            && !b[..i].ends_with(b"[*]");
    }
    match rest {
        [b'@', b'P', ..] => true,
        [b':', next, ..] if !matches!(next, b'-' | b'=' | b'?' | b'+') => !rest[1..]
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b' ' | b':' | b'-')),
        _ => false,
    }
}

impl<'a> Scanner<'a> {
    /// Skips blanks and line continuations.
    pub(crate) fn skip_blanks(&mut self) {
        loop {
            match self.byte(self.pos) {
                b' ' | b'\t' => self.pos += 1,
                b'\\' if self.byte(self.pos + 1) == b'\n' => self.pos += 2,
                _ => return,
            }
        }
    }

    pub(crate) fn token(&mut self) -> Tok {
        if out_of_budget() {
            self.too_deep(self.pos.min(self.end));
            self.pos = self.end;
            return Tok::Eof;
        }
        self.read_heredocs();
        loop {
            self.skip_blanks();
            if self.pos >= self.end {
                return Tok::Eof;
            }
            let next = self.byte(self.pos + 1);
            let (len, tok) = match self.byte(self.pos) {
                b'#' => {
                    self.pos = self.line_end();
                    continue;
                }
                b'\n' => {
                    self.pos += 1;
                    self.heredocs_due = !self.heredocs.is_empty();
                    return Tok::Sep;
                }
                b';' if next == b';' && self.byte(self.pos + 2) == b'&' => (3, Tok::CaseEnd),
                b';' if next == b';' || next == b'&' => (2, Tok::CaseEnd),
                b'&' if next == b'>' && self.byte(self.pos + 2) == b'>' => {
                    (3, Tok::Redir(Redir::Target { writes: true }))
                }
                b'&' if next == b'>' => (2, Tok::Redir(Redir::Target { writes: true })),
                b'|' if next == b'&' => (2, Tok::Pipe),
                b'&' | b'|' if next == b'&' || next == b'|' => (2, Tok::Sep),
                b'|' => (1, Tok::Pipe),
                b';' | b'&' => (1, Tok::Sep),
                b'(' => (1, Tok::Open),
                b')' => (1, Tok::Close),
                b'<' | b'>' if next == b'(' => return self.word_token(),
                b'<' | b'>' => return self.redirection(),
                b'0'..=b'9' | b'{' => match self.io_number_end() {
                    Some(end) => {
                        self.pos = end;
                        return self.redirection();
                    }
                    None => return self.word_token(),
                },
                _ => return self.word_token(),
            };
            self.pos += len;
            return tok;
        }
    }

    fn line_end(&self) -> usize {
        self.src[self.pos..self.end]
            .find('\n')
            .map_or(self.end, |k| self.pos + k)
    }

    /// End of an fd prefix (`2` in `2>&1`, `{fd}` in `{fd}>f`) directly followed by `<` or `>`.
    fn io_number_end(&self) -> Option<usize> {
        let b = self.src.as_bytes();
        let mut i = self.pos;
        if b[i] == b'{' {
            i += 1;
            while i < self.end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == self.pos + 1 || self.byte(i) != b'}' {
                return None;
            }
            i += 1;
        } else {
            while i < self.end && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        matches!(self.byte(i), b'<' | b'>').then_some(i)
    }

    fn redirection(&mut self) -> Tok {
        let (c, next, after) = (
            self.byte(self.pos),
            self.byte(self.pos + 1),
            self.byte(self.pos + 2),
        );
        let (len, kind) = match (c, next, after) {
            (b'<', b'<', b'<') => (3, Redir::HereString),
            (b'<', b'<', b'-') => (3, Redir::HereDoc { strip_tabs: true }),
            (b'<', b'<', _) => (2, Redir::HereDoc { strip_tabs: false }),
            (b'<', b'&', _) => (2, Redir::Target { writes: false }),
            (b'<', b'>', _) | (b'>', b'>' | b'&' | b'|', _) => (2, Redir::Target { writes: true }),
            _ => (1, Redir::Target { writes: c == b'>' }),
        };
        self.pos += len;
        Tok::Redir(kind)
    }

    fn word_token(&mut self) -> Tok {
        let start = self.pos;
        self.word();
        Tok::Word(start, self.pos)
    }

    /// Reads the bodies of the heredocs opened on the line just ended, once the
    /// command that opened them is resolved (it decides whether a body is code).
    pub(crate) fn read_heredocs(&mut self) {
        if !std::mem::take(&mut self.heredocs_due) {
            return;
        }
        let mut docs = std::mem::take(&mut self.heredocs);
        for doc in &docs {
            let start = self.pos;
            let mut body_end = self.end;
            while self.pos < self.end {
                let line_end = self.line_end();
                let mut line = &self.src[self.pos..line_end];
                let line_start = self.pos;
                self.pos = (line_end + 1).min(self.end);
                if doc.strip_tabs {
                    line = line.trim_start_matches('\t');
                }
                if line == &*doc.delimiter {
                    body_end = line_start;
                    break;
                }
            }
            let after = self.pos;
            // The reading shell expands an unquoted body before running it as code.
            if !doc.quoted {
                self.heredoc_substitutions(start, body_end);
            }
            if doc.code {
                let body = &self.src[start..body_end];
                if !doc.quoted {
                    self.spliced_text(expansions(body, true));
                }
                self.reparse(start, Cow::Borrowed(body));
            }
            self.pos = after;
        }
        docs.clear();
        self.heredocs = docs;
    }

    /// Scans the substitutions of an unquoted heredoc's body, which bash runs.
    fn heredoc_substitutions(&mut self, start: usize, end: usize) {
        let outer = std::mem::replace(&mut self.end, end);
        self.pos = start;
        while self.pos < self.end {
            match self.byte(self.pos) {
                b'\\' => self.pos += 2,
                b'`' => self.backticks(),
                b'$' => self.dollar(true),
                _ => self.pos += 1,
            }
        }
        self.end = outer;
    }

    /// Advances over one word, scanning the commands substituted inside it.
    fn word(&mut self) {
        let start = self.pos;
        while self.pos < self.end {
            match self.byte(self.pos) {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' => return,
                b'<' | b'>' if self.pos == start && self.byte(self.pos + 1) == b'(' => {
                    self.pos += 2;
                    self.guarded(b")", |s| s.nested_list(true));
                }
                b'<' | b'>' => return,
                b'(' => {
                    let before = &self.src[start..self.pos];
                    if before.ends_with('=') && is_assignment(before) {
                        self.pos += 1;
                        self.guarded(b")", Self::array);
                    } else if before.ends_with(['@', '!', '?', '+', '*']) {
                        // An extglob pattern such as `@(a|b)`.
                        self.pos += 1;
                        self.guarded(b"A", Self::pattern_group);
                    } else {
                        return;
                    }
                }
                _ => self.word_piece(false),
            }
        }
    }

    /// Steps over one piece of a word at the cursor: an escape, a quoted
    /// string, a substitution, or a plain byte.
    fn word_piece(&mut self, in_double_quotes: bool) {
        match self.byte(self.pos) {
            b'\\' => self.pos = (self.pos + 2).min(self.end),
            b'\'' if !in_double_quotes => self.single_quoted(),
            b'"' => {
                self.pos += 1;
                self.guarded(b"\"", Self::double_quoted);
            }
            b'`' => self.backticks(),
            b'$' => self.dollar(in_double_quotes),
            _ => self.pos += 1,
        }
    }

    /// The elements of `name=( … )`, after the `(`.
    fn array(&mut self) {
        loop {
            self.skip_blanks();
            match self.byte(self.pos) {
                _ if self.pos >= self.end => return,
                b')' => {
                    self.pos += 1;
                    return;
                }
                b'\n' => self.pos += 1,
                b'#' => self.pos = self.line_end(),
                _ => {
                    let before = self.pos;
                    self.word();
                    if self.pos == before {
                        // A stray operator: step over it.
                        self.pos += 1;
                    }
                }
            }
        }
    }

    fn single_quoted(&mut self) {
        self.pos = self.src[self.pos + 1..self.end]
            .find('\'')
            .map_or(self.end, |k| self.pos + k + 2);
    }

    /// The rest of a double-quoted string, after its `"`.
    fn double_quoted(&mut self) {
        while self.pos < self.end {
            match self.byte(self.pos) {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => self.pos = (self.pos + 2).min(self.end),
                b'`' => self.backticks(),
                b'$' => self.dollar(true),
                _ => self.pos += 1,
            }
        }
    }

    /// A `$` form: substitution, arithmetic, parameter expansion or `$'…'`.
    fn dollar(&mut self, in_double_quotes: bool) {
        match self.byte(self.pos + 1) {
            b'(' => {
                self.pos += 2;
                self.guarded(b")", Self::substitution);
            }
            b'{' => {
                self.pos += 2;
                self.guarded(b"}", |s| s.parameter(in_double_quotes));
            }
            b'\'' if !in_double_quotes => {
                self.pos += 2;
                while self.pos < self.end {
                    match self.byte(self.pos) {
                        b'\'' => break,
                        b'\\' => self.pos += 2,
                        _ => self.pos += 1,
                    }
                }
                self.pos = (self.pos + 1).min(self.end);
            }
            b'[' => {
                // `$[…]`: old arithmetic; its substitutions are scanned as the word goes on.
                // One inside another was judged with it.
                let at = self.pos;
                if at >= self.bracket_done {
                    self.arith = true;
                    match bracket_end(&self.src[at + 1..self.end]) {
                        Some(close) => {
                            self.bracket_done = at + 1 + close;
                            let inner = cook(&self.src[at + 2..at + 1 + close]).text;
                            self.arith_text(at, &inner);
                        }
                        None => {
                            self.bracket_done = self.end;
                            self.dynamic_word_text(at, at + 2, Reason::Expansion);
                        }
                    }
                }
                self.pos += 1;
            }
            _ => self.pos += 1,
        }
    }

    /// A command list nested in a word (`$(…)`, `<(…)`, backticks): a newline in it
    /// does not start the bodies of the heredocs opened before it on the line (bash
    /// reads them after the line's own newline), and the heredocs it opens but does
    /// not end wait for that newline too.
    fn nested_list(&mut self, in_paren: bool) {
        let outer = std::mem::take(&mut self.heredocs);
        let due = std::mem::take(&mut self.heredocs_due);
        self.list(in_paren);
        let inner = std::mem::replace(&mut self.heredocs, outer);
        self.heredocs.extend(inner);
        self.heredocs_due = due;
    }

    /// The rest of `$( … )` or `$(( … ))`, after the `$(`.
    fn substitution(&mut self) {
        // Like bash, `$((` is arithmetic only when its parentheses close with `))`.
        if self.byte(self.pos) == b'(' && {
            let close = self.skip(self.pos + 1, b"A");
            self.byte(close) == b')'
        } {
            self.pos += 1;
            self.arith_body();
        } else {
            self.nested_list(true);
        }
    }

    /// The rest of `${ … }`, whose default values may hold substitutions. Inside
    /// double quotes bash still matches `'…'` as a span there (its `$(…)` still run)
    /// and reads `$'…'`. An operator that evaluates text (`${x@P}`, an offset
    /// `${x:i}`, an indirection `${!x}`) makes the line dynamic.
    fn parameter(&mut self, in_double_quotes: bool) {
        let start = self.pos;
        while self.pos < self.end {
            match (self.byte(self.pos), self.byte(self.pos + 1)) {
                (b'}', _) => {
                    self.pos += 1;
                    let inner = &self.src[start..self.pos - 1];
                    if parameter_evaluates(inner) {
                        self.dynamic_word_text(start - 2, self.pos, Reason::Expansion);
                    }
                    // `${a[k]}`: the subscript is arithmetic.
                    if let Some(sub) = name_subscript(inner.trim_start_matches(['#', '!'])) {
                        let sub = cook(sub).text;
                        self.arith_text(start - 2, &sub);
                    }
                    return;
                }
                (b'\'', _) if in_double_quotes => {
                    self.pos += 1;
                    while self.pos < self.end && self.byte(self.pos) != b'\'' {
                        match self.byte(self.pos) {
                            b'`' | b'$' => self.word_piece(true),
                            _ => self.pos += 1,
                        }
                    }
                    self.pos = (self.pos + 1).min(self.end);
                }
                (b'$', b'\'') => self.word_piece(false),
                _ => self.word_piece(in_double_quotes),
            }
        }
    }

    /// The rest of an extglob group (`@(a|b)`), after its `(`: up to the `)` closing it.
    fn pattern_group(&mut self) {
        let mut parens = 0usize;
        while self.pos < self.end {
            match self.byte(self.pos) {
                b'(' => parens += 1,
                b')' if parens == 0 => {
                    self.pos += 1;
                    return;
                }
                b')' => parens -= 1,
                _ => {
                    self.word_piece(false);
                    continue;
                }
            }
            self.pos += 1;
        }
    }

    /// The rest of an arithmetic expression, up to the `))` closing it.
    pub(crate) fn arith_body(&mut self) {
        let start = self.pos;
        let mut parens = 0usize;
        let mut names = false;
        while self.pos < self.end {
            let before = if self.pos > start {
                self.byte(self.pos - 1)
            } else {
                b' '
            };
            match self.byte(self.pos) {
                b'(' => {
                    parens += 1;
                    self.pos += 1;
                }
                b')' if parens > 0 => {
                    parens -= 1;
                    self.pos += 1;
                }
                b')' => {
                    if names {
                        self.arith_names(start, self.pos);
                    }
                    self.pos += if self.byte(self.pos + 1) == b')' {
                        2
                    } else {
                        1
                    };
                    return;
                }
                // A variable (`x`, `$x`, `${x}`), not a number's digits (`0x1f`, `16#ff`)
                // nor a count (`$#`, `${#x}`).
                b'$' if matches!(self.byte(self.pos + 1), b'#' | b'?' | b'$' | b'!') => {
                    self.pos += 2;
                }
                b'$' if !matches!(self.byte(self.pos + 1), b'(' | b'\'') => {
                    let from = self.pos;
                    self.word_piece(false);
                    names |= !is_number(&self.src[from..self.pos]);
                }
                c if (c.is_ascii_alphabetic() || c == b'_')
                    && !(before.is_ascii_alphanumeric() || matches!(before, b'_' | b'#')) =>
                {
                    names = true;
                    self.pos += 1;
                }
                _ => self.word_piece(false),
            }
        }
    }

    /// A backtick substitution: its text, up to the next unescaped backtick, is a command list.
    fn backticks(&mut self) {
        let b = self.src.as_bytes();
        let open = self.pos + 1;
        let mut close = open;
        while close < self.end && b[close] != b'`' {
            close += if b[close] == b'\\' { 2 } else { 1 };
        }
        let close = close.min(self.end);
        let inner = &self.src[open..close];
        if inner.contains("\\`") || inner.contains("\\\\") || inner.contains("\\$") {
            // Inside backticks `\``, `\\` and `\$` stand for the bare character (nesting).
            let mut text = String::with_capacity(inner.len());
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                match (c, chars.clone().next()) {
                    ('\\', Some(n @ ('`' | '\\' | '$'))) => {
                        text.push(n);
                        chars.next();
                    }
                    _ => text.push(c),
                }
            }
            self.reparse(self.pos, Cow::Owned(text));
        } else if self.depth >= MAX_DEPTH {
            self.too_deep(open);
        } else {
            let end = std::mem::replace(&mut self.end, close);
            self.pos = open;
            self.depth += 1;
            self.nested_list(false);
            self.depth -= 1;
            self.end = end;
        }
        self.pos = (close + 1).min(self.end);
    }
}
