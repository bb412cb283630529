//! What a shell command line does to the rule sources (SPEC §13), decided
//! from the splitter's simple commands, never from substrings: each
//! command's path arguments and redirection targets are resolved against
//! the working directory the line has reached (`cd` followed; after a `cd`
//! the text cannot tell, relative paths are not judged), and a line that
//! touches a rule source passes only when every program that touches one
//! only reads and nothing is redirected into one.
//!
//! `~`, `$HOME`, `$HOOKDEX_HOME` and `$PWD` are expanded as the hook's own
//! environment has them; other expansions are not guessed. A program the
//! text cannot name (`$cmd`, `python -c`) counts as a writer when the line
//! touches a rule source at all.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::names_no_path;
use super::sources::{resolve_in, Named, RuleSources};
use crate::call::Call;

/// Programs that only read whatever their arguments name (none of them
/// takes an output file or writes in place).
const READERS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "stat",
    "file",
    "wc",
    "du",
    "tree",
    "cmp",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "readlink",
    "realpath",
    "basename",
    "dirname",
    "test",
    "[",
    "pwd",
    "echo",
    "printf",
    "bat",
    "jq",
    "cd",
    "true",
    "false",
    "which",
    "type",
    "nl",
    "od",
    "hexdump",
    "strings",
    "column",
    "cut",
    "tr",
    "comm",
    "join",
    "paste",
    "fold",
    "expand",
];

/// Programs that write or remove the files their arguments name: a word
/// the text cannot tell counts for them only (`kubectl logs "$POD"` changes
/// no file, `rm -rf "$DIR"` may).
const FILE_WRITERS: &[&str] = &[
    "rm", "rmdir", "unlink", "mv", "cp", "ln", "install", "chmod", "chown", "chgrp", "truncate",
    "tee", "touch", "mkdir", "dd", "sed", "perl", "awk", "sort", "uniq", "rsync", "tar", "unzip",
    "patch", "find", "shred",
];

/// Programs that remove what they name: a folder that holds a rule source
/// counts for them (for `mv`, its sources; for `chmod -R` and the like,
/// what it recurses into).
const REMOVERS: &[&str] = &["rm", "rmdir", "unlink", "mv", "find"];

/// Programs that change a whole folder tree when given `-R`.
const RECURSIVE: &[&str] = &["chmod", "chown", "chgrp"];

/// Git commands that change the working tree from git's own data, with no
/// path to read: they count as touching every rule source in the
/// repository (`git clean -fdx` removes an untracked `.hookdex/`).
const GIT_TREE_WRITERS: &[&str] = &["clean", "stash", "reset", "restore", "apply", "am"];

/// The most simple commands the gate follows in one line: past them it
/// cannot tell in time, and a line that long is denied while it is closed.
pub const MAX_COMMANDS: usize = 2000;

/// The most words the gate resolves in one line (each may cost a `stat` per
/// part): past them a line is denied while the gate is closed, as past
/// [`MAX_COMMANDS`], so the hook's time stays bounded on any payload.
pub const MAX_WORDS: usize = 20_000;

