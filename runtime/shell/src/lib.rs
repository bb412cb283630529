//! Splits a shell command line into the programs its simple commands run, and
//! quotes words for a POSIX shell.
//!
//! Owns the hand-written, quote- and operator-aware scanner behind `bash.<cli>`
//! matchers; it reads text only, it never expands or runs anything. What the text
//! cannot name (`$cmd x`, `python -c …`) [`split`] reports as dynamic, and the words
//! it cannot tell (`-n $x`, `xargs kubectl`) [`commands`] marks; the option grammars
//! of command runners (`xargs`, `flock`, `su -c`, …) are in `runners.rs`.
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

use std::borrow::Cow;
use std::cell::Cell;

use programs::{Runs, Variable};
use std::rc::Rc;

mod programs;
mod runners;

/// Nesting limit for substitutions, quotes and re-parsed strings; deeper text is skipped.
const MAX_DEPTH: u32 = 32;

/// How much text one line's scan reads in all, as a multiple of the line's length
/// (re-parsed strings and each walk over a word's text count again), plus
/// [`BUDGET_SLACK`] bytes; past it the rest is reported too deep. This keeps the
/// work linear in the line's length whatever nests in it.
const BUDGET_FACTOR: usize = 8;

/// The bytes every line may read beyond [`BUDGET_FACTOR`] times its length.
const BUDGET_SLACK: usize = 1 << 20;

/// The longest line read whole (1 MiB): a longer one is read with this length's
/// budget, from its start, and the rest reported too deep, so the hook's own work
/// stays under a second on any payload (a shell command that long is a file written
/// through the shell, and still runs under the exec guard).
pub const MAX_LINE: usize = 1 << 20;

/// Runners one simple command may chain (`nice xargs timeout …`); more are too deep.
const MAX_RUNNERS: u32 = 16;

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
    let mut found = with_budget(command, |read| scan(read, 0, false, Fill::default()));
    if found.out_of_budget {
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
        .commands
        .into_iter()
        .map(|(_, c)| c)
        .collect()
}

/// One simple command: what [`commands`] returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    /// The program, lowercased basename, as [`programs`] names it.
    pub program: String,
    /// The words after the program word, quotes removed.
    pub args: Vec<String>,
    /// Indices into `args` of the words whose text the line does not tell: an
    /// expansion (`$x`, `${x}`, `$(…)`, backticks; unquoted it may split into
    /// several words or none, and `"$@"` or `"${a[@]}"` do even quoted), a glob
    /// (`*`, `?`, `[…]`), a brace expansion (`{a,b}`, `{1..3}`), a tilde (`~`,
    /// `~-`), or a string a runner replaces (`find -exec … {}`, `xargs -I R`,
    /// parallel's `{}`). Once one is unknown, the words after it may sit at other
    /// positions when the command runs.
    pub unknown: Vec<usize>,
    /// The command may get arguments the text does not show, after `args`: it
    /// runs under `xargs` or `parallel`, as an alias's value, as a `hash -p`
    /// name, or from a brace expansion cut short.
    pub more: bool,
    /// The files its redirections write (`>`, `>>`, `>|`, `&>`, `<>`, and
    /// `>&` to a name rather than a descriptor), quotes removed, in order.
    /// A redirection with no command (`> file`) is a command whose
    /// `program` is empty.
    pub writes: Vec<String>,
}

/// The programs of a command line ([`split`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// Programs named by the text, as [`programs`] returns them.
    pub programs: Vec<String>,
    /// Programs the text cannot name, in the order found, distinct, at most
    /// [`MAX_DYNAMIC`]; empty for most lines.
    pub dynamic: Vec<Dynamic>,
}

impl Split {
    /// Whether the line may run a program the text cannot name.
    #[must_use]
    pub fn is_dynamic(&self) -> bool {
        !self.dynamic.is_empty()
    }
}

/// How many distinct dynamic programs [`split`] reports; more are dropped.
pub const MAX_DYNAMIC: usize = 16;

/// A program a command line may run that its text cannot name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dynamic {
    /// Why it cannot be named.
    pub reason: Reason,
    /// The source text it comes from (a word, or the start of a long text).
    pub text: String,
}

/// Why a program cannot be named from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// The program word is an expansion: `$cmd x`, `"${tool}" x`, `$(which git) x`,
    /// and so `eval "$x"` or `bash -c "$x"`; or bash or a runner pastes text into
    /// code, which may then hold any command: `eval "kubectl get $x"`, `bash <<EOF`
    /// with `$x` in the body, `xargs -I{} sh -c 'kubectl get {}'`.
    Expansion,
    /// The program word is a glob (`kube?tl`, `/usr/bin/kube*`), or has braces too
    /// long to expand.
    Glob,
    /// Code handed to another interpreter: `python -c`, `perl -e`, `node -e`, `ruby -e`,
    /// a script (`python3 p.py`) or stdin (`python3 -`, `perl <<< …`, `… | tclsh`);
    /// an awk program that calls `system()` or pipes to a command; a sed script
    /// with `s///e` or an `e` that runs the pattern space.
    Interpreter,
    /// A shell runs code a command prints: `curl x | sh`, `source <(curl x)`,
    /// `bash <(curl x)` (a piped literal `echo`/`printf` is read instead); or
    /// words a runner appends name the program or its code (`xargs sh -c`,
    /// `xargs sudo`, an alias `e=eval`).
    Stdin,
    /// Text nested deeper than the scanner follows.
    TooDeep,
    /// The program word is a path the text cannot tell runs what its basename
    /// says: relative (`./k`, `b/tool`), under `/proc` or `/dev/fd`, or in a
    /// folder that is not one of the system's program directories (a renamed
    /// copy, a link or a `#!` script may sit there); or the line changes which
    /// program a name runs (`PATH=…`, `BASH_CMDS[k]=$x`). The basename is still
    /// named.
    Path,
    /// Code comes from a file or configuration the line does not show: a
    /// script file (`bash s`, `. ./s`), a makefile, `run-parts`, the rc files
    /// a shell reads (`bash -l`, `bash -i`, `--rcfile`, `BASH_ENV=`, `HOME=`),
    /// a stdin redirected from a file (`bash < s`), git aliases and hooks
    /// (`git NAME` that is not a git command, `core.hooksPath`), `ssh -F`,
    /// the shell history `fc` runs.
    File,
}

impl Reason {
    /// A short lowercase name: `expansion`, `glob`, `interpreter`, `stdin`, `too-deep`,
    /// `path`, `file`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Expansion => "expansion",
            Reason::Glob => "glob",
            Reason::Interpreter => "interpreter",
            Reason::Stdin => "stdin",
            Reason::TooDeep => "too-deep",
            Reason::Path => "path",
            Reason::File => "file",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for Dynamic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason, self.text)
    }
}

/// What one scan found.
struct Found<'a> {
    /// Programs, each with the source offset of the word naming it, in source order.
    programs: Vec<(usize, Cow<'a, str>)>,
    dynamic: Vec<Dynamic>,
    /// Simple commands with their words, when asked for.
    commands: Vec<(usize, Command)>,
    /// A shell in it reads its code from the stdin it inherits (`bash -c 'bash'`).
    reads_stdin: bool,
    /// The line's budget ran out: some of its text was not read.
    out_of_budget: bool,
}

/// What is done to a command's words beyond what its text shows: runners and
/// aliases append words, `find -exec` and `xargs -I` replace strings in them.
/// It holds for the rest of a simple command, and for the code it hands on.
#[derive(Clone, Default)]
struct Fill {
    more: bool,
    replace: runners::Replace,
    /// The literal values of variables the code handed on starts with
    /// ([`Scanner::vars`]).
    vars: Rc<Vec<(String, String)>>,
}

thread_local! {
    /// What the scan of the line being split may still read ([`BUDGET_FACTOR`]).
    static BUDGET: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Runs `scan` over `line`, or over its first [`MAX_LINE`] bytes (cut after a
/// blank, so no word is cut in two) with the rest reported out of budget, with the
/// budget of what is read ([`BUDGET_FACTOR`]).
fn with_budget<'a>(line: &'a str, scan: impl FnOnce(&'a str) -> Found<'a>) -> Found<'a> {
    let read = if line.len() > MAX_LINE {
        let head = &line.as_bytes()[..MAX_LINE];
        let cut = head
            .iter()
            .rposition(|b| b" \t\n;".contains(b))
            .unwrap_or_else(|| {
                (0..=MAX_LINE)
                    .rev()
                    .find(|&i| line.is_char_boundary(i))
                    .unwrap_or(0)
            });
        &line[..cut]
    } else {
        line
    };
    let outer = BUDGET.replace(read.len() * BUDGET_FACTOR + BUDGET_SLACK);
    let mut found = scan(read);
    BUDGET.set(outer);
    found.out_of_budget |= read.len() < line.len();
    found
}

/// Takes `n` bytes of reading from the budget; false once it is spent.
fn charge(n: usize) -> bool {
    BUDGET.with(|b| match b.get().checked_sub(n) {
        Some(left) if left > 0 => {
            b.set(left);
            true
        }
        _ => {
            b.set(0);
            false
        }
    })
}

/// Whether the budget is spent: what is left of the line is too deep.
fn out_of_budget() -> bool {
    BUDGET.get() == 0
}

/// Scans `src` as a command line: the programs it runs, in source order, and
/// with `commands` set, each simple command with its words.
fn scan(src: &str, depth: u32, commands: bool, fill: Fill) -> Found<'_> {
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// A word, as the byte range of its source text.
    Word(usize, usize),
    /// A redirection operator; the next word is its target.
    Redir(Redir),
    /// `;` `&` `&&` `||` or a newline.
    Sep,
    /// `|` or `|&`.
    Pipe,
    /// `;;` `;&` `;;&`: the end of a case item.
    CaseEnd,
    Open,
    Close,
    Eof,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Redir {
    /// A file or fd target, which the command writes or only reads.
    Target { writes: bool },
    /// `<<<`: the target is a here-string.
    HereString,
    /// `<<` or `<<-`: the target is a delimiter and a body follows the next newline.
    HereDoc { strip_tabs: bool },
}

/// A heredoc whose body follows the next newline.
struct Heredoc<'a> {
    delimiter: Cow<'a, str>,
    /// `<<-`: leading tabs are stripped from the body and delimiter lines.
    strip_tabs: bool,
    /// The delimiter is quoted, so the body is not expanded.
    quoted: bool,
    /// The body is code for the shell reading it (`sh <<EOF`).
    code: bool,
}

/// What a command's redirection puts on a descriptor it reads: source ranges.
#[derive(Clone, Copy)]
enum Input {
    /// `<<< WORD`.
    HereString(usize, usize),
    /// `<< DELIM`: the heredoc at this index of the pending ones.
    HereDoc(usize),
    /// `< FILE`, a process substitution too.
    File(usize, usize),
    /// `<& FD`.
    Dup(usize, usize),
}

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
enum Next<'a> {
    /// The wrapped program is the word at this index (none if past the end).
    Word(usize),
    /// `env -S`: the wrapped command is this string, then the words from this index.
    Line(Cow<'a, str>, usize),
    /// `command -v`: nothing is run.
    Query,
}

