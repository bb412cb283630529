//! Splits a shell command line into the programs its simple commands run, and
//! quotes words for a POSIX shell.
//!
//! Owns the hand-written, quote- and operator-aware scanner behind `bash.<cli>`
//! matchers; it reads text only, it never expands or runs anything. What the text
//! cannot name (`$cmd x`, `python -c …`) [`split`] reports as dynamic, and the words
//! it cannot tell (`-n $x`, `xargs kubectl`) [`commands`] marks; the option grammars
//! of command runners (`xargs`, `flock`, `su -c`, …) are in `runners.rs`.
//! This file is the public API; the scan starts in `scan.rs`, whose module doc
//! names the file of each layer (lexer, grammar, wrappers, words, …).
//!
//! ```
//! assert_eq!(
//!     hookdex_shell::programs("cd services && sudo -u deploy kubectl delete pod api-0"),
//!     ["cd", "kubectl"],
//! );
//! assert_eq!(
//!     hookdex_shell::programs("find . -name '*.yaml' -exec kubectl apply -f {} \\;"),
//!     ["find", "kubectl"],
//! );
//! assert!(hookdex_shell::split("\"$TOOL\" delete pod api-0").is_dynamic());
//! assert_eq!(hookdex_shell::quote("it's"), r"'it'\''s'");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod arith;
mod braces;
mod budget;
mod grammar;
mod lexer;
mod nested;
mod printed;
mod programs;
mod quote;
mod resolve;
mod runners;
mod scan;
mod token;
mod types;
mod vars;
mod words;
mod wrappers;

pub use crate::budget::MAX_LINE;
pub use crate::quote::quote;
pub use crate::types::{Command, Dynamic, Reason, Split, MAX_DYNAMIC};

use std::borrow::Cow;

use crate::budget::with_budget;
use crate::scan::{scan, Fill, Found};

/// Programs run by the simple commands of `command`, in first-seen order, deduplicated, each reduced to its basename.
///
/// Choices where the shell leaves room:
/// - a program word whose basename comes from an expansion (`$cmd`, `$(which git)`) or
///   a glob (`kube?tl`) is skipped here and reported by [`split`] as dynamic (the
///   commands inside `$(…)` are still found); brace alternatives (`{kubectl,x}`) are
///   each a program, and like bash the first runs with the others as its first
///   arguments (`{bash,-c,'kubectl x'}` runs kubectl);
/// - `[ -f x ]` yields `[` (a real command); `[[ … ]]` and `(( … ))` yield nothing, and
///   like bash `((` is arithmetic only when it closes with `))`;
/// - a wrapper (`sudo`, `env`, `command`, `time`, `nohup`, `exec`, `timeout`) with nothing
///   left to run is itself the program: `sudo -v` yields `sudo`, and `command -v git`
///   yields `command` only, since `-v`/`-V` query `git` without running it; `builtin`
///   is a wrapper too;
/// - a runner (`xargs`, `find -exec`, `nice`, `flock`, `su -c`, `watch`, `strace`,
///   `fakeroot`, `perf stat`, `systemd-run`, … see `runners.rs`) is a program, and so
///   is the command it runs, found by the runner's own option grammar; the code given
///   to `su -c`, `flock -c`, `script -c`, `sg`, `watch`, `parallel`, `fakeroot -f`
///   and `perf stat --pre` is parsed as a command line; a runner's replacement string
///   as the program word (`find kubectl -exec {} …`) is dynamic, and so is a runner,
///   wrapper, shell or interpreter that `xargs` or `parallel` appends words to
///   (`xargs sh -c`, `xargs sudo`): those words may name anything;
/// - heredoc bodies are not programs, but bash runs the `$(…)` and backticks of one whose
///   delimiter is unquoted, so those are found;
/// - the string of `bash|sh|zsh|dash|ksh -c`, of `env -S`, the joined arguments of
///   `eval`, a `trap` action and an `alias` value are parsed as command lines too
///   ([`split`] reports an expansion bash pastes into such code as dynamic), and
///   so is what a shell reads from stdin: a here-string, a heredoc body, or the
///   literal text of an `echo`/`printf` piped into it, when it has no `-c` and no
///   script, when its script is stdin (`source /dev/stdin`, `sh /dev/fd/0`, or a
///   path the text does not tell), when it is the shell a runner starts without a
///   command (`su`, `fakeroot`, `unshare`, `systemd-run -S`), and when code the
///   command hands on reads the stdin it inherits (`bash -c bash <<< CODE`, `{ sh;
///   } <<< CODE`); `hash -p PATH` names PATH's program;
/// - a program word that is a path is named by its basename, wherever it points
///   (`./k` yields `k`; [`split`] reports a path outside the system's program
///   directories); a runner's shell option names its program (`su -s
///   /bin/zsh` yields `zsh`), and so does an assignment of a variable through
///   which programs start one (`SHELL=/bin/zsh script`, `BASH_CMDS[k]=/bin/ls`),
///   or parse one as a command line (`EDITOR='vim -n'`, `GIT_SSH_COMMAND=…`);
/// - commands given in other programs' options and settings are parsed as
///   command lines: git's command-valued settings (`-c alias.x='!CMD'`, `git
///   config alias.x '!CMD'`, `core.editor`, `core.sshCommand`, …) and command
///   options (`rebase --exec`, `bisect run`), `tar -I`/`--to-command`, `ssh -o
///   ProxyCommand=`, `scp -S`, `rsync -e`, sed's `e CMD`, `mapfile -C`,
///   `compgen -C` and the substitutions of `compgen -W`, `fc -e`; and so are
///   the substitutions in an array subscript that bash evaluates as
///   arithmetic or a variable name (`let 'a[$(CMD)]'`, `x='a[$(CMD)]'; echo
///   $((x))`);
/// - what a shell reads from a descriptor the command fills is parsed like a
///   here-string: `sh < <(echo CMD)`, `bash /dev/fd/3 3<<< CMD`, `sh <&3
///   3<<< CMD`; piped `printf`/`echo -e` output is decoded as they print it;
/// - a program word that is an expansion whose value the line shows is named
///   by that value too (`c=kubectl; $c`, `sh -c '"$0" x' kubectl`, `f(){ "$@";
///   }; f kubectl`, `$(echo kubectl)`), and stays dynamic in [`split`];
/// - text nested deeper than 32 levels is skipped, not searched ([`split`] reports it);
/// - "first seen" is by where a program's word starts: `echo $(whoami)` yields `echo`
///   first; programs of a re-parsed string sit where that string starts.
#[must_use]
pub fn programs(command: &str) -> Vec<String> {
    split(command).programs
}