/// Why the shell line of `call` changes a rule source, or `None` when it
/// does not (or the call has no line).
pub fn writes_rule_source(
    call: &Call,
    cwd: &Path,
    sources: &RuleSources,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<String> {
    let command = call.command.as_deref()?;
    let commands = &call.commands;
    if commands.len() > MAX_COMMANDS {
        return Some(format!(
            "it runs more than {MAX_COMMANDS} commands, more than the gate follows: run it in parts"
        ));
    }
    let words: usize = commands.iter().map(|c| c.args.len() + c.writes.len()).sum();
    if words > MAX_WORDS {
        return Some(format!(
            "it has more than {MAX_WORDS} words, more than the gate follows: run it in parts"
        ));
    }
    // Where the line is: `None` once a `cd` goes where the text cannot tell.
    let mut at: Option<PathBuf> = Some(cwd.to_path_buf());
    let cdpath = command.contains("CDPATH") || var("CDPATH").is_some_and(|v| !v.is_empty());
    let mut touching = false;
    for simple in commands {
        let judge = Judge {
            cwd,
            at: at.as_deref(),
            sources,
            var,
        };
        for target in &simple.writes {
            // A redirection target is one word to bash, globs and all.
            let found = match target.contains(['*', '?', '[', '{', '$', '`']) {
                true => judge.unknown_word(target, Touch::Inside),
                false => judge.word(target, Touch::Inside),
            };
            if let Some(why) = found {
                return Some(format!("it redirects output into {why}"));
            }
        }
        let program = simple.program.as_str();
        if program == "cd" || program == "pushd" {
            at = match simple
                .args
                .iter()
                .find(|a| !a.starts_with('-') || *a == "-")
            {
                Some(dir) if dir == "-" || cdpath => None,
                Some(dir) => judge.place(dir).filter(|p| p.is_dir()),
                None => var("HOME").map(PathBuf::from),
            };
            continue;
        }
        if program == "git" {
            if let Some(why) = judge.git(&simple.args) {
                return Some(why);
            }
        }
        // The trust store decides which repositories' rules run: only the
        // person changes it.
        if program == "hookdex"
            && simple.args.first().is_some_and(|a| a == "trust")
            && !has_any(&simple.args, &["--list"])
        {
            return Some("`hookdex trust` changes which repositories' rules run".into());
        }
        let recursive = RECURSIVE.contains(&program)
            && simple.args.iter().any(|a| a == "-R" || a == "--recursive");
        let removes = REMOVERS.contains(&program) || recursive;
        let last = simple.args.len().saturating_sub(1);
        let mut touched = None;
        for (i, arg) in simple.args.iter().enumerate() {
            // `mv a b`: b gets a file; a folder that holds one is moved only as a source.
            let how = match (removes, program, i == last && i > 0) {
                (true, "mv", true) => Touch::Inside,
                (true, _, _) => Touch::Holds,
                _ => Touch::Inside,
            };
            let unknown = simple.unknown.contains(&i) || (simple.more && i == last);
            let writer = FILE_WRITERS.contains(&program);
            let found = words_of(arg).find_map(|word| match (unknown, writer) {
                (true, true) => judge.unknown_word(word, how),
                (true, false) => None,
                (false, _) => judge.word(word, how),
            });
            if found.is_some() {
                touched = found;
                break;
            }
        }
        // Words a runner appends (`xargs rm`) may name anything.
        if touched.is_none() && simple.more && FILE_WRITERS.contains(&program) {
            touched = judge.unknown_word("", Touch::Holds);
        }
        if program == "apply_patch" {
            let patch = simple.args.join("\n");
            touched = touched.or_else(|| {
                super::patch_paths(&serde_json::Value::String(patch))
                    .iter()
                    .find_map(|p| judge.word(p, Touch::Inside))
            });
        }
        let Some(why) = touched else {
            continue;
        };
        touching = true;
        if !only_reads(program, &simple.args) {
            return Some(format!("`{program}` may change {why}"));
        }
    }
    // A program the text cannot name takes words the commands above do not
    // show: any word of the line that names a rule source counts.
    let named = || {
        // Past the bound a word is not resolved: too many to tell, so it counts.
        let mut count = 0;
        any_line_word(command, |word| {
            count += 1;
            count > MAX_WORDS
                || expand(word, cwd, var)
                    .is_some_and(|word| sources.touches(&resolve_in(cwd, &word)))
        })
    };
    if !call.dynamic.is_empty() && (touching || named()) {
        return Some("it runs a program its text cannot name".into());
    }
    None
}

/// Whether `found` holds for a word of `line`, read as the gate reads the
/// words of a program the text cannot name: split at whitespace (Unicode's
/// too), quotes and the shell's operators. Split by bytes (a megabyte line
/// is one quick pass), and by characters only within a piece that holds
/// other than ASCII.
fn any_line_word(line: &str, mut found: impl FnMut(&str) -> bool) -> bool {
    let breaks = |b: &u8| {
        matches!(
            b,
            b' ' | b'\t'
                | b'\n'
                | b'\x0b'
                | b'\x0c'
                | b'\r'
                | b'\''
                | b'"'
                | b';'
                | b'&'
                | b'|'
                | b'<'
                | b'>'
                | b'('
                | b')'
        )
    };
    let mut at = 0;
    for piece in line.as_bytes().split(breaks) {
        let (start, end) = (at, at + piece.len());
        at = end + 1;
        let piece = &line[start..end];
        let hit = match piece.is_ascii() {
            true => !piece.is_empty() && found(piece),
            false => piece
                .split(char::is_whitespace)
                .filter(|word| !word.is_empty())
                .any(&mut found),
        };
        if hit {
            return true;
        }
    }
    false
}

/// What a word must do to a rule source to count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Touch {
    /// Name one, or a path inside one.
    Inside,
    /// Or name a folder that holds one.
    Holds,
}

/// Judges the words of one simple command.
struct Judge<'a> {
    cwd: &'a Path,
    at: Option<&'a Path>,
    sources: &'a RuleSources,
    var: &'a dyn Fn(&str) -> Option<OsString>,
}

