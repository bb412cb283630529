//! What the splitter answers: [`Split`] (the programs of a line and those it
//! cannot name, each with a [`Reason`]) and [`Command`] (one simple command with
//! its words). Plain data, no scanning.

/// One simple command: what [`commands`](fn@crate::commands) returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    /// The program, lowercased basename, as [`programs`](fn@crate::programs) names it.
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

/// The programs of a command line ([`split`](fn@crate::split)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// Programs named by the text, as [`programs`](fn@crate::programs) returns them.
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

/// How many distinct dynamic programs [`split`](fn@crate::split) reports; more are dropped.
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
