//! Resolving a simple command: its program word past assignments, wrappers
//! (`sudo`, `env`, `command`, `time`, …) and runners, brace alternatives, and
//! a program word whose value the line shows.

use std::borrow::Cow;

use crate::arith::ARITH_BUILTINS;
use crate::braces::{brace_expand, brace_group, MAX_BRACE_WORDS, MAX_BRACE_WORD_LEN};
use crate::programs;
use crate::quote::quote;
use crate::runners;
use crate::scan::{Scanner, MAX_VALUE};
use crate::types::Reason;
use crate::words::{cook, env_escapes, has_glob, is_assignment, program_name, word_unknown, Name};
use crate::wrappers::Next;

/// Runners one simple command may chain (`nice xargs timeout …`); more are too deep.
const MAX_RUNNERS: u32 = 16;

impl<'a> Scanner<'a> {
    /// Finds the program of the words from `base`: past assignments and wrappers.
    pub(crate) fn resolve(&mut self, base: usize) {
        // What a runner does to the words holds for the rest of this command only.
        let outer = self.fill.clone();
        self.resolve_words(base);
        self.fill = outer;
    }

    fn resolve_words(&mut self, base: usize) {
        let n = self.words.len();
        for k in base..n {
            let (s, e) = self.words[k];
            self.subscript(s, e);
        }
        let mut i = base;
        while i < n && is_assignment(self.raw(i)) {
            self.code_assignment(i);
            self.assignment_arith(i);
            i += 1;
        }
        if i == n {
            // Assignments alone set shell variables; before a program, its environment.
            for k in base..n {
                self.assign(k);
            }
        }
        let mut wrapper = None;
        let mut runners = 0;
        while i < n {
            let at = self.words[i].0;
            if self.fill.replace.matches(&self.text(i)) {
                // `find kubectl -exec {} delete \;`: the runner names the program.
                return self.dynamic_word(i, Reason::Expansion);
            }
            let name = match self.program_word(i) {
                Name::Known(name) => {
                    self.path_program(i);
                    name
                }
                Name::Braces(alternatives) => return self.brace_program(i, alternatives),
                Name::Unknown(reason) => {
                    self.unknown_program(i);
                    return self.dynamic_word(i, reason);
                }
                Name::Empty => return,
            };
            let next = match &*name {
                "sudo" => Next::Word(self.sudo_options(i + 1)),
                "env" => {
                    let next = self.env_options(i + 1);
                    let end = match next {
                        Next::Word(j) | Next::Line(_, j) => j.min(n),
                        Next::Query => i + 1,
                    };
                    for k in i + 1..end {
                        if !self.text(k).starts_with('-') {
                            self.code_assignment(k);
                        }
                    }
                    next
                }
                "command" => self.command_options(i + 1),
                "time" => Next::Word(self.options(i + 1, b"fo", &["format", "output"])),
                "nohup" => Next::Word(self.options(i + 1, b"", &[])),
                "exec" => Next::Word(self.options(i + 1, b"a", &[])),
                "builtin" => Next::Word(self.options(i + 1, b"", &[])),
                "timeout" => {
                    // The duration follows the options.
                    let j = self.options(i + 1, b"sk", &["signal", "kill-after"]);
                    Next::Word(j + 1)
                }
                _ => {
                    self.record(i, &name);
                    self.push(at, name.clone());
                    self.arith |= ARITH_BUILTINS.contains(&&*name);
                    self.arith_arguments(&name, i + 1);
                    if self.runs_args && self.functions.iter().any(|f| *f == *name) && i + 1 < n {
                        // `f(){ "$@"; }; f kubectl x`: the function may run its arguments.
                        self.stacked(i + 1);
                    }
                    if !runners::is_runner(&name) {
                        if self.program_arguments(&name, i + 1) {
                            self.appended_code(i);
                        }
                        return;
                    }
                    runners += 1;
                    if runners > MAX_RUNNERS {
                        // Each runner reads all the words after it: bound the work.
                        return self.too_deep(at);
                    }
                    match self.runner(&name, i + 1) {
                        Some(j) => {
                            wrapper = None;
                            i = j;
                            continue;
                        }
                        None => return,
                    }
                }
            };
            wrapper = Some((i, name));
            match next {
                Next::Word(j) => i = j,
                Next::Line(line, rest) => return self.split_string_line(at, line, rest),
                Next::Query => return self.bare_wrapper(wrapper, false),
            }
        }
        self.bare_wrapper(wrapper, true);
    }