/// What a command line runs, as far as its text tells: [`programs`], and the
/// programs it may run that the text cannot name.
///
/// A line is dynamic exactly when it may run a program its text does not show
/// ([`Reason`] says why): a program word or code that is an expansion or glob;
/// a program named by a path that may hold anything (relative, `/proc`, a
/// folder that is not a system program directory) or after `PATH` changes;
/// code from a file or configuration (a script, `make`, rc files, `BASH_ENV`,
/// `HOME`, git aliases and hooks, `ssh -F`, `fc`'s history); code in another
/// language (interpreters, awk's `system`, sed's `s///e`); code a command
/// prints into a shell or a descriptor filled elsewhere. Where the text shows
/// the program, [`programs`] names it instead. Common lines stay plain:
/// `/usr/bin/git status`, `sed 's/a/b/'`, `tar -czf a.tgz d`, `make --version`.
/// The full list is in `docs/splitter-dynamic.md`.
///
/// ```
/// let split = hookdex_shell::split("ls; $EDITOR notes.txt");
/// assert_eq!(split.programs, ["ls"]);
/// assert_eq!(split.dynamic[0].reason, hookdex_shell::Reason::Expansion);
/// assert_eq!(split.dynamic[0].text, "$EDITOR");
/// ```
#[must_use]
pub fn split(command: &str) -> Split {
    let (found, cut) = with_budget(command, |read| scan(read, 0, false, Fill::default()));
    split_of(command, found, cut)
}

/// [`split`] and [`commands`] of `command` from one reading of it: what a
/// caller that needs both pays once.
///
/// ```
/// let (split, commands) = hookdex_shell::read("sudo kubectl get pods; $EDITOR x");
/// assert_eq!(split, hookdex_shell::split("sudo kubectl get pods; $EDITOR x"));
/// assert_eq!(commands[0].args, ["get", "pods"]);
/// ```
#[must_use]
pub fn read(command: &str) -> (Split, Vec<Command>) {
    let (mut found, cut) = with_budget(command, |read| scan(read, 0, true, Fill::default()));
    let commands = std::mem::take(&mut found.commands)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    (split_of(command, found, cut), commands)
}

/// The [`Split`] of what a scan of `command` found (`cut` when the budget
/// cut the line short).
fn split_of(command: &str, mut found: Found<'_>, cut: bool) -> Split {
    if found.out_of_budget || cut {
        // What the budget cut short is why the rest is unknown: it comes first.
        found.dynamic.retain(|d| d.reason != Reason::TooDeep);
        found.dynamic.truncate(MAX_DYNAMIC - 1);
        found.dynamic.insert(
            0,
            Dynamic {
                reason: Reason::TooDeep,
                text: command.chars().take(40).collect(),
            },
        );
    }
    Split {
        programs: dedup(found.programs.into_iter().map(|(_, p)| p).collect()),
        dynamic: found.dynamic,
    }
}

/// Every simple command of `command` whose program the text names, in
/// source order and not deduplicated: the program as [`programs`] names it,
/// the words after it (unquoted; an expansion stays as written), which of
/// them the text cannot tell, and whether more may follow. A rule that
/// allows only some uses of a program reads its arguments from here, past
/// the wrappers and runners a pattern over the text would trip on. Every
/// program [`programs`] names has at least one command here.
///
/// ```
/// let commands = hookdex_shell::commands("sudo -n kubectl -n prod get pods | grep api");
/// assert_eq!(commands[0].program, "kubectl");
/// assert_eq!(commands[0].args, ["-n", "prod", "get", "pods"]);
/// assert_eq!(commands[1].program, "grep");
///
/// // `$ns` may split into several words, so the verb's index is unknown too.
/// let commands = hookdex_shell::commands("kubectl -n $ns get pods | xargs kubectl logs");
/// assert_eq!(commands[0].unknown, [1]);
/// assert!(!commands[0].more);
/// // xargs appends the words it reads.
/// assert_eq!((commands[2].program.as_str(), commands[2].more), ("kubectl", true));
/// ```
#[must_use]
pub fn commands(command: &str) -> Vec<Command> {
    with_budget(command, |read| scan(read, 0, true, Fill::default()))
        .0
        .commands
        .into_iter()
        .map(|(_, c)| c)
        .collect()
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

#[cfg(test)]
mod tests;