struct Scanner<'a> {
    src: &'a str,
    pos: usize,
    /// End of the text being scanned; a backtick substitution narrows it.
    end: usize,
    depth: u32,
    /// Heredocs waiting for the next newline, in order.
    heredocs: Vec<Heredoc<'a>>,
    /// A newline ended the line that opened `heredocs`: their bodies come next.
    heredocs_due: bool,
    /// Word ranges of the simple commands being read; nested commands stack above outer ones.
    words: Vec<(usize, usize)>,
    /// Programs found, each with the source offset of the word naming it.
    out: Vec<(usize, Cow<'a, str>)>,
    /// Programs the text cannot name.
    dynamic: Vec<Dynamic>,
    /// Set by a `|`: the literal text the command before it prints, if known.
    pipe_in: Option<Option<String>>,
    /// The literal text the last simple command prints (`echo`, `printf`), if known.
    last_output: Option<String>,
    /// Set by `resolve` when the program is a shell reading its code from stdin: its word.
    stdin_code: Option<usize>,
    /// A shell read its code from the stdin this scan inherits.
    reads_stdin: bool,
    /// Code the command being resolved hands on reads the command's stdin.
    inner_stdin: bool,
    /// Set by `resolve` when the program is a shell whose script is a
    /// descriptor other than stdin (`bash /dev/fd/3`): its word and the descriptor.
    fd_code: Option<(usize, u32)>,
    /// The line evaluates something as arithmetic or a variable name.
    arith: bool,
    /// The line declares an integer variable (`declare -i`): an assignment's
    /// value may be evaluated as arithmetic.
    integer: bool,
    /// Where the last `$[…]` judged ends ([`Scanner::dollar`]).
    bracket_done: usize,
    /// Code in array subscripts of word values, with where each word starts
    /// ([`Scanner::subscript`]).
    subscripts: Vec<(usize, String)>,
    /// Variables (and positional parameters, `0`, `1`, …) with the literal
    /// value the line last gave them, at most [`MAX_VARS`].
    vars: Rc<Vec<(String, String)>>,
    /// Functions the line defines.
    functions: Vec<String>,
    /// A program word is a positional parameter (`"$@"`, `$1`): a function
    /// the line defines may run its arguments.
    runs_args: bool,
    /// What the runner or alias this text runs under does to its words.
    fill: Fill,
    /// Simple commands with their words ([`commands`]); `None` when not asked for.
    commands: Option<Vec<(usize, Command)>>,
    /// Where the nested text lookaheads skipped ends ([`skip_nested`]).
    skips: Skips,
    /// Whether the text names git's hooks or config, read once per scan
    /// ([`programs::writes_git_code`]) so a line of many `git` commands stays linear.
    git_code: Option<bool>,
}

impl<'a> Scanner<'a> {
    fn new(src: &'a str, depth: u32, commands: bool, mut fill: Fill) -> Scanner<'a> {
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

    fn byte(&self, i: usize) -> u8 {
        if i < self.end {
            self.src.as_bytes()[i]
        } else {
            0
        }
    }

    /// The index after nested text from `from` that `closers` end ([`skip_nested`]).
    fn skip(&mut self, from: usize, closers: &[u8]) -> usize {
        // A memo holds only for text that runs to the end of the source.
        let memo = (self.end == self.src.len()).then_some(&mut self.skips);
        skip_nested(self.src.as_bytes(), from, self.end, closers, memo)
    }

    /// Runs `body` one level deeper, or skips to `closers` when too deep.
    fn guarded(&mut self, closers: &[u8], body: impl FnOnce(&mut Self)) {
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

    /// Reads commands until the end, or until an unmatched `)` when `in_paren`.
    fn list(&mut self, in_paren: bool) {
        let mut subshells = 0usize;
        let mut pending = None;
        loop {
            let tok = match pending.take() {
                Some(tok) => tok,
                None if self.arith_command() => continue,
                None => self.token(),
            };
            pending = match tok {
                Tok::Eof => return,
                Tok::Close if subshells > 0 => {
                    subshells -= 1;
                    None
                }
                Tok::Close if in_paren => return,
                Tok::Open => {
                    subshells += 1;
                    None
                }
                Tok::Pipe => {
                    self.pipe_in = Some(self.last_output.take());
                    None
                }
                Tok::Close | Tok::Sep => {
                    self.pipe_in = None;
                    self.last_output = None;
                    None
                }
                Tok::CaseEnd => self.case_patterns(),
                Tok::Word(s, e) => self.command_start(s, e),
                Tok::Redir(_) => self.simple_command(tok),
            };
        }
    }

    /// Handles a word in command position: a keyword or the start of a simple command.
    fn command_start(&mut self, s: usize, e: usize) -> Option<Tok> {
        self.last_output = None;
        if self.src[s..e].starts_with("!(") && charge(e - s) {
            // With extglob off, as `bash -c` starts, `!(…)` is `!` and a subshell; with
            // it on, a glob naming the program.
            self.dynamic_word_text(s, e, Reason::Glob);
            self.pos = s + 1;
            return None;
        }
        match &self.src[s..e] {
            "if" | "then" | "elif" | "else" | "fi" | "do" | "done" | "while" | "until" | "!"
            | "{" | "}" | "esac" | "in" | "]]" => None,
            "time" if self.arith_command() => None,
            "time" => {
                self.skip_flag("-p");
                self.skip_flag("--");
                None
            }
            "case" => self.case_head(),
            "for" | "select" => self.for_head(),
            "function" => self.function_head(),
            "coproc" => self.coproc_head(),
            "[[" => {
                // An arithmetic comparison (`-eq` …) evaluates its operands' values, and
                // `-v` the subscript of the name it tests.
                let mut last: Option<bool> = None;
                let (mut compare, mut test_var) = (false, false);
                loop {
                    match self.token() {
                        Tok::Word(s, e) if &self.src[s..e] == "]]" => return None,
                        Tok::Word(s, e) => {
                            self.subscript(s, e);
                            let word = &self.src[s..e];
                            let arith =
                                matches!(word, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge");
                            let literal = is_number(word);
                            if (arith && last.is_some_and(|l| !l))
                                || (compare && !literal)
                                || (test_var && word.contains('['))
                            {
                                self.arith_names(s, e);
                            }
                            (compare, test_var) = (arith, word == "-v");
                            last = Some(literal);
                        }
                        Tok::Eof => return Some(Tok::Eof),
                        _ => last = None,
                    }
                }
            }
            _ => self.simple_command(Tok::Word(s, e)),
        }
    }

    /// Records the source text `s..e` as a program the text cannot name.
    fn dynamic_word_text(&mut self, s: usize, e: usize, reason: Reason) {
        let text = self.src[s..e].to_owned();
        self.add_dynamic(Dynamic { reason, text });
    }

    /// Steps over `flag` if it is the next word.
    fn skip_flag(&mut self, flag: &str) {
        self.skip_blanks();
        let at = self.pos + flag.len();
        if self.src[self.pos..self.end].starts_with(flag)
            && matches!(self.byte(at), 0 | b' ' | b'\t' | b'\n' | b';' | b'&' | b'|')
        {
            self.pos = at;
        }
    }

    /// `case WORD in`: the subject is not a program.
    fn case_head(&mut self) -> Option<Tok> {
        let subject = self.token();
        if !matches!(subject, Tok::Word(..)) {
            return Some(subject);
        }
        loop {
            match self.token() {
                Tok::Sep => {}
                Tok::Word(s, e) if &self.src[s..e] == "in" => return self.case_patterns(),
                tok => return Some(tok),
            }
        }
    }

    /// Skips case patterns up to their `)`, or the closing `esac`.
    fn case_patterns(&mut self) -> Option<Tok> {
        loop {
            match self.token() {
                Tok::Word(s, e) if &self.src[s..e] == "esac" => return None,
                Tok::Sep | Tok::Pipe | Tok::Open | Tok::Word(..) => {}
                Tok::Close => return None,
                tok => return Some(tok),
            }
        }
    }

    /// `for NAME in WORDS`: the name and the words are not programs.
    fn for_head(&mut self) -> Option<Tok> {
        if self.arith_command() {
            return None;
        }
        let name = self.token();
        if !matches!(name, Tok::Word(..)) {
            return Some(name);
        }
        let mut tok = self.token();
        while tok == Tok::Sep {
            tok = self.token();
        }
        match tok {
            Tok::Word(s, e) if &self.src[s..e] == "in" => loop {
                match self.token() {
                    Tok::Word(..) => {}
                    tok => return Some(tok),
                }
            },
            tok => Some(tok),
        }
    }

    /// `function NAME [()]`: the name is not a program.
    fn function_head(&mut self) -> Option<Tok> {
        match self.token() {
            Tok::Word(s, e) => {
                self.defines(s, e);
                self.function_parens()
            }
            tok => Some(tok),
        }
    }

    /// Consumes the `()` after a function name, if there.
    fn function_parens(&mut self) -> Option<Tok> {
        self.skip_blanks();
        if self.byte(self.pos) != b'(' {
            return None;
        }
        self.pos += 1;
        match self.token() {
            Tok::Close => None,
            tok => Some(tok),
        }
    }

    /// `coproc [NAME] command`: a name is only there when a compound command follows it.
    fn coproc_head(&mut self) -> Option<Tok> {
        let tok = self.token();
        if let Tok::Word(..) = tok {
            self.skip_blanks();
            let next = self.byte(self.pos + 1);
            match self.byte(self.pos) {
                b'(' => return None,
                b'{' if matches!(next, b' ' | b'\t' | b'\n') => return None,
                _ => {}
            }
        }
        Some(tok)
    }

    /// `(( … ))` in command position: arithmetic, whose substitutions still run. Like
    /// bash, `((` is arithmetic only when its parentheses close with `))`; otherwise it
    /// opens two subshells (`((a) )`).
    fn arith_command(&mut self) -> bool {
        self.read_heredocs();
        self.skip_blanks();
        if self.byte(self.pos) != b'(' || self.byte(self.pos + 1) != b'(' {
            return false;
        }
        let close = self.skip(self.pos + 2, b"A");
        if self.byte(close) != b')' {
            return false;
        }
        self.pos += 2;
        self.guarded(b"AA", Self::arith_body);
        true
    }

    /// Reads the words and redirections of one simple command, then resolves its program.
    fn simple_command(&mut self, first: Tok) -> Option<Tok> {
        let base = self.words.len();
        let pipe_in = self.pipe_in.take();
        let mut inputs = Vec::new();
        let mut writes = Vec::new();
        let mut tok = first;
        loop {
            match tok {
                Tok::Word(s, e) => {
                    if self.words.len() == base && !is_assignment(&self.src[s..e]) {
                        self.skip_blanks();
                        if self.byte(self.pos) == b'(' {
                            // `name () body`: a function definition, not a program.
                            self.defines(s, e);
                            return self.function_parens();
                        }
                    }
                    self.words.push((s, e));
                }
                Tok::Redir(kind) => match (self.input_fd(kind), self.token()) {
                    (fd, Tok::Word(s, e)) => match kind {
                        Redir::HereDoc { strip_tabs } => {
                            let raw = &self.src[s..e];
                            let delimiter = cook(raw).text;
                            inputs.push((fd, Input::HereDoc(self.heredocs.len())));
                            self.heredocs.push(Heredoc {
                                // A line continuation is gone before the word is read.
                                quoted: raw.replace("\\\n", "").contains(['\\', '\'', '"']),
                                delimiter,
                                strip_tabs,
                                code: false,
                            });
                        }
                        Redir::HereString => {
                            self.subscript(s, e);
                            inputs.push((fd, Input::HereString(s, e)));
                        }
                        Redir::Target { writes: true } => {
                            let target = cook(&self.src[s..e]).text;
                            // `>&2`, `2>&-`: a descriptor, not a file.
                            if !target.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                                writes.push(target.into_owned());
                            }
                        }
                        Redir::Target { writes: false } => {
                            let dup = self.src[..self.words_end(s)].ends_with("<&");
                            let input = if dup {
                                Input::Dup(s, e)
                            } else {
                                Input::File(s, e)
                            };
                            inputs.push((fd, input));
                        }
                    },
                    (_, other) => {
                        tok = other;
                        break;
                    }
                },
                _ => break,
            }
            tok = self.token();
        }
        self.inner_stdin = false;
        let recorded = self.commands.as_ref().map_or(0, Vec::len);
        self.resolve(base);
        if !writes.is_empty() {
            self.attach_writes(recorded, base, writes);
        }
        let n = self.words.len();
        let program = (base..n).find(|&k| !is_assignment(self.raw(k)));
        let reader = match self.stdin_code.take() {
            Some(shell) => Some(Some(shell)),
            // `bash -c 'bash' <<< CODE`: the inner shell reads the here-string.
            None if std::mem::take(&mut self.inner_stdin) => program.map(Some),
            // `{ bash; } <<< CODE`: the redirection after a compound command feeds
            // whatever shell in it read stdin.
            None if base == n && self.reads_stdin => Some(None),
            None => None,
        };
        if let Some(shell) = reader {
            self.feed_stdin(shell, &inputs, pipe_in);
        }
        if let Some((shell, fd)) = self.fd_code.take() {
            self.feed_fd(shell, fd, &inputs);
        }
        // Only a pipe passes the output on.
        self.last_output = if tok == Tok::Pipe {
            self.literal_output(base)
        } else {
            None
        };
        self.words.truncate(base);
        Some(tok)
    }

    /// The descriptor an input redirection operator just read applies to: its
    /// number, 0 without one, `u32::MAX` for a `{name}` one the text does not tell.
    fn input_fd(&self, kind: Redir) -> u32 {
        let len = match kind {
            Redir::HereString => 3,
            Redir::HereDoc { strip_tabs } => 2 + usize::from(strip_tabs),
            Redir::Target { writes: true } => return 1,
            Redir::Target { writes: false } => {
                1 + usize::from(self.src[..self.pos].ends_with("<&"))
            }
        };
        let head = &self.src.as_bytes()[..self.pos.saturating_sub(len)];
        if head.last() == Some(&b'}') {
            return u32::MAX;
        }
        let digits = head.iter().rev().take_while(|b| b.is_ascii_digit()).count();
        let before = head.len() - digits;
        // `x2<f` is the word `x2`, then `<f`.
        if digits == 0 || (before > 0 && !b" \t\n;&|(".contains(&head[before - 1])) {
            return 0;
        }
        std::str::from_utf8(&head[before..])
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(u32::MAX)
    }

    /// Where the operator before a target starting at `s` ends: `s` past blanks back.
    fn words_end(&self, s: usize) -> usize {
        self.src[..s].trim_end_matches([' ', '\t']).len()
    }

    /// A shell reads its code from stdin: the code is what the command's
    /// redirections put on descriptor 0 ([`Scanner::fd_input`]), or what the
    /// command before `|` prints; without any, the stdin this scan inherits.
    /// `shell` is the word of the reading command, if it has one.
    fn feed_stdin(
        &mut self,
        shell: Option<usize>,
        inputs: &[(u32, Input)],
        pipe_in: Option<Option<String>>,
    ) {
        if inputs.iter().any(|&(fd, _)| fd == 0) {
            let at = shell.map_or(self.pos, |w| self.words[w].0);
            return self.fd_input(at, 0, inputs);
        }
        match (pipe_in, shell) {
            (Some(Some(text)), Some(shell)) => {
                self.reparse(self.words[shell].0, Cow::Owned(text));
            }
            (Some(None), Some(shell)) => self.add_dynamic(Dynamic {
                reason: Reason::Stdin,
                text: format!("| {}", self.raw(shell)),
            }),
            (None, _) => self.reads_stdin = true,
            (Some(_), None) => {}
        }
    }

    /// A shell reads its script from descriptor `fd` (`bash /dev/fd/3`).
    fn feed_fd(&mut self, shell: usize, fd: u32, inputs: &[(u32, Input)]) {
        self.fd_input(self.words[shell].0, fd, inputs);
    }

    /// Code a shell at offset `at` reads from descriptor `fd`, by the last of
    /// the command's redirections of it: a here-string's text, a heredoc's body
    /// (scanned when read), a process substitution that prints literal text
    /// (`< <(echo ls)`); a file holds code the line does not show, and a
    /// descriptor the command does not fill (`<&3` after `exec 3<<< …`) is
    /// filled elsewhere.
    fn fd_input(&mut self, at: usize, fd: u32, inputs: &[(u32, Input)]) {
        let mut fd = fd;
        // Each step follows a dup; a chain longer than a few is not followed.
        for _ in 0..MAX_VARS {
            let Some((_, input)) = inputs.iter().rev().find(|(f, _)| *f == fd) else {
                break;
            };
            match *input {
                Input::HereString(s, e) => {
                    self.spliced(&self.src[s..e]);
                    return self.reparse(s, cook(&self.src[s..e]).text);
                }
                Input::HereDoc(i) => {
                    // Read already (a body that came before the command ended) or not.
                    if let Some(doc) = self.heredocs.get_mut(i) {
                        doc.code = true;
                    }
                    return;
                }
                Input::File(s, e) => {
                    let raw = &self.src[s..e];
                    let printed = raw
                        .strip_prefix("<(")
                        .and_then(|r| r.strip_suffix(')'))
                        .and_then(printed);
                    match printed {
                        Some(code) => return self.reparse(s, Cow::Owned(code)),
                        None if cook(raw).text == "/dev/null" => return,
                        None => {
                            let reason = match raw.starts_with("<(") {
                                true => Reason::Stdin,
                                false => Reason::File,
                            };
                            let text = format!("< {raw}");
                            return self.add_dynamic(Dynamic { reason, text });
                        }
                    }
                }
                Input::Dup(s, e) => match cook(&self.src[s..e]).text.parse::<u32>() {
                    Ok(next) if next != fd => fd = next,
                    _ => break,
                },
            }
        }
        let text: String = self.src[at..].chars().take(40).collect();
        self.add_dynamic(Dynamic {
            reason: Reason::Stdin,
            text,
        });
    }

    /// The text a simple command from word `base` prints when it is `echo` or
    /// `printf` with literal arguments, decoded as they do ([`printf_text`],
    /// `echo -e`); `None` when that cannot be told.
    fn literal_output(&self, base: usize) -> Option<String> {
        let n = self.words.len();
        let first = (base..n).find(|&i| !is_assignment(self.raw(i)))?;
        let name = self.text(first);
        if !matches!(&*name, "echo" | "printf") {
            return None;
        }
        let mut args = Vec::with_capacity(n - first - 1);
        for i in first + 1..n {
            let word = cook(self.raw(i));
            if word.expanded_to > 0 || word_unknown(self.raw(i)) {
                return None;
            }
            args.push(word.text);
        }
        if name == "printf" {
            return match args.first().map(|a| &**a) {
                // `-v NAME` assigns the text instead of printing it.
                Some("-v") => Some(String::new()),
                Some("--") => printf_text(&args[1..]),
                _ => printf_text(&args),
            };
        }
        let is_option = |a: &str| {
            a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b"neE".contains(&b))
        };
        let skip = args.iter().take_while(|a| is_option(a)).count();
        let escapes = args[..skip]
            .iter()
            .flat_map(|a| a.bytes())
            .rfind(|b| b"eE".contains(b))
            == Some(b'e');
        let text = args[skip..].join(" ");
        if !escapes {
            return Some(text);
        }
        let mut out = Vec::new();
        decode_escapes(text.as_bytes(), Escapes::Echo, &mut out);
        Some(String::from_utf8_lossy(&out).into_owned())
    }

    fn raw(&self, i: usize) -> &'a str {
        let (s, e) = self.words[i];
        &self.src[s..e]
    }

    fn text(&self, i: usize) -> Cow<'a, str> {
        cook(self.raw(i)).text
    }