    /// The program named by word `i`: its basename, or the words its braces
    /// expand to.
    pub(crate) fn program_word(&self, i: usize) -> Name<'a> {
        let raw = self.raw(i);
        if has_glob(raw) || (raw.len() > MAX_BRACE_WORD_LEN && brace_group(raw).is_some()) {
            return Name::Unknown(Reason::Glob);
        }
        match brace_expand(raw) {
            // A sequence too long to expand.
            Some(alternatives) if alternatives.is_empty() => Name::Unknown(Reason::Glob),
            Some(alternatives) => Name::Braces(alternatives),
            None => program_name(cook(raw)),
        }
    }

    /// A program word the text does not tell may still have a value the line
    /// shows ([`Scanner::known_value`]): its words are then read as the start
    /// of the command (`s=sudo; $s kubectl x` runs kubectl), while the word
    /// stays dynamic (the value may change in ways the text hides).
    fn unknown_program(&mut self, i: usize) {
        let raw = self.raw(i);
        let bare = raw.trim_matches('"');
        if matches!(bare, "$@" | "$*" | "${@}" | "${*}")
            || (bare.len() == 2 && bare.starts_with('$') && bare.as_bytes()[1].is_ascii_digit())
        {
            self.runs_args = true;
        }
        let Some(value) = self.known_value(raw) else {
            return;
        };
        let mut line: Vec<String> = value.split_whitespace().map(quote).collect();
        if line.is_empty() {
            return;
        }
        // The words after it when they are few: a wrapper's program may be
        // among them (`$s kubectl`), and a long chain is not read again.
        let (s, e) = (self.words[i].1, self.words.last().map_or(0, |w| w.1));
        if e.saturating_sub(s) <= MAX_VALUE {
            line.extend((i + 1..self.words.len()).map(|k| self.raw(k).to_owned()));
        }
        self.reparse(self.words[i].0, Cow::Owned(line.join(" ")));
    }

    /// A program word that is a path the text cannot tell ([`Reason::Path`]).
    fn path_program(&mut self, i: usize) {
        if self.raw(i).contains('/') && !programs::system_path(&self.text(i)) {
            self.dynamic_word(i, Reason::Path);
        }
    }

    /// A wrapper with nothing left to run is the program; when it would run one
    /// (`sudo`, not `command -v`), words appended to it name that program.
    fn bare_wrapper(&mut self, wrapper: Option<(usize, Cow<'a, str>)>, runs: bool) {
        if let Some((word, name)) = wrapper {
            self.record(word, &name);
            self.push(self.words[word].0, name);
            if runs {
                self.appended_code(word);
            }
        }
    }

    /// Word `word` runs a program or code it reads from its arguments: words
    /// appended to them (`xargs sudo`, `xargs sh -c`) may name anything.
    fn appended_code(&mut self, word: usize) {
        if self.fill.more {
            self.dynamic_word(word, Reason::Stdin);
        }
    }

    /// `env -S STRING WORDS…`: env splits the string into words, puts them in
    /// place of its own, reads them as options and operands, and the words after
    /// the string follow; so `env` and the string's text make the command line.
    fn split_string_line(&mut self, at: usize, line: Cow<'a, str>, rest: usize) {
        // The string is the word before `rest`.
        self.spliced(self.raw(rest - 1));
        let mut text = format!("env {}", env_escapes(line));
        for k in rest..self.words.len() {
            text.push(' ');
            let raw = self.raw(k);
            // A word the text tells is quoted as it reads; one it does not is kept
            // as written, so the scan marks it unknown too.
            match word_unknown(raw) {
                true => text.push_str(raw),
                false => text.push_str(&quote(&cook(raw).text)),
            }
        }
        self.reparse(at, Cow::Owned(text));
    }

    /// A brace-expanded program word (`{kubectl,delete,pod}`): bash runs the first
    /// alternative with the others as its first arguments, so the alternatives and
    /// the words after them are scanned as a command line of their own. The other
    /// alternatives stay programs too (a wrapper or runner first may run them),
    /// each with the alternatives and words after it and `more`; so does the first
    /// when the expansion stopped at its limits, and nothing is scanned again.
    fn brace_program(&mut self, i: usize, alternatives: Vec<String>) {
        let at = self.words[i].0;
        let n = self.words.len();
        let complete = alternatives.len() < MAX_BRACE_WORDS
            && alternatives.iter().all(|a| brace_group(a).is_none());
        let candidates = alternatives.iter().enumerate().skip(usize::from(complete));
        for (k, alternative) in candidates {
            match program_name(cook(alternative)) {
                Name::Known(name) => {
                    if self.commands.is_some() {
                        let mut command = self.command(&name);
                        command.more = true;
                        for next in &alternatives[k + 1..] {
                            self.push_arg(&mut command, next);
                        }
                        for w in i + 1..n {
                            self.push_arg(&mut command, self.raw(w));
                        }
                        self.add_command(at, command);
                    }
                    self.push(at, Cow::Owned(name.into_owned()));
                }
                Name::Unknown(reason) => self.dynamic_word(i, reason),
                Name::Braces(_) | Name::Empty => {}
            }
        }
        if complete {
            let mut line = alternatives.join(" ");
            for w in i + 1..n {
                line.push(' ');
                line.push_str(self.raw(w));
            }
            self.reparse(at, Cow::Owned(line));
        }
    }

    /// Resolves the words from `from` as a simple command stacked above this one.
    pub(crate) fn stacked(&mut self, from: usize) {
        let top = self.words.len();
        self.words.extend_from_within(from..top);
        self.resolve(top);
        self.unstack(from, top);
    }

    /// Drops the words stacked at `top` as copies of those from `from`; a shell
    /// among them that reads stdin or a descriptor is the word it copies.
    pub(crate) fn unstack(&mut self, from: usize, top: usize) {
        let copied = |w: usize| if w >= top { from + (w - top) } else { w };
        self.stdin_code = self.stdin_code.map(copied);
        self.fd_code = self.fd_code.map(|(w, fd)| (copied(w), fd));
        self.words.truncate(top);
    }
}
