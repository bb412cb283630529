//! Arithmetic contexts: where bash evaluates text as arithmetic or a variable
//! name (`let`, `(( ))`, `$[ ]`, subscripts, `declare -i`), whose command
//! substitutions run and whose variables are evaluated again.

use std::borrow::Cow;

use crate::scan::{Scanner, MAX_VARS};
use crate::types::{Dynamic, Reason};
use crate::words::{cook, literal_substitution};

/// Builtins that evaluate a word as arithmetic or as a variable name, array
/// subscripts included.
pub(crate) const ARITH_BUILTINS: &[&str] = &[
    "let",
    "declare",
    "typeset",
    "local",
    "readonly",
    "export",
    "test",
    "[",
    "printf",
    "read",
    "unset",
    "mapfile",
    "readarray",
    "wait",
    "shift",
    "return",
    "exit",
];

/// The subscript of `name[…]` at the start of `text` (not `[@]` nor `[*]`), unless
/// `name` is one of bash's associative arrays, whose keys are not arithmetic.
pub(crate) fn name_subscript(text: &str) -> Option<&str> {
    let name = text
        .bytes()
        .position(|c| !c.is_ascii_alphanumeric() && c != b'_')?;
    if name == 0 || text.as_bytes()[0].is_ascii_digit() || text.as_bytes()[name] != b'[' {
        return None;
    }
    if matches!(&text[..name], "BASH_CMDS" | "BASH_ALIASES") {
        return None;
    }
    let close = bracket_end(&text[name..])?;
    Some(&text[name + 1..name + close]).filter(|sub| !matches!(*sub, "@" | "*"))
}

