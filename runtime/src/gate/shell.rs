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

use super::sources::{resolve_in, Named, RuleSources};

/// Programs that only read whatever their arguments name.
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
    "diff",
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
    "yq",
    "cd",
    "true",
    "false",
    "which",
    "type",
    "nl",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "column",
    "sort",
    "uniq",
    "cut",
    "tr",
    "comm",
    "join",
    "paste",
    "fold",
    "expand",
    "awk",
];

/// Programs that remove, move or relink what they name: a folder that
/// holds a rule source counts for them.
const MOVERS: &[&str] = &[
    "rm", "rmdir", "mv", "ln", "unlink", "chmod", "chown", "chgrp", "rsync",
];

/// Why the line changes a rule source, or `None` when it does not.
pub fn writes_rule_source(
    command: &str,
    cwd: &Path,
    sources: &RuleSources,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<String> {
    let split = hookdex_shell::split(command);
    let mut at: Option<PathBuf> = Some(cwd.to_path_buf());
    let mut touching = false;
    for simple in hookdex_shell::commands(command) {
        let resolve = |word: &str, at: &Option<PathBuf>| -> Option<Named> {
            let word = expand(word, cwd, var)?;
            match (Path::new(&word).is_absolute(), at) {
                (true, _) => Some(resolve_in(Path::new("/"), &word)),
                (false, Some(dir)) => Some(resolve_in(dir, &word)),
                (false, None) => None,
            }
        };
        for target in &simple.writes {
            if let Some(path) = resolve(target, &at) {
                if sources.touches(&path) {
                    return Some(format!("it redirects output into {}", path.display()));
                }
            }
        }
        let program = simple.program.as_str();
        if program == "cd" {
            at = match simple.args.iter().find(|a| !a.starts_with('-')) {
                Some(dir) if simple.unknown.is_empty() || expand(dir, cwd, var).is_some() => {
                    resolve(dir, &at).map(|named| named.real.unwrap_or(named.lexical))
                }
                Some(_) => None,
                None => var("HOME").map(PathBuf::from),
            };
            continue;
        }
        let mover =
            MOVERS.contains(&program) || (program == "find" && has_any(&simple.args, &["-delete"]));
        let touched = simple
            .args
            .iter()
            .flat_map(|arg| words_of(arg))
            .filter_map(|word| resolve(word, &at))
            .find(|path| match mover {
                true => sources.holds(path),
                false => sources.touches(path),
            });
        let Some(path) = touched else {
            continue;
        };
        touching = true;
        if !only_reads(program, &simple.args) {
            return Some(format!("`{program}` may change {}", path.display()));
        }
    }
    // A program the text cannot name takes words the commands above do not
    // show: any word of the line that names a rule source counts.
    let named = || {
        command
            .split(|c: char| {
                c.is_whitespace()
                    || matches!(c, '\'' | '"' | ';' | '&' | '|' | '<' | '>' | '(' | ')')
            })
            .filter_map(|word| expand(word, cwd, var))
            .any(|word| sources.touches(&resolve_in(cwd, &word)))
    };
    if split.is_dynamic() && (touching || named()) {
        return Some("it runs a program its text cannot name".into());
    }
    None
}

/// The words of an argument a program may take as a path: itself unless
/// it is an option, and what follows `=` in `--option=value`.
fn words_of(arg: &str) -> impl Iterator<Item = &str> {
    let value = arg
        .strip_prefix("--")
        .and_then(|rest| rest.split_once('='))
        .map(|(_, v)| v);
    let word = (!arg.starts_with('-')).then_some(arg);
    word.into_iter().chain(value).filter(|w| !w.is_empty())
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
        "sed" | "perl" => !args
            .iter()
            .any(|a| a.starts_with("-i") || a.starts_with("--in-place")),
        "jq" | "yq" => !args
            .iter()
            .any(|a| a == "-i" || a.starts_with("--in-place")),
        "sort" => !args
            .iter()
            .any(|a| a.starts_with("-o") || a.starts_with("--output")),
        // awk's own `print > file` is a write the splitter cannot see.
        "awk" => !args.iter().any(|a| a.contains('>') || a.contains("system")),
        "git" => matches!(
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
        ),
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
/// `None` when it holds another expansion, which the text cannot tell.
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
    if rest.contains(['$', '`']) {
        return None;
    }
    Some(format!("{head}{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let judge = |line: &str| writes_rule_source(line, &repo, &sources, &var);
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
        ];
        for line in passed {
            assert_eq!(judge(line), None, "{line}");
        }
    }
}
