//! Differential test of `shell::programs` against brush-parser.
//!
//! Command lines come from a small seeded grammar (every line passes `bash -n`);
//! brush-parser splits and unquotes them, and an oracle applies the spec's wrapper,
//! keyword and basename rules to its AST words, the runners `nice` and `xargs` (option
//! grammars transcribed from their manual pages), the substitutions of unquoted heredoc
//! bodies, and skips glob program words (dynamic, like expansions).
//!
//! Left out of the grammar: the other runners (table-tested, and run in real bash by
//! `bash_runs.rs`), code fed to a shell on stdin, `coproc`, `env -S`, escaped backticks
//! nested in backticks, substitutions inside `${…}` and `$((…))`, heredocs below the
//! top level, and what
//! brush cannot express: `select` and `[[ … ]] |&` (rejected), `case` inside `$(…)` or
//! `( … )` (ended at the pattern's `)`), heredocs after `(( … ))` in `$(…)` (body lost).
//! A newline or space splits `( ( a ) )` (arithmetic to brush), `$((` (arithmetic to
//! bash too) and `$(time <compound>)` (which bash 5.2 rejects).

use brush_parser::ast::{self, Command, CommandPrefixOrSuffixItem as Item, CompoundCommand};
use brush_parser::word::{self, WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;
use hookdex_shell::programs;

const LINES: usize = 5_000;

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

// ---- generator ----

const PROGRAMS: &[&str] = &[
    "git",
    "kubectl",
    "ls",
    "grep",
    "python3",
    "npm",
    "cargo",
    "rm",
    "echo",
    "cat",
    "make",
    "docker",
    "curl",
    "sed",
    "/usr/bin/python3",
    "/bin/ls",
    "./scripts/run.sh",
    "~/bin/tool",
    "${HOME}/bin/tool",
    "\"git\"",
    "'kubectl'",
    "\\rm",
    "g\"i\"t",
    "n'p'm",
    "$'curl'",
    "xargs",
    "nice",
    "test",
];

const ARGS: &[&str] = &[
    "status",
    "-l",
    "--force",
    "x.txt",
    "origin/main",
    "a=b",
    "42",
    "-rf",
    "'a; b'",
    "\"x && y\"",
    "\"p | q\"",
    "'$(not run)'",
    "\\;",
    "a#b",
    "$HOME",
    "\"$USER\"",
    "${x}",
    "$'a b'",
    "'{print $1}'",
    "\"semi;colon\"",
    "*.rs",
    "'('",
    "\\&\\&",
    "--",
    "-",
];

const WRAPPERS: &[&str] = &[
    "sudo",
    "sudo -u bob",
    "sudo -E",
    "sudo --user=bob",
    "sudo -H -u root",
    "sudo -g grp",
    "sudo X=1",
    "sudo -u bob -- ",
    "sudo -R /srv",
    "sudo --chroot=/srv",
    "sudo --chroot /srv -u bob",
    "env",
    "env -i",
    "env A=1",
    "env -u HOME",
    "env -i A=1 B=2",
    "env --",
    "env -C /tmp",
    "command",
    "command -p",
    "nohup",
    "timeout 30",
    "timeout 1.5s",
    "timeout -s KILL 5",
    "timeout --signal=KILL 5",
    "timeout -k 5 10",
    "timeout --kill-after=5 3",
    "timeout --preserve-status 5",
    "timeout --foreground -v 5",
    "exec -a name",
    "/usr/bin/sudo",
    "nice -n 5",
    "nice --adjustment=3",
    "xargs -n1 -I {}",
    "xargs -0 -P 4 --",
    "xargs -a list -d , -E end",
];

const SHELL_FLAGS: &[&str] = &["-c", "-lc", "-e -c", "-o pipefail -c", "-ec", "-x -c"];

struct Gen {
    rng: Rng,
    /// Heredoc bodies (with their delimiter line) due after the next top-level newline.
    bodies: Vec<String>,
    /// How many `$(…)` or `( … )` enclose the text being generated: brush's tokenizer
    /// ends them at a case pattern's `)`.
    parens: usize,
}

impl Gen {
    fn line(&mut self) -> String {
        let mut s = String::new();
        let items = 1 + self.rng.below(3);
        for k in 0..items {
            if k > 0 {
                if self.bodies.is_empty() {
                    let sep = self.rng.pick(&["; ", " && ", " || ", "\n", " & ", ";"]);
                    s.push_str(sep);
                } else {
                    self.flush_bodies(&mut s);
                }
            }
            self.pipeline(&mut s, 0, true);
        }
        if self.rng.chance(10) {
            s.push_str(" # trailing; rm -rf / $(evil) `evil`");
        }
        if !self.bodies.is_empty() {
            self.flush_bodies(&mut s);
        }
        s
    }

    fn flush_bodies(&mut self, s: &mut String) {
        s.push('\n');
        for body in self.bodies.drain(..) {
            s.push_str(&body);
        }
    }

    fn list(&mut self, s: &mut String, depth: usize) {
        let items = 1 + self.rng.below(2);
        for k in 0..items {
            if k > 0 {
                if self.rng.chance(10) {
                    s.push_str(" # note; rm $(evil)\n");
                } else {
                    s.push_str(self.rng.pick(&["; ", " && ", " || ", "\n", " & "]));
                }
            }
            self.pipeline(s, depth, false);
        }
    }

    fn pipeline(&mut self, s: &mut String, depth: usize, top: bool) {
        if self.rng.chance(6) {
            s.push_str(self.rng.pick(&["time ", "time -p "]));
        }
        if self.rng.chance(6) {
            s.push_str("! ");
        }
        let commands = 1 + usize::from(self.rng.chance(25)) + usize::from(self.rng.chance(5));
        for k in 0..commands {
            if k > 0 {
                // brush rejects `[[ … ]] |&`.
                let pipe = if s.ends_with("]]") {
                    " | "
                } else {
                    self.rng.pick(&[" | ", " |& ", "|"])
                };
                s.push_str(pipe);
            }
            // A heredoc body starts at the next newline: only the last command may open one.
            self.command(s, depth, top && k + 1 == commands);
        }
    }

    fn command(&mut self, s: &mut String, depth: usize, top: bool) {
        if depth >= 2 || self.rng.chance(75 + 10 * depth as u64) {
            return self.simple(s, depth, top);
        }
        let d = depth + 1;
        match self.rng.below(13) {
            0 => self.subshell(s, d),
            1 => {
                s.push_str("{ ");
                self.list(s, d);
                s.push_str("; }");
            }
            2 => {
                s.push_str("if ");
                self.list(s, d);
                s.push_str("; then ");
                self.list(s, d);
                if self.rng.chance(40) {
                    s.push_str("; elif ");
                    self.list(s, d);
                    s.push_str("; then ");
                    self.list(s, d);
                }
                if self.rng.chance(50) {
                    s.push_str("; else ");
                    self.list(s, d);
                }
                s.push_str("; fi");
            }
            3 => {
                s.push_str(
                    self.rng
                        .pick(&["for v in a b c", "for v in $(ls)", "for v"]),
                );
                s.push_str(self.rng.pick(&["; do ", "\ndo\n  ", "; do\n"]));
                self.list(s, d);
                s.push_str("; done");
            }
            4 => {
                s.push_str("for ((i = 0; i < 3; i++)); do ");
                self.list(s, d);
                s.push_str("; done");
            }
            5 => {
                s.push_str(self.rng.pick(&["while ", "until "]));
                self.list(s, d);
                s.push_str("; do ");
                self.list(s, d);
                s.push_str("; done");
            }
            6 if self.parens == 0 => {
                s.push_str(
                    self.rng
                        .pick(&["case $v in ", "case \"$(uname)\" in\n", "case x in "]),
                );
                let items = 1 + self.rng.below(3);
                for _ in 0..items {
                    s.push_str(self.rng.pick(&["a) ", "b|c) ", "(d) ", "*) ", "'e f') "]));
                    self.list(s, d);
                    s.push_str(self.rng.pick(&[";; ", "\n;;\n", ";& ", ";;& "]));
                }
                s.push_str("esac");
            }
            7 => {
                s.push_str(self.rng.pick(&[
                    "f() { ",
                    "function g { ",
                    "function h() { ",
                    "k () { ",
                ]));
                self.list(s, d);
                s.push_str("; }");
            }
            8 => {
                s.push_str(
                    self.rng
                        .pick(&["[[ -f x ]]", "[[ -n $y && $z == q ]]", "[[ a < b ]]"]),
                )
            }
            9 => s.push_str(self.rng.pick(&["(( i++ ))", "((x = 1 + 2))"])),
            10 => {
                s.push_str("{ ");
                self.list(s, d);
                s.push_str("; } > out.log 2>&1");
            }
            11 => {
                self.subshell(s, d);
                s.push_str(" < in.txt");
            }
            _ => {
                s.push_str("while read -r l; do ");
                self.list(s, d);
                s.push_str("; done < list.txt");
            }
        }
    }

    fn subshell(&mut self, s: &mut String, depth: usize) {
        let mut inner = String::new();
        self.parens += 1;
        self.list(&mut inner, depth);
        self.parens -= 1;
        // brush reads `( ( a ) )` as arithmetic; a newline keeps it a subshell.
        let open = if inner.starts_with('(') { "(\n" } else { "( " };
        s.push_str(&format!("{open}{inner} )"));
    }

    fn simple(&mut self, s: &mut String, depth: usize, top: bool) {
        let mut words: Vec<String> = Vec::new();
        if self.rng.chance(15) {
            for _ in 0..1 + self.rng.below(2) {
                words.push(self.assignment(depth));
            }
            if self.rng.chance(20) {
                // A line of assignments only.
                return s.push_str(&words.join(" "));
            }
        }
        if self.rng.chance(8) {
            words.push(
                self.rng
                    .pick(&["2>&1", ">out.txt", "</dev/null", "2> err.log"])
                    .to_owned(),
            );
        }
        // Arguments after `eval` would join its command line.
        let mut args = self.rng.below(3);
        match self.rng.below(100) {
            0..=5 => {
                let shell = self.rng.pick(&["bash", "sh", "zsh", "dash", "/bin/bash"]);
                let flags = self.rng.pick(SHELL_FLAGS);
                let inner = self.plain_list(true);
                words.push(format!("{shell} {flags} '{inner}'"));
                if self.rng.chance(30) {
                    words.push("arg0 x".to_owned());
                }
            }
            6..=9 => {
                let inner = self.plain_list(false);
                let form = self.rng.below(3);
                args = 0;
                words.push(match form {
                    0 => format!("eval '{inner}'"),
                    1 => format!("eval \"{inner}\""),
                    _ => format!(
                        "eval {}",
                        inner
                            .replace(';', "\\;")
                            .replace('&', "\\&")
                            .replace('|', "\\|")
                    ),
                });
            }
            10..=12 => words.push(
                self.rng
                    .pick(&["command -v git", "command -V ls", "sudo -v", "env", "nohup"])
                    .to_owned(),
            ),
            13..=15 => words.push(
                self.rng
                    .pick(&["[ -f x ]", "[ \"$a\" = b ]", "test -d y"])
                    .to_owned(),
            ),
            16..=18 => words.push(
                self.rng
                    .pick(&[
                        "$cmd args",
                        "\"$cmd\" x",
                        "$(which git) status",
                        "`which ls` -l",
                        "git$x y",
                    ])
                    .to_owned(),
            ),
            19..=21 => words.push(
                self.rng
                    .pick(&["bash script.sh -c 'rm x'", "sh ./x.sh", "bash -- -c"])
                    .to_owned(),
            ),
            _ => {
                if self.rng.chance(25) {
                    for _ in 0..1 + self.rng.below(2) {
                        words.push(self.rng.pick(WRAPPERS).to_owned());
                    }
                    if self.rng.chance(15) {
                        words.push("time -p".to_owned());
                    }
                }
                words.push(self.rng.pick(PROGRAMS).to_owned());
            }
        }
        for _ in 0..args {
            let arg = self.arg(depth);
            words.push(arg);
        }
        if self.rng.chance(15) {
            let redirect = self.rng.pick(&[
                "> out.txt",
                "2>&1",
                ">>log",
                "< in.txt",
                "&>/dev/null",
                "2>/dev/null",
                "<<<word",
                "<<< \"a; b\"",
                ">&2",
            ]);
            words.push(redirect.to_owned());
        }
        // brush loses a heredoc body after `(( … ))` inside `$(…)`.
        let arithmetic = s.contains("((") || words.iter().any(|w| w.contains("(("));
        if top && !arithmetic && self.rng.chance(10) {
            let (op, body) = match self.rng.below(4) {
                0 => ("<<EOF", "rm -rf /; $(evil)\n`evil`\nEOF\n"),
                1 => ("<<'EOF'", "git push && $(evil)\nEOF\n"),
                2 => ("<<\"END\"", "kubectl delete x\nEND\n"),
                _ => ("<<-EOF", "\trm x | sh\n\tEOF\n"),
            };
            words.push(op.to_owned());
            self.bodies.push(body.to_owned());
        }
        let mut first = true;
        for w in words {
            if !first {
                s.push_str(if self.rng.chance(3) { " \\\n  " } else { " " });
            }
            first = false;
            s.push_str(&w);
        }
    }

    fn assignment(&mut self, depth: usize) -> String {
        match self.rng.below(5) {
            0 => "A=1".to_owned(),
            1 => "B=\"a b\"".to_owned(),
            2 => "D='x; y'".to_owned(),
            3 => "E+=z".to_owned(),
            _ => format!("C={}", self.substitution(depth)),
        }
    }

    fn substitution(&mut self, depth: usize) -> String {
        let mut inner = String::new();
        if depth >= 2 {
            inner.push_str(self.rng.pick(&["whoami", "date +%s", "id -u"]));
        } else {
            self.parens += 1;
            self.list(&mut inner, depth + 1);
            self.parens -= 1;
        }
        // `$((` may read as arithmetic, and bash 5.2 rejects `$(time <compound>)`.
        let pad = if inner.starts_with('(') {
            " "
        } else if inner.starts_with("time") {
            "\n"
        } else {
            ""
        };
        format!("$({pad}{inner})")
    }

    fn arg(&mut self, depth: usize) -> String {
        match self.rng.below(24) {
            0 => self.substitution(depth),
            1 => format!("\"{}\"", self.substitution(depth)),
            2 => format!("\"pre {} post\"", self.substitution(depth)),
            3 => format!(
                "`{} {}`",
                self.rng.pick(&["date", "hostname", "/bin/pwd"]),
                self.rng.pick(&["-u", "x"])
            ),
            4 => format!("<({})", self.plain_list(true)),
            _ => self.rng.pick(ARGS).to_owned(),
        }
    }

    /// A flat command list of plain words, as `bash -c` or `eval` would get it.
    fn plain_list(&mut self, substitutions: bool) -> String {
        let mut s = String::new();
        for k in 0..1 + self.rng.below(3) {
            if k > 0 {
                s.push_str(self.rng.pick(&["; ", " && ", " || ", " | "]));
            }
            if self.rng.chance(20) {
                s.push_str(self.rng.pick(&["sudo ", "env A=1 ", "timeout 5 "]));
            }
            s.push_str(self.rng.pick(&[
                "kubectl",
                "git",
                "rm",
                "/usr/bin/python3",
                "npm",
                "bash -c ls",
            ]));
            for _ in 0..self.rng.below(3) {
                s.push(' ');
                s.push_str(self.rng.pick(&["delete", "x", "-rf", "push", "run"]));
            }
            if substitutions && self.rng.chance(15) {
                s.push_str(" $(hostname)");
            }
        }
        s
    }
}

// ---- oracle ----

/// One AST word, unquoted: its source text, text and where its last expansion ends.
struct Word {
    at: usize,
    raw: String,
    text: String,
    expanded_to: usize,
    /// Length of `text` before its first expansion.
    literal_to: usize,
    /// Unquoted text has a glob character: bash expands it to file names.
    glob: bool,
}

struct Oracle {
    options: ParserOptions,
    /// Programs with the source offset of the word naming them.
    found: Vec<(usize, String)>,
}

fn oracle(line: &str) -> Result<Vec<String>, String> {
    let mut o = Oracle {
        options: ParserOptions::default(),
        found: Vec::new(),
    };
    o.source(line, 0)?;
    o.found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<String> = Vec::new();
    for (_, p) in o.found {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

impl Oracle {
    /// Parses `text`, whose offset 0 is `base` in the outer source, and walks it.
    fn source(&mut self, text: &str, base: usize) -> Result<(), String> {
        let mut parser = brush_parser::Parser::new(text.as_bytes(), &self.options);
        let program = parser
            .parse_program()
            .map_err(|e| format!("{e:?} in {text:?}"))?;
        for list in &program.complete_commands {
            self.list(list, base)?;
        }
        Ok(())
    }

    /// Programs of `text` parsed on its own, all placed at `at`.
    fn reparse(&mut self, text: &str, at: usize) -> Result<(), String> {
        for p in oracle(text)? {
            self.found.push((at, p));
        }
        Ok(())
    }

    fn list(&mut self, list: &ast::CompoundList, base: usize) -> Result<(), String> {
        for item in &list.0 {
            for (_, pipeline) in item.0.iter() {
                for command in &pipeline.seq {
                    self.command(command, base)?;
                }
            }
        }
        Ok(())
    }

    fn command(&mut self, command: &Command, base: usize) -> Result<(), String> {
        match command {
            Command::Simple(simple) => self.simple(simple, base),
            Command::Compound(compound, redirects) => {
                self.compound(compound, base)?;
                self.redirects(redirects.as_ref(), base)
            }
            Command::Function(f) => {
                self.compound(&f.body.0, base)?;
                self.redirects(f.body.1.as_ref(), base)
            }
            Command::ExtendedTest(_, redirects) => self.redirects(redirects.as_ref(), base),
        }
    }

    fn redirects(&mut self, list: Option<&ast::RedirectList>, base: usize) -> Result<(), String> {
        for r in list.map(|l| l.0.as_slice()).unwrap_or_default() {
            self.redirect(r, base)?;
        }
        Ok(())
    }

    fn redirect(&mut self, r: &ast::IoRedirect, base: usize) -> Result<(), String> {
        match r {
            ast::IoRedirect::File(_, _, target) => match target {
                ast::IoFileRedirectTarget::Filename(w)
                | ast::IoFileRedirectTarget::Duplicate(w) => self.word(w, base).map(drop),
                ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                    self.list(&sub.list, base)
                }
                ast::IoFileRedirectTarget::Fd(_) => Ok(()),
            },
            ast::IoRedirect::HereString(_, w) | ast::IoRedirect::OutputAndError(w, _) => {
                self.word(w, base).map(drop)
            }
            // Bash expands an unquoted heredoc's body, so its substitutions run.
            ast::IoRedirect::HereDocument(_, doc) if doc.requires_expansion => {
                self.word(&doc.doc, base).map(drop)
            }
            ast::IoRedirect::HereDocument(..) => Ok(()),
        }
    }

    fn compound(&mut self, c: &CompoundCommand, base: usize) -> Result<(), String> {
        match c {
            CompoundCommand::Arithmetic(_) => Ok(()),
            CompoundCommand::ArithmeticForClause(f) => self.list(&f.body.list, base),
            CompoundCommand::BraceGroup(g) => self.list(&g.list, base),
            CompoundCommand::Subshell(s) => self.list(&s.list, base),
            CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(w, base)?;
                }
                self.list(&f.body.list, base)
            }
            CompoundCommand::CaseClause(c) => {
                self.word(&c.value, base)?;
                for item in &c.cases {
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd, base)?;
                    }
                }
                Ok(())
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition, base)?;
                self.list(&i.then, base)?;
                for e in i.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.list(cond, base)?;
                    }
                    self.list(&e.body, base)?;
                }
                Ok(())
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0, base)?;
                self.list(&w.1.list, base)
            }
            CompoundCommand::Coprocess(_) => Err("coproc is not generated".to_owned()),
        }
    }

    fn simple(&mut self, c: &ast::SimpleCommand, base: usize) -> Result<(), String> {
        let mut words = Vec::new();
        for item in c.prefix.iter().flat_map(|p| &p.0) {
            match item {
                Item::AssignmentWord(_, w) => drop(self.word(w, base)?),
                Item::IoRedirect(r) => self.redirect(r, base)?,
                Item::Word(w) => words.push(self.word(w, base)?),
                Item::ProcessSubstitution(_, sub) => self.list(&sub.list, base)?,
            }
        }
        if let Some(w) = &c.word_or_name {
            words.push(self.word(w, base)?);
        }
        for item in c.suffix.iter().flat_map(|s| &s.0) {
            match item {
                Item::Word(w) | Item::AssignmentWord(_, w) => words.push(self.word(w, base)?),
                Item::IoRedirect(r) => self.redirect(r, base)?,
                Item::ProcessSubstitution(_, sub) => {
                    self.list(&sub.list, base)?;
                    let at = sub.loc.start.index + base;
                    let text = "/dev/fd/63".to_owned();
                    words.push(Word {
                        at,
                        raw: text.clone(),
                        literal_to: 0,
                        expanded_to: text.len(),
                        text,
                        glob: false,
                    });
                }
            }
        }
        self.resolve(&words)
    }

    /// Unquotes `w` and walks the commands substituted in it.
    fn word(&mut self, w: &ast::Word, base: usize) -> Result<Word, String> {
        let at = base + w.loc.as_ref().ok_or("word without location")?.start.index;
        let pieces = word::parse(&w.value, &self.options).map_err(|e| format!("{e:?}"))?;
        let mut out = Word {
            at,
            raw: w.value.clone(),
            text: String::new(),
            expanded_to: 0,
            literal_to: usize::MAX,
            glob: false,
        };
        self.pieces(&pieces, &w.value, at, &mut out, false)?;
        Ok(out)
    }

    fn pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        raw: &str,
        at: usize,
        out: &mut Word,
        quoted: bool,
    ) -> Result<(), String> {
        for p in pieces {
            let source = &raw[p.start_index..p.end_index];
            match &p.piece {
                WordPiece::Text(t) => {
                    let class = t.find('[').is_some_and(|k| t[k + 1..].contains(']'));
                    out.glob |= !quoted && (t.contains(['*', '?']) || class);
                    out.text.push_str(t);
                }
                WordPiece::SingleQuotedText(t) => out.text.push_str(t),
                WordPiece::AnsiCQuotedText(t) => out.text.push_str(t),
                WordPiece::EscapeSequence(e) => out.text.push_str(&e[1..]),
                WordPiece::TildeExpansion(_) => out.text.push_str(source),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(inner, raw, at, out, true)?
                }
                WordPiece::CommandSubstitution(inner) => {
                    self.source(inner, at + p.start_index + 2)?;
                    out.literal_to = out.literal_to.min(out.text.len());
                    out.text.push_str(source);
                    out.expanded_to = out.text.len();
                }
                WordPiece::BackquotedCommandSubstitution(inner) => {
                    self.source(inner, at + p.start_index + 1)?;
                    out.literal_to = out.literal_to.min(out.text.len());
                    out.text.push_str(source);
                    out.expanded_to = out.text.len();
                }
                WordPiece::ParameterExpansion(_) | WordPiece::ArithmeticExpression(_) => {
                    out.literal_to = out.literal_to.min(out.text.len());
                    out.text.push_str(source);
                    out.expanded_to = out.text.len();
                }
            }
        }
        Ok(())
    }

    /// The spec's rules on the words of one simple command.
    fn resolve(&mut self, words: &[Word]) -> Result<(), String> {
        let mut rest = words;
        while rest.first().is_some_and(|w| is_assignment(&w.raw)) {
            rest = &rest[1..];
        }
        let mut wrapper: Option<(usize, String)> = None;
        while let Some(w) = rest.first() {
            let Some(name) = basename(w) else {
                return Ok(());
            };
            let args = &rest[1..];
            let skip = match name.as_str() {
                "sudo" => {
                    let n = skip_options(args, SUDO_SHORT_WITH_ARG, SUDO_LONG_WITH_ARG);
                    let operands = args.get(n..).unwrap_or_default();
                    n + operands
                        .iter()
                        .take_while(|a| is_assignment(&a.raw))
                        .count()
                }
                "env" => env_options(args),
                "command" => {
                    if args
                        .iter()
                        .take_while(|a| a.text.starts_with('-') && a.text != "--")
                        .any(|a| a.text.contains(['v', 'V']))
                    {
                        wrapper = Some((w.at, name));
                        break;
                    }
                    skip_options(args, "", &[])
                }
                "time" => skip_options(args, "fo", &["format", "output"]),
                "nohup" => skip_options(args, "", &[]),
                "exec" => skip_options(args, "a", &[]),
                "timeout" => skip_options(args, "sk", &["signal", "kill-after"]) + 1,
                "nice" | "xargs" => {
                    // Runners are programs, and so is the command they run.
                    self.found.push((w.at, name.clone()));
                    let skip = if name == "nice" {
                        skip_options(args, "n", &["adjustment"])
                    } else {
                        skip_options(args, XARGS_SHORT_WITH_ARG, XARGS_LONG_WITH_ARG)
                    };
                    wrapper = None;
                    rest = args.get(skip..).unwrap_or_default();
                    continue;
                }
                _ => {
                    self.found.push((w.at, name.clone()));
                    return self.program_arguments(&name, args);
                }
            };
            wrapper = Some((w.at, name));
            rest = args.get(skip..).unwrap_or_default();
        }
        self.found.extend(wrapper);
        Ok(())
    }

    fn program_arguments(&mut self, name: &str, args: &[Word]) -> Result<(), String> {
        match name {
            "bash" | "sh" | "zsh" | "dash" => {
                let mut has_c = false;
                let mut k = 0;
                while let Some(a) = args.get(k) {
                    let t = a.text.as_str();
                    if t == "--" || t == "-" {
                        k += 1;
                        break;
                    }
                    if let Some(long) = t.strip_prefix("--") {
                        k += if long == "rcfile" || long == "init-file" {
                            2
                        } else {
                            1
                        };
                    } else if t.len() > 1 && (t.starts_with('-') || t.starts_with('+')) {
                        has_c |= t.starts_with('-') && t.contains('c');
                        k += if t.ends_with(['o', 'O']) { 2 } else { 1 };
                    } else {
                        break;
                    }
                }
                match args.get(k) {
                    Some(a) if has_c => self.reparse(&a.text, a.at),
                    _ => Ok(()),
                }
            }
            "eval" if !args.is_empty() => {
                let joined: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
                self.reparse(&joined.join(" "), args[0].at)
            }
            _ => Ok(()),
        }
    }
}

