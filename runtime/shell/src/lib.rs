//! Splits a shell command line into the programs its simple commands run, and
//! quotes words for a POSIX shell.
//!
//! Owns the hand-written, quote- and operator-aware scanner behind `bash.<cli>`
//! matchers; it reads text only, it never expands or runs anything.
//!
//! ```
//! assert_eq!(
//!     hookdex_shell::programs("cd services && sudo -u deploy kubectl delete pod api-0"),
//!     ["cd", "kubectl"],
//! );
//! assert_eq!(hookdex_shell::quote("it's"), r"'it'\''s'");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::borrow::Cow;

/// Nesting limit for substitutions, quotes and re-parsed strings; deeper text is skipped.
const MAX_DEPTH: u32 = 32;

/// Programs run by the simple commands of `command`, in first-seen order, deduplicated, each reduced to its basename.
///
/// Choices where the shell leaves room:
/// - a program word whose basename comes from an expansion (`$cmd`, `$(which git)`) is
///   skipped: it cannot name a cli (the commands inside `$(…)` are still found);
/// - `[ -f x ]` yields `[` (a real command); `[[ … ]]` and `(( … ))` yield nothing;
/// - a wrapper (`sudo`, `env`, `command`, `time`, `nohup`, `exec`, `timeout`) with nothing
///   left to run is itself the program: `sudo -v` yields `sudo`, and `command -v git`
///   yields `command` only, since `-v`/`-V` query `git` without running it;
/// - heredoc bodies are skipped whole, even their `$(…)`;
/// - the string of `bash|sh|zsh|dash -c`, of `env -S`, and the joined arguments of `eval`
///   are parsed as command lines too;
/// - text nested deeper than 32 levels is skipped, not searched;
/// - "first seen" is by where a program's word starts: `echo $(whoami)` yields `echo`
///   first; programs of a re-parsed string sit where that string starts.
#[must_use]
pub fn programs(command: &str) -> Vec<String> {
    dedup(scan(command, 0).into_iter().map(|(_, p)| p).collect())
}

/// Scans `src` as a command line: the programs it runs, in source order.
fn scan(src: &str, depth: u32) -> Vec<(usize, Cow<'_, str>)> {
    let mut scanner = Scanner {
        src,
        pos: 0,
        end: src.len(),
        depth,
        heredocs: Vec::new(),
        words: Vec::new(),
        out: Vec::new(),
    };
    scanner.list(false);
    // A command's substitutions are found before the command itself is resolved.
    scanner.out.sort_by_key(|&(at, _)| at);
    scanner.out
}

