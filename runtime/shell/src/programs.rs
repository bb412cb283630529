//! Programs and builtins that run commands no program word of the line names:
//! git's command-valued settings and aliases, tar's, ssh's and rsync's command
//! options, sed's `e`, awk's `system`, make's recipes, `run-parts`, the shell
//! builtins that run strings (`mapfile -C`, `compgen -C`/`-W`, `fc`), the
//! variables through which a line hands a command or a configuration to the
//! programs it runs (`EDITOR`, `GIT_SSH_COMMAND`, `SHELL`, `HOME`, `PATH`, …),
//! and the directories whose programs are what their names say. Each reading
//! is from the program's manual page or `--help`.

use std::borrow::Cow;
use std::ops::Range;

use crate::Reason;

/// What a program's arguments make it run beyond itself.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Runs {
    /// Bytes `range` of argument `word` (after quote removal) are a command line.
    Code { word: usize, range: Range<usize> },
    /// Argument `word` from byte `from` is an argument-position string bash
    /// expands (`compgen -W`): its substitutions run.
    Expanded { word: usize, from: usize },
    /// The arguments from `word` on are a command and its arguments (`git bisect run`).
    Argv { word: usize },
    /// Argument `word` from byte `from` is a command line bash appends words
    /// to (`mapfile -C`).
    Appended { word: usize, from: usize },
    /// A program the text does not show: from argument `word`, or the program itself.
    Hidden { word: Option<usize>, reason: Reason },
}

/// Whether `name`'s arguments can hold code or a command: words appended to
/// them (`xargs git`) may then run anything. The builtins that only assign a
/// variable (`read`, `printf -v`) or load one (`enable -f`) hold none.
pub(crate) fn takes_code(name: &str) -> bool {
    !matches!(name, "read" | "printf" | "getopts" | "enable")
}

