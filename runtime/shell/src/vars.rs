//! Assignments and variables: the literal values a line gives its variables
//! and positional parameters, the functions it defines, and assignments a shell
//! or another program reads as code, a program or a search path.

use std::borrow::Cow;
use std::rc::Rc;

use crate::printed::printed;
use crate::programs::{self, Variable};
use crate::scan::{Scanner, MAX_VALUE, MAX_VARS};
use crate::types::Reason;
use crate::words::{cook, is_assignment, is_stdin_path, tail, word_unknown};

impl<'a> Scanner<'a> {
    /// An assignment in word `k` that a shell or another program reads as code:
    /// the prompts and `PROMPT_COMMAND` are expanded or run (`PS4` with `set
    /// -x`), `BASH_FUNC_f%%` defines the function `f` in a child bash,
    /// `BASH_ALIASES[k]` an alias, `BASH_CMDS[k]` the program `k` runs, and the
    /// variables of [`programs::variable`] hand a command (`EDITOR`), a program
    /// (`SHELL`), a configuration (`HOME`, `BASH_ENV`) or a search path (`PATH`)
    /// to the programs the line runs.
    pub(crate) fn code_assignment(&mut self, k: usize) {
        let word = self.text(k);
        let Some(eq) = word.find('=') else {
            return;
        };
        let name = word[..eq].trim_end_matches('+');
        match name {
            "PS1" | "PS2" | "PS3" | "PS4" | "PROMPT_COMMAND" => {
                self.code_word(k, tail(word, eq + 1));
            }
            _ if name.starts_with("BASH_FUNC_") => self.code_word(k, tail(word, eq + 1)),
            _ if name.starts_with("BASH_ALIASES[") => self.alias_value(k, eq),
            _ if name.starts_with("BASH_CMDS[") => self.program_value(k, eq + 1),
            _ => match programs::variable(name) {
                Variable::Command => {
                    // What a program runs later does not read this command's stdin.
                    let inner = self.inner_stdin;
                    self.code_word(k, tail(word, eq + 1));
                    self.inner_stdin = inner;
                }
                Variable::Program => self.program_value(k, eq + 1),
                Variable::Config => {
                    // `BASH_ENV=/dev/stdin`, or a name the text does not tell.
                    let stdin = matches!(name, "BASH_ENV" | "ENV")
                        && (word_unknown(self.raw(k)) || is_stdin_path(&word[eq + 1..]));
                    let reason = if stdin { Reason::Stdin } else { Reason::File };
                    self.dynamic_word(k, reason);
                }
                Variable::Path => {
                    if word_unknown(self.raw(k)) || !programs::system_search_path(&word[eq + 1..]) {
                        self.dynamic_word(k, Reason::Path);
                    }
                }
                Variable::Plain => {}
            },
        }
    }

    /// The text of word `k` from byte `from` is the path of a program another
    /// one starts (`SHELL=/bin/zsh script`, `BASH_CMDS[k]=/bin/ls`, `su -s
    /// /bin/zsh`, `--shell=/bin/zsh`): it is named, and reported as program
    /// word paths are ([`Reason::Path`]).
    pub(crate) fn program_value(&mut self, k: usize, from: usize) {
        let raw = self.raw(k);
        // An assignment's subscript (`BASH_CMDS[k]=`) is not a glob.
        let value = match raw.find('=') {
            Some(eq) if is_assignment(raw) => &raw[eq + 1..],
            _ => raw,
        };
        if word_unknown(value) {
            return self.dynamic_word(k, Reason::Expansion);
        }
        let value = tail(self.text(k), from);
        if value.contains('/') && !programs::system_path(&value) {
            self.dynamic_word(k, Reason::Path);
        }
        let base = value.rsplit('/').next().unwrap_or_default();
        if !base.is_empty() {
            let (at, name) = (self.words[k].0, base.to_owned());
            self.add_command(at, self.command(&name));
            self.push(at, Cow::Owned(name));
        }
    }

    /// An alias value in assignment `k` (after byte `eq`): a command line, the
    /// words an invocation has following its last command.
    pub(crate) fn alias_value(&mut self, k: usize, eq: usize) {
        let mut fill = self.fill.clone();
        fill.more = true;
        self.spliced(self.raw(k));
        self.reparse_with(self.words[k].0, tail(self.text(k), eq + 1), fill);
    }

    /// Function `name` (source `s..e`) is defined on the line.
    pub(crate) fn defines(&mut self, s: usize, e: usize) {
        if self.functions.len() < MAX_VARS {
            self.functions.push(self.src[s..e].to_owned());
        }
    }

    /// Assignment `k` sets its variable to its value when the text tells it
    /// (`c=kubectl`, `t=$'a\x20b'`, `d=$c` of a known `c`); otherwise the
    /// value is forgotten.
    pub(crate) fn assign(&mut self, k: usize) {
        let raw = self.raw(k);
        let Some(eq) = raw.find('=') else {
            return;
        };
        let name = &raw[..eq];
        if name.ends_with('+') || name.contains('[') {
            return self.unset_var(name.trim_end_matches('+'));
        }
        let value = &raw[eq + 1..];
        let known = match word_unknown(value) {
            true => self.known_value(value),
            false => Some(cook(value).text.into_owned()),
        };
        match known {
            Some(value) if self.vars.iter().any(|(n, v)| n == name && *v == value) => {}
            Some(value) if value.len() <= MAX_VALUE => {
                let vars = Rc::make_mut(&mut self.vars);
                vars.retain(|(n, _)| n != name);
                if vars.len() < MAX_VARS {
                    vars.push((name.to_owned(), value));
                }
            }
            _ => self.unset_var(name),
        }
    }

    fn unset_var(&mut self, name: &str) {
        if self.vars.iter().any(|(n, _)| n == name) {
            Rc::make_mut(&mut self.vars).retain(|(n, _)| n != name);
        }
    }

    /// The positional parameters `$0` … `$9` are the words from `from`, as far
    /// as the text tells them.
    pub(crate) fn positional(&mut self, from: usize) {
        let mut vars: Vec<(String, String)> = self
            .vars
            .iter()
            .filter(|(n, _)| !n.bytes().all(|b| b.is_ascii_digit()))
            .cloned()
            .collect();
        let words = (from..self.words.len()).take(10).enumerate();
        for (p, w) in words {
            let raw = self.raw(w);
            let value = cook(raw).text;
            if !word_unknown(raw) && value.len() <= MAX_VALUE && vars.len() < MAX_VARS {
                vars.push((p.to_string(), value.into_owned()));
            }
        }
        self.vars = Rc::new(vars);
    }

    /// The value of a word that is one expansion the line tells: a variable
    /// or positional parameter with a known value (`$c`, `"${c}"`, `"$@"`), or
    /// the output of a literal `echo`/`printf` (`$(echo kubectl)`).
    pub(crate) fn known_value(&self, raw: &str) -> Option<String> {
        let inner = raw
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or(raw);
        if let Some(command) = inner.strip_prefix("$(").and_then(|r| r.strip_suffix(')')) {
            return printed(command).map(|out| out.trim_end_matches('\n').to_owned());
        }
        let name = inner.strip_prefix('$')?;
        let name = name
            .strip_prefix('{')
            .and_then(|n| n.strip_suffix('}'))
            .unwrap_or(name);
        let name = if matches!(name, "@" | "*") { "1" } else { name };
        let valid =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return None;
        }
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }
}