    /// Records the simple command whose program `program` is named by word
    /// `word`, with the words after it, when commands are asked for.
    fn record(&mut self, word: usize, program: &str) {
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
    fn command(&self, program: &str) -> Command {
        Command {
            program: program.to_string(),
            more: self.fill.more,
            ..Command::default()
        }
    }

    /// Adds the word whose source is `raw` to the arguments of `command`.
    fn push_arg(&self, command: &mut Command, raw: &str) {
        let text = cook(raw).text;
        if word_unknown(raw) || self.fill.replace.matches(&text) {
            command.unknown.push(command.args.len());
        }
        command.args.push(text.into_owned());
    }

    /// Gives the files a simple command's redirections write to the first
    /// command recorded for it since `recorded` (the outermost: `sudo tee`
    /// gives `tee` them), or to a command of no program when it has none.
    fn attach_writes(&mut self, recorded: usize, base: usize, writes: Vec<String>) {
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
    fn add_command(&mut self, at: usize, command: Command) {
        if let Some(commands) = &mut self.commands {
            commands.push((at, command));
        }
    }

    fn push(&mut self, at: usize, program: Cow<'a, str>) {
        match self.out.last_mut() {
            Some((last_at, last)) if *last == program => *last_at = at.min(*last_at),
            _ => self.out.push((at, program)),
        }
    }

    /// Finds the program of the words from `base`: past assignments and wrappers.
    fn resolve(&mut self, base: usize) {
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

    /// An assignment in word `k` that a shell or another program reads as code:
    /// the prompts and `PROMPT_COMMAND` are expanded or run (`PS4` with `set
    /// -x`), `BASH_FUNC_f%%` defines the function `f` in a child bash,
    /// `BASH_ALIASES[k]` an alias, `BASH_CMDS[k]` the program `k` runs, and the
    /// variables of [`programs::variable`] hand a command (`EDITOR`), a program
    /// (`SHELL`), a configuration (`HOME`, `BASH_ENV`) or a search path (`PATH`)
    /// to the programs the line runs.
    fn code_assignment(&mut self, k: usize) {
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
    fn program_value(&mut self, k: usize, from: usize) {
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
    fn alias_value(&mut self, k: usize, eq: usize) {
        let mut fill = self.fill.clone();
        fill.more = true;
        self.spliced(self.raw(k));
        self.reparse_with(self.words[k].0, tail(self.text(k), eq + 1), fill);
    }

    /// Resolves the words from `from` as a simple command stacked above this one.
    fn stacked(&mut self, from: usize) {
        let top = self.words.len();
        self.words.extend_from_within(from..top);
        self.resolve(top);
        self.unstack(from, top);
    }

    /// Drops the words stacked at `top` as copies of those from `from`; a shell
    /// among them that reads stdin or a descriptor is the word it copies.
    fn unstack(&mut self, from: usize, top: usize) {
        let copied = |w: usize| if w >= top { from + (w - top) } else { w };
        self.stdin_code = self.stdin_code.map(copied);
        self.fd_code = self.fd_code.map(|(w, fd)| (copied(w), fd));
        self.words.truncate(top);
    }

    /// Function `name` (source `s..e`) is defined on the line.
    fn defines(&mut self, s: usize, e: usize) {
        if self.functions.len() < MAX_VARS {
            self.functions.push(self.src[s..e].to_owned());
        }
    }

    /// Assignment `k` sets its variable to its value when the text tells it
    /// (`c=kubectl`, `t=$'a\x20b'`, `d=$c` of a known `c`); otherwise the
    /// value is forgotten.
    fn assign(&mut self, k: usize) {
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
    fn positional(&mut self, from: usize) {
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
    fn known_value(&self, raw: &str) -> Option<String> {
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

    /// A word whose value holds an array subscript with a command substitution
    /// (`'a[$(cmd)0]'`): bash runs it when it evaluates the value as arithmetic
    /// or as a variable name (`let`, `(( ))`, `[[ -v ]]`, `printf -v`, …), so
    /// it is kept until the scan knows whether the line does.
    fn subscript(&mut self, s: usize, e: usize) {
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
    fn arith_subscripts(&mut self) {
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

    /// Skips options from `j`: short ones taking an argument are in `short_arg`, long
    /// ones (without `=`) in `long_arg`. Returns the index of the first operand.
    fn options(&self, mut j: usize, short_arg: &[u8], long_arg: &[&str]) -> usize {
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
    fn sudo_options(&self, j: usize) -> usize {
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
    fn env_options(&self, mut j: usize) -> Next<'a> {
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
    fn command_options(&self, mut j: usize) -> Next<'a> {
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
    fn runner(&mut self, name: &str, j: usize) -> Option<usize> {
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
    fn program_arguments(&mut self, name: &str, j: usize) -> bool {
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

    /// Scans `code`, the text of word `k` bash hands on as code, after what bash
    /// splices into it.
    fn code_word(&mut self, k: usize, code: Cow<'a, str>) {
        self.spliced(self.raw(k));
        self.reparse(self.words[k].0, code);
    }

    /// Code from the word whose source is `raw` holds, as text, the values of
    /// the expansions bash performs in it and what a runner replaces in it: any
    /// command may be spliced in (`x='a; kubectl delete x'; eval "kubectl get
    /// $x"`, `xargs -I{} sh -c 'kubectl get {}'`), so each is dynamic.
    fn spliced(&mut self, raw: &str) {
        self.spliced_text(expansions(raw, false));
        if self.fill.replace.splices(&cook(raw).text) {
            self.add_dynamic(Dynamic {
                reason: Reason::Expansion,
                text: raw.to_owned(),
            });
        }
    }

    /// Records each of `expansions`, spliced into code, as dynamic.
    fn spliced_text(&mut self, expansions: Vec<&str>) {
        for text in expansions {
            self.add_dynamic(Dynamic {
                reason: Reason::Expansion,
                text: text.to_owned(),
            });
        }
    }

    /// Scans `line`, found at offset `at`, as a command line of its own, one level
    /// deeper, under the fill in effect.
    fn reparse(&mut self, at: usize, line: Cow<'a, str>) {
        let fill = self.fill.clone();
        self.reparse_with(at, line, fill);
    }

    /// [`Scanner::reparse`] under `fill`.
    fn reparse_with(&mut self, at: usize, line: Cow<'a, str>, fill: Fill) {
        self.merge_scan(at, line, fill, false);
    }

    /// Scans `text`, found at offset `at`, as words in an argument's place
    /// (`compgen -W WORDS`, an array subscript): only its substitutions run.
    fn argument_code(&mut self, at: usize, text: Cow<'a, str>) {
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

    /// Records a program the text cannot name, once, up to [`MAX_DYNAMIC`].
    fn add_dynamic(&mut self, d: Dynamic) {
        if self.dynamic.len() < MAX_DYNAMIC && !self.dynamic.contains(&d) {
            self.dynamic.push(d);
        }
    }

    /// Records the text from `from`, nested too deep to follow (once per scan).
    fn too_deep(&mut self, from: usize) {
        if self.dynamic.iter().any(|d| d.reason == Reason::TooDeep) {
            return;
        }
        let text: String = self.src[from..self.end].chars().take(40).collect();
        self.add_dynamic(Dynamic {
            reason: Reason::TooDeep,
            text,
        });
    }

    /// The program named by word `i`: its basename, or the words its braces
    /// expand to.
    fn program_word(&self, i: usize) -> Name<'a> {
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

    /// Records word `i` as a program the text cannot name.
    fn dynamic_word(&mut self, i: usize, reason: Reason) {
        let text = self.raw(i).to_owned();
        self.add_dynamic(Dynamic { reason, text });
    }

    // ---- tokens ----

    /// Skips blanks and line continuations.
    fn skip_blanks(&mut self) {
        loop {
            match self.byte(self.pos) {
                b' ' | b'\t' => self.pos += 1,
                b'\\' if self.byte(self.pos + 1) == b'\n' => self.pos += 2,
                _ => return,
            }
        }
    }

    fn token(&mut self) -> Tok {
        if out_of_budget() {
            self.too_deep(self.pos.min(self.end));
            self.pos = self.end;
            return Tok::Eof;
        }
        self.read_heredocs();
        loop {
            self.skip_blanks();
            if self.pos >= self.end {
                return Tok::Eof;
            }
            let next = self.byte(self.pos + 1);
            let (len, tok) = match self.byte(self.pos) {
                b'#' => {
                    self.pos = self.line_end();
                    continue;
                }
                b'\n' => {
                    self.pos += 1;
                    self.heredocs_due = !self.heredocs.is_empty();
                    return Tok::Sep;
                }
                b';' if next == b';' && self.byte(self.pos + 2) == b'&' => (3, Tok::CaseEnd),
                b';' if next == b';' || next == b'&' => (2, Tok::CaseEnd),
                b'&' if next == b'>' && self.byte(self.pos + 2) == b'>' => {
                    (3, Tok::Redir(Redir::Target { writes: true }))
                }
                b'&' if next == b'>' => (2, Tok::Redir(Redir::Target { writes: true })),
                b'|' if next == b'&' => (2, Tok::Pipe),
                b'&' | b'|' if next == b'&' || next == b'|' => (2, Tok::Sep),
                b'|' => (1, Tok::Pipe),
                b';' | b'&' => (1, Tok::Sep),
                b'(' => (1, Tok::Open),
                b')' => (1, Tok::Close),
                b'<' | b'>' if next == b'(' => return self.word_token(),
                b'<' | b'>' => return self.redirection(),
                b'0'..=b'9' | b'{' => match self.io_number_end() {
                    Some(end) => {
                        self.pos = end;
                        return self.redirection();
                    }
                    None => return self.word_token(),
                },
                _ => return self.word_token(),
            };
            self.pos += len;
            return tok;
        }
    }

    fn line_end(&self) -> usize {
        self.src[self.pos..self.end]
            .find('\n')
            .map_or(self.end, |k| self.pos + k)
    }

    /// End of an fd prefix (`2` in `2>&1`, `{fd}` in `{fd}>f`) directly followed by `<` or `>`.
    fn io_number_end(&self) -> Option<usize> {
        let b = self.src.as_bytes();
        let mut i = self.pos;
        if b[i] == b'{' {
            i += 1;
            while i < self.end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == self.pos + 1 || self.byte(i) != b'}' {
                return None;
            }
            i += 1;
        } else {
            while i < self.end && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        matches!(self.byte(i), b'<' | b'>').then_some(i)
    }

    fn redirection(&mut self) -> Tok {
        let (c, next, after) = (
            self.byte(self.pos),
            self.byte(self.pos + 1),
            self.byte(self.pos + 2),
        );
        let (len, kind) = match (c, next, after) {
            (b'<', b'<', b'<') => (3, Redir::HereString),
            (b'<', b'<', b'-') => (3, Redir::HereDoc { strip_tabs: true }),
            (b'<', b'<', _) => (2, Redir::HereDoc { strip_tabs: false }),
            (b'<', b'&', _) => (2, Redir::Target { writes: false }),
            (b'<', b'>', _) | (b'>', b'>' | b'&' | b'|', _) => (2, Redir::Target { writes: true }),
            _ => (1, Redir::Target { writes: c == b'>' }),
        };
        self.pos += len;
        Tok::Redir(kind)
    }

    fn word_token(&mut self) -> Tok {
        let start = self.pos;
        self.word();
        Tok::Word(start, self.pos)
    }

    /// Reads the bodies of the heredocs opened on the line just ended, once the
    /// command that opened them is resolved (it decides whether a body is code).
    fn read_heredocs(&mut self) {
        if !std::mem::take(&mut self.heredocs_due) {
            return;
        }
        let mut docs = std::mem::take(&mut self.heredocs);
        for doc in &docs {
            let start = self.pos;
            let mut body_end = self.end;
            while self.pos < self.end {
                let line_end = self.line_end();
                let mut line = &self.src[self.pos..line_end];
                let line_start = self.pos;
                self.pos = (line_end + 1).min(self.end);
                if doc.strip_tabs {
                    line = line.trim_start_matches('\t');
                }
                if line == &*doc.delimiter {
                    body_end = line_start;
                    break;
                }
            }
            let after = self.pos;
            // The reading shell expands an unquoted body before running it as code.
            if !doc.quoted {
                self.heredoc_substitutions(start, body_end);
            }
            if doc.code {
                let body = &self.src[start..body_end];
                if !doc.quoted {
                    self.spliced_text(expansions(body, true));
                }
                self.reparse(start, Cow::Borrowed(body));
            }
            self.pos = after;
        }
        docs.clear();
        self.heredocs = docs;
    }

    /// Scans the substitutions of an unquoted heredoc's body, which bash runs.
    fn heredoc_substitutions(&mut self, start: usize, end: usize) {
        let outer = std::mem::replace(&mut self.end, end);
        self.pos = start;
        while self.pos < self.end {
            match self.byte(self.pos) {
                b'\\' => self.pos += 2,
                b'`' => self.backticks(),
                b'$' => self.dollar(true),
                _ => self.pos += 1,
            }
        }
        self.end = outer;
    }

    // ---- words ----

    /// Advances over one word, scanning the commands substituted inside it.
    fn word(&mut self) {
        let start = self.pos;
        while self.pos < self.end {
            match self.byte(self.pos) {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' => return,
                b'<' | b'>' if self.pos == start && self.byte(self.pos + 1) == b'(' => {
                    self.pos += 2;
                    self.guarded(b")", |s| s.nested_list(true));
                }
                b'<' | b'>' => return,
                b'(' => {
                    let before = &self.src[start..self.pos];
                    if before.ends_with('=') && is_assignment(before) {
                        self.pos += 1;
                        self.guarded(b")", Self::array);
                    } else if before.ends_with(['@', '!', '?', '+', '*']) {
                        // An extglob pattern such as `@(a|b)`.
                        self.pos += 1;
                        self.guarded(b"A", Self::pattern_group);
                    } else {
                        return;
                    }
                }
                _ => self.word_piece(false),
            }
        }
    }

    /// Steps over one piece of a word at the cursor: an escape, a quoted
    /// string, a substitution, or a plain byte.
    fn word_piece(&mut self, in_double_quotes: bool) {
        match self.byte(self.pos) {
            b'\\' => self.pos = (self.pos + 2).min(self.end),
            b'\'' if !in_double_quotes => self.single_quoted(),
            b'"' => {
                self.pos += 1;
                self.guarded(b"\"", Self::double_quoted);
            }
            b'`' => self.backticks(),
            b'$' => self.dollar(in_double_quotes),
            _ => self.pos += 1,
        }
    }

    /// The elements of `name=( … )`, after the `(`.
    fn array(&mut self) {
        loop {
            self.skip_blanks();
            match self.byte(self.pos) {
                _ if self.pos >= self.end => return,
                b')' => {
                    self.pos += 1;
                    return;
                }
                b'\n' => self.pos += 1,
                b'#' => self.pos = self.line_end(),
                _ => {
                    let before = self.pos;
                    self.word();
                    if self.pos == before {
                        // A stray operator: step over it.
                        self.pos += 1;
                    }
                }
            }
        }
    }

    fn single_quoted(&mut self) {
        self.pos = self.src[self.pos + 1..self.end]
            .find('\'')
            .map_or(self.end, |k| self.pos + k + 2);
    }

    /// The rest of a double-quoted string, after its `"`.
    fn double_quoted(&mut self) {
        while self.pos < self.end {
            match self.byte(self.pos) {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => self.pos = (self.pos + 2).min(self.end),
                b'`' => self.backticks(),
                b'$' => self.dollar(true),
                _ => self.pos += 1,
            }
        }
    }

    /// A `$` form: substitution, arithmetic, parameter expansion or `$'…'`.
    fn dollar(&mut self, in_double_quotes: bool) {
        match self.byte(self.pos + 1) {
            b'(' => {
                self.pos += 2;
                self.guarded(b")", Self::substitution);
            }
            b'{' => {
                self.pos += 2;
                self.guarded(b"}", |s| s.parameter(in_double_quotes));
            }
            b'\'' if !in_double_quotes => {
                self.pos += 2;
                while self.pos < self.end {
                    match self.byte(self.pos) {
                        b'\'' => break,
                        b'\\' => self.pos += 2,
                        _ => self.pos += 1,
                    }
                }
                self.pos = (self.pos + 1).min(self.end);
            }
            b'[' => {
                // `$[…]`: old arithmetic; its substitutions are scanned as the word goes on.
                // One inside another was judged with it.
                let at = self.pos;
                if at >= self.bracket_done {
                    self.arith = true;
                    match bracket_end(&self.src[at + 1..self.end]) {
                        Some(close) => {
                            self.bracket_done = at + 1 + close;
                            let inner = cook(&self.src[at + 2..at + 1 + close]).text;
                            self.arith_text(at, &inner);
                        }
                        None => {
                            self.bracket_done = self.end;
                            self.dynamic_word_text(at, at + 2, Reason::Expansion);
                        }
                    }
                }
                self.pos += 1;
            }
            _ => self.pos += 1,
        }
    }

    /// A command list nested in a word (`$(…)`, `<(…)`, backticks): a newline in it
    /// does not start the bodies of the heredocs opened before it on the line (bash
    /// reads them after the line's own newline), and the heredocs it opens but does
    /// not end wait for that newline too.
    fn nested_list(&mut self, in_paren: bool) {
        let outer = std::mem::take(&mut self.heredocs);
        let due = std::mem::take(&mut self.heredocs_due);
        self.list(in_paren);
        let inner = std::mem::replace(&mut self.heredocs, outer);
        self.heredocs.extend(inner);
        self.heredocs_due = due;
    }

    /// The rest of `$( … )` or `$(( … ))`, after the `$(`.
    fn substitution(&mut self) {
        // Like bash, `$((` is arithmetic only when its parentheses close with `))`.
        if self.byte(self.pos) == b'(' && {
            let close = self.skip(self.pos + 1, b"A");
            self.byte(close) == b')'
        } {
            self.pos += 1;
            self.arith_body();
        } else {
            self.nested_list(true);
        }
    }

    /// The rest of `${ … }`, whose default values may hold substitutions. Inside
    /// double quotes bash still matches `'…'` as a span there (its `$(…)` still run)
    /// and reads `$'…'`. An operator that evaluates text (`${x@P}`, an offset
    /// `${x:i}`, an indirection `${!x}`) makes the line dynamic.
    fn parameter(&mut self, in_double_quotes: bool) {
        let start = self.pos;
        while self.pos < self.end {
            match (self.byte(self.pos), self.byte(self.pos + 1)) {
                (b'}', _) => {
                    self.pos += 1;
                    let inner = &self.src[start..self.pos - 1];
                    if parameter_evaluates(inner) {
                        self.dynamic_word_text(start - 2, self.pos, Reason::Expansion);
                    }
                    // `${a[k]}`: the subscript is arithmetic.
                    if let Some(sub) = name_subscript(inner.trim_start_matches(['#', '!'])) {
                        let sub = cook(sub).text;
                        self.arith_text(start - 2, &sub);
                    }
                    return;
                }
                (b'\'', _) if in_double_quotes => {
                    self.pos += 1;
                    while self.pos < self.end && self.byte(self.pos) != b'\'' {
                        match self.byte(self.pos) {
                            b'`' | b'$' => self.word_piece(true),
                            _ => self.pos += 1,
                        }
                    }
                    self.pos = (self.pos + 1).min(self.end);
                }
                (b'$', b'\'') => self.word_piece(false),
                _ => self.word_piece(in_double_quotes),
            }
        }
    }

    /// The rest of an extglob group (`@(a|b)`), after its `(`: up to the `)` closing it.
    fn pattern_group(&mut self) {
        let mut parens = 0usize;
        while self.pos < self.end {
            match self.byte(self.pos) {
                b'(' => parens += 1,
                b')' if parens == 0 => {
                    self.pos += 1;
                    return;
                }
                b')' => parens -= 1,
                _ => {
                    self.word_piece(false);
                    continue;
                }
            }
            self.pos += 1;
        }
    }

    /// The rest of an arithmetic expression, up to the `))` closing it.
    fn arith_body(&mut self) {
        let start = self.pos;
        let mut parens = 0usize;
        let mut names = false;
        while self.pos < self.end {
            let before = if self.pos > start {
                self.byte(self.pos - 1)
            } else {
                b' '
            };
            match self.byte(self.pos) {
                b'(' => {
                    parens += 1;
                    self.pos += 1;
                }
                b')' if parens > 0 => {
                    parens -= 1;
                    self.pos += 1;
                }
                b')' => {
                    if names {
                        self.arith_names(start, self.pos);
                    }
                    self.pos += if self.byte(self.pos + 1) == b')' {
                        2
                    } else {
                        1
                    };
                    return;
                }
                // A variable (`x`, `$x`, `${x}`), not a number's digits (`0x1f`, `16#ff`)
                // nor a count (`$#`, `${#x}`).
                b'$' if matches!(self.byte(self.pos + 1), b'#' | b'?' | b'$' | b'!') => {
                    self.pos += 2;
                }
                b'$' if !matches!(self.byte(self.pos + 1), b'(' | b'\'') => {
                    let from = self.pos;
                    self.word_piece(false);
                    names |= !is_number(&self.src[from..self.pos]);
                }
                c if (c.is_ascii_alphabetic() || c == b'_')
                    && !(before.is_ascii_alphanumeric() || matches!(before, b'_' | b'#')) =>
                {
                    names = true;
                    self.pos += 1;
                }
                _ => self.word_piece(false),
            }
        }
    }

    /// Arithmetic from `start` to `end` reads variables: bash evaluates a value as an
    /// expression again, and runs the `$(…)` of an `a[…]` subscript in it.
    fn arith_names(&mut self, start: usize, end: usize) {
        let text: String = self.src[start..end].chars().take(40).collect();
        self.add_dynamic(Dynamic {
            reason: Reason::Expansion,
            text: format!("(({}))", text.trim()),
        });
    }

    /// Text bash evaluates as arithmetic, at `at`, after quote removal and
    /// decoding: the command substitutions in it run, and a variable it reads is
    /// evaluated again (its value may hold `a[$(…)]`), so reading one is dynamic.
    fn arith_text(&mut self, at: usize, text: &str) {
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
    fn assignment_arith(&mut self, k: usize) {
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
    fn arith_arguments(&mut self, name: &str, from: usize) {
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

    /// A backtick substitution: its text, up to the next unescaped backtick, is a command list.
    fn backticks(&mut self) {
        let b = self.src.as_bytes();
        let open = self.pos + 1;
        let mut close = open;
        while close < self.end && b[close] != b'`' {
            close += if b[close] == b'\\' { 2 } else { 1 };
        }
        let close = close.min(self.end);
        let inner = &self.src[open..close];
        if inner.contains("\\`") || inner.contains("\\\\") || inner.contains("\\$") {
            // Inside backticks `\``, `\\` and `\$` stand for the bare character (nesting).
            let mut text = String::with_capacity(inner.len());
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                match (c, chars.clone().next()) {
                    ('\\', Some(n @ ('`' | '\\' | '$'))) => {
                        text.push(n);
                        chars.next();
                    }
                    _ => text.push(c),
                }
            }
            self.reparse(self.pos, Cow::Owned(text));
        } else if self.depth >= MAX_DEPTH {
            self.too_deep(open);
        } else {
            let end = std::mem::replace(&mut self.end, close);
            self.pos = open;
            self.depth += 1;
            self.nested_list(false);
            self.depth -= 1;
            self.end = end;
        }
        self.pos = (close + 1).min(self.end);
    }
}

/// Where the nested texts a lookahead skipped end, by where their text starts: each
/// is walked once per scan however often a lookahead asks (`((((…` asks at every
/// `(`). An entry packs the end (plus one) above the closer's code (0: not known).
#[derive(Default)]
struct Skips(Vec<u32>);

impl Skips {
    /// The code of a closer in an entry's low bits.
    fn code(closer: u8) -> u32 {
        match closer {
            b')' => 1,
            b'A' => 2,
            b'}' => 3,
            b'"' => 4,
            _ => 5,
        }
    }

    fn get(&self, from: usize, closer: u8) -> Option<usize> {
        let entry = *self.0.get(from)?;
        (entry & 7 == Self::code(closer)).then(|| (entry >> 3) as usize - 1)
    }

    fn insert(&mut self, from: usize, closer: u8, to: usize, len: usize) {
        let Some(entry) = u32::try_from(to + 1)
            .ok()
            .filter(|e| *e < 1 << 29 && from < len)
        else {
            return;
        };
        if self.0.len() < len {
            self.0.resize(len, 0);
        }
        self.0[from] = entry << 3 | Self::code(closer);
    }
}

/// Skips nested text without recursing: `closers` are the closing bytes still expected,
/// innermost last. Returns the index after the last of them (or `end`). A closer `)`
/// ends a command list (where `#` starts a comment), `A` an arithmetic or pattern
/// group (parentheses only count, as in `((` and `$((`); `"`, `` ` `` and `}` end
/// their quotes and `${`. With a `memo` (only for text that runs to the end of the
/// source), every nested text met is remembered, so asking again costs nothing.
fn skip_nested(
    b: &[u8],
    mut i: usize,
    end: usize,
    closers: &[u8],
    mut memo: Option<&mut Skips>,
) -> usize {
    let mut stack: Vec<(u8, usize)> = closers.iter().map(|&c| (c, usize::MAX)).collect();
    if let Some((top, _)) = stack.pop() {
        open(&mut stack, &mut i, top, memo.as_deref());
    }
    while let Some(&(top, _)) = stack.last() {
        if i >= end {
            if let Some(memo) = memo {
                for (closer, from) in stack {
                    memo.insert(from, closer, end, end);
                }
            }
            return end;
        }
        let c = b[i];
        let next = if i + 1 < end { b[i + 1] } else { 0 };
        let before = if i > 0 { b[i - 1] } else { b' ' };
        i += 1;
        match (top, c) {
            (_, b'\\') => i += 1,
            (b'`', b'`') | (b'"', b'"') | (b')' | b'A', b')') | (b'}', b'}') => {
                if let (Some((closer, from)), Some(memo)) = (stack.pop(), memo.as_deref_mut()) {
                    memo.insert(from, closer, i, end);
                }
            }
            (b'`', _) => {}
            (_, b'$') if next == b'(' || next == b'{' => {
                i += 1;
                let closer = if next == b'(' { b')' } else { b'}' };
                open(&mut stack, &mut i, closer, memo.as_deref());
            }
            (_, b'`') => open(&mut stack, &mut i, b'`', memo.as_deref()),
            (b'"', _) => {}
            (_, b'$') if next == b'\'' => i = ansi_c_end(b, i + 1, end),
            (_, b'\'') => {
                while i < end && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            }
            (_, b'"') => open(&mut stack, &mut i, b'"', memo.as_deref()),
            // `((` and `$((` open arithmetic.
            (b')', b'(') if before == b'(' => open(&mut stack, &mut i, b'A', memo.as_deref()),
            (b')', b'(') => open(&mut stack, &mut i, b')', memo.as_deref()),
            (b'A', b'(') => open(&mut stack, &mut i, b'A', memo.as_deref()),
            (b')', b'#') if matches!(before, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(') => {
                while i < end && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
    }
    i.min(end)
}

/// Opens nested text whose content starts at `*i` and ends with `closer`: jumps past it
/// when `memo` knows where it ends, else pushes it.
fn open(stack: &mut Vec<(u8, usize)>, i: &mut usize, closer: u8, memo: Option<&Skips>) {
    match memo.and_then(|memo| memo.get(*i, closer)) {
        Some(to) => *i = to,
        None => stack.push((closer, *i)),
    }
}

/// The index after the `'` closing a `$'…'` string whose text starts at `i` (after
/// the opening quote); a backslash escapes the next byte.
fn ansi_c_end(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match b[i] {
            b'\'' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    end
}

/// Whether the text inside `${…}` evaluates text bash takes from a value: a prompt
/// expansion (`x@P` runs the `$(…)` in x's value), an offset or length (`x:i`,
/// `x:'…'`: arithmetic, whose `a[$(…)]` subscripts run), or an indirection (`!x`,
/// whose value may be such a subscript).
fn parameter_evaluates(inner: &str) -> bool {
    let b = inner.as_bytes();
    let (indirect, b) = match b {
        [b'!', rest @ ..] if !rest.is_empty() => (true, rest),
        _ => (false, b),
    };
    let mut i = match b.first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => b
            .iter()
            .position(|c| !c.is_ascii_alphanumeric() && *c != b'_')
            .unwrap_or(b.len()),
        Some(c) if c.is_ascii_digit() => b
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len()),
        Some(b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => 1,
        _ => return false,
    };
    if b.get(i) == Some(&b'[') {
        match b[i..].iter().position(|c| *c == b']') {
            Some(k) => i += k + 1,
            None => return false,
        }
    }
    let rest = &b[i..];
    if indirect {
        // `${!prefix*}` and `${!a[@]}` list names and keys; the rest evaluate.
        return !matches!(rest, [b'*' | b'@'])
            && !b[..i].ends_with(b"[@]")
            && !b[..i].ends_with(b"[*]");
    }
    match rest {
        [b'@', b'P', ..] => true,
        [b':', next, ..] if !matches!(next, b'-' | b'=' | b'?' | b'+') => !rest[1..]
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b' ' | b':' | b'-')),
        _ => false,
    }
}

/// The subscript of `name[…]` at the start of `text` (not `[@]` nor `[*]`), unless
/// `name` is one of bash's associative arrays, whose keys are not arithmetic.
fn name_subscript(text: &str) -> Option<&str> {
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
fn bracket_end(text: &str) -> Option<usize> {
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

/// Whether a word's source is a number whatever the variables hold: digits, a sign,
/// or a count bash keeps (`$#`, `$?`, `$$`, `$!`, `${#x}`), quoted or not.
fn is_number(raw: &str) -> bool {
    let word = raw.trim_matches('"');
    let count = matches!(word, "$#" | "$?" | "$$" | "$!")
        || word.strip_prefix("${#").is_some_and(|rest| {
            rest.strip_suffix('}')
                .is_some_and(|name| name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        });
    count || (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
}

/// `NAME=`, `NAME+=` or `NAME[…]=` at the start of a word's source text.
fn is_assignment(raw: &str) -> bool {
    let b = raw.as_bytes();
    if !b
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return false;
    }
    let mut i = 1;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if b.get(i) == Some(&b'[') {
        match raw[i..].find(']') {
            Some(k) => i += k + 1,
            None => return false,
        }
    }
    if b.get(i) == Some(&b'+') {
        i += 1;
    }
    b.get(i) == Some(&b'=')
}

/// Whether a cluster of short flags ends with one that takes the next word as argument
/// (one in the middle takes the rest of the cluster instead).
fn short_takes_next(flags: &str, takes_arg: &[u8]) -> bool {
    flags
        .bytes()
        .position(|f| takes_arg.contains(&f))
        .is_some_and(|k| k + 1 == flags.len())
}

/// The part of `text` from byte `start` on.
fn tail(text: Cow<'_, str>, start: usize) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(&s[start..]),
        Cow::Owned(s) if start == 0 => Cow::Owned(s),
        Cow::Owned(s) => Cow::Owned(s[start..].to_owned()),
    }
}

/// A word after quote removal; expansions are kept as their source text.
struct Cooked<'a> {
    text: Cow<'a, str>,
    /// Length of `text` up to the end of its last expansion; 0 without one.
    expanded_to: usize,
    /// Length of `text` before its first expansion.
    literal_to: usize,
}

/// The `env -S` escapes that differ from the shell's: `\_` is a space outside single
/// quotes and `\c` ends the string.
fn env_escapes(line: Cow<'_, str>) -> Cow<'_, str> {
    if !line.contains("\\_") && !line.contains("\\c") {
        return line;
    }
    let mut out = String::with_capacity(line.len());
    let mut single = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => single = !single,
            '\\' if !single => match chars.next() {
                Some('_') => {
                    out.push(' ');
                    continue;
                }
                Some('c') => break,
                Some(n) => {
                    out.push(c);
                    out.push(n);
                    continue;
                }
                None => {}
            },
            _ => {}
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// What a program word names.
enum Name<'a> {
    /// A basename.
    Known(Cow<'a, str>),
    /// Several words, from brace expansion (`{kubectl,x}`): their source texts.
    Braces(Vec<String>),
    /// Nothing the text tells.
    Unknown(Reason),
    /// Nothing: the word ends in `/`.
    Empty,
}

impl Name<'_> {
    /// Drops a borrow (only `Known` has one).
    fn into_owned<'b>(self) -> Name<'b> {
        match self {
            Name::Known(name) => Name::Known(Cow::Owned(name.into_owned())),
            Name::Braces(words) => Name::Braces(words),
            Name::Unknown(reason) => Name::Unknown(reason),
            Name::Empty => Name::Empty,
        }
    }
}

/// The basename of a program word, unless an expansion makes it unknowable.
fn program_name(word: Cooked<'_>) -> Name<'_> {
    let start = match word.text[word.expanded_to..].rfind('/') {
        Some(k) => word.expanded_to + k + 1,
        None if word.expanded_to > 0 => return Name::Unknown(Reason::Expansion),
        None => 0,
    };
    if start < word.text.len() {
        Name::Known(tail(word.text, start))
    } else {
        Name::Empty
    }
}

/// Whether the word whose source is `raw` holds a command substitution as
/// text, which bash does not run where it expands the word: quoted (`'$(x)'`,
/// `$'$(x)'`) or escaped (`\$(x)`, `` \` ``).
fn literal_substitution(raw: &str) -> bool {
    let b = raw.as_bytes();
    let mut double = false;
    let mut braces = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if matches!(b.get(i + 1), Some(b'$' | b'`')) => return true,
            b'\\' => i += 1,
            b'$' if double && b.get(i + 1) == Some(&b'{') => braces += 1,
            b'}' if braces > 0 => braces -= 1,
            // Inside `"${…}"` single quotes quote too (`"${s:'a[$(x)]'}"`).
            b'\'' if !double || braces > 0 => {
                let ansi = i > 0 && b[i - 1] == b'$';
                let mut j = i + 1;
                while j < b.len() && b[j] != b'\'' {
                    j += 1 + usize::from(ansi && b[j] == b'\\');
                }
                let quoted = &raw[i + 1..j.min(b.len())];
                if quoted.contains("$(") || quoted.contains('`') {
                    return true;
                }
                i = j;
            }
            b'"' => double = !double,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The most text [`printf_text`] builds: more is not followed (a shell reading
/// it is dynamic), so a huge field width or a format used again over many
/// arguments costs no more than this.
const MAX_PRINTED: usize = 1 << 20;

/// Variables whose literal values a scan keeps, and the longest value kept.
const MAX_VARS: usize = 16;
const MAX_VALUE: usize = 256;

/// Builtins that evaluate a word as arithmetic or as a variable name, array
/// subscripts included.
const ARITH_BUILTINS: &[&str] = &[
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

/// The source texts of the expansions bash performs in the word whose source is
/// `raw` (`$x`, `${x}`, `$(…)`, backticks, quoted or not), or with `heredoc`, in
/// the body of a heredoc whose delimiter is unquoted, where quotes are text.
fn expansions(raw: &str, heredoc: bool) -> Vec<&str> {
    if !charge(raw.len()) {
        return vec![raw];
    }
    let b = raw.as_bytes();
    let mut found = Vec::new();
    let mut double = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' if !double && !heredoc => {
                i = raw[i + 1..].find('\'').map_or(b.len(), |k| i + k + 2);
            }
            b'"' if !heredoc => {
                double = !double;
                i += 1;
            }
            b'$' if b.get(i + 1) == Some(&b'\'') && !double && !heredoc => {
                // `$'…'` is quoted text; its backslash escapes its quote.
                let mut text = String::new();
                i = ansi_c(raw, i + 2, &mut text);
            }
            b'$' | b'`' => {
                let end = expansion_end(b, i);
                if end > i + 1 {
                    found.push(&raw[i..end.min(b.len())]);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    found
}

/// Whether the text does not tell a word whose source is `raw`: it has an
/// expansion (quoted or not, its value is unknown), an unquoted glob, brace
/// expansion or extglob, or a tilde bash expands (`~` is `$HOME`, `~-` is
/// `$OLDPWD`, and both can be set on the line).
fn word_unknown(raw: &str) -> bool {
    has_tilde(raw) || cook(raw).expanded_to > 0 || has_glob(raw) || has_braces(raw)
}

/// Whether bash expands a tilde in the word whose source is `raw`: at its
/// start, and in an assignment's value after the `=` or a `:` (as an argument
/// too, outside POSIX mode).
fn has_tilde(raw: &str) -> bool {
    let value = match raw.find('=') {
        Some(eq) if is_assignment(raw) => &raw[eq + 1..],
        _ => "",
    };
    raw.starts_with('~') || value.starts_with('~') || value.contains(":~")
}

/// Whether a word's source has an unquoted brace expansion (`{a,b}`, `{1..3}`)
/// or extglob pattern (`@(a|b)`, with `shopt -s extglob`).
fn has_braces(raw: &str) -> bool {
    if !charge(raw.len()) {
        return true;
    }
    let b = raw.as_bytes();
    let mut groups = BraceGroups::default();
    any_unquoted(raw, |i| match (b[i], b.get(i + 1)) {
        (b'@' | b'+' | b'!', Some(b'(')) => true,
        (b'.', Some(b'.')) => {
            groups.dots();
            false
        }
        (c, _) => groups
            .step(i, c)
            .is_some_and(|(_, _, commas, dots)| dots || !commas.is_empty()),
    })
}

/// The unquoted `{…}` groups of a word, matched in one pass: feed it each byte
/// outside quotes and expansions; a `}` gives back the group it closes.
#[derive(Default)]
struct BraceGroups {
    /// The open groups, innermost last: their `{`, their top-level commas, and
    /// whether a `..` is in them.
    open: Vec<(usize, Vec<usize>, bool)>,
}

impl BraceGroups {
    /// Byte `c` at `i`: a closed group as `(open, close, commas, has ..)`.
    fn step(&mut self, i: usize, c: u8) -> Option<(usize, usize, Vec<usize>, bool)> {
        match c {
            b'{' => self.open.push((i, Vec::new(), false)),
            b',' => {
                if let Some(top) = self.open.last_mut() {
                    top.1.push(i);
                }
            }
            b'}' => {
                let (open, commas, dots) = self.open.pop()?;
                return Some((open, i, commas, dots));
            }
            _ => {}
        }
        None
    }

    /// A `..` in the innermost open group.
    fn dots(&mut self) {
        if let Some(top) = self.open.last_mut() {
            top.2 = true;
        }
    }
}

/// Whether `path` names the reading shell's stdin: `/dev/stdin`, `/dev/fd/0`,
/// `/proc/self/fd/0` and the like, however its slashes, `.` and `..` are
/// written (`..` stops at the root, so `../../dev/stdin` is one from `/`).
fn is_stdin_path(path: &str) -> bool {
    fd_path(path) == Some(0)
}

/// Whether a word's source has an unquoted glob character (`*`, `?`, `[…]`) or
/// extglob group (`@(…)`, `!(…)`, `+(…)`; `?(…)` and `*(…)` are globs already).
fn has_glob(raw: &str) -> bool {
    if !charge(raw.len()) {
        return true;
    }
    let b = raw.as_bytes();
    let last_close = raw.rfind(']');
    any_unquoted(raw, |i| match b[i] {
        b'*' | b'?' => true,
        b'[' => last_close.is_some_and(|c| c > i),
        b'@' | b'!' | b'+' => b.get(i + 1) == Some(&b'('),
        _ => false,
    })
}

/// Whether `at` holds for some byte index of `raw` outside escapes, quoted
/// strings and expansions ([`past_quoted`]).
fn any_unquoted(raw: &str, mut at: impl FnMut(usize) -> bool) -> bool {
    let mut i = 0;
    while i < raw.len() {
        if let Some(next) = past_quoted(raw, i) {
            i = next;
            continue;
        }
        if at(i) {
            return true;
        }
        i += 1;
    }
    false
}

/// When a word's source has an escape, a quoted string or an expansion at
/// `i` (where no glob or brace counts), the index just past it.
fn past_quoted(raw: &str, i: usize) -> Option<usize> {
    let b = raw.as_bytes();
    Some(match (b[i], b.get(i + 1)) {
        (b'\\', _) => i + 2,
        (b'\'', _) => raw[i + 1..].find('\'').map_or(b.len(), |k| i + k + 2),
        (b'"', _) => skip_nested(b, i + 1, b.len(), b"\"", None),
        (b'$', Some(b'\'')) => ansi_c_end(b, i + 2, b.len()),
        (b'$' | b'`', _) => expansion_end(b, i),
        _ => return None,
    })
}

/// How many words brace expansion may make of one program word.
const MAX_BRACE_WORDS: usize = 64;

/// The words bash's brace expansion makes of `raw` (`{kubectl,x}` → `kubectl`, `x`;
/// `kube{c..c}tl` → `kubectl`), or `None` when it has no unquoted `{a,b}` or
/// `{x..y}`. A sequence longer than [`MAX_BRACE_WORDS`] makes no words: `Some([])`.
fn brace_expand(raw: &str) -> Option<Vec<String>> {
    brace_expand_groups(raw, MAX_BRACE_GROUPS)
}

/// The longest program word whose braces are expanded; a longer one is a glob.
const MAX_BRACE_WORD_LEN: usize = 1024;

/// How many brace groups of one word are expanded; later ones are left as they are.
const MAX_BRACE_GROUPS: u32 = 8;

/// [`brace_expand`], expanding at most `groups` groups.
fn brace_expand_groups(raw: &str, groups: u32) -> Option<Vec<String>> {
    if groups == 0 {
        return None;
    }
    let group = brace_group(raw)?;
    let Some(items) = group.items else {
        return Some(Vec::new());
    };
    let (prefix, suffix) = (&raw[..group.open], &raw[group.close + 1..]);
    let mut out = Vec::new();
    for item in items {
        let word = format!("{prefix}{item}{suffix}");
        match brace_expand_groups(&word, groups - 1) {
            Some(more) if more.is_empty() => return Some(more),
            Some(more) => out.extend(more),
            None => out.push(word),
        }
        if out.len() > MAX_BRACE_WORDS {
            out.truncate(MAX_BRACE_WORDS);
            break;
        }
    }
    Some(out)
}

/// An unquoted brace group that bash expands.
struct BraceGroup {
    /// Where its `{` and `}` are.
    open: usize,
    close: usize,
    /// The source texts it expands to, or `None` for a sequence longer than
    /// [`MAX_BRACE_WORDS`].
    items: Option<Vec<String>>,
}

/// The first unquoted `{…}` with a top-level comma, or holding a sequence
/// (`{1..3}`, `{a..e..2}`). Like bash, quoted text, escapes and expansions
/// inside are passed over whole (`{bash,-c,'kubectl x'}` has two commas).
fn brace_group(raw: &str) -> Option<BraceGroup> {
    if !charge(raw.len()) {
        return None;
    }
    let b = raw.as_bytes();
    let mut groups = BraceGroups::default();
    let mut first: Option<BraceGroup> = None;
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = past_quoted(raw, i) {
            i = next;
            continue;
        }
        if b[i] == b'.' && b.get(i + 1) == Some(&b'.') {
            groups.dots();
        }
        if let Some((open, close, commas, dots)) = groups.step(i, b[i]) {
            let items = if !commas.is_empty() {
                let mut from = open + 1;
                let mut items = Vec::with_capacity(commas.len() + 1);
                for cut in commas.into_iter().chain([close]) {
                    items.push(raw[from..cut].to_owned());
                    from = cut + 1;
                }
                Some(Some(items))
            } else if dots {
                brace_sequence(&raw[open + 1..close])
            } else {
                None
            };
            if let Some(items) = items {
                if first.as_ref().is_none_or(|f| open < f.open) {
                    first = Some(BraceGroup { open, close, items });
                }
            }
        }
        i += 1;
    }
    first
}

/// The words of a brace sequence's text (`1..3`, `a..e`, `01..10..2`), as bash makes
/// them: `None` when bash leaves it as it is, `Some(None)` when it is too long.
fn brace_sequence(text: &str) -> Option<Option<Vec<String>>> {
    let mut parts = text.split("..");
    let (from, to) = (parts.next()?, parts.next()?);
    let step = match parts.next() {
        Some(step) => step.parse::<i64>().ok()?.unsigned_abs().max(1),
        None => 1,
    };
    if parts.next().is_some() {
        return None;
    }
    let (x, y, letters) = match (from.parse::<i64>(), to.parse::<i64>()) {
        (Ok(x), Ok(y)) => (x, y, false),
        _ => {
            let (&[x], &[y]) = (from.as_bytes(), to.as_bytes()) else {
                return None;
            };
            if !x.is_ascii_alphabetic() || !y.is_ascii_alphabetic() {
                return None;
            }
            (i64::from(x), i64::from(y), true)
        }
    };
    let count = x.abs_diff(y) / step + 1;
    if count > MAX_BRACE_WORDS as u64 {
        return Some(None);
    }
    let width = [from, to]
        .iter()
        .filter(|n| n.trim_start_matches('-').starts_with('0') && n.len() > 1)
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    let items = (0..count as i64)
        .map(|k| {
            let v = if x <= y {
                x + k * step as i64
            } else {
                x - k * step as i64
            };
            match letters {
                true => char::from(v as u8).to_string(),
                false if v < 0 => format!("-{:0w$}", -v, w = width.saturating_sub(1)),
                false => format!("{v:0width$}"),
            }
        })
        .collect();
    Some(Some(items))
}

/// What the command line `src` prints when it is one `echo` or `printf` of
/// literal words (the command of a process substitution, `<(echo ls)`).
fn printed(src: &str) -> Option<String> {
    let mut scanner = Scanner::new(src, MAX_DEPTH, false, Fill::default());
    loop {
        match scanner.token() {
            Tok::Word(s, e) => scanner.words.push((s, e)),
            Tok::Eof => break,
            _ => return None,
        }
    }
    scanner.literal_output(0)
}

/// The descriptor `path` names, when it names one of the reading process's:
/// `/dev/stdin` (0), `/dev/fd/N`, `/proc/self/fd/N` and the like, however its
/// slashes, `.` and `..` are written (`..` stops at the root, so
/// `../../dev/stdin` is one from `/`).
fn fd_path(path: &str) -> Option<u32> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let fd = match parts.as_slice() {
        ["dev", "stdin"] => return Some(0),
        ["dev", "fd", fd] => fd,
        ["proc", process, "fd", fd]
            if matches!(*process, "self" | "thread-self") || digits(process) =>
        {
            fd
        }
        ["proc", process, "task", task, "fd", fd]
            if (*process == "self" || digits(process)) && digits(task) =>
        {
            fd
        }
        _ => return None,
    };
    fd.parse().ok()
}

/// What `printf FORMAT ARGS…` prints, as bash's builtin does: the format's
/// escapes, `%s`, `%b` (the argument's escapes decoded, `\c` ends all output),
/// `%c`, integers, flags, field width and precision, and the format used again
/// while arguments remain; `None` for a conversion it does not model (`%q`,
/// `%f`, `%(…)T`) or an integer it cannot read.
fn printf_text(args: &[Cow<'_, str>]) -> Option<String> {
    let (format, rest) = args.split_first()?;
    let mut out = Vec::with_capacity(format.len());
    let mut next = 0;
    loop {
        let before = next;
        if !printf_once(format.as_bytes(), rest, &mut next, &mut out)? {
            break;
        }
        if out.len() > MAX_PRINTED {
            return None;
        }
        if next == before || next >= rest.len() {
            break;
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// One pass of printf's `format` over `args` from `next`; `Some(false)` when
/// `%b`'s `\c` ended the output.
fn printf_once(
    f: &[u8],
    args: &[Cow<'_, str>],
    next: &mut usize,
    out: &mut Vec<u8>,
) -> Option<bool> {
    let take = |next: &mut usize| {
        let arg = args.get(*next).map_or("", |a| &**a);
        *next += 1;
        arg
    };
    let mut i = 0;
    while i < f.len() {
        match f[i] {
            b'\\' => i = decode_escape(f, i, Escapes::Format, out)?,
            b'%' if f.get(i + 1) == Some(&b'%') => {
                out.push(b'%');
                i += 2;
            }
            b'%' => {
                i += 1;
                let (mut left, mut zero) = (false, false);
                while let Some(&c) = f.get(i).filter(|c| b"-0 +#".contains(c)) {
                    left |= c == b'-';
                    zero |= c == b'0';
                    i += 1;
                }
                let number = |i: &mut usize, next: &mut usize| -> Option<Option<usize>> {
                    if f.get(*i) == Some(&b'*') {
                        *i += 1;
                        return parse_integer(take(next)).map(|n| Some(n.unsigned_abs() as usize));
                    }
                    let digits = f[*i..].iter().take_while(|b| b.is_ascii_digit()).count();
                    let value = std::str::from_utf8(&f[*i..*i + digits]).ok()?.parse().ok();
                    *i += digits;
                    Some(value)
                };
                let width = number(&mut i, next)?.unwrap_or(0);
                let precision = match f.get(i) {
                    Some(b'.') => {
                        i += 1;
                        Some(number(&mut i, next)?.unwrap_or(0))
                    }
                    _ => None,
                };
                let conversion = *f.get(i)?;
                i += 1;
                let arg = take(next);
                let mut piece = match conversion {
                    b's' => arg.as_bytes().to_vec(),
                    b'b' => {
                        let mut piece = Vec::new();
                        if !decode_escapes(arg.as_bytes(), Escapes::Bytes, &mut piece) {
                            out.extend(piece);
                            return Some(false);
                        }
                        piece
                    }
                    b'c' => arg
                        .chars()
                        .next()
                        .map(String::from)
                        .unwrap_or_default()
                        .into_bytes(),
                    b'd' | b'i' => parse_integer(arg)?.to_string().into_bytes(),
                    b'u' => (parse_integer(arg)? as u64).to_string().into_bytes(),
                    b'x' => format!("{:x}", parse_integer(arg)?).into_bytes(),
                    b'X' => format!("{:X}", parse_integer(arg)?).into_bytes(),
                    b'o' => format!("{:o}", parse_integer(arg)?).into_bytes(),
                    _ => return None,
                };
                let numeric = !matches!(conversion, b's' | b'b' | b'c');
                if let Some(p) = precision.filter(|_| !numeric) {
                    piece.truncate(p);
                }
                let pad = width.saturating_sub(piece.len());
                if pad + piece.len() + out.len() > MAX_PRINTED {
                    return None;
                }
                match (left, zero && numeric) {
                    (true, _) => {
                        out.extend(&piece);
                        out.resize(out.len() + pad, b' ');
                    }
                    (false, fill_zero) => {
                        out.resize(out.len() + pad, if fill_zero { b'0' } else { b' ' });
                        out.extend(&piece);
                    }
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(true)
}

/// An integer argument of printf: decimal, `0x` hex, `0` octal, or `'c` for
/// a character's code; empty is 0.
fn parse_integer(arg: &str) -> Option<i64> {
    let arg = arg.trim_start();
    if let Some(c) = arg.strip_prefix(['\'', '"']) {
        return Some(c.chars().next().map_or(0, |c| i64::from(u32::from(c))));
    }
    let (negative, digits) = match arg.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, arg.strip_prefix('+').unwrap_or(arg)),
    };
    let value = if digits.is_empty() {
        0
    } else if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if negative { -value } else { value })
}

/// Which backslash escapes a text has.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// printf's format: `\NNN` octal, `\c` is text.
    Format,
    /// printf's `%b`: `\0NNN` and `\NNN` octal, `\c` ends the output.
    Bytes,
    /// `echo -e`: `\0NNN` octal only, `\c` ends the output.
    Echo,
}

/// Decodes all of `text`'s escapes into `out`; false when `\c` ended it.
fn decode_escapes(text: &[u8], kind: Escapes, out: &mut Vec<u8>) -> bool {
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            out.push(text[i]);
            i += 1;
            continue;
        }
        match decode_escape(text, i, kind, out) {
            Some(next) => i = next,
            None => return false,
        }
    }
    true
}

/// Decodes the escape at `text[i]` (a backslash) into `out`: the index after
/// it, or `None` for a `\c` that ends the output.
fn decode_escape(text: &[u8], i: usize, kind: Escapes, out: &mut Vec<u8>) -> Option<usize> {
    let Some(&c) = text.get(i + 1) else {
        out.push(b'\\');
        return Some(i + 1);
    };
    let digits = |from: usize, max: usize, radix: u32| {
        let n = text[from..]
            .iter()
            .take(max)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count();
        let value = std::str::from_utf8(&text[from..from + n])
            .ok()
            .and_then(|d| u32::from_str_radix(d, radix).ok());
        (value, from + n)
    };
    let simple = match c {
        b'\\' => Some(b'\\'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'e' | b'E' => Some(27),
        b'f' => Some(12),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(11),
        b'"' | b'\'' | b'?' if kind == Escapes::Format => Some(c),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return Some(i + 2);
    }
    let (value, end, unicode) = match c {
        b'c' if kind != Escapes::Format => return None,
        b'0' if kind != Escapes::Format => {
            let (v, e) = digits(i + 2, 3, 8);
            (Some(v.unwrap_or(0)), e, false)
        }
        b'0'..=b'7' if kind != Escapes::Echo => {
            let (v, e) = digits(i + 1, 3, 8);
            (v, e, false)
        }
        b'x' => {
            let (v, e) = digits(i + 2, 2, 16);
            (v, e, false)
        }
        b'u' => {
            let (v, e) = digits(i + 2, 4, 16);
            (v, e, true)
        }
        b'U' => {
            let (v, e) = digits(i + 2, 8, 16);
            (v, e, true)
        }
        _ => (None, i, false),
    };
    match value {
        Some(v) if unicode => {
            let c = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
            out.extend(c.to_string().as_bytes());
            Some(end)
        }
        // An octal value past 255 wraps to a byte, as bash's does.
        Some(v) => {
            out.push((v & 0xff) as u8);
            Some(end)
        }
        None => {
            out.extend([b'\\', c]);
            Some(i + 2)
        }
    }
}

/// Output of quote removal: borrows the source until the first change.
struct Builder<'a> {
    raw: &'a str,
    owned: Option<String>,
    expanded_to: usize,
    literal_to: Option<usize>,
}

impl Builder<'_> {
    /// Keeps `raw[from..to]` unchanged.
    fn keep(&mut self, from: usize, to: usize) {
        if let Some(s) = &mut self.owned {
            s.push_str(&self.raw[from..to]);
        }
    }

    /// The owned output, at the first change at `at` in the source.
    fn change(&mut self, at: usize) -> &mut String {
        let raw = self.raw;
        self.owned.get_or_insert_with(|| raw[..at].to_owned())
    }

    fn len(&self, at: usize) -> usize {
        self.owned.as_ref().map_or(at, String::len)
    }

    /// Keeps `raw[from..to]`, an expansion unless it is one character.
    fn keep_expansion(&mut self, from: usize, to: usize) {
        if to == from + 1 {
            return self.keep(from, to);
        }
        self.literal_to.get_or_insert(self.len(from));
        self.keep(from, to);
        self.expanded_to = self.len(to);
    }
}

/// Removes quotes and escapes from a word's source text.
fn cook(raw: &str) -> Cooked<'_> {
    if !charge(raw.len()) {
        // Out of budget: the word is not read, so nothing of it is known.
        return Cooked {
            text: Cow::Borrowed(raw),
            expanded_to: raw.len(),
            literal_to: 0,
        };
    }
    // A word that is one single-quoted string borrows its content.
    if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        if !inner.contains('\'') {
            return Cooked {
                text: Cow::Borrowed(inner),
                expanded_to: 0,
                literal_to: inner.len(),
            };
        }
    }
    let b = raw.as_bytes();
    let mut out = Builder {
        raw,
        owned: None,
        expanded_to: 0,
        literal_to: None,
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let s = out.change(i);
                match raw[i + 1..].chars().next() {
                    Some(c) => {
                        if c != '\n' {
                            s.push(c);
                        }
                        i += 1 + c.len_utf8();
                    }
                    None => i += 1,
                }
            }
            b'\'' => {
                let close = raw[i + 1..].find('\'').map_or(b.len(), |k| i + 1 + k);
                out.change(i).push_str(&raw[i + 1..close]);
                i = (close + 1).min(b.len());
            }
            b'"' => {
                out.change(i);
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    let from = i;
                    match (b[i], b.get(i + 1)) {
                        (b'\\', Some(b'$' | b'`' | b'"' | b'\\')) => {
                            out.change(i).push(char::from(b[i + 1]));
                            i += 2;
                        }
                        (b'\\', Some(b'\n')) => i += 2,
                        (b'$' | b'`', _) => {
                            i = expansion_end(b, i);
                            out.keep_expansion(from, i);
                        }
                        _ => {
                            i += 1;
                            while i < b.len() && !matches!(b[i], b'"' | b'\\' | b'$' | b'`') {
                                i += 1;
                            }
                            out.keep(from, i);
                        }
                    }
                }
                i = (i + 1).min(b.len());
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => {
                i = ansi_c(raw, i + 2, out.change(i));
            }
            b'$' if b.get(i + 1) == Some(&b'"') => {
                // `$"…"` is a translated double-quoted string: drop the `$`.
                out.change(i);
                i += 1;
            }
            b'$' | b'`' | b'<' | b'>' => {
                let from = i;
                i = expansion_end(b, i);
                out.keep_expansion(from, i);
            }
            _ => {
                let from = i;
                while i < b.len()
                    && !matches!(b[i], b'\\' | b'\'' | b'"' | b'$' | b'`' | b'<' | b'>')
                {
                    i += 1;
                }
                out.keep(from, i);
            }
        }
    }
    let text = out.owned.map_or(Cow::Borrowed(raw), Cow::Owned);
    Cooked {
        literal_to: out.literal_to.unwrap_or(text.len()),
        expanded_to: out.expanded_to,
        text,
    }
}

/// End of the expansion starting at `b[i]` (`$…`, a backtick or `<(…)`); `i + 1` if
/// the byte there stands for itself.
fn expansion_end(b: &[u8], i: usize) -> usize {
    let next = b.get(i + 1).copied().unwrap_or(0);
    match (b[i], next) {
        (b'$', b'(') if b.get(i + 2) == Some(&b'(') => skip_nested(b, i + 3, b.len(), b"AA", None),
        (b'$' | b'<' | b'>', b'(') => skip_nested(b, i + 2, b.len(), b")", None),
        (b'$', b'{') => skip_nested(b, i + 2, b.len(), b"}", None),
        (b'$', c) if c.is_ascii_alphabetic() || c == b'_' => {
            let mut j = i + 2;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            j
        }
        (b'$', b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => i + 2,
        (b'`', _) => skip_nested(b, i + 1, b.len(), b"`", None),
        _ => i + 1,
    }
}

/// Decodes a `$'…'` string from `i` (after the opening quote) into `out`; returns the
/// index after its closing quote.
fn ansi_c(raw: &str, mut i: usize, out: &mut String) -> usize {
    let b = raw.as_bytes();
    while i < b.len() {
        match b[i] {
            b'\'' => return i + 1,
            b'\\' if i + 1 < b.len() => {
                let (c, len) = ansi_c_escape(&raw[i + 1..]);
                out.push(c);
                i += 1 + len;
            }
            _ => {
                let c = raw[i..].chars().next().unwrap_or('\u{fffd}');
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    i
}

/// One escape of a `$'…'` string (after its backslash): the character and the length read.
fn ansi_c_escape(s: &str) -> (char, usize) {
    let numeric = |radix: u32, skip: usize, max: usize| {
        let digits = s.as_bytes()[skip..]
            .iter()
            .take(max)
            .take_while(|d| char::from(**d).is_digit(radix))
            .count();
        let value = u32::from_str_radix(&s[skip..skip + digits], radix).ok();
        match value.and_then(char::from_u32) {
            Some(c) => (c, skip + digits),
            // No digits: the escape stands for itself.
            None if digits == 0 => ('\\', 0),
            None => ('\u{fffd}', skip + digits),
        }
    };
    let Some(c) = s.chars().next() else {
        return ('\\', 0);
    };
    let simple = match c {
        'a' => '\u{7}',
        'b' => '\u{8}',
        'e' | 'E' => '\u{1b}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\u{b}',
        '\\' | '\'' | '"' | '?' => c,
        'x' => return numeric(16, 1, 2),
        'u' => return numeric(16, 1, 4),
        'U' => return numeric(16, 1, 8),
        '0'..='7' => return numeric(8, 0, 3),
        _ => return ('\\', 0),
    };
    (simple, 1)
}

/// Quotes `word` for a POSIX shell when it needs it: plain words stay as they
/// are, anything else is single-quoted.
#[must_use]
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests;