impl Judge<'_> {
    /// Where `word` names, when the text tells.
    fn named(&self, word: &str) -> Option<Named> {
        let word = expand(word, self.cwd, self.var)?;
        match (Path::new(&word).is_absolute(), self.at) {
            (true, _) => Some(resolve_in(Path::new("/"), &word)),
            (false, Some(dir)) => Some(resolve_in(dir, &word)),
            (false, None) => None,
        }
    }

    /// Where a `cd` to `dir` goes, logically (as bash's `cd` reads `..`).
    fn place(&self, dir: &str) -> Option<PathBuf> {
        self.named(dir).map(|named| named.lexical)
    }

    fn hits(&self, path: &Named, how: Touch) -> bool {
        match how {
            Touch::Inside => self.sources.touches(path),
            Touch::Holds => self.sources.holds(path),
        }
    }

    /// The rule source a known word names, shown.
    fn word(&self, word: &str, how: Touch) -> Option<String> {
        if names_no_path(word) {
            return None;
        }
        if let Some(path) = self.named(word) {
            return self.hits(&path, how).then(|| path.display().to_string());
        }
        // After a `cd` the text cannot tell: a relative word still counts
        // when it climbs (`../`), names a rule folder, or is a rule file's name.
        let suspicious = word.contains("..")
            || word.rsplit('/').next().is_some_and(|name| {
                name == "HOOK.md" || name == "hooks.yaml" || rule_file_name(name)
            });
        let by_name = self.at.is_none()
            && (suspicious || self.sources.touches(&resolve_in(Path::new("/"), word)));
        by_name.then(|| format!("{word} (after a `cd` the text cannot tell)"))
    }

    /// The rule source a word the text cannot tell (a glob, a brace, an
    /// expansion) may name: the literal part before its first special
    /// character is a folder that holds or lies in one, and what follows
    /// may match the name that leads there.
    fn unknown_word(&self, word: &str, how: Touch) -> Option<String> {
        let special = word
            .find(['*', '?', '[', '{', '$', '`', '~'])
            .unwrap_or(word.len());
        let literal = &word[..special];
        let dir = match literal.rfind('/') {
            Some(slash) => &literal[..=slash],
            None => "",
        };
        let pattern = &word[dir.len()..];
        let base = match dir {
            "" => self.at.map(|d| Named {
                lexical: d.to_path_buf(),
                real: None,
            }),
            dir => self.named(dir),
        };
        let shown = || format!("`{word}` (the text cannot tell what it names)");
        // `$x/…`, `$(…)`: an expansion may be any path, absolute ones too.
        if word.starts_with(['$', '`']) || word.is_empty() {
            return Some(shown());
        }
        let Some(base) = base else {
            return Some(shown());
        };
        if self.sources.touches(&base) {
            return Some(shown());
        }
        let _ = how;
        // A pattern that starts with an expansion may name anything; a glob
        // matches a dot folder only when it starts with `.`.
        let leading = pattern.chars().next();
        let may_reach = |name: &str| match leading {
            Some('$' | '`' | '{' | '~') | None => true,
            Some('.') => name.starts_with('.'),
            Some(_) => !name.starts_with('.'),
        };
        self.sources
            .first_names_below(&base)
            .iter()
            .any(|name| may_reach(name))
            .then(shown)
    }

    /// Why a git command changes rule sources from git's own data.
    fn git(&self, args: &[String]) -> Option<String> {
        let sub = args.iter().find(|a| !a.starts_with('-'))?;
        let writes = GIT_TREE_WRITERS.contains(&sub.as_str())
            && match sub.as_str() {
                "stash" => args
                    .iter()
                    .any(|a| matches!(a.as_str(), "-u" | "-a" | "--include-untracked" | "--all")),
                "reset" => args.iter().any(|a| a == "--hard"),
                _ => true,
            };
        let output = args.iter().any(|a| a.starts_with("--output"));
        if !(writes || output) {
            return None;
        }
        let here = self.at?;
        let holds = self.sources.holds(&Named {
            lexical: here.to_path_buf(),
            real: None,
        });
        (holds || output).then(|| {
            format!(
                "`git {sub}` may change the rule sources of {}",
                here.display()
            )
        })
    }
}

/// Whether `name` reads as a rule file's name (`pre-bash-x.sh`).
fn rule_file_name(name: &str) -> bool {
    matches!(
        hookdex_compiler::formats::filename::classify(name),
        hookdex_compiler::formats::filename::FileClass::Rule(_)
    )
}