fn is_assignment(raw: &str) -> bool {
    let Some((name, _)) = raw.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let name = name.split_once('[').map_or(name, |(n, _)| n);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn basename(w: &Word) -> Option<String> {
    if w.glob {
        return None;
    }
    let tail = &w.text[w.expanded_to..];
    let name = match tail.rfind('/') {
        Some(k) => &tail[k + 1..],
        None if w.expanded_to > 0 => return None,
        None => tail,
    };
    (!name.is_empty()).then(|| name.to_owned())
}

/// sudo(8)'s options that take an argument, transcribed from its manual page
/// (sudo 1.9) rather than from the splitter, so the two can disagree:
/// `-C num`, `-D directory`, `-g group`, `-h host`, `-p prompt`, `-R directory`,
/// `-r role`, `-T timeout`, `-t type`, `-U user`, `-u user`.
const SUDO_SHORT_WITH_ARG: &str = "CDghpRrTtUu";

/// The long spellings of the same options, from the same manual page.
const SUDO_LONG_WITH_ARG: &[&str] = &[
    "close-from",
    "chdir",
    "group",
    "host",
    "prompt",
    "chroot",
    "role",
    "command-timeout",
    "type",
    "other-user",
    "user",
];

/// xargs(1)'s options that take a separate argument, from its manual page (GNU
/// findutils 4.9): `-a file`, `-d delim`, `-E eof-str`, `-I replace-str`,
/// `-L max-lines`, `-n max-args`, `-P max-procs`, `-s max-chars`.
const XARGS_SHORT_WITH_ARG: &str = "adEILnPs";

/// The long spellings that take a separate argument, from the same manual page.
const XARGS_LONG_WITH_ARG: &[&str] = &[
    "arg-file",
    "delimiter",
    "max-args",
    "max-procs",
    "max-chars",
    "process-slot-var",
];

/// How many words of `args` are options (with their arguments).
fn skip_options(args: &[Word], short_arg: &str, long_arg: &[&str]) -> usize {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let t = a.text.as_str();
        if t == "--" {
            return k + 1;
        }
        if let Some(long) = t.strip_prefix("--") {
            k += 1 + usize::from(long_arg.contains(&long));
        } else if t.len() > 1 && t.starts_with('-') {
            let flags = &t[1..];
            let takes_next = flags
                .find(|c| short_arg.contains(c))
                .is_some_and(|i| i + 1 == flags.len());
            k += 1 + usize::from(takes_next);
        } else {
            break;
        }
    }
    k
}