/// Keeps the first of equal programs; quadratic only while the list is tiny.
fn dedup(found: Vec<Cow<'_, str>>) -> Vec<String> {
    if found.len() <= 16 {
        let mut out: Vec<String> = Vec::with_capacity(found.len());
        for p in found {
            if !out.iter().any(|o| *o == *p) {
                out.push(p.into_owned());
            }
        }
        return out;
    }
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_unstable_by(|&a, &b| found[a].cmp(&found[b]).then(a.cmp(&b)));
    let mut first = vec![false; found.len()];
    for (k, &i) in order.iter().enumerate() {
        first[i] = k == 0 || found[order[k - 1]] != found[i];
    }
    found
        .into_iter()
        .zip(first)
        .filter_map(|(p, keep)| keep.then(|| p.into_owned()))
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// A word, as the byte range of its source text.
    Word(usize, usize),
    /// A redirection operator; the next word is its target.
    Redir(Redir),
    /// `;` `&` `&&` `||` `|` `|&` or a newline.
    Sep,
    /// `;;` `;&` `;;&`: the end of a case item.
    CaseEnd,
    Open,
    Close,
    Eof,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Redir {
    /// A file, fd or here-string target.
    Target,
    /// `<<` or `<<-`: the target is a delimiter and a body follows the next newline.
    HereDoc { strip_tabs: bool },
}

/// What follows a wrapper's own options.
enum Next<'a> {
    /// The wrapped program is the word at this index (none if past the end).
    Word(usize),
    /// `env -S`: the wrapped command is this string.
    Line(Cow<'a, str>),
    /// `command -v`: nothing is run.
    Query,
}

struct Scanner<'a> {
    src: &'a str,
    pos: usize,
    /// End of the text being scanned; a backtick substitution narrows it.
    end: usize,
    depth: u32,
    /// Heredoc delimiters waiting for the next newline, in order.
    heredocs: Vec<(Cow<'a, str>, bool)>,
    /// Word ranges of the simple commands being read; nested commands stack above outer ones.
    words: Vec<(usize, usize)>,
    /// Programs found, each with the source offset of the word naming it.
    out: Vec<(usize, Cow<'a, str>)>,
}

impl<'a> Scanner<'a> {
    fn byte(&self, i: usize) -> u8 {
        if i < self.end {
            self.src.as_bytes()[i]
        } else {
            0
        }
    }

    /// Runs `body` one level deeper, or skips to `closers` when too deep.
    fn guarded(&mut self, closers: &[u8], body: impl FnOnce(&mut Self)) {
        if self.depth >= MAX_DEPTH {
            self.pos = skip_nested(self.src.as_bytes(), self.pos, self.end, closers);
        } else {
            self.depth += 1;
            body(self);
            self.depth -= 1;
        }
    }

    /// Reads commands until the end, or until an unmatched `)` when `in_paren`.
    fn list(&mut self, in_paren: bool) {
        let mut subshells = 0usize;
        let mut pending = None;
        loop {
            let tok = match pending.take() {
                Some(tok) => tok,
                None if self.arith_command() => continue,
                None => self.token(),
            };
            pending = match tok {
                Tok::Eof => return,
                Tok::Close if subshells > 0 => {
                    subshells -= 1;
                    None
                }
                Tok::Close if in_paren => return,
                Tok::Open => {
                    subshells += 1;
                    None
                }
                Tok::Close | Tok::Sep => None,
                Tok::CaseEnd => self.case_patterns(),
                Tok::Word(s, e) => self.command_start(s, e),
                Tok::Redir(_) => self.simple_command(tok),
            };
        }
    }

    /// Handles a word in command position: a keyword or the start of a simple command.
    fn command_start(&mut self, s: usize, e: usize) -> Option<Tok> {
        match &self.src[s..e] {
            "if" | "then" | "elif" | "else" | "fi" | "do" | "done" | "while" | "until" | "!"
            | "{" | "}" | "esac" | "in" | "]]" => None,
            "time" if self.arith_command() => None,
            "time" => match self.token() {
                Tok::Word(s, e) if &self.src[s..e] == "-p" => None,
                tok => Some(tok),
            },
            "case" => self.case_head(),
            "for" | "select" => self.for_head(),
            "function" => self.function_head(),
            "coproc" => self.coproc_head(),
            "[[" => loop {
                match self.token() {
                    Tok::Word(s, e) if &self.src[s..e] == "]]" => return None,
                    Tok::Eof => return Some(Tok::Eof),
                    _ => {}
                }
            },
            _ => self.simple_command(Tok::Word(s, e)),
        }
    }

    /// `case WORD in`: the subject is not a program.
    fn case_head(&mut self) -> Option<Tok> {
        let subject = self.token();
        if !matches!(subject, Tok::Word(..)) {
            return Some(subject);
        }
        loop {
            match self.token() {
                Tok::Sep => {}
                Tok::Word(s, e) if &self.src[s..e] == "in" => return self.case_patterns(),
                tok => return Some(tok),
            }
        }
    }

    /// Skips case patterns up to their `)`, or the closing `esac`.
    fn case_patterns(&mut self) -> Option<Tok> {
        loop {
            match self.token() {
                Tok::Word(s, e) if &self.src[s..e] == "esac" => return None,
                Tok::Sep | Tok::Open | Tok::Word(..) => {}
                Tok::Close => return None,
                tok => return Some(tok),
            }
        }
    }

    /// `for NAME in WORDS`: the name and the words are not programs.
    fn for_head(&mut self) -> Option<Tok> {
        if self.arith_command() {
            return None;
        }
        let name = self.token();
        if !matches!(name, Tok::Word(..)) {
            return Some(name);
        }
        let mut tok = self.token();
        while tok == Tok::Sep {
            tok = self.token();
        }
        match tok {
            Tok::Word(s, e) if &self.src[s..e] == "in" => loop {
                match self.token() {
                    Tok::Word(..) => {}
                    tok => return Some(tok),
                }
            },
            tok => Some(tok),
        }
    }

    /// `function NAME [()]`: the name is not a program.
    fn function_head(&mut self) -> Option<Tok> {
        match self.token() {
            Tok::Word(..) => self.function_parens(),
            tok => Some(tok),
        }
    }

    /// Consumes the `()` after a function name, if there.
    fn function_parens(&mut self) -> Option<Tok> {
        self.skip_blanks();
        if self.byte(self.pos) != b'(' {
            return None;
        }
        self.pos += 1;
        match self.token() {
            Tok::Close => None,
            tok => Some(tok),
        }
    }

    /// `coproc [NAME] command`: a name is only there when a compound command follows it.
    fn coproc_head(&mut self) -> Option<Tok> {
        let tok = self.token();
        if let Tok::Word(..) = tok {
            self.skip_blanks();
            let next = self.byte(self.pos + 1);
            match self.byte(self.pos) {
                b'(' => return None,
                b'{' if matches!(next, b' ' | b'\t' | b'\n') => return None,
                _ => {}
            }
        }
        Some(tok)
    }

    /// `(( … ))` in command position: arithmetic, whose substitutions still run.
    fn arith_command(&mut self) -> bool {
        self.skip_blanks();
        if self.byte(self.pos) != b'(' || self.byte(self.pos + 1) != b'(' {
            return false;
        }
        self.pos += 2;
        self.guarded(b"))", Self::arith_body);
        true
    }

    /// Reads the words and redirections of one simple command, then resolves its program.
    fn simple_command(&mut self, first: Tok) -> Option<Tok> {
        let base = self.words.len();
        let mut tok = first;
        loop {
            match tok {
                Tok::Word(s, e) => {
                    if self.words.len() == base && !is_assignment(&self.src[s..e]) {
                        self.skip_blanks();
                        if self.byte(self.pos) == b'(' {
                            // `name () body`: a function definition, not a program.
                            return self.function_parens();
                        }
                    }
                    self.words.push((s, e));
                }
                Tok::Redir(kind) => match self.token() {
                    Tok::Word(s, e) => {
                        if let Redir::HereDoc { strip_tabs } = kind {
                            let delimiter = cook(&self.src[s..e]).text;
                            self.heredocs.push((delimiter, strip_tabs));
                        }
                    }
                    other => {
                        tok = other;
                        break;
                    }
                },
                _ => break,
            }
            tok = self.token();
        }
        self.resolve(base);
        self.words.truncate(base);
        Some(tok)
    }

    fn raw(&self, i: usize) -> &'a str {
        let (s, e) = self.words[i];
        &self.src[s..e]
    }

    fn text(&self, i: usize) -> Cow<'a, str> {
        cook(self.raw(i)).text
    }

    fn push(&mut self, at: usize, program: Cow<'a, str>) {
        match self.out.last_mut() {
            Some((last_at, last)) if *last == program => *last_at = at.min(*last_at),
            _ => self.out.push((at, program)),
        }
    }

    /// Finds the program of the words from `base`: past assignments and wrappers.
    fn resolve(&mut self, base: usize) {
        let n = self.words.len();
        let mut i = base;
        while i < n && is_assignment(self.raw(i)) {
            i += 1;
        }
        let mut wrapper = None;
        while i < n {
            let at = self.words[i].0;
            let Some(name) = program_name(cook(self.raw(i))) else {
                return;
            };
            let next = match &*name {
                "sudo" => Next::Word(self.sudo_options(i + 1)),
                "env" => self.env_options(i + 1),
                "command" => self.command_options(i + 1),
                "time" => Next::Word(self.options(i + 1, b"fo", &["format", "output"])),
                "nohup" => Next::Word(self.options(i + 1, b"", &[])),
                "exec" => Next::Word(self.options(i + 1, b"a", &[])),
                "timeout" => {
                    // The duration follows the options.
                    let j = self.options(i + 1, b"sk", &["signal", "kill-after"]);
                    Next::Word(j + 1)
                }
                _ => {
                    self.push(at, name.clone());
                    self.program_arguments(&name, i + 1);
                    return;
                }
            };
            wrapper = Some((at, name));
            match next {
                Next::Word(j) => i = j,
                Next::Line(line) => return self.reparse(at, line),
                Next::Query => break,
            }
        }
        if let Some((at, name)) = wrapper {
            self.push(at, name);
        }
    }

    /// Skips options from `j`: short ones taking an argument are in `short_arg`, long
    /// ones (without `=`) in `long_arg`. Returns the index of the first operand.
    fn options(&self, mut j: usize, short_arg: &[u8], long_arg: &[&str]) -> usize {
        while j < self.words.len() {
            let word = self.text(j);
            if word == "--" {
                return j + 1;
            }
            if let Some(long) = word.strip_prefix("--") {
                j += 1 + usize::from(long_arg.contains(&long));
            } else if let Some(flags) = word.strip_prefix('-').filter(|f| !f.is_empty()) {
                j += 1 + usize::from(short_takes_next(flags, short_arg));
            } else {
                return j;
            }
        }
        j
    }

    /// `sudo` options, then `NAME=value` assignments.
    fn sudo_options(&self, j: usize) -> usize {
        let long = [
            "user",
            "group",
            "host",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "other-user",
            "command-timeout",
            "chroot",
        ];
        let mut j = self.options(j, b"ughpCDRrtUT", &long);
        while j < self.words.len() && is_assignment(self.raw(j)) {
            j += 1;
        }
        j
    }

    /// `env` options and `NAME=value` operands; `-S` carries the command as one string.
    fn env_options(&self, mut j: usize) -> Next<'a> {
        while j < self.words.len() {
            let Cooked {
                text: word,
                literal_to,
                ..
            } = cook(self.raw(j));
            if word == "--" {
                return Next::Word(j + 1);
            }
            if let Some(long) = word.strip_prefix("--") {
                if long == "split-string" {
                    return self.split_string(j + 1);
                }
                if long.starts_with("split-string=") {
                    return Next::Line(tail(word, "--split-string=".len()));
                }
                j += 1 + usize::from(long == "unset" || long == "chdir");
            } else if let Some(flags) = word.strip_prefix('-') {
                match flags.find(['u', 'C', 'S']) {
                    Some(k) if flags.as_bytes()[k] == b'S' => {
                        return if k + 1 == flags.len() {
                            self.split_string(j + 1)
                        } else {
                            Next::Line(tail(word, k + 2))
                        };
                    }
                    Some(k) => j += 1 + usize::from(k + 1 == flags.len()),
                    None => j += 1,
                }
            } else if word[..literal_to].contains('=') {
                // An assignment by its literal text: an expansion's value is unknown.
                j += 1;
            } else {
                return Next::Word(j);
            }
        }
        Next::Word(j)
    }

    fn split_string(&self, j: usize) -> Next<'a> {
        if j < self.words.len() {
            Next::Line(self.text(j))
        } else {
            Next::Word(j)
        }
    }

    /// `command [-p]`; `-v` and `-V` only describe the command.
    fn command_options(&self, mut j: usize) -> Next<'a> {
        while j < self.words.len() {
            let word = self.text(j);
            if word == "--" {
                return Next::Word(j + 1);
            }
            match word.strip_prefix('-').filter(|f| !f.is_empty()) {
                Some(flags) if flags.contains(['v', 'V']) => return Next::Query,
                Some(_) => j += 1,
                None => return Next::Word(j),
            }
        }
        Next::Word(j)
    }

    /// Parses what a program runs as shell text itself: `sh -c STRING`, `eval ARGS…`.
    fn program_arguments(&mut self, name: &str, j: usize) {
        let n = self.words.len();
        match name {
            "bash" | "sh" | "zsh" | "dash" => {
                if let Some(k) = self.shell_string(j) {
                    self.reparse(self.words[k].0, self.text(k));
                }
            }
            "eval" if j + 1 == n => self.reparse(self.words[j].0, self.text(j)),
            "eval" if j < n => {
                let mut line = String::new();
                for k in j..n {
                    if k > j {
                        line.push(' ');
                    }
                    line.push_str(&self.text(k));
                }
                self.reparse(self.words[j].0, Cow::Owned(line));
            }
            _ => {}
        }
    }

    /// Index of the command string of a shell invoked with `-c`.
    fn shell_string(&self, mut j: usize) -> Option<usize> {
        let mut has_c = false;
        while j < self.words.len() {
            let word = self.text(j);
            if word == "--" || word == "-" {
                j += 1;
                break;
            }
            if let Some(long) = word.strip_prefix("--") {
                j += 1 + usize::from(long == "rcfile" || long == "init-file");
                continue;
            }
            let Some(flags) = word.strip_prefix(['-', '+']).filter(|f| !f.is_empty()) else {
                break;
            };
            has_c |= word.starts_with('-') && flags.contains('c');
            // `-o NAME` and `-O NAME` set options by name.
            j += 1 + usize::from(flags.ends_with(['o', 'O']));
        }
        (has_c && j < self.words.len()).then_some(j)
    }

    /// Scans `line`, found at offset `at`, as a command line of its own, one level deeper.
    fn reparse(&mut self, at: usize, line: Cow<'a, str>) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        match line {
            Cow::Borrowed(line) => {
                for (_, program) in scan(line, self.depth + 1) {
                    self.push(at, program);
                }
            }
            Cow::Owned(line) => {
                for (_, program) in scan(&line, self.depth + 1) {
                    self.push(at, Cow::Owned(program.into_owned()));
                }
            }
        }
    }

    // ---- tokens ----

    /// Skips blanks and line continuations.
    fn skip_blanks(&mut self) {
        loop {
            match self.byte(self.pos) {
                b' ' | b'\t' => self.pos += 1,
                b'\\' if self.byte(self.pos + 1) == b'\n' => self.pos += 2,
                _ => return,
            }
        }
    }

    fn token(&mut self) -> Tok {
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
                    self.read_heredocs();
                    return Tok::Sep;
                }
                b';' if next == b';' && self.byte(self.pos + 2) == b'&' => (3, Tok::CaseEnd),
                b';' if next == b';' || next == b'&' => (2, Tok::CaseEnd),
                b'&' if next == b'>' && self.byte(self.pos + 2) == b'>' => {
                    (3, Tok::Redir(Redir::Target))
                }
                b'&' if next == b'>' => (2, Tok::Redir(Redir::Target)),
                b'&' | b'|' if next == b'&' || next == b'|' => (2, Tok::Sep),
                b';' | b'&' | b'|' => (1, Tok::Sep),
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
            (b'<', b'<', b'<') => (3, Redir::Target),
            (b'<', b'<', b'-') => (3, Redir::HereDoc { strip_tabs: true }),
            (b'<', b'<', _) => (2, Redir::HereDoc { strip_tabs: false }),
            (b'<', b'&' | b'>', _) | (b'>', b'>' | b'&' | b'|', _) => (2, Redir::Target),
            _ => (1, Redir::Target),
        };
        self.pos += len;
        Tok::Redir(kind)
    }

    fn word_token(&mut self) -> Tok {
        let start = self.pos;
        self.word();
        Tok::Word(start, self.pos)
    }

    /// Skips the bodies of the heredocs opened on the line just ended.
    fn read_heredocs(&mut self) {
        if self.heredocs.is_empty() {
            return;
        }
        let mut docs = std::mem::take(&mut self.heredocs);
        for (delimiter, strip_tabs) in &docs {
            while self.pos < self.end {
                let line_end = self.line_end();
                let mut line = &self.src[self.pos..line_end];
                self.pos = (line_end + 1).min(self.end);
                if *strip_tabs {
                    line = line.trim_start_matches('\t');
                }
                if line == &**delimiter {
                    break;
                }
            }
        }
        docs.clear();
        self.heredocs = docs;
    }

    // ---- words ----

    /// Advances over one word, scanning the commands substituted inside it.
    fn word(&mut self) {
        let start = self.pos;
        while self.pos < self.end {
            match self.byte(self.pos) {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' => return,
                b'<' | b'>' if self.pos == start && self.byte(self.pos + 1) == b'(' => {
                    self.pos += 2;
                    self.guarded(b")", |s| s.list(true));
                }
                b'<' | b'>' => return,
                b'(' => {
                    let before = &self.src[start..self.pos];
                    if before.ends_with('=') && is_assignment(before) {
                        self.pos += 1;
                        self.guarded(b")", Self::array);
                    } else if before.ends_with(['@', '!', '?', '+', '*']) {
                        // An extglob pattern such as `@(a|b)`.
                        let b = self.src.as_bytes();
                        self.pos = skip_nested(b, self.pos + 1, self.end, b")");
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
            _ => self.pos += 1,
        }
    }

    /// The rest of `$( … )` or `$(( … ))`, after the `$(`.
    fn substitution(&mut self) {
        // Like bash, `$((` is arithmetic only when its parentheses close with `))`.
        let b = self.src.as_bytes();
        if self.byte(self.pos) == b'('
            && self.byte(skip_nested(b, self.pos + 1, self.end, b")")) == b')'
        {
            self.pos += 1;
            self.arith_body();
        } else {
            self.list(true);
        }
    }

    /// The rest of `${ … }`, whose default values may hold substitutions.
    fn parameter(&mut self, in_double_quotes: bool) {
        while self.pos < self.end {
            match self.byte(self.pos) {
                b'}' => {
                    self.pos += 1;
                    return;
                }
                _ => self.word_piece(in_double_quotes),
            }
        }
    }

    /// The rest of an arithmetic expression, up to the `))` closing it.
    fn arith_body(&mut self) {
        let mut parens = 0usize;
        while self.pos < self.end {
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
                    self.pos += if self.byte(self.pos + 1) == b')' {
                        2
                    } else {
                        1
                    };
                    return;
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
        } else if self.depth < MAX_DEPTH {
            let end = std::mem::replace(&mut self.end, close);
            self.pos = open;
            self.depth += 1;
            self.list(false);
            self.depth -= 1;
            self.end = end;
        }
        self.pos = (close + 1).min(self.end);
    }
}

/// Skips nested text without recursing: `closers` are the closing bytes still expected,
/// innermost last. Returns the index after the last of them (or `end`).
fn skip_nested(b: &[u8], mut i: usize, end: usize, closers: &[u8]) -> usize {
    let mut stack = closers.to_vec();
    while let Some(&top) = stack.last() {
        if i >= end {
            return end;
        }
        let c = b[i];
        let next = if i + 1 < end { b[i + 1] } else { 0 };
        i += 1;
        match (top, c) {
            (_, b'\\') => i += 1,
            (b'`', b'`') | (b'"', b'"') | (b')', b')') | (b'}', b'}') => {
                stack.pop();
            }
            (b'`', _) => {}
            (_, b'$') if next == b'(' || next == b'{' => {
                stack.push(if next == b'(' { b')' } else { b'}' });
                i += 1;
            }
            (_, b'`') => stack.push(b'`'),
            (b'"', _) => {}
            (_, b'\'') => {
                while i < end && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            }
            (_, b'"') => stack.push(b'"'),
            (b')', b'(') => stack.push(b')'),
            _ => {}
        }
    }
    i.min(end)
}

/// `NAME=`, `NAME+=` or `NAME[…]=` at the start of a word's source text.
fn is_assignment(raw: &str) -> bool {
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

/// Whether a cluster of short flags ends with one that takes the next word as argument
/// (one in the middle takes the rest of the cluster instead).
fn short_takes_next(flags: &str, takes_arg: &[u8]) -> bool {
    flags
        .bytes()
        .position(|f| takes_arg.contains(&f))
        .is_some_and(|k| k + 1 == flags.len())
}

/// The part of `text` from byte `start` on.
fn tail(text: Cow<'_, str>, start: usize) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(&s[start..]),
        Cow::Owned(s) if start == 0 => Cow::Owned(s),
        Cow::Owned(s) => Cow::Owned(s[start..].to_owned()),
    }
}

/// A word after quote removal; expansions are kept as their source text.
struct Cooked<'a> {
    text: Cow<'a, str>,
    /// Length of `text` up to the end of its last expansion; 0 without one.
    expanded_to: usize,
    /// Length of `text` before its first expansion.
    literal_to: usize,
}

/// The basename of a program word, unless an expansion makes it unknowable.
fn program_name(word: Cooked<'_>) -> Option<Cow<'_, str>> {
    let start = match word.text[word.expanded_to..].rfind('/') {
        Some(k) => word.expanded_to + k + 1,
        None if word.expanded_to > 0 => return None,
        None => 0,
    };
    (start < word.text.len()).then(|| tail(word.text, start))
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
fn cook(raw: &str) -> Cooked<'_> {
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

/// End of the expansion starting at `b[i]` (`$…`, a backtick or `<(…)`); `i + 1` if
/// the byte there stands for itself.
fn expansion_end(b: &[u8], i: usize) -> usize {
    let next = b.get(i + 1).copied().unwrap_or(0);
    match (b[i], next) {
        (b'$', b'(') if b.get(i + 2) == Some(&b'(') => skip_nested(b, i + 3, b.len(), b"))"),
        (b'$' | b'<' | b'>', b'(') => skip_nested(b, i + 2, b.len(), b")"),
        (b'$', b'{') => skip_nested(b, i + 2, b.len(), b"}"),
        (b'$', c) if c.is_ascii_alphabetic() || c == b'_' => {
            let mut j = i + 2;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            j
        }
        (b'$', b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => i + 2,
        (b'`', _) => skip_nested(b, i + 1, b.len(), b"`"),
        _ => i + 1,
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

#[cfg(test)]
mod tests;