/// A program's reading of its arguments (after quote removal; `unknown[k]`
/// says whether the text does not tell argument `k`).
type Reader = fn(&str, &[Cow<'_, str>], &[bool], &mut Vec<Runs>);

/// What `name` runs beyond itself, when it is one of the programs this module
/// knows; `words` gives its arguments, and whether the text tells each (an
/// expansion may add anything to a sed or awk program). They are only read
/// for those programs.
pub(crate) fn runs<'a>(
    name: &str,
    words: impl FnOnce() -> (Vec<Cow<'a, str>>, Vec<bool>),
) -> Option<Vec<Runs>> {
    let reader: Reader = match name {
        "git" => |_, args, _, out| git(args, out),
        "tar" | "gtar" => |_, args, _, out| tar(args, out),
        "ssh" | "scp" | "sftp" => |name, args, _, out| ssh(name, args, out),
        "rsync" => |_, args, _, out| rsync(args, out),
        "sed" | "gsed" => |_, args, unknown, out| sed(args, unknown, out),
        "awk" | "gawk" | "mawk" | "nawk" => |_, args, unknown, out| awk(args, unknown, out),
        "make" | "gmake" | "bmake" | "ninja" | "just" | "run-parts" => build,
        "read" | "printf" | "getopts" => assigns_path,
        "enable" => enable,
        "mapfile" | "readarray" => mapfile,
        "compgen" => compgen,
        "fc" => fc,
        "gdb" => gdb,
        "zip" => zip,
        "man" => man,
        "vim" | "vi" | "nvim" | "ex" | "view" | "vimdiff" | "emacs" => editor,
        _ => return None,
    };
    let (args, unknown) = words();
    let mut out = Vec::new();
    reader(name, &args, &unknown, &mut out);
    Some(out)
}

/// make runs the recipes and `$(shell …)` of a makefile (even `-n` runs `+`
/// lines and `$(shell)`), ninja and just the commands of theirs, unless only
/// asked for their version or help; run-parts runs every program in a folder,
/// unless it only lists them.
fn build(name: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    let runs = match name {
        "run-parts" => !args
            .iter()
            .any(|a| matches!(&**a, "--test" | "--list" | "--help" | "--version")),
        _ => !only_queries(args, &["-v", "--version", "-h", "--help"]),
    };
    if runs {
        out.push(hidden(None, Reason::File));
    }
}

/// `read PATH`, `printf -v PATH`, `mapfile PATH`: PATH assigned by another name
/// than `PATH=`.
fn assigns_path(_: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    if args.iter().any(|a| a == "PATH") {
        out.push(hidden(None, Reason::Path));
    }
}

/// `enable -f FILE NAME` loads a builtin from a shared object.
fn enable(_: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    let loads = args
        .iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('f'));
    if loads {
        out.push(hidden(None, Reason::File));
    }
}

/// `mapfile -C CODE`: bash runs CODE with the index and the line appended.
fn mapfile(name: &str, args: &[Cow<'_, str>], unknown: &[bool], out: &mut Vec<Runs>) {
    if let Some((word, from)) = option_value(args, b"dnOsucC", b'C') {
        out.push(Runs::Appended { word, from });
    }
    assigns_path(name, args, unknown, out);
}

/// `compgen -C CODE` runs CODE; `-W WORDS` expands WORDS, substitutions too.
fn compgen(_: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    let takes = b"AGWFCXPSoV";
    if let Some((word, from)) = option_value(args, takes, b'C') {
        out.push(from_byte(args, word, from));
    }
    if let Some((word, from)) = option_value(args, takes, b'W') {
        out.push(Runs::Expanded { word, from });
    }
}

/// gdb's own commands: `shell CMD`, `!CMD` and `pipe …| CMD` in `-ex`/`-iex`
/// run a shell command; `-x FILE` runs a file of gdb commands.
fn gdb(_: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    const EVAL: &[&str] = &["ex", "iex", "eval-command", "init-eval-command"];
    const FILE: &[&str] = &["x", "ix", "command", "init-command"];
    for (k, word) in args.iter().enumerate() {
        if word == "--args" || word == "-args" {
            return;
        }
        let Some(option) = word.strip_prefix('-').map(|w| w.trim_start_matches('-')) else {
            continue;
        };
        let (name, value) = match option.split_once('=') {
            Some((name, _)) => (name, Some((k, word.find('=').map_or(0, |e| e + 1)))),
            None => (option, (k + 1 < args.len()).then_some((k + 1, 0))),
        };
        let Some((w, at)) = value else {
            continue;
        };
        if FILE.contains(&name) {
            out.push(hidden(Some(w), Reason::File));
        } else if EVAL.contains(&name) {
            let command = args[w][at..].trim_start();
            let start = args[w].len() - command.len();
            let code = ["shell ", "!", "pipe ", "|"]
                .iter()
                .find_map(|p| command.strip_prefix(p).map(|_| start + p.len()));
            if let Some(from) = code {
                out.push(from_byte(args, w, from));
            }
        }
    }
}

/// `zip -TT CMD` / `--unzip-command CMD` runs CMD to test the archive.
fn zip(_: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    for (k, word) in args.iter().enumerate() {
        if let Some(value) = word.strip_prefix("--unzip-command=") {
            out.push(from_byte(args, k, word.len() - value.len()));
        } else if matches!(&**word, "-TT" | "--unzip-command") && k + 1 < args.len() {
            out.push(whole(args, k + 1));
        }
    }
}

/// `man -P PAGER` / `--pager=PAGER` and `-H BROWSER` / `--html=BROWSER` run
/// a command line.
fn man(_: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    for (k, word) in args.iter().enumerate() {
        let attached = ["--pager=", "--html="]
            .iter()
            .find_map(|p| word.strip_prefix(p).map(|_| p.len()))
            .or_else(|| (word.starts_with("-H") && word.len() > 2).then_some(2));
        if let Some(from) = attached {
            out.push(from_byte(args, k, from));
        } else if matches!(&**word, "-P" | "--pager") && k + 1 < args.len() {
            out.push(whole(args, k + 1));
        } else if let Some(pager) = word.strip_prefix("-P").filter(|p| !p.is_empty()) {
            out.push(from_byte(args, k, word.len() - pager.len()));
        }
    }
}

/// An editor given commands to run (`vim -c CMD`, `+CMD`, `--cmd`, `-S FILE`,
/// `emacs --eval`, `-l FILE`, `--script`) runs code in its own language, and
/// `!CMD` runs a shell command.
fn editor(name: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    let emacs = name == "emacs";
    for (k, word) in args.iter().enumerate() {
        let (value, from) = match &**word {
            "-c" | "--cmd" | "-S" if !emacs => (k + 1, 0),
            "--eval" | "-eval" | "-l" | "--load" | "--script" | "-f" | "--funcall" if emacs => {
                (k + 1, 0)
            }
            w if !emacs && w.starts_with('+') => (k, 1),
            w if emacs && (w.starts_with("--eval=") || w.starts_with("--load=")) => (k, 7),
            _ => continue,
        };
        let Some(text) = args.get(value) else {
            continue;
        };
        let command = text.get(from..).unwrap_or("");
        let command = command.strip_prefix(':').unwrap_or(command);
        match command.strip_prefix('!') {
            Some(code) => out.push(from_byte(args, value, text.len() - code.len())),
            None => out.push(hidden(Some(value), Reason::Interpreter)),
        }
    }
}

/// `fc` without `-l` runs commands from the shell's history, after the editor
/// of `-e` (or FCEDIT, EDITOR) has changed them; `-s` runs them as they are.
fn fc(_: &str, args: &[Cow<'_, str>], _: &[bool], out: &mut Vec<Runs>) {
    if let Some((word, from)) = option_value(args, b"e", b'e') {
        out.push(from_byte(args, word, from));
    }
    if !args.iter().any(|a| a.starts_with('-') && a.contains('l')) {
        out.push(hidden(None, Reason::File));
    }
}

fn hidden(word: Option<usize>, reason: Reason) -> Runs {
    Runs::Hidden { word, reason }
}

/// All of argument `word` is a command line.
fn whole(args: &[Cow<'_, str>], word: usize) -> Runs {
    from_byte(args, word, 0)
}

/// Argument `word` from byte `from` is a command line.
fn from_byte(args: &[Cow<'_, str>], word: usize, from: usize) -> Runs {
    Runs::Code {
        word,
        range: from..args[word].len(),
    }
}

/// Whether long option `name` (as written, without `--`) is `option`: GNU
/// getopt and git take any prefix that is not ambiguous (`--to-comm`).
fn long_is(name: &str, option: &str) -> bool {
    name == option || (name.len() >= 3 && option.starts_with(name))
}

/// Whether the arguments are only options that print and exit (`--version`).
fn only_queries(args: &[Cow<'_, str>], queries: &[&str]) -> bool {
    !args.is_empty() && args.iter().all(|a| queries.contains(&&**a))
}

/// Where the argument of short option `wanted` of a builtin whose options
/// taking an argument are `takes` is: the word, and the byte it starts at
/// (attached, or the next word).
fn option_value(args: &[Cow<'_, str>], takes: &[u8], wanted: u8) -> Option<(usize, usize)> {
    let mut j = 0;
    let mut found = None;
    while let Some(word) = args.get(j) {
        if word == "--" || !word.starts_with('-') || word.len() < 2 {
            break;
        }
        let flags = &word.as_bytes()[1..];
        let mut step = 1;
        if let Some(k) = flags.iter().position(|f| takes.contains(f)) {
            let attached = k + 1 < flags.len();
            if !attached {
                step = 2;
            }
            if flags[k] == wanted && (attached || j + 1 < args.len()) {
                found = Some(if attached { (j, k + 2) } else { (j + 1, 0) });
            }
        }
        j += step;
    }
    found
}

/// The directories whose programs are installed by the system: a program word
/// that is a path into one of them runs the program its basename names.
const PROGRAM_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/games",
    "/usr/local/games",
    "/usr/libexec",
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/snap/bin",
    "/opt/homebrew/bin",
    "/opt/homebrew/sbin",
    "/run/current-system/sw/bin",
];

/// Whether a program word with text `path` (it has a `/`) runs what its
/// basename says: its directory is one of the system's program directories.
/// A relative path (`./k`, `b/tool`), `/proc/…` or `/dev/fd/…`, or any other
/// directory may hold a renamed copy, a link or a `#!` script of anything.
pub(crate) fn system_path(path: &str) -> bool {
    path.rfind('/')
        .is_some_and(|k| PROGRAM_DIRS.contains(&&path[..k]))
}

/// How programs read a variable a line assigns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Variable {
    /// A command line a program runs through a shell (`EDITOR`, `GIT_SSH_COMMAND`).
    Command,
    /// The path of a program another one starts (`SHELL` for `script`,
    /// `screen`, `tmux`, `su`; `GIT_SSH`; the askpass helpers).
    Program,
    /// A file or folder of configuration or code programs load (`HOME` and so
    /// every rc file, `BASH_ENV`, `GIT_CONFIG_*`, `LD_PRELOAD`).
    Config,
    /// `PATH`: which program each name runs.
    Path,
    /// Nothing that runs.
    Plain,
}

/// Variables programs read a command line from, run through a shell.
const COMMAND_VARIABLES: &[&str] = &[
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "FCEDIT",
    "SUDO_EDITOR",
    "KUBE_EDITOR",
    "SYSTEMD_EDITOR",
    "SYSTEMD_PAGER",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "RSYNC_RSH",
    "RSYNC_CONNECT_PROG",
];

/// Variables programs read the path of a program to start from.
const PROGRAM_VARIABLES: &[&str] = &[
    "SHELL",
    "GIT_SSH",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
];

/// Variables that point programs at configuration or code they load.
const CONFIG_VARIABLES: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "ZDOTDIR",
    "BASH_ENV",
    "ENV",
    "GIT_DIR",
    "GIT_EXEC_PATH",
    "LD_PRELOAD",
    "LD_AUDIT",
    "TAR_OPTIONS",
    "NODE_OPTIONS",
    "PERL5OPT",
    "RUBYOPT",
];

/// How programs read variable `name`.
pub(crate) fn variable(name: &str) -> Variable {
    if COMMAND_VARIABLES.contains(&name) {
        Variable::Command
    } else if PROGRAM_VARIABLES.contains(&name) {
        Variable::Program
    } else if CONFIG_VARIABLES.contains(&name) || name.starts_with("GIT_CONFIG") {
        Variable::Config
    } else if name == "PATH" {
        Variable::Path
    } else {
        Variable::Plain
    }
}

/// Whether a line that runs git writes where git keeps hooks or its
/// configuration (`.git/hooks/`, `.git/config`): a hook or an alias written
/// there runs a command the text shows only as data.
pub(crate) fn writes_git_code(line: &str) -> bool {
    line.contains(".git/hooks") || line.contains(".git/config")
}

/// Whether a literal `PATH` value lists only the system's program directories.
pub(crate) fn system_search_path(value: &str) -> bool {
    value.split(':').all(|dir| PROGRAM_DIRS.contains(&dir))
}

// ---- git ----

/// git's commands (`git --list-cmds=main,others,nohelpers` of git 2.47, without
/// the ones that are separate programs on PATH): any other first operand is an
/// alias or a `git-NAME` program, which the text does not show.
const GIT_COMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archimport",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-store",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "fsck-objects",
    "gc",
    "get-tar-commit-id",
    "gitk",
    "grep",
    "gui",
    "hash-object",
    "help",
    "hook",
    "http-backend",
    "http-fetch",
    "http-push",
    "imap-send",
    "index-pack",
    "init",
    "init-db",
    "instaweb",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-octopus",
    "merge-one-file",
    "merge-ours",
    "merge-recursive",
    "merge-resolve",
    "merge-subtree",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "p4",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "repack",
    "replace",
    "replay",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "shell",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "svn",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// git's global options that take the next word.
const GIT_GLOBAL_ARG: &[&str] = &[
    "-C",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--list-cmds",
];

fn git(args: &[Cow<'_, str>], out: &mut Vec<Runs>) {
    let mut j = 0;
    while let Some(word) = args.get(j) {
        match &**word {
            "-c" => {
                if let Some(value) = args.get(j + 1) {
                    if let Some((key, _)) = value.split_once('=') {
                        git_setting(j + 1, key, value, key.len() + 1, out);
                    }
                }
                j += 2;
            }
            "--config-env" => {
                if let Some(value) = args.get(j + 1) {
                    git_env_setting(j + 1, value, out);
                }
                j += 2;
            }
            w if GIT_GLOBAL_ARG.contains(&w) => j += 2,
            w if w.starts_with("--config-env=") => {
                git_env_setting(j, &w["--config-env=".len()..], out);
                j += 1;
            }
            // git looks for its commands in that folder.
            // …or its config and hooks in that repository.
            w if w.starts_with("--exec-path=") || w.starts_with("--git-dir") => {
                out.push(hidden(Some(j), Reason::File));
                j += 1 + usize::from(w == "--git-dir");
            }
            w if w.starts_with('-') => j += 1,
            _ => break,
        }
    }
    let Some(command) = args.get(j) else {
        return;
    };
    if !GIT_COMMANDS.contains(&&**command) {
        return out.push(hidden(Some(j), Reason::File));
    }
    let rest = j + 1;
    // The `ext::` transport runs its command (`git ls-remote 'ext::CMD'`).
    for (k, arg) in args.iter().enumerate().skip(rest) {
        if let Some(url) = arg.strip_prefix("ext::") {
            out.push(Runs::Code {
                word: k,
                range: arg.len() - url.len()..arg.len(),
            });
        }
    }
    match &**command {
        "config" => git_config(args, rest, out),
        "rebase" => git_option_code(args, rest, &["-x", "--exec"], out),
        "difftool" => git_option_code(args, rest, &["-x", "--extcmd"], out),
        "clone" | "fetch" | "pull" | "ls-remote" => {
            git_option_code(args, rest, &["-u", "--upload-pack"], out);
        }
        "push" | "send-pack" => git_option_code(args, rest, &["--receive-pack", "--exec"], out),
        "archive" => git_option_code(args, rest, &["--exec"], out),
        "grep" => git_option_code(args, rest, &["-O", "--open-files-in-pager"], out),
        "daemon" => git_option_code(args, rest, &["--access-hook"], out),
        "send-email" => git_option_code(args, rest, &["--sendmail-cmd"], out),
        "filter-branch" => git_option_code(
            args,
            rest,
            &[
                "--setup",
                "--env-filter",
                "--tree-filter",
                "--index-filter",
                "--parent-filter",
                "--msg-filter",
                "--commit-filter",
                "--tag-name-filter",
            ],
            out,
        ),
        "bisect" if args.get(rest).is_some_and(|a| a == "run") && rest + 1 < args.len() => {
            out.push(Runs::Argv { word: rest + 1 });
        }
        "submodule" => {
            let foreach = (rest..args.len()).find(|&k| args[k] == "foreach");
            if let Some(k) = foreach {
                let code = (k + 1..args.len()).find(|&c| !args[c].starts_with("--"));
                if let Some(word) = code {
                    out.push(Runs::Argv { word });
                }
            }
        }
        _ => {}
    }
}

/// `--config-env=KEY=ENVVAR`: the value of a command-valued key comes from the environment.
fn git_env_setting(word: usize, setting: &str, out: &mut Vec<Runs>) {
    let key = setting.split('=').next().unwrap_or(setting);
    let mut found = Vec::new();
    git_setting(word, key, "!value", 0, &mut found);
    if !found.is_empty() {
        out.push(hidden(Some(word), Reason::Expansion));
    }
}

/// The options of a git command in `names` whose value is a command line
/// (`git rebase --exec CMD`), as `-x CMD`, `--exec CMD` or `--exec=CMD`.
fn git_option_code(args: &[Cow<'_, str>], from: usize, names: &[&str], out: &mut Vec<Runs>) {
    let mut k = from;
    while k < args.len() {
        let word = &args[k];
        if word == "--" {
            return;
        }
        let separate = |n: &&str| match (word.strip_prefix("--"), n.strip_prefix("--")) {
            (Some(long), Some(option)) => long_is(long, option),
            _ => *n == word,
        };
        if names.iter().any(separate) && k + 1 < args.len() {
            out.push(whole(args, k + 1));
            k += 2;
            continue;
        }
        let attached = names.iter().find_map(|n| match n.strip_prefix("--") {
            Some(option) => {
                let (name, _) = word.strip_prefix("--")?.split_once('=')?;
                long_is(name, option).then_some(name.len() + 3)
            }
            None => {
                let value = word.strip_prefix(n)?;
                (!value.is_empty() && !word.starts_with("--")).then_some(n.len())
            }
        });
        if let Some(from) = attached {
            out.push(Runs::Code {
                word: k,
                range: from..word.len(),
            });
        }
        k += 1;
    }
}

/// `git config [options] KEY VALUE` (or `git config set KEY VALUE`).
fn git_config(args: &[Cow<'_, str>], from: usize, out: &mut Vec<Runs>) {
    const TAKES: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment"];
    let mut operands = Vec::new();
    let mut k = from;
    while k < args.len() {
        let word = &args[k];
        if TAKES.contains(&&**word) {
            k += 2;
            continue;
        }
        if !word.starts_with('-') {
            operands.push(k);
        }
        k += 1;
    }
    if operands.first().is_some_and(|&k| args[k] == "set") {
        operands.remove(0);
    }
    if let [key, value, ..] = operands[..] {
        git_setting(value, &args[key], &args[value], 0, out);
    }
}

/// A git setting `key` whose value is the text of argument `word` from byte
/// `from`: a command line for the keys git runs as one, a folder or file of
/// hooks or configuration for the others that run code.
fn git_setting(word: usize, key: &str, text: &str, from: usize, out: &mut Vec<Runs>) {
    let key = key.to_ascii_lowercase();
    let section = key.split('.').next().unwrap_or("");
    let name = key.rsplit('.').next().unwrap_or("");
    let value = &text[from.min(text.len())..];
    let boolean = matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    );
    let code = |from: usize| Runs::Code {
        word,
        range: from..text.len(),
    };
    match (section, name) {
        // An alias starting with `!` is a shell command; any other names git's commands.
        ("alias", _) if value.starts_with('!') => out.push(code(from + 1)),
        ("credential", "helper") => match value.strip_prefix('!') {
            Some(_) => out.push(code(from + 1)),
            None if value.contains('/') => out.push(code(from)),
            // `git credential-NAME`.
            None if !value.is_empty() => out.push(hidden(Some(word), Reason::File)),
            None => {}
        },
        ("core", "editor" | "sshcommand" | "askpass" | "gitproxy")
        | ("diff", "external")
        | ("sequence", "editor")
        | ("gpg", "program")
        | ("uploadpack", "packobjectshook")
        | ("filter", "clean" | "smudge" | "process")
        | ("diff", "textconv" | "command")
        | ("merge", "driver")
        | ("mergetool" | "difftool", "cmd")
        | ("remote", "uploadpack" | "receivepack")
        | ("sendemail", "sendmailcmd" | "smtpserver")
            if !value.is_empty() =>
        {
            out.push(code(from));
        }
        ("core", "pager" | "fsmonitor") | ("pager", _) if !boolean => out.push(code(from)),
        ("core", "hookspath") | ("include" | "includeif", "path") => {
            out.push(hidden(Some(word), Reason::File));
        }
        _ => {}
    }
}

// ---- tar, ssh, rsync ----

/// GNU tar: `-I`/`--use-compress-program`, `--to-command`, `-F`/`--info-script`/
/// `--new-volume-script`, `--rsh-command` and `--checkpoint-action=exec=` run commands.
fn tar(args: &[Cow<'_, str>], out: &mut Vec<Runs>) {
    const SHORT_ARG: &[u8] = b"bCfFgHIKLNTVX";
    const SHORT_CODE: &[u8] = b"IF";
    const LONG_CODE: &[&str] = &[
        "use-compress-program",
        "to-command",
        "info-script",
        "new-volume-script",
        "rsh-command",
    ];
    let mut pending: Vec<u8> = Vec::new();
    let mut k = 0;
    while k < args.len() {
        let word = &args[k];
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, _)) => (n, Some(n.len() + 3)),
                None => (long, None),
            };
            let name = LONG_CODE
                .iter()
                .chain(&["checkpoint-action"])
                .find(|o| long_is(name, o))
                .copied()
                .unwrap_or(name);
            if name == "checkpoint-action" {
                let action = match value {
                    Some(at) => Some((k, at)),
                    None => (k + 1 < args.len()).then_some((k + 1, 0)),
                };
                if let Some((w, at)) = action {
                    if let Some(rest) = args[w][at..].strip_prefix("exec=") {
                        let start = args[w].len() - rest.len();
                        out.push(Runs::Code {
                            word: w,
                            range: start..args[w].len(),
                        });
                    }
                }
            } else if LONG_CODE.contains(&name) {
                match value {
                    Some(at) => out.push(Runs::Code {
                        word: k,
                        range: at..word.len(),
                    }),
                    None if k + 1 < args.len() => out.push(whole(args, k + 1)),
                    None => {}
                }
            }
            // Long options that take a value without `=` take the next word.
            let takes_next = value.is_none()
                && (LONG_CODE.contains(&name)
                    || matches!(
                        name,
                        "file" | "directory" | "files-from" | "exclude-from" | "checkpoint-action"
                    ));
            k += 1 + usize::from(takes_next);
            continue;
        }
        // Old style: a first word without a dash is a cluster whose options take
        // the following words in order.
        let old_style = k == 0 && !word.starts_with('-');
        if let Some(flags) = word.strip_prefix('-').or(old_style.then_some(&**word)) {
            let offset = word.len() - flags.len();
            for (i, f) in flags.bytes().enumerate() {
                if !SHORT_ARG.contains(&f) {
                    continue;
                }
                if !old_style && i + 1 < flags.len() {
                    if SHORT_CODE.contains(&f) {
                        out.push(Runs::Code {
                            word: k,
                            range: offset + i + 1..word.len(),
                        });
                    }
                    break;
                }
                pending.push(f);
            }
            k += 1;
            // The options waiting for a value take the next words.
            for f in pending.drain(..) {
                if k < args.len() && SHORT_CODE.contains(&f) {
                    out.push(whole(args, k));
                }
                k += 1;
            }
            continue;
        }
        k += 1;
    }
}

/// ssh, scp and sftp: `-o ProxyCommand=…`/`LocalCommand`/`KnownHostsCommand`
/// run local commands, scp's and sftp's `-S PROGRAM` (and sftp's `-D`) start a
/// local program, and `-F FILE` reads options, these among them, from a file.
fn ssh(name: &str, args: &[Cow<'_, str>], out: &mut Vec<Runs>) {
    let takes: &[u8] = match name {
        "ssh" => b"BbcDEeFIiJLlmOoPpQRSWw",
        "scp" => b"cDFiJloPSX",
        _ => b"BbcDFiJloPRSX",
    };
    let mut k = 0;
    while let Some(word) = args.get(k) {
        if word == "--" || !word.starts_with('-') || word.len() < 2 {
            // ssh's first operand is the host; scp's and sftp's options may not follow.
            break;
        }
        let flags = &word[1..];
        let Some(i) = flags.bytes().position(|f| takes.contains(&f)) else {
            k += 1;
            continue;
        };
        let (w, at) = if i + 1 < flags.len() {
            (k, i + 2)
        } else {
            (k + 1, 0)
        };
        k = w + 1;
        let Some(value) = args.get(w) else {
            break;
        };
        match flags.as_bytes()[i] {
            b'o' => ssh_option(w, value, at, out),
            // A config file's options, and an sftp batch file's `!command` lines.
            f @ (b'F' | b'b')
                if (f == b'F' || name == "sftp")
                    && !matches!(&value[at..], "none" | "/dev/null") =>
            {
                out.push(hidden(Some(w), Reason::File));
            }
            b'S' | b'D' if name != "ssh" => out.push(Runs::Code {
                word: w,
                range: at..value.len(),
            }),
            _ => {}
        }
    }
}

/// An ssh `-o` option: `Key=Value` or `Key Value`, the key in any case.
fn ssh_option(word: usize, text: &str, at: usize, out: &mut Vec<Runs>) {
    let option = &text[at..];
    let key_end = option
        .find(|c: char| c == '=' || c.is_whitespace())
        .unwrap_or(option.len());
    let key = option[..key_end].to_ascii_lowercase();
    if key == "include" {
        return out.push(hidden(Some(word), Reason::File));
    }
    if !matches!(
        key.as_str(),
        "proxycommand" | "localcommand" | "knownhostscommand"
    ) {
        return;
    }
    let value_start = option[key_end..]
        .find(|c: char| c != '=' && !c.is_whitespace())
        .map_or(option.len(), |v| key_end + v);
    if option[value_start..].eq_ignore_ascii_case("none") {
        return;
    }
    out.push(Runs::Code {
        word,
        range: at + value_start..text.len(),
    });
}

/// rsync's `-e`/`--rsh` names the remote shell program it starts locally.
fn rsync(args: &[Cow<'_, str>], out: &mut Vec<Runs>) {
    for (k, word) in args.iter().enumerate() {
        let long = word.strip_prefix("--");
        if let Some(long) = long.filter(|l| long_is(l.split('=').next().unwrap_or(l), "rsh")) {
            match long.split_once('=') {
                Some((name, _)) => out.push(Runs::Code {
                    word: k,
                    range: name.len() + 3..word.len(),
                }),
                None if k + 1 < args.len() => out.push(whole(args, k + 1)),
                None => {}
            }
        } else if let Some(flags) = word.strip_prefix('-').filter(|f| !f.starts_with('-')) {
            // The first option taking a value ends the cluster.
            match flags.bytes().position(|f| b"BefMT@".contains(&f)) {
                Some(i) if flags.as_bytes()[i] == b'e' => match i + 1 < flags.len() {
                    true => out.push(Runs::Code {
                        word: k,
                        range: i + 2..word.len(),
                    }),
                    false if k + 1 < args.len() => out.push(whole(args, k + 1)),
                    false => {}
                },
                _ => {}
            }
        }
    }
}

// ---- sed, awk ----

/// GNU sed: the `e` command runs a shell command (`e COMMAND`, or the pattern
/// space with none), the `s///e` flag runs the pattern space, and `-f` reads
/// the script from a file; `--sandbox` refuses them all.
fn sed(args: &[Cow<'_, str>], unknown: &[bool], out: &mut Vec<Runs>) {
    let sandbox = |a: &Cow<'_, str>| a.strip_prefix("--").is_some_and(|l| long_is(l, "sandbox"));
    if args.iter().any(sandbox) {
        return;
    }
    let mut scripts = Vec::new();
    let mut k = 0;
    let mut operand_script = true;
    while k < args.len() {
        let word = &args[k];
        if word == "--" {
            k += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, _)) => (n, Some(n.len() + 3)),
                None => (long, None),
            };
            let name = ["expression", "file", "line-length"]
                .into_iter()
                .find(|o| long_is(name, o))
                .unwrap_or(name);
            match name {
                "expression" => {
                    operand_script = false;
                    match value {
                        Some(at) => scripts.push((k, at)),
                        None if k + 1 < args.len() => scripts.push((k + 1, 0)),
                        None => {}
                    }
                    k += usize::from(value.is_none());
                }
                "file" => return out.push(hidden(Some(k), Reason::File)),
                "line-length" => k += usize::from(value.is_none()),
                _ => {}
            }
            k += 1;
            continue;
        }
        let Some(flags) = word.strip_prefix('-').filter(|f| !f.is_empty()) else {
            if operand_script {
                scripts.push((k, 0));
                operand_script = false;
            }
            k += 1;
            continue;
        };
        match flags.bytes().position(|f| matches!(f, b'e' | b'f' | b'l')) {
            Some(i) => {
                let attached = i + 1 < flags.len();
                match flags.as_bytes()[i] {
                    b'f' => return out.push(hidden(Some(k), Reason::File)),
                    b'e' => {
                        operand_script = false;
                        match attached {
                            true => scripts.push((k, i + 2)),
                            false if k + 1 < args.len() => scripts.push((k + 1, 0)),
                            false => {}
                        }
                    }
                    _ => {}
                }
                k += 1 + usize::from(!attached);
            }
            None => k += 1,
        }
    }
    if operand_script && k < args.len() {
        scripts.push((k, 0));
    }
    for (word, at) in scripts {
        match unknown.get(word) {
            Some(true) => out.push(hidden(Some(word), Reason::Expansion)),
            _ => sed_script(word, &args[word], at, out),
        }
    }
}

/// Finds the `e` commands and `s///e` flags of a sed script, argument `word`
/// from byte `at`; a script it cannot read is reported as hidden.
fn sed_script(word: usize, text: &str, at: usize, out: &mut Vec<Runs>) {
    let b = text.as_bytes();
    let mut i = at;
    let to_line_end = |i: usize| text[i..].find('\n').map_or(b.len(), |k| i + k);
    let unreadable = |out: &mut Vec<Runs>| out.push(hidden(Some(word), Reason::Interpreter));
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b';') {
            i += 1;
        }
        if i >= b.len() {
            return;
        }
        // Addresses: `N`, `$`, `/re/`, `\cREc`, `first~step`, `addr,addr`, `addr,+N`, then `!`.
        for _ in 0..2 {
            match b[i] {
                b'0'..=b'9' | b'$' | b'~' | b'+' => {
                    while i < b.len() && matches!(b[i], b'0'..=b'9' | b'$' | b'~' | b'+') {
                        i += 1;
                    }
                }
                b'/' | b'\\' => {
                    let delimiter = if b[i] == b'\\' {
                        i += 1;
                        b.get(i).copied()
                    } else {
                        Some(b'/')
                    };
                    let Some(d) = delimiter.filter(u8::is_ascii) else {
                        return unreadable(out);
                    };
                    match sed_part(b, i + 1, d) {
                        Some(end) => i = end,
                        None => return unreadable(out),
                    }
                    while i < b.len() && matches!(b[i], b'I' | b'M') {
                        i += 1;
                    }
                }
                _ => break,
            }
            if b.get(i) != Some(&b',') {
                break;
            }
            i += 1;
        }
        while i < b.len() && (b[i] == b' ' || b[i] == b'!') {
            i += 1;
        }
        let Some(&command) = b.get(i) else {
            return;
        };
        i += 1;
        match command {
            b'{' | b'}' | b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p'
            | b'P' | b'x' | b'z' | b'F' => {}
            b'#' | b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W' => {
                // Text or a file name to the end of the line; `a\` continues.
                i = to_line_end(i);
                while i > 0 && b[i - 1] == b'\\' && i < b.len() {
                    i = to_line_end(i + 1);
                }
            }
            b':' | b'b' | b't' | b'T' | b'v' => {
                while i < b.len() && !matches!(b[i], b';' | b'\n') {
                    i += 1;
                }
            }
            b'q' | b'Q' | b'l' | b'L' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b' ') {
                    i += 1;
                }
            }
            b'e' => {
                let end = to_line_end(i);
                let start = i + text[i..end].len() - text[i..end].trim_start().len();
                if start < end {
                    out.push(Runs::Code {
                        word,
                        range: start..end,
                    });
                } else {
                    out.push(hidden(Some(word), Reason::Interpreter));
                }
                i = end;
            }
            b's' | b'y' => {
                // A delimiter past ASCII is not read (nor is it one in a sed).
                let Some(&d) = b.get(i).filter(|d| d.is_ascii()) else {
                    return unreadable(out);
                };
                let Some(end) = sed_part(b, i + 1, d).and_then(|e| sed_part(b, e, d)) else {
                    return unreadable(out);
                };
                i = end;
                if command == b's' {
                    let flags_end = text[i..]
                        .find(|c: char| !(c.is_ascii_alphanumeric()))
                        .map_or(b.len(), |k| i + k);
                    let flags = &text[i..flags_end];
                    if let Some(w) = flags.find('w') {
                        // `w FILE` takes the rest of the line.
                        if flags[..w].contains('e') {
                            out.push(hidden(Some(word), Reason::Interpreter));
                        }
                        i = to_line_end(i);
                        continue;
                    }
                    if flags.contains('e') {
                        out.push(hidden(Some(word), Reason::Interpreter));
                    }
                    i = flags_end;
                }
            }
            _ => return unreadable(out),
        }
    }
}