fn env_options(args: &[Word]) -> usize {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let t = a.text.as_str();
        if t == "--" {
            return k + 1;
        }
        if t.starts_with("--") {
            k += 1 + usize::from(t == "--unset" || t == "--chdir");
        } else if let Some(flags) = t.strip_prefix('-') {
            let takes_next = flags.find(['u', 'C']).is_some_and(|i| i + 1 == flags.len());
            k += 1 + usize::from(takes_next);
        } else if t[..a.literal_to.min(t.len())].contains('=') {
            // An assignment by its literal text: an expansion's value is unknown.
            k += 1;
        } else {
            break;
        }
    }
    k
}

#[test]
fn matches_brush_parser() {
    let mut gen = Gen {
        rng: Rng(0x5eed_1234_abcd_ef01),
        bodies: Vec::new(),
        parens: 0,
    };
    let mut failures = Vec::new();
    for _ in 0..LINES {
        let line = gen.line();
        let want = match oracle(&line) {
            Ok(want) => want,
            Err(e) => {
                panic!("brush-parser rejects a generated line (fix the generator): {line:?}\n{e}")
            }
        };
        let got = programs(&line);
        if got != want {
            failures.push(format!(
                "line: {line:?}\n  ours:   {got:?}\n  oracle: {want:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {LINES} lines differ:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[path = "../../../tests/common/corpus.rs"]
#[allow(dead_code)]
mod corpus;

/// The adversarial corpus (`tests/enforce/*.txt`, each line's outcome checked under
/// bash) through brush-parser with this file's oracle and through the splitter: how
/// often each names kubectl exactly when bash runs it. The figures are printed
/// (`docs/splitter.md` quotes them); the splitter must agree at least as often.
#[test]
fn corpus_agreement_with_bash() {
    use corpus::{corpus_in, Expect};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/enforce");
    let corpus = corpus_in(&dir);
    let (mut lines, mut ours, mut brush, mut rejected, mut safe) = (0, 0, 0, 0, 0);
    let mut lexical = [0usize; 3];
    for line in &corpus.lines {
        let runs = line.expect != Expect::Benign;
        let found = hookdex_shell::split(&line.text);
        let named = found.programs.iter().any(|p| p == "kubectl");
        let theirs = match oracle(&line.text) {
            Ok(programs) => Some(programs.iter().any(|p| p == "kubectl")),
            Err(_) => None,
        };
        lines += 1;
        ours += usize::from(named == runs);
        brush += usize::from(theirs == Some(runs));
        rejected += usize::from(theirs.is_none());
        safe += usize::from(if runs {
            named || found.is_dynamic()
        } else {
            !named
        });
        if line.at.starts_with("lexical.txt") {
            lexical[0] += 1;
            lexical[1] += usize::from(named == runs);
            lexical[2] += usize::from(theirs == Some(runs));
        }
    }
    eprintln!(
        "corpus: {lines} lines; names kubectl exactly when bash runs it: splitter {ours}, \
         brush-parser {brush} (rejects {rejected}); splitter names it or reports dynamic \
         when bash runs it and stays quiet when not: {safe}; of the {} lexical.txt lines: \
         splitter {}, brush-parser {}",
        lexical[0], lexical[1], lexical[2]
    );
    assert!(
        ours >= brush,
        "brush-parser agrees with bash more often: {brush} > {ours}"
    );
}
