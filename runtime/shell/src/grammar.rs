//! The grammar: command lists, compound commands (`case`, `for`, functions,
//! `coproc`, `[[ ]]`, `(( ))`) and simple commands with their redirections,
//! and the code a shell among them reads from stdin or another descriptor.

use std::borrow::Cow;

use crate::budget::charge;
use crate::printed::printed;
use crate::scan::{Scanner, MAX_VARS};
use crate::token::{Heredoc, Input, Redir, Tok};
use crate::types::{Dynamic, Reason};
use crate::words::{cook, is_assignment, is_number};

impl<'a> Scanner<'a> {
    /// Reads commands until the end, or until an unmatched `)` when `in_paren`.
    pub(crate) fn list(&mut self, in_paren: bool) {
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
                Tok::Pipe => {
                    self.pipe_in = Some(self.last_output.take());
                    None
                }
                Tok::Close | Tok::Sep => {
                    self.pipe_in = None;
                    self.last_output = None;
                    None
                }
                Tok::CaseEnd => self.case_patterns(),
                Tok::Word(s, e) => self.command_start(s, e),
                Tok::Redir(_) => self.simple_command(tok),
            };
        }
    }

    /// Handles a word in command position: a keyword or the start of a simple command.
    fn command_start(&mut self, s: usize, e: usize) -> Option<Tok> {
        self.last_output = None;
        if self.src[s..e].starts_with("!(") && charge(e - s) {
            // With extglob off, as `bash -c` starts, `!(…)` is `!` and a subshell; with
            // it on, a glob naming the program.
            self.dynamic_word_text(s, e, Reason::Glob);
            self.pos = s + 1;
            return None;
        }
        match &self.src[s..e] {
            "if" | "then" | "elif" | "else" | "fi" | "do" | "done" | "while" | "until" | "!"
            | "{" | "}" | "esac" | "in" | "]]" => None,
            "time" if self.arith_command() => None,
            "time" => {
                self.skip_flag("-p");
                self.skip_flag("--");
                None
            }
            "case" => self.case_head(),
            "for" | "select" => self.for_head(),
            "function" => self.function_head(),
            "coproc" => self.coproc_head(),
            "[[" => {
                // An arithmetic comparison (`-eq` …) evaluates its operands' values, and
                // `-v` the subscript of the name it tests.
                let mut last: Option<bool> = None;
                let (mut compare, mut test_var) = (false, false);
                loop {
                    match self.token() {
                        Tok::Word(s, e) if &self.src[s..e] == "]]" => return None,
                        Tok::Word(s, e) => {
                            self.subscript(s, e);
                            let word = &self.src[s..e];
                            let arith =
                                matches!(word, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge");
                            let literal = is_number(word);
                            if (arith && last.is_some_and(|l| !l))
                                || (compare && !literal)
                                || (test_var && word.contains('['))
                            {
                                self.arith_names(s, e);
                            }
                            (compare, test_var) = (arith, word == "-v");
                            last = Some(literal);
                        }
                        Tok::Eof => return Some(Tok::Eof),
                        _ => last = None,
                    }
                }
            }
            _ => self.simple_command(Tok::Word(s, e)),
        }
    }

    /// Steps over `flag` if it is the next word.
    fn skip_flag(&mut self, flag: &str) {
        self.skip_blanks();
        let at = self.pos + flag.len();
        if self.src[self.pos..self.end].starts_with(flag)
            && matches!(self.byte(at), 0 | b' ' | b'\t' | b'\n' | b';' | b'&' | b'|')
        {
            self.pos = at;
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
                Tok::Sep | Tok::Pipe | Tok::Open | Tok::Word(..) => {}
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
            Tok::Word(s, e) => {
                self.defines(s, e);
                self.function_parens()
            }
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

    /// `(( … ))` in command position: arithmetic, whose substitutions still run. Like
    /// bash, `((` is arithmetic only when its parentheses close with `))`; otherwise it
    /// opens two subshells (`((a) )`).
    fn arith_command(&mut self) -> bool {
        self.read_heredocs();
        self.skip_blanks();
        if self.byte(self.pos) != b'(' || self.byte(self.pos + 1) != b'(' {
            return false;
        }
        let close = self.skip(self.pos + 2, b"A");
        if self.byte(close) != b')' {
            return false;
        }
        self.pos += 2;
        self.guarded(b"AA", Self::arith_body);
        true
    }

    /// Reads the words and redirections of one simple command, then resolves its program.
    fn simple_command(&mut self, first: Tok) -> Option<Tok> {
        let base = self.words.len();
        let pipe_in = self.pipe_in.take();
        let mut inputs = Vec::new();
        let mut writes = Vec::new();
        let mut tok = first;
        loop {
            match tok {
                Tok::Word(s, e) => {
                    if self.words.len() == base && !is_assignment(&self.src[s..e]) {
                        self.skip_blanks();
                        if self.byte(self.pos) == b'(' {
                            // `name () body`: a function definition, not a program.
                            self.defines(s, e);
                            return self.function_parens();
                        }
                    }
                    self.words.push((s, e));
                }
                Tok::Redir(kind) => match (self.input_fd(kind), self.token()) {
                    (fd, Tok::Word(s, e)) => match kind {
                        Redir::HereDoc { strip_tabs } => {
                            let raw = &self.src[s..e];
                            let delimiter = cook(raw).text;
                            inputs.push((fd, Input::HereDoc(self.heredocs.len())));
                            self.heredocs.push(Heredoc {
                                // A line continuation is gone before the word is read.
                                quoted: raw.replace("\\\n", "").contains(['\\', '\'', '"']),
                                delimiter,
                                strip_tabs,
                                code: false,
                            });
                        }
                        Redir::HereString => {
                            self.subscript(s, e);
                            inputs.push((fd, Input::HereString(s, e)));
                        }
                        Redir::Target { writes: true } => {
                            let target = cook(&self.src[s..e]).text;
                            // `>&2`, `2>&-`: a descriptor, not a file.
                            if !target.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                                writes.push(target.into_owned());
                            }
                        }
                        Redir::Target { writes: false } => {
                            let dup = self.src[..self.words_end(s)].ends_with("<&");
                            let input = if dup {
                                Input::Dup(s, e)
                            } else {
                                Input::File(s, e)
                            };
                            inputs.push((fd, input));
                        }
                    },
                    (_, other) => {
                        tok = other;
                        break;
                    }
                },
                _ => break,
            }
            tok = self.token();
        }
        self.inner_stdin = false;
        let recorded = self.commands.as_ref().map_or(0, Vec::len);
        self.resolve(base);
        if !writes.is_empty() {
            self.attach_writes(recorded, base, writes);
        }
        let n = self.words.len();
        let program = (base..n).find(|&k| !is_assignment(self.raw(k)));
        let reader = match self.stdin_code.take() {
            Some(shell) => Some(Some(shell)),
            // `bash -c 'bash' <<< CODE`: the inner shell reads the here-string.
            None if std::mem::take(&mut self.inner_stdin) => program.map(Some),
            // `{ bash; } <<< CODE`: the redirection after a compound command feeds
            // whatever shell in it read stdin.
            None if base == n && self.reads_stdin => Some(None),
            None => None,
        };
        if let Some(shell) = reader {
            self.feed_stdin(shell, &inputs, pipe_in);
        }
        if let Some((shell, fd)) = self.fd_code.take() {
            self.feed_fd(shell, fd, &inputs);
        }
        // Only a pipe passes the output on.
        self.last_output = if tok == Tok::Pipe {
            self.literal_output(base)
        } else {
            None
        };
        self.words.truncate(base);
        Some(tok)
    }

    /// The descriptor an input redirection operator just read applies to: its
    /// number, 0 without one, `u32::MAX` for a `{name}` one the text does not tell.
    fn input_fd(&self, kind: Redir) -> u32 {
        let len = match kind {
            Redir::HereString => 3,
            Redir::HereDoc { strip_tabs } => 2 + usize::from(strip_tabs),
            Redir::Target { writes: true } => return 1,
            Redir::Target { writes: false } => {
                1 + usize::from(self.src[..self.pos].ends_with("<&"))
            }
        };
        let head = &self.src.as_bytes()[..self.pos.saturating_sub(len)];
        if head.last() == Some(&b'}') {
            return u32::MAX;
        }
        let digits = head.iter().rev().take_while(|b| b.is_ascii_digit()).count();
        let before = head.len() - digits;
        // `x2<f` is the word `x2`, then `<f`.
        if digits == 0 || (before > 0 && !b" \t\n;&|(".contains(&head[before - 1])) {
            return 0;
        }
        std::str::from_utf8(&head[before..])
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(u32::MAX)
    }

    /// Where the operator before a target starting at `s` ends: `s` past blanks back.
    fn words_end(&self, s: usize) -> usize {
        self.src[..s].trim_end_matches([' ', '\t']).len()
    }

    /// A shell reads its code from stdin: the code is what the command's
    /// redirections put on descriptor 0 ([`Scanner::fd_input`]), or what the
    /// command before `|` prints; without any, the stdin this scan inherits.
    /// `shell` is the word of the reading command, if it has one.
    fn feed_stdin(
        &mut self,
        shell: Option<usize>,
        inputs: &[(u32, Input)],
        pipe_in: Option<Option<String>>,
    ) {
        if inputs.iter().any(|&(fd, _)| fd == 0) {
            let at = shell.map_or(self.pos, |w| self.words[w].0);
            return self.fd_input(at, 0, inputs);
        }
        match (pipe_in, shell) {
            (Some(Some(text)), Some(shell)) => {
                self.reparse(self.words[shell].0, Cow::Owned(text));
            }
            (Some(None), Some(shell)) => self.add_dynamic(Dynamic {
                reason: Reason::Stdin,
                text: format!("| {}", self.raw(shell)),
            }),
            (None, _) => self.reads_stdin = true,
            (Some(_), None) => {}
        }
    }

    /// A shell reads its script from descriptor `fd` (`bash /dev/fd/3`).
    fn feed_fd(&mut self, shell: usize, fd: u32, inputs: &[(u32, Input)]) {
        self.fd_input(self.words[shell].0, fd, inputs);
    }

    /// Code a shell at offset `at` reads from descriptor `fd`, by the last of
    /// the command's redirections of it: a here-string's text, a heredoc's body
    /// (scanned when read), a process substitution that prints literal text
    /// (`< <(echo ls)`); a file holds code the line does not show, and a
    /// descriptor the command does not fill (`<&3` after `exec 3<<< …`) is
    /// filled elsewhere.
    fn fd_input(&mut self, at: usize, fd: u32, inputs: &[(u32, Input)]) {
        let mut fd = fd;
        // Each step follows a dup; a chain longer than a few is not followed.
        for _ in 0..MAX_VARS {
            let Some((_, input)) = inputs.iter().rev().find(|(f, _)| *f == fd) else {
                break;
            };
            match *input {
                Input::HereString(s, e) => {
                    self.spliced(&self.src[s..e]);
                    return self.reparse(s, cook(&self.src[s..e]).text);
                }
                Input::HereDoc(i) => {
                    // Read already (a body that came before the command ended) or not.
                    if let Some(doc) = self.heredocs.get_mut(i) {
                        doc.code = true;
                    }
                    return;
                }
                Input::File(s, e) => {
                    let raw = &self.src[s..e];
                    let printed = raw
                        .strip_prefix("<(")
                        .and_then(|r| r.strip_suffix(')'))
                        .and_then(printed);
                    match printed {
                        Some(code) => return self.reparse(s, Cow::Owned(code)),
                        None if cook(raw).text == "/dev/null" => return,
                        None => {
                            let reason = match raw.starts_with("<(") {
                                true => Reason::Stdin,
                                false => Reason::File,
                            };
                            let text = format!("< {raw}");
                            return self.add_dynamic(Dynamic { reason, text });
                        }
                    }
                }
                Input::Dup(s, e) => match cook(&self.src[s..e]).text.parse::<u32>() {
                    Ok(next) if next != fd => fd = next,
                    _ => break,
                },
            }
        }
        let text: String = self.src[at..].chars().take(40).collect();
        self.add_dynamic(Dynamic {
            reason: Reason::Stdin,
            text,
        });
    }
}