/// The end (past the delimiter) of a sed regex or replacement starting at `i`.
fn sed_part(b: &[u8], mut i: usize, delimiter: u8) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == delimiter => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// awk: a program that calls `system()` or pipes to or from a command (`|`,
/// `|&`) runs commands, and `-f`/`-E`/`-i` read the program from a file.
fn awk(args: &[Cow<'_, str>], unknown: &[bool], out: &mut Vec<Runs>) {
    let mut programs = Vec::new();
    let mut operand = true;
    let mut k = 0;
    while k < args.len() {
        let word = &args[k];
        if word == "--" {
            k += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, _)) => (n, Some(n.len() + 3)),
                None => (long, None),
            };
            let name = ["file", "exec", "include", "load", "source"]
                .into_iter()
                .find(|o| long_is(name, o))
                .unwrap_or(name);
            match name {
                "file" | "exec" | "include" | "load" => {
                    return out.push(hidden(Some(k), Reason::File))
                }
                "source" => {
                    operand = false;
                    match value {
                        Some(at) => programs.push((k, at)),
                        None if k + 1 < args.len() => programs.push((k + 1, 0)),
                        None => {}
                    }
                }
                _ => {}
            }
            let takes = matches!(name, "source" | "field-separator" | "assign");
            k += 1 + usize::from(value.is_none() && takes);
            continue;
        }
        let Some(flags) = word.strip_prefix('-').filter(|f| !f.is_empty()) else {
            break;
        };
        match flags.as_bytes()[0] {
            b'f' | b'E' | b'i' | b'l' => return out.push(hidden(Some(k), Reason::File)),
            b'e' => {
                operand = false;
                match flags.len() > 1 {
                    true => programs.push((k, 2)),
                    false if k + 1 < args.len() => programs.push((k + 1, 0)),
                    false => {}
                }
                k += 1 + usize::from(flags.len() == 1);
            }
            b'F' | b'v' => k += 1 + usize::from(flags.len() == 1),
            _ => k += 1,
        }
    }
    if operand && k < args.len() {
        programs.push((k, 0));
    }
    for (word, at) in programs {
        let program = args[word][at..].replace("||", "");
        if unknown.get(word) == Some(&true) {
            out.push(hidden(Some(word), Reason::Expansion));
        } else if program.contains("system") || program.contains('|') {
            out.push(hidden(Some(word), Reason::Interpreter));
        }
    }
}
