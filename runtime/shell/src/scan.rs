//! One scan of a command line: the [`Scanner`]'s state, the entry that runs it
//! ([`scan`]) and returns what it [`Found`], what it records as it goes
//! (programs, commands, dynamic words), and the nested scans of code a line
//! hands on ([`Scanner::reparse`]). The reading itself is split by layer:
//! `lexer.rs` (tokens and words), `grammar.rs` (compound and simple commands),
//! `resolve.rs` (a simple command's program), `wrappers.rs` (wrapper and runner
//! options, code in arguments), `vars.rs` (assignments and variables),
//! `arith.rs` (arithmetic contexts) and `printed.rs` (what `echo`/`printf` print).

use std::borrow::Cow;
use std::rc::Rc;

use crate::budget::{charge, out_of_budget};
use crate::nested::{skip_nested, Skips};
use crate::runners;
use crate::token::{Heredoc, Tok};
use crate::types::{Command, Dynamic, Reason, MAX_DYNAMIC};
use crate::words::{cook, expansions, word_unknown};

/// Nesting limit for substitutions, quotes and re-parsed strings; deeper text is skipped.
pub(crate) const MAX_DEPTH: u32 = 32;

/// Variables whose literal values a scan keeps, and the longest value kept.
pub(crate) const MAX_VARS: usize = 16;
pub(crate) const MAX_VALUE: usize = 256;

/// What one scan found.
pub(crate) struct Found<'a> {
    /// Programs, each with the source offset of the word naming it, in source order.
    pub(crate) programs: Vec<(usize, Cow<'a, str>)>,
    pub(crate) dynamic: Vec<Dynamic>,
    /// Simple commands with their words, when asked for.
    pub(crate) commands: Vec<(usize, Command)>,
    /// A shell in it reads its code from the stdin it inherits (`bash -c 'bash'`).
    pub(crate) reads_stdin: bool,
    /// The line's budget ran out: some of its text was not read.
    pub(crate) out_of_budget: bool,
}

/// What is done to a command's words beyond what its text shows: runners and
/// aliases append words, `find -exec` and `xargs -I` replace strings in them.
/// It holds for the rest of a simple command, and for the code it hands on.
#[derive(Clone, Default)]
pub(crate) struct Fill {
    pub(crate) more: bool,
    pub(crate) replace: runners::Replace,
    /// The literal values of variables the code handed on starts with
    /// ([`Scanner::vars`]).
    pub(crate) vars: Rc<Vec<(String, String)>>,
}

/// Scans `src` as a command line: the programs it runs, in source order, and
/// with `commands` set, each simple command with its words.
pub(crate) fn scan(src: &str, depth: u32, commands: bool, fill: Fill) -> Found<'_> {
    scan_as(src, depth, commands, fill, false)
}

/// [`scan`], or with `words_only`, `src` read as words in an argument's place,
/// where only their substitutions run.
fn scan_as(src: &str, depth: u32, commands: bool, fill: Fill, words_only: bool) -> Found<'_> {
    if !charge(src.len()) {
        return Found {
            programs: Vec::new(),
            dynamic: Vec::new(),
            commands: Vec::new(),
            reads_stdin: false,
            out_of_budget: true,
        };
    }
    let mut scanner = Scanner::new(src, depth, commands, fill);
    if words_only {
        while scanner.token() != Tok::Eof {}
    } else {
        scanner.list(false);
    }
    scanner.arith_subscripts();
    // A command's substitutions are found before the command itself is resolved.
    scanner.out.sort_by_key(|&(at, _)| at);
    let mut commands = scanner.commands.unwrap_or_default();
    commands.sort_by_key(|&(at, _)| at);
    Found {
        programs: scanner.out,
        dynamic: scanner.dynamic,
        commands,
        reads_stdin: scanner.reads_stdin,
        out_of_budget: out_of_budget(),
    }
}

