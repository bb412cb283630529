//! Wrapper and runner options: where the program of `sudo`, `env`, `command`
//! and the runners of `runners.rs` starts, and the code programs take in their
//! arguments (`sh -c`, interpreters, `source`, `trap`, git's settings, …)
//! as `programs.rs` tells them.

use std::borrow::Cow;
use std::rc::Rc;

use crate::printed::printed;
use crate::programs::{self, Runs};
use crate::runners;
use crate::scan::Scanner;
use crate::types::{Dynamic, Reason};
use crate::words::{cook, fd_path, is_assignment, program_name, tail, word_unknown, Cooked, Name};

/// How a shell invoked with these arguments gets its code.
enum ShellInput {
    /// `-c STRING`: the word at this index.
    String(usize),
    /// No script operand (or `-s`): from stdin.
    Stdin,
    /// From the script file named by the word at this index.
    Script(usize),
    /// Nowhere: `-c` without a string.
    Nothing,
}

/// What follows a wrapper's own options.
pub(crate) enum Next<'a> {
    /// The wrapped program is the word at this index (none if past the end).
    Word(usize),
    /// `env -S`: the wrapped command is this string, then the words from this index.
    Line(Cow<'a, str>, usize),
    /// `command -v`: nothing is run.
    Query,
}

/// Interpreters whose options can carry code: short option letters and long names.
const INTERPRETERS: &[(&str, &[u8], &[&str])] = &[
    ("python", b"c", &[]),
    ("pypy", b"c", &[]),
    ("perl", b"eE", &[]),
    ("ruby", b"e", &[]),
    ("node", b"ep", &["eval", "print"]),
    ("nodejs", b"ep", &["eval", "print"]),
    ("deno", b"", &["eval"]),
    ("php", b"r", &[]),
    ("lua", b"e", &[]),
    ("Rscript", b"e", &[]),
    ("osascript", b"e", &[]),
    ("tclsh", b"", &[]),
    ("wish", b"", &[]),
    ("expect", b"c", &[]),
    ("jshell", b"", &[]),
    ("julia", b"e", &["eval"]),
    ("guile", b"c", &[]),
    ("racket", b"e", &["eval"]),
    ("sbcl", b"", &["eval"]),
    ("ocaml", b"", &[]),
    ("runghc", b"e", &[]),
    ("scala", b"e", &[]),
    ("groovy", b"e", &[]),
    ("bun", b"e", &["eval"]),
    ("tsx", b"e", &["eval"]),
    ("ts-node", b"e", &["eval"]),
    ("pwsh", b"c", &["command"]),
    ("elixir", b"e", &["eval"]),
    ("escript", b"", &[]),
];

/// Whether a cluster of short flags ends with one that takes the next word as argument
/// (one in the middle takes the rest of the cluster instead).
fn short_takes_next(flags: &str, takes_arg: &[u8]) -> bool {
    flags
        .bytes()
        .position(|f| takes_arg.contains(&f))
        .is_some_and(|k| k + 1 == flags.len())
}