/// The words of an argument a program may take as a path: itself unless
/// it is an option, an option's attached value (`-t.hookdex`,
/// `--output=x`), and what follows `=` in an operand (`dd of=x`).
fn words_of(arg: &str) -> impl Iterator<Item = &str> {
    let long = arg
        .strip_prefix("--")
        .and_then(|rest| rest.split_once('='))
        .map(|(_, v)| v);
    let short =
        (arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 2).then(|| &arg[2..]);
    let operand = (!arg.starts_with('-'))
        .then(|| arg.split_once('=').map(|(_, v)| v))
        .flatten();
    let word = (!arg.starts_with('-')).then_some(arg);
    word.into_iter()
        .chain(long)
        .chain(short)
        .chain(operand)
        .filter(|w| !w.is_empty())
}

fn has_any(args: &[String], flags: &[&str]) -> bool {
    args.iter().any(|a| flags.contains(&a.as_str()))
}

/// Whether `program` with `args` only reads.
fn only_reads(program: &str, args: &[String]) -> bool {
    match program {
        "find" => !has_any(
            args,
            &[
                "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
                "-fls",
            ],
        ),
        "git" => {
            !args.iter().any(|a| a.starts_with("--output"))
                && matches!(
                    args.iter()
                        .find(|a| !a.starts_with('-'))
                        .map(String::as_str),
                    Some(
                        "status"
                            | "diff"
                            | "log"
                            | "show"
                            | "add"
                            | "commit"
                            | "push"
                            | "blame"
                            | "ls-files"
                            | "grep"
                            | "rev-parse"
                            | "shortlog"
                            | "describe"
                    )
                )
        }
        "hookdex" => {
            matches!(
                args.first().map(String::as_str),
                Some("list" | "explain" | "show" | "test" | "stats" | "expand")
            ) || (args.first().map(String::as_str) == Some("compile")
                && has_any(args, &["--check"]))
        }
        other => READERS.contains(&other),
    }
}