pub(crate) struct Scanner<'a> {
    pub(crate) src: &'a str,
    pub(crate) pos: usize,
    /// End of the text being scanned; a backtick substitution narrows it.
    pub(crate) end: usize,
    pub(crate) depth: u32,
    /// Heredocs waiting for the next newline, in order.
    pub(crate) heredocs: Vec<Heredoc<'a>>,
    /// A newline ended the line that opened `heredocs`: their bodies come next.
    pub(crate) heredocs_due: bool,
    /// Word ranges of the simple commands being read; nested commands stack above outer ones.
    pub(crate) words: Vec<(usize, usize)>,
    /// Programs found, each with the source offset of the word naming it.
    pub(crate) out: Vec<(usize, Cow<'a, str>)>,
    /// Programs the text cannot name.
    pub(crate) dynamic: Vec<Dynamic>,
    /// Set by a `|`: the literal text the command before it prints, if known.
    pub(crate) pipe_in: Option<Option<String>>,
    /// The literal text the last simple command prints (`echo`, `printf`), if known.
    pub(crate) last_output: Option<String>,
    /// Set by `resolve` when the program is a shell reading its code from stdin: its word.
    pub(crate) stdin_code: Option<usize>,
    /// A shell read its code from the stdin this scan inherits.
    pub(crate) reads_stdin: bool,
    /// Code the command being resolved hands on reads the command's stdin.
    pub(crate) inner_stdin: bool,
    /// Set by `resolve` when the program is a shell whose script is a
    /// descriptor other than stdin (`bash /dev/fd/3`): its word and the descriptor.
    pub(crate) fd_code: Option<(usize, u32)>,
    /// The line evaluates something as arithmetic or a variable name.
    pub(crate) arith: bool,
    /// The line declares an integer variable (`declare -i`): an assignment's
    /// value may be evaluated as arithmetic.
    pub(crate) integer: bool,
    /// Where the last `$[…]` judged ends ([`Scanner::dollar`]).
    pub(crate) bracket_done: usize,
    /// Code in array subscripts of word values, with where each word starts
    /// ([`Scanner::subscript`]).
    pub(crate) subscripts: Vec<(usize, String)>,
    /// Variables (and positional parameters, `0`, `1`, …) with the literal
    /// value the line last gave them, at most [`MAX_VARS`].
    pub(crate) vars: Rc<Vec<(String, String)>>,
    /// Functions the line defines.
    pub(crate) functions: Vec<String>,
    /// A program word is a positional parameter (`"$@"`, `$1`): a function
    /// the line defines may run its arguments.
    pub(crate) runs_args: bool,
    /// What the runner or alias this text runs under does to its words.
    pub(crate) fill: Fill,
    /// Simple commands with their words ([`commands`](fn@crate::commands));
    /// `None` when not asked for.
    pub(crate) commands: Option<Vec<(usize, Command)>>,
    /// Where the nested text lookaheads skipped ends ([`skip_nested`]).
    pub(crate) skips: Skips,
    /// Whether the text names git's hooks or config, read once per scan
    /// ([`crate::programs::writes_git_code`]) so a line of many `git`
    /// commands stays linear.
    pub(crate) git_code: Option<bool>,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(src: &'a str, depth: u32, commands: bool, mut fill: Fill) -> Scanner<'a> {
        Scanner {
            src,
            pos: 0,
            end: src.len(),
            depth,
            heredocs: Vec::new(),
            heredocs_due: false,
            words: Vec::new(),
            out: Vec::new(),
            dynamic: Vec::new(),
            pipe_in: None,
            last_output: None,
            stdin_code: None,
            reads_stdin: false,
            inner_stdin: false,
            commands: commands.then(Vec::new),
            fd_code: None,
            arith: false,
            integer: false,
            bracket_done: 0,
            subscripts: Vec::new(),
            vars: std::mem::take(&mut fill.vars),
            functions: Vec::new(),
            runs_args: false,
            fill,
            skips: Skips::default(),
            git_code: None,
        }
    }

    pub(crate) fn byte(&self, i: usize) -> u8 {
        if i < self.end {
            self.src.as_bytes()[i]
        } else {
            0
        }
    }

    /// The index after nested text from `from` that `closers` end ([`skip_nested`]).
    pub(crate) fn skip(&mut self, from: usize, closers: &[u8]) -> usize {
        // A memo holds only for text that runs to the end of the source.
        let memo = (self.end == self.src.len()).then_some(&mut self.skips);
        skip_nested(self.src.as_bytes(), from, self.end, closers, memo)
    }

    /// Runs `body` one level deeper, or skips to `closers` when too deep.
    pub(crate) fn guarded(&mut self, closers: &[u8], body: impl FnOnce(&mut Self)) {
        if self.depth >= MAX_DEPTH {
            let from = self.pos;
            self.pos = self.skip(self.pos, closers);
            self.too_deep(from);
        } else {
            self.depth += 1;
            body(self);
            self.depth -= 1;
        }
    }

    pub(crate) fn raw(&self, i: usize) -> &'a str {
        let (s, e) = self.words[i];
        &self.src[s..e]
    }

    pub(crate) fn text(&self, i: usize) -> Cow<'a, str> {
        cook(self.raw(i)).text
    }

    /// Records the simple command whose program `program` is named by word
    /// `word`, with the words after it, when commands are asked for.
    pub(crate) fn record(&mut self, word: usize, program: &str) {
        if self.commands.is_none() {
            return;
        }
        let mut command = self.command(program);
        for k in word + 1..self.words.len() {
            self.push_arg(&mut command, self.raw(k));
        }
        self.add_command(self.words[word].0, command);
    }

    /// A command of `program` without arguments yet, under the fill in effect.
    pub(crate) fn command(&self, program: &str) -> Command {
        Command {
            program: program.to_string(),
            more: self.fill.more,
            ..Command::default()
        }
    }

    /// Adds the word whose source is `raw` to the arguments of `command`.
    pub(crate) fn push_arg(&self, command: &mut Command, raw: &str) {
        let text = cook(raw).text;
        if word_unknown(raw) || self.fill.replace.matches(&text) {
            command.unknown.push(command.args.len());
        }
        command.args.push(text.into_owned());
    }

    /// Gives the files a simple command's redirections write to the first
    /// command recorded for it since `recorded` (the outermost: `sudo tee`
    /// gives `tee` them), or to a command of no program when it has none.
    pub(crate) fn attach_writes(&mut self, recorded: usize, base: usize, writes: Vec<String>) {
        let at = self.words.get(base).map_or(self.pos, |w| w.0);
        let Some(commands) = &mut self.commands else {
            return;
        };
        match commands.get_mut(recorded) {
            Some((_, command)) => command.writes.extend(writes),
            None => commands.push((
                at,
                Command {
                    writes,
                    ..Command::default()
                },
            )),
        }
    }

    /// Records `command`, found at source offset `at`, when commands are asked for.
    pub(crate) fn add_command(&mut self, at: usize, command: Command) {
        if let Some(commands) = &mut self.commands {
            commands.push((at, command));
        }
    }

    pub(crate) fn push(&mut self, at: usize, program: Cow<'a, str>) {
        match self.out.last_mut() {
            Some((last_at, last)) if *last == program => *last_at = at.min(*last_at),
            _ => self.out.push((at, program)),
        }
    }

    /// Records a program the text cannot name, once, up to [`MAX_DYNAMIC`].
    pub(crate) fn add_dynamic(&mut self, d: Dynamic) {
        if self.dynamic.len() < MAX_DYNAMIC && !self.dynamic.contains(&d) {
            self.dynamic.push(d);
        }
    }

    /// Records the text from `from`, nested too deep to follow (once per scan).
    pub(crate) fn too_deep(&mut self, from: usize) {
        if self.dynamic.iter().any(|d| d.reason == Reason::TooDeep) {
            return;
        }
        let text: String = self.src[from..self.end].chars().take(40).collect();
        self.add_dynamic(Dynamic {
            reason: Reason::TooDeep,
            text,
        });
    }

    /// Records word `i` as a program the text cannot name.
    pub(crate) fn dynamic_word(&mut self, i: usize, reason: Reason) {
        let text = self.raw(i).to_owned();
        self.add_dynamic(Dynamic { reason, text });
    }

    /// Records the source text `s..e` as a program the text cannot name.
    pub(crate) fn dynamic_word_text(&mut self, s: usize, e: usize, reason: Reason) {
        let text = self.src[s..e].to_owned();
        self.add_dynamic(Dynamic { reason, text });
    }

    /// Scans `code`, the text of word `k` bash hands on as code, after what bash
    /// splices into it.
    pub(crate) fn code_word(&mut self, k: usize, code: Cow<'a, str>) {
        self.spliced(self.raw(k));
        self.reparse(self.words[k].0, code);
    }

    /// Code from the word whose source is `raw` holds, as text, the values of
    /// the expansions bash performs in it and what a runner replaces in it: any
    /// command may be spliced in (`x='a; kubectl delete x'; eval "kubectl get
    /// $x"`, `xargs -I{} sh -c 'kubectl get {}'`), so each is dynamic.
    pub(crate) fn spliced(&mut self, raw: &str) {
        self.spliced_text(expansions(raw, false));
        if self.fill.replace.splices(&cook(raw).text) {
            self.add_dynamic(Dynamic {
                reason: Reason::Expansion,
                text: raw.to_owned(),
            });
        }
    }

    /// Records each of `expansions`, spliced into code, as dynamic.
    pub(crate) fn spliced_text(&mut self, expansions: Vec<&str>) {
        for text in expansions {
            self.add_dynamic(Dynamic {
                reason: Reason::Expansion,
                text: text.to_owned(),
            });
        }
    }

    /// Scans `line`, found at offset `at`, as a command line of its own, one level
    /// deeper, under the fill in effect.
    pub(crate) fn reparse(&mut self, at: usize, line: Cow<'a, str>) {
        let fill = self.fill.clone();
        self.reparse_with(at, line, fill);
    }

    /// [`Scanner::reparse`] under `fill`.
    pub(crate) fn reparse_with(&mut self, at: usize, line: Cow<'a, str>, fill: Fill) {
        self.merge_scan(at, line, fill, false);
    }

    /// Scans `text`, found at offset `at`, as words in an argument's place
    /// (`compgen -W WORDS`, an array subscript): only its substitutions run.
    pub(crate) fn argument_code(&mut self, at: usize, text: Cow<'a, str>) {
        let fill = self.fill.clone();
        self.merge_scan(at, text, fill, true);
    }

    /// Scans `line` one level deeper ([`scan_as`]) and takes in what it found.
    fn merge_scan(&mut self, at: usize, line: Cow<'a, str>, mut fill: Fill, words_only: bool) {
        if self.depth >= MAX_DEPTH {
            return self.too_deep(at);
        }
        fill.vars = Rc::clone(&self.vars);
        let record = self.commands.is_some();
        let (dynamic, commands, reads_stdin) = match line {
            Cow::Borrowed(line) => {
                let found = scan_as(line, self.depth + 1, record, fill, words_only);
                for (_, program) in found.programs {
                    self.push(at, program);
                }
                (found.dynamic, found.commands, found.reads_stdin)
            }
            Cow::Owned(line) => {
                let found = scan_as(&line, self.depth + 1, record, fill, words_only);
                for (_, program) in found.programs {
                    self.push(at, Cow::Owned(program.into_owned()));
                }
                (found.dynamic, found.commands, found.reads_stdin)
            }
        };
        for d in dynamic {
            self.add_dynamic(d);
        }
        if let Some(mine) = &mut self.commands {
            mine.extend(commands.into_iter().map(|(_, c)| (at, c)));
        }
        self.inner_stdin |= reads_stdin;
    }
}