impl<'a> Scanner<'a> {
    /// Skips options from `j`: short ones taking an argument are in `short_arg`, long
    /// ones (without `=`) in `long_arg`. Returns the index of the first operand.
    pub(crate) fn options(&self, mut j: usize, short_arg: &[u8], long_arg: &[&str]) -> usize {
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
    pub(crate) fn sudo_options(&self, j: usize) -> usize {
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
    pub(crate) fn env_options(&self, mut j: usize) -> Next<'a> {
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
                    return Next::Line(tail(word, "--split-string=".len()), j + 1);
                }
                j += 1 + usize::from(long == "unset" || long == "chdir");
            } else if let Some(flags) = word.strip_prefix('-') {
                match flags.find(['u', 'C', 'S']) {
                    Some(k) if flags.as_bytes()[k] == b'S' => {
                        return if k + 1 == flags.len() {
                            self.split_string(j + 1)
                        } else {
                            Next::Line(tail(word, k + 2), j + 1)
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
            Next::Line(self.text(j), j + 1)
        } else {
            Next::Word(j)
        }
    }

    /// `command [-p]`; `-v` and `-V` only describe the command.
    pub(crate) fn command_options(&self, mut j: usize) -> Next<'a> {
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

    /// Follows runner `name` whose arguments start at word `j`: the index of the word
    /// its command starts at, or `None` once the code it runs is scanned.
    pub(crate) fn runner(&mut self, name: &str, j: usize) -> Option<usize> {
        let args: Vec<Cow<'a, str>> = (j..self.words.len()).map(|k| self.text(k)).collect();
        // A runner with commands of its own (gdb's `-ex 'shell CMD'`).
        let unknown = || (args.clone(), Vec::new());
        if let Some(runs) = programs::runs(name, unknown) {
            self.program_runs(j, runs);
        }
        let plan = runners::plan(name, &args);
        if let Some((k, from)) = plan.program {
            self.program_value(j + k, from);
        }
        // Words appended to this runner, not the ones it appends, go to its options.
        let appended = self.fill.more;
        self.fill.more |= plan.appends;
        self.fill.replace = std::mem::take(&mut self.fill.replace).and(plan.replace);
        for code in plan.code {
            let text = tail(args[code.word].clone(), code.from);
            // Code in an argument's place runs its substitutions and operators only.
            let text = match code.argument {
                true => Cow::Owned(format!(": {text}")),
                false => text,
            };
            self.code_word(j + code.word, text);
        }
        match plan.run {
            runners::Run::Argv(k) => return Some(j + k),
            runners::Run::Joined(k) => {
                let end = args[k..]
                    .iter()
                    .position(|a| a.starts_with(":::"))
                    .map_or(args.len(), |e| k + e);
                if end == k && name == "parallel" {
                    self.parallel_commands(j + k, &args[k..]);
                } else {
                    for w in j + k..j + end {
                        self.spliced(self.raw(w));
                    }
                    let line = args[k..end].join(" ");
                    self.reparse(self.words[j + k].0, Cow::Owned(line));
                }
            }
            runners::Run::Shell => self.stdin_code = Some(j - 1),
            runners::Run::Nothing if name == "parallel" => self.parallel_commands(j, &[]),
            runners::Run::Nothing => {}
        }
        if appended {
            // `xargs su -c`, `xargs watch`: the words decide what runs.
            self.dynamic_word(j - 1, Reason::Stdin);
        }
        None
    }

    /// `parallel` without a command: the arguments after `:::` are command lines, and
    /// without `:::` (`::::` files, or stdin) the commands cannot be known.
    fn parallel_commands(&mut self, j: usize, args: &[Cow<'a, str>]) {
        if args.first().is_none_or(|a| a != ":::") {
            let text = format!("parallel {}", args.join(" "));
            return self.add_dynamic(Dynamic {
                reason: Reason::Stdin,
                text: text.trim_end().to_owned(),
            });
        }
        for (k, arg) in args.iter().enumerate().skip(1) {
            if arg.starts_with(":::") {
                break;
            }
            self.code_word(j + k, arg.clone());
        }
    }

    /// `find … -exec CMD … ;` (or `{} +`, and `-execdir`, `-ok`, `-okdir`): each
    /// command is a simple command of its own.
    fn find_actions(&mut self, j: usize) {
        let n = self.words.len();
        let mut k = j;
        while k < n {
            let action = self.text(k);
            k += 1;
            if !matches!(&*action, "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let start = k;
            while k < n && !self.ends_action(k, start) {
                k += 1;
            }
            // Resolve the command's words as a simple command stacked above this
            // one, in which find replaces `{}` wherever it occurs.
            let top = self.words.len();
            self.words.extend_from_within(start..k);
            let outer = self.fill.replace.clone();
            let braces = runners::Replace::Strings(vec!["{}".to_owned()]);
            self.fill.replace = outer.clone().and(braces);
            self.resolve(top);
            self.fill.replace = outer;
            self.unstack(start, top);
            k += 1;
        }
    }

    /// Whether word `k` ends an action whose command starts at `start`: `;`, or `+` after `{}`.
    fn ends_action(&self, k: usize, start: usize) -> bool {
        match &*self.text(k) {
            ";" => true,
            "+" => k > start && self.text(k - 1) == "{}",
            _ => false,
        }
    }

    /// Parses what a program runs as shell text itself: `sh -c STRING`, `eval ARGS…`.
    /// Returns whether it reads code or a command from its arguments at all, so
    /// that words appended to them could make it run anything.
    pub(crate) fn program_arguments(&mut self, name: &str, j: usize) -> bool {
        let n = self.words.len();
        match name {
            "bash" | "sh" | "zsh" | "dash" | "ksh" | "rbash" | "ash" | "mksh" | "yash" => {
                let (input, rc) = self.shell_input(j);
                if rc {
                    self.dynamic_word(j - 1, Reason::File);
                }
                match input {
                    ShellInput::String(k) => {
                        // The words after the string are `$0` … `$9` of the code.
                        let outer = Rc::clone(&self.vars);
                        self.positional(k + 1);
                        self.code_word(k, self.text(k));
                        self.vars = outer;
                    }
                    ShellInput::Stdin => self.stdin_code = Some(j - 1),
                    ShellInput::Script(k) => self.sourced(j - 1, k),
                    ShellInput::Nothing => {}
                }
            }
            "source" | "." => {
                let k = j + usize::from(j < n && self.text(j) == "--");
                if k < n {
                    self.sourced(j - 1, k);
                }
            }
            "find" => self.find_actions(j),
            "trap" => self.trap_action(j),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for k in j..n {
                    self.code_assignment(k);
                    if is_assignment(self.raw(k)) {
                        self.assign(k);
                    }
                }
            }
            "alias" => {
                for k in j..n {
                    if let Some(eq) = self.text(k).find('=') {
                        self.alias_value(k, eq);
                    }
                }
            }
            "hash" => {
                // `hash -p PATH NAME`: NAME now runs PATH, with NAME's words.
                let path = (j..n).find(|&k| self.text(k) == "-p").map(|k| k + 1);
                if let Some(k) = path.filter(|&k| k < n) {
                    let name = match self.program_word(k) {
                        // `-p /bin/{kubectl,x} k`: the first is the path, the others names.
                        Name::Braces(alternatives) => {
                            program_name(cook(&alternatives[0])).into_owned()
                        }
                        name => name,
                    };
                    match name {
                        Name::Known(name) => {
                            if !programs::system_path(&self.text(k)) {
                                self.dynamic_word(k, Reason::Path);
                            }
                            let at = self.words[k].0;
                            let mut command = self.command(&name);
                            command.more = true;
                            self.add_command(at, command);
                            self.push(at, name);
                        }
                        Name::Unknown(reason) => self.dynamic_word(k, reason),
                        Name::Braces(_) | Name::Empty => {}
                    }
                }
            }
            "eval" => {
                let j = j + usize::from(j < n && self.text(j) == "--");
                if j + 1 == n {
                    self.code_word(j, self.text(j));
                } else if j < n {
                    self.joined_code(j, n);
                }
            }
            _ => {
                if name == "git"
                    && *self
                        .git_code
                        .get_or_insert_with(|| programs::writes_git_code(self.src))
                {
                    self.add_dynamic(Dynamic {
                        reason: Reason::File,
                        text: "git with .git/hooks or .git/config".to_owned(),
                    });
                }
                let words = || {
                    let args = (j..n).map(|k| self.text(k)).collect();
                    let unknown = (j..n).map(|k| word_unknown(self.raw(k))).collect();
                    (args, unknown)
                };
                return match programs::runs(name, words) {
                    Some(runs) => {
                        self.program_runs(j, runs);
                        programs::takes_code(name)
                    }
                    None => self.interpreter_code(name, j),
                };
            }
        }
        true
    }

    /// Words `from..to`, joined by spaces, are a command line (`eval a b`).
    fn joined_code(&mut self, from: usize, to: usize) {
        let mut line = String::new();
        for k in from..to {
            if k > from {
                line.push(' ');
            }
            self.spliced(self.raw(k));
            line.push_str(&self.text(k));
        }
        self.reparse(self.words[from].0, Cow::Owned(line));
    }

    /// What [`programs::runs`] found in the arguments from word `j`.
    fn program_runs(&mut self, j: usize, runs: Vec<Runs>) {
        for run in runs {
            match run {
                Runs::Code { word, range } => {
                    let text = self.text(j + word);
                    let code = match text {
                        Cow::Borrowed(t) => Cow::Borrowed(&t[range]),
                        Cow::Owned(t) => Cow::Owned(t[range].to_owned()),
                    };
                    self.code_word(j + word, code);
                }
                Runs::Expanded { word, from } => {
                    let text = tail(self.text(j + word), from);
                    self.argument_code(self.words[j + word].0, text);
                }
                Runs::Argv { word } => self.stacked(j + word),
                Runs::Appended { word, from } => {
                    let mut fill = self.fill.clone();
                    fill.more = true;
                    self.spliced(self.raw(j + word));
                    let text = tail(self.text(j + word), from);
                    self.reparse_with(self.words[j + word].0, text, fill);
                }
                Runs::Hidden { word, reason } => {
                    let text = match word {
                        Some(word) => self.raw(j + word).to_owned(),
                        None => self.words[j - 1..]
                            .iter()
                            .take(3)
                            .map(|&(s, e)| &self.src[s..e])
                            .collect::<Vec<_>>()
                            .join(" "),
                    };
                    self.add_dynamic(Dynamic { reason, text });
                }
            }
        }
    }

    /// A script `shell` runs from word `k`: the code a process substitution
    /// prints is read when it is a literal `echo` or `printf` (`source <(echo
    /// ls)`) and cannot be known otherwise (`source <(curl x)`); a path to
    /// stdin (`/dev/stdin`, `/dev/fd/0`) makes the shell read its code from
    /// stdin, one to another descriptor (`/dev/fd/3`) from what the command's
    /// redirections put there; a path the text does not tell may be either;
    /// any other file holds code the line does not show.
    fn sourced(&mut self, shell: usize, k: usize) {
        let raw = self.raw(k);
        let path = self.text(k);
        if let Some(inner) = raw.strip_prefix("<(").and_then(|r| r.strip_suffix(')')) {
            match printed(inner) {
                Some(code) => self.reparse(self.words[k].0, Cow::Owned(code)),
                None => self.add_dynamic(Dynamic {
                    reason: Reason::Stdin,
                    text: raw.to_owned(),
                }),
            }
        } else if word_unknown(raw) {
            self.dynamic_word(k, Reason::Expansion);
            self.stdin_code = Some(shell);
        } else {
            match fd_path(&path) {
                Some(0) => self.stdin_code = Some(shell),
                Some(fd) => self.fd_code = Some((shell, fd)),
                None => self.dynamic_word(k, Reason::File),
            }
        }
    }

    /// `trap [--] ACTION SIGNAL…`: the action is a command line.
    fn trap_action(&mut self, mut j: usize) {
        let n = self.words.len();
        if j < n && self.text(j) == "--" {
            j += 1;
        }
        if j + 1 < n && !self.text(j).starts_with('-') {
            self.code_word(j, self.text(j));
        }
    }

    /// An interpreter runs code the line does not show in its own language:
    /// from an option (`python -c`, `perl -e`), a script file, or stdin. Only
    /// asking for its version or help runs none. Returns whether `name` is
    /// such an interpreter.
    fn interpreter_code(&mut self, name: &str, j: usize) -> bool {
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let Some(&(_, letters, long)) = INTERPRETERS.iter().find(|(n, ..)| *n == base) else {
            return false;
        };
        let n = self.words.len();
        let mut text = name.to_owned();
        for k in j..n {
            let word = self.text(k);
            let code = match word.strip_prefix("--") {
                Some(l) => long.contains(&l.split('=').next().unwrap_or(l)),
                None => match word.strip_prefix('-') {
                    Some(flags) => flags.bytes().any(|f| letters.contains(&f)),
                    None => break,
                },
            };
            if code {
                text = format!("{name} {word}");
                break;
            }
        }
        let queries = ["-V", "-v", "--version", "-version", "-h", "--help"];
        let only_queries = j < n && (j..n).all(|k| queries.contains(&&*self.text(k)));
        if !only_queries {
            self.add_dynamic(Dynamic {
                reason: Reason::Interpreter,
                text,
            });
        }
        true
    }

    /// How a shell whose arguments start at `j` gets its code, and whether it
    /// reads rc files first (`-l`, `-i`, `--login`, `--rcfile F`, `--init-file F`).
    fn shell_input(&self, mut j: usize) -> (ShellInput, bool) {
        let mut has_c = false;
        let mut has_s = false;
        let mut rc = false;
        while j < self.words.len() {
            let word = self.text(j);
            if word == "--" || word == "-" {
                j += 1;
                break;
            }
            if let Some(long) = word.strip_prefix("--") {
                let file = long == "rcfile" || long == "init-file";
                rc |= file || long == "login";
                j += 1 + usize::from(file);
                continue;
            }
            let Some(flags) = word.strip_prefix(['-', '+']).filter(|f| !f.is_empty()) else {
                break;
            };
            let minus = word.starts_with('-');
            has_c |= minus && flags.contains('c');
            has_s |= minus && flags.contains('s');
            rc |= minus && flags.contains(['l', 'i']);
            // `-o NAME` and `-O NAME` set options by name.
            j += 1 + usize::from(flags.ends_with(['o', 'O']));
        }
        let input = match (has_c, j < self.words.len()) {
            (true, true) => ShellInput::String(j),
            (true, false) => ShellInput::Nothing,
            (false, false) => ShellInput::Stdin,
            (false, true) if has_s => ShellInput::Stdin,
            (false, true) => ShellInput::Script(j),
        };
        (input, rc)
    }
}