/// The index of the `]` closing the `[` that `text` starts with.
pub(crate) fn bracket_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.bytes().enumerate() {
        match c {
            b'[' => depth += 1,
            b']' if depth == 1 => return Some(i),
            b']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Whether arithmetic text reads a variable or an expansion: anything but numbers
/// (`0x1f`, `16#ff`), operators and counts (`$#`). The text of a command
/// substitution in it is code, which its caller scans.
fn arith_reads(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let before = if i > 0 { b[i - 1] } else { b' ' };
        match b[i] {
            b'$' if b.get(i + 1) == Some(&b'(') => {
                let mut depth = 0usize;
                i += 1;
                while i < b.len() {
                    match b[i] {
                        b'(' => depth += 1,
                        b')' if depth == 1 => break,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'`' => {
                i += 1;
                while i < b.len() && b[i] != b'`' {
                    i += 1;
                }
            }
            b'$' if matches!(b.get(i + 1), Some(b'#' | b'?' | b'$' | b'!')) => i += 1,
            b'$' => return true,
            c if (c.is_ascii_alphabetic() || c == b'_')
                && !(before.is_ascii_alphanumeric() || matches!(before, b'_' | b'#')) =>
            {
                return true;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

impl<'a> Scanner<'a> {
    /// Arithmetic from `start` to `end` reads variables: bash evaluates a value as an
    /// expression again, and runs the `$(…)` of an `a[…]` subscript in it.
    pub(crate) fn arith_names(&mut self, start: usize, end: usize) {
        let text: String = self.src[start..end].chars().take(40).collect();
        self.add_dynamic(Dynamic {
            reason: Reason::Expansion,
            text: format!("(({}))", text.trim()),
        });
    }

    /// Text bash evaluates as arithmetic, at `at`, after quote removal and
    /// decoding: the command substitutions in it run, and a variable it reads is
    /// evaluated again (its value may hold `a[$(…)]`), so reading one is dynamic.
    pub(crate) fn arith_text(&mut self, at: usize, text: &str) {
        if text.contains("$(") || text.contains('`') {
            self.argument_code(at, Cow::Owned(text.to_owned()));
        }
        if arith_reads(text) {
            let text: String = text.chars().take(40).collect();
            self.add_dynamic(Dynamic {
                reason: Reason::Expansion,
                text: format!("(({}))", text.trim()),
            });
        }
    }

    /// The arithmetic of assignment word `k` (`a[k]=v`, `a=([k]=v)`, or any
    /// value once the line declares an integer variable).
    pub(crate) fn assignment_arith(&mut self, k: usize) {
        let at = self.words[k].0;
        let raw = self.raw(k);
        let text = self.text(k);
        if let Some(sub) = name_subscript(&text) {
            self.arith = true;
            self.arith_text(at, sub);
        }
        let Some(eq) = raw.find("=(") else {
            if let (true, Some(eq)) = (self.integer, text.find('=')) {
                self.arith_text(at, &text[eq + 1..]);
            }
            return;
        };
        // The keys of a compound assignment: `[k]=v` at the start of an element.
        let b = raw.as_bytes();
        let mut open = eq + 1;
        while open + 1 < b.len() {
            open += 1;
            if b[open] != b'[' || !matches!(b[open - 1], b'(' | b' ' | b'\t' | b'\n') {
                continue;
            }
            self.arith = true;
            let Some(close) = bracket_end(&raw[open..]) else {
                // No key closes: not judged, so dynamic.
                return self.dynamic_word_text(at + open, at + open + 1, Reason::Expansion);
            };
            let key = cook(&raw[open + 1..open + close]).text;
            self.arith_text(at, &key);
            open += close;
        }
    }

    /// The arguments a builtin evaluates as arithmetic (`let`) or as names
    /// whose subscripts are arithmetic (`read 'a[k]'`, `printf -v`, `declare`).
    pub(crate) fn arith_arguments(&mut self, name: &str, from: usize) {
        let n = self.words.len();
        let flag = match name {
            "printf" | "test" | "[" => Some("-v"),
            "wait" => Some("-p"),
            _ => None,
        };
        if flag.is_none() && !ARITH_BUILTINS.contains(&name) {
            return;
        }
        for k in from..n {
            let at = self.words[k].0;
            let text = self.text(k);
            match name {
                "let" => self.arith_text(at, &text),
                "declare" | "typeset" | "local" | "readonly" | "export" => {
                    if text.starts_with('-') {
                        self.integer |= text.contains('i');
                    } else {
                        self.assignment_arith(k);
                    }
                }
                "read" | "unset" | "mapfile" | "readarray" => {
                    if let Some(sub) = name_subscript(&text) {
                        self.arith_text(at, sub);
                    }
                }
                _ if flag.is_some() && k > from && self.text(k - 1) == flag.unwrap_or("") => {
                    if let Some(sub) = name_subscript(&text) {
                        self.arith_text(at, sub);
                    }
                }
                _ => {}
            }
        }
    }

    /// A word whose value holds an array subscript with a command substitution
    /// (`'a[$(cmd)0]'`): bash runs it when it evaluates the value as arithmetic
    /// or as a variable name (`let`, `(( ))`, `[[ -v ]]`, `printf -v`, …), so
    /// it is kept until the scan knows whether the line does.
    pub(crate) fn subscript(&mut self, s: usize, e: usize) {
        let raw = &self.src[s..e];
        if !raw.contains('[') || !(raw.contains("$(") || raw.contains('`')) {
            return;
        }
        let text = cook(raw).text;
        let Some(open) = text.find('[') else {
            return;
        };
        let Some(close) = text.rfind(']').filter(|&c| c > open) else {
            return;
        };
        let inner = &text[open + 1..close];
        if !(inner.contains("$(") || inner.contains('`')) || !literal_substitution(raw) {
            return;
        }
        if self.subscripts.iter().any(|(_, code)| code == inner) {
            return;
        }
        if self.subscripts.len() == MAX_VARS {
            // More than the scan follows: reported as text nested too deep.
            return self.too_deep(s);
        }
        self.subscripts.push((s, inner.to_owned()));
    }

    /// The subscripts kept by [`Scanner::subscript`], scanned as code when the
    /// line evaluates anything as arithmetic or a variable name.
    pub(crate) fn arith_subscripts(&mut self) {
        let arith = self.arith
            || ["((", "$[", "${", "[["]
                .iter()
                .any(|t| self.src.contains(t));
        for (at, code) in std::mem::take(&mut self.subscripts) {
            if arith {
                self.argument_code(at, Cow::Owned(code));
            }
        }
    }
}