/// `word` with a leading `~`, `$HOME`, `$HOOKDEX_HOME` or `$PWD` expanded;
/// `None` when it holds another expansion, which the text cannot tell, or
/// names no path ([`names_no_path`]).
fn expand(word: &str, cwd: &Path, var: &dyn Fn(&str) -> Option<OsString>) -> Option<String> {
    let lookup = |name: &str| -> Option<String> {
        match name {
            "PWD" => Some(cwd.display().to_string()),
            "HOOKDEX_HOME" => Some(var(name).map_or_else(
                || {
                    format!(
                        "{}/.hookdex",
                        var("HOME").unwrap_or_default().to_string_lossy()
                    )
                },
                |v| v.to_string_lossy().into_owned(),
            )),
            "HOME" => var(name).map(|v| v.to_string_lossy().into_owned()),
            _ => None,
        }
    };
    let (head, rest) = if let Some(rest) = word.strip_prefix("~") {
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        (lookup("HOME")?, rest)
    } else if let Some(after) = word.strip_prefix('$') {
        let (name, rest) = match after.strip_prefix('{') {
            Some(braced) => braced.split_once('}')?,
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                after.split_at(end)
            }
        };
        (lookup(name)?, rest)
    } else {
        (String::new(), word)
    };
    if names_no_path(rest) || rest.contains(['$', '`']) {
        return None;
    }
    Some(format!("{head}{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::PATH_MAX;

    #[test]
    fn a_line_splits_into_the_words_an_unnamed_program_may_take() {
        let words = |line: &str| {
            let mut seen = Vec::new();
            any_line_word(line, |w| {
                seen.push(w.to_string());
                false
            });
            seen
        };
        assert_eq!(
            words("a 'b'\t\x0bc;d&&e|f<g>(h)\"i\" caf\u{e9}\u{a0}x\u{3000}y"),
            [
                "a",
                "b",
                "c",
                "d",
                "e",
                "f",
                "g",
                "h",
                "i",
                "caf\u{e9}",
                "x",
                "y"
            ]
        );
        let mut calls = 0;
        assert!(any_line_word("a b c", |w| {
            calls += 1;
            w == "b"
        }));
        assert_eq!(calls, 2);
    }

    #[test]
    fn only_a_long_word_with_no_slash_names_no_path() {
        let home = |name: &str| (name == "HOME").then(|| OsString::from("/home/a"));
        let cwd = Path::new("/repo");
        assert_eq!(expand(&"x".repeat(1 << 20), cwd, &home), None);
        assert_eq!(
            expand(&format!("$HOME{}", "x".repeat(PATH_MAX + 1)), cwd, &home),
            None
        );
        // A program may collapse the slashes (`os.path.normpath`): it is a path.
        let slashes = format!("{}repo/.hookdex/conditions/a.sh", "/".repeat(2 * PATH_MAX));
        assert_eq!(
            expand(&slashes, cwd, &home).as_deref(),
            Some(slashes.as_str())
        );
    }

    fn fixture() -> (tempfile::TempDir, PathBuf, RuleSources, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join(".hookdex/conditions")).unwrap();
        std::fs::create_dir_all(repo.join("src")).unwrap();
        let home = root.join("home");
        let vars = |name: &str| (name == "HOME").then(|| home.clone().into_os_string());
        let view = hookdex_compiler::View::from_vars(hookdex_model::Target::Claude, &repo, vars);
        (dir, repo, RuleSources::of(&view), home)
    }

    #[test]
    fn writes_into_rule_folders_are_found_and_reads_pass() {
        let (_dir, repo, sources, home) = fixture();
        let var = |name: &str| (name == "HOME").then(|| home.clone().into_os_string());
        let judge = |line: &str| {
            let input = serde_json::json!({ "command": line });
            let call = Call::new(
                hookdex_model::Target::Claude,
                hookdex_model::Step::Pre,
                "Bash",
                &input,
            );
            writes_rule_source(&call, &repo, &sources, &var)
        };
        let denied = [
            "echo 'exit 0' > .hookdex/conditions/pre-bash-x.sh",
            "cat x | tee .hookdex/conditions/a.sh",
            "sed -i s/2/0/ .hookdex/conditions/pre-bash-guard.sh",
            "cp /tmp/x .hookdex/conditions/",
            "mv .hookdex/conditions/a.sh /tmp/",
            "rm -rf .hookdex",
            "rm -rf .",
            "chmod -x .hookdex/conditions/pre-bash-guard.sh",
            "ln -sf /dev/null .agentihooks/conditions/pre-bash-guard.sh",
            "truncate -s0 .hookdex/conditions/pre-bash-guard.sh",
            "cd .hookdex/conditions && rm pre-bash-guard.sh",
            "cd .hookdex && cd conditions && echo x > a.sh",
            "touch ~/.hookdex/conditions/pre-any-x.sh",
            "printf x >> $HOME/.moltis/hooks/x/HOOK.md",
            "find .hookdex -name '*.sh' -delete",
            "python3 -c 'import os' .hookdex/conditions/x",
            "$EDITOR .hookdex/hooks.yaml",
            "sudo tee /etc/hookdex/conditions/pre-any-x.sh",
            "git clean -fdx",
            "git stash -u",
            "git reset --hard HEAD~1",
            "git diff --output=.hookdex/conditions/pre-bash-x.sh",
            "perl -pi -e s/2/0/ .hookdex/conditions/pre-bash-x.sh",
            "sed -n 'w .hookdex/conditions/x' /dev/null .hookdex/conditions/pre-bash-x.sh",
            "tar -C.hookdex -xf /tmp/evil.tar",
            "CDPATH=.hookdex cd conditions && rm pre-bash-guard.sh",
            "cd \"$SOMEWHERE\" && rm -f pre-bash.rm-guard.sh",
            "cd \"$SOMEWHERE\" && truncate -s 0 ../hh/conditions/x",
        ];
        for line in denied {
            assert!(judge(line).is_some(), "{line}");
        }
        let passed = [
            "ls -la .hookdex/conditions",
            "cat .hookdex/conditions/pre-bash-guard.sh | grep exit",
            "grep -r kubectl .agentihooks",
            "git status && git diff .hookdex && git log -- .hookdex",
            "find .hookdex -name '*.sh'",
            "echo hi > src/out.txt",
            "rm -rf src/build",
            "cd src && rm -rf ../target",
            "make test 2>&1 | tail",
            "hookdex list --json",
            "prettier --write src",
            "git stash",
            "git checkout main",
            "cd \"$SOMEWHERE\" && make && rm -rf build",
        ];
        for line in passed {
            assert_eq!(judge(line), None, "{line}");
        }
        let long = "cd src; ".repeat(MAX_COMMANDS + 1);
        assert!(judge(&long).unwrap().contains("run it in parts"));
        let wide = format!("echo {}", "a ".repeat(MAX_WORDS + 1));
        assert!(judge(&wide).unwrap().contains("words, more than the gate"));
        assert_eq!(judge(&format!("echo {}", "a ".repeat(MAX_WORDS))), None);
    }
}
