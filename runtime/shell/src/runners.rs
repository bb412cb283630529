//! Command runners: programs that run a command given in their arguments (`xargs`,
//! `nice`, `flock`, `su -c`, …), with each one's option grammar transcribed from its
//! manual page, so the splitter finds where the command starts, what it adds to the
//! command's words, and when it starts a shell that reads stdin instead.
//!
//! A runner is itself a program (`bash.xargs` fires on `xargs rm`); the command it runs
//! is one too. This differs from the spec's wrappers (`sudo`, `env`, …), which vanish.

use std::borrow::Cow;

/// How a runner is told its command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// The words after the options and operands are the command and its arguments.
    Argv,
    /// The words after the options and operands, joined by spaces, are shell code
    /// (`watch`, `sg GROUP CMD`; `parallel` up to its first `:::`).
    Joined,
    /// Only an option's argument names a command (`su -c CMD`, `script -c CMD`).
    CodeOnly,
}

/// Strings a runner replaces in the words of the command it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Replace {
    #[default]
    None,
    /// Each occurrence of these strings: `find -exec … {}`, `xargs -I R`.
    Strings(Vec<String>),
    /// GNU parallel's replacement strings, all of the form `{…}`, and the ones
    /// its options define (`-I R`, `--er R`, the tag of `--rpl 'TAG perl'`).
    Braces(Vec<String>),
}

impl Replace {
    /// What a runner replacing `other` under one replacing `self` replaces: both
    /// (`find . -exec xargs -I R cmd {} R \;`).
    pub(crate) fn and(self, other: Replace) -> Replace {
        match (self, other) {
            (Replace::None, r) | (r, Replace::None) => r,
            (Replace::Strings(mut a), Replace::Strings(b)) => {
                a.extend(b);
                Replace::Strings(a)
            }
            (
                Replace::Strings(mut a) | Replace::Braces(mut a),
                Replace::Strings(b) | Replace::Braces(b),
            ) => {
                a.extend(b);
                Replace::Braces(a)
            }
        }
    }

    /// Whether the runner pastes what it replaces into `word` as text, which a
    /// shell then reads as code: find and xargs do; parallel quotes each
    /// value, except what a `{= perl =}` expression makes (it may `uq()`).
    pub(crate) fn splices(&self, word: &str) -> bool {
        match self {
            Replace::Braces(_) => word.contains("{="),
            other => other.matches(word),
        }
    }

    /// Whether the runner may replace part of `word`.
    pub(crate) fn matches(&self, word: &str) -> bool {
        let defined = |strings: &[String]| strings.iter().any(|s| word.contains(s.as_str()));
        match self {
            Replace::None => false,
            Replace::Strings(strings) => defined(strings),
            Replace::Braces(strings) => {
                defined(strings) || word.find('{').is_some_and(|k| word[k..].contains('}'))
            }
        }
    }
}

/// Operands between a runner's options and its command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operands {
    None,
    /// One word: `chroot DIR`, `flock FILE`, `taskset MASK`, `sg GROUP`.
    One,
    /// One word if it is a number: `chrt [PRIORITY] cmd`.
    Number,
}

/// One runner's command line grammar.
struct Grammar {
    name: &'static str,
    /// Short options that take an argument (the rest of their cluster, or the next word).
    short_arg: &'static [u8],
    /// Long options that take the next word as argument when written without `=`.
    long_arg: &'static [&'static str],
    /// Options whose argument is shell code.
    short_code: &'static [u8],
    long_code: &'static [&'static str],
    /// Options whose argument the runner `eval`s in the place of an argument
    /// (fakeroot's `eval echo "$1"`): its substitutions and operators run.
    short_eval: &'static [u8],
    long_eval: &'static [&'static str],
    /// Options after which no command runs (`taskset -p`, `chrt -p`: they act on a pid).
    short_query: &'static [u8],
    long_query: &'static [&'static str],
    operands: Operands,
    /// Options are read again after the operands (`flock FILE -c CMD`).
    options_after_operands: bool,
    /// Options may follow operands, as GNU getopt permutes (`su - root -c CMD`).
    permute: bool,
    /// A lone `-` asks for a login shell (`su -`, `sg -`) rather than being an operand.
    login_dash: bool,
    /// For `Argv`: an option without which the first operand is not a command
    /// (`runuser -u USER cmd`, but `runuser USER` is a login).
    argv_needs: Option<(u8, &'static str)>,
    form: Form,
    /// The code options run as well as the command (`fakeroot -f CODE cmd`, `perf stat
    /// --pre CODE cmd`), not instead of it.
    code_and_command: bool,
    /// Without a command it starts a shell, which reads its code from stdin (`su`,
    /// `fakeroot`, `unshare`, `chroot DIR`).
    bare_shell: bool,
    /// Options after which a shell reading stdin runs (`systemd-run -S`, `doas -s`).
    short_shell: &'static [u8],
    long_shell: &'static [&'static str],
    /// Options whose argument is the program the runner starts in place of a
    /// shell (`su -s SHELL`, `runuser --shell SHELL`).
    short_program: &'static [u8],
    long_program: &'static [&'static str],
    /// It adds words it reads from stdin or files after the command's own (`xargs`,
    /// `parallel`).
    appends: bool,
    /// Options whose argument is a string replaced in the command's words (`xargs -I
    /// R`); one in `short_arg`/`long_arg` takes the next word too, the others only an
    /// attached value, `{}` without one (`xargs -i`, `--replace`).
    short_replace: &'static [u8],
    long_replace: &'static [&'static str],
    /// Its replacement strings are `{…}` as well as the ones its options define
    /// (GNU parallel).
    braces: bool,
    /// Subcommands, each with the runner whose grammar reads the words after it
    /// (`perf stat` → `perf stat`): a first operand that is one hands on to that
    /// grammar; any other runs nothing with `Operands::One` (`perf report`), and is
    /// the command otherwise (`perf stat make`).
    subcommands: &'static [(&'static str, &'static str)],
    /// A runner whose options no getopt reads: where its command starts.
    custom: Option<Start>,
}

/// The index of the word a runner's command starts at, from its arguments
/// (past the end: none, and a `bare_shell` runner starts a shell); `None` when
/// its options only ask something and no command runs.
type Start = fn(&[Cow<'_, str>]) -> Option<usize>;

const BASE: Grammar = Grammar {
    name: "",
    short_arg: b"",
    long_arg: &[],
    short_code: b"",
    long_code: &[],
    short_eval: b"",
    long_eval: &[],
    short_query: b"",
    long_query: &[],
    operands: Operands::None,
    options_after_operands: false,
    permute: false,
    login_dash: false,
    argv_needs: None,
    form: Form::Argv,
    code_and_command: false,
    bare_shell: false,
    short_shell: b"",
    long_shell: &[],
    short_program: b"",
    long_program: &[],
    appends: false,
    short_replace: b"",
    long_replace: &[],
    braces: false,
    subcommands: &[],
    custom: None,
};

/// The runners, each from its manual page (GNU findutils, coreutils, util-linux,
/// procps, shadow, strace, ltrace, OpenBSD doas, GNU parallel, BusyBox, fakeroot,
/// Valgrind, perf, D-Bus, glibc, Firejail, torsocks, proxychains-ng, AppArmor,
/// libcgroup, systemd).
const RUNNERS: &[Grammar] = &[
    // xargs: -a file, -E eof, -d delim, -I replace, -L lines, -n args, -P procs,
    // -s chars; -e[eof], -i[replace] and -l[lines] only take an attached argument.
    // It appends the words it reads even with -I: a later -n or -L cancels the
    // replacement (GNU), so `more` never depends on the option order.
    Grammar {
        name: "xargs",
        short_arg: b"aEdILnPs",
        long_arg: &[
            "arg-file",
            "delimiter",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ],
        appends: true,
        short_replace: b"Ii",
        long_replace: &["replace"],
        ..BASE
    },
    Grammar {
        name: "nice",
        short_arg: b"n",
        long_arg: &["adjustment"],
        ..BASE
    },
    // ionice: -c class, -n level; -p/-P/-u act on running processes.
    Grammar {
        name: "ionice",
        short_arg: b"cn",
        long_arg: &["class", "classdata"],
        short_query: b"pPu",
        long_query: &["pid", "pgid", "uid"],
        ..BASE
    },
    Grammar {
        name: "setsid",
        ..BASE
    },
    Grammar {
        name: "stdbuf",
        short_arg: b"ioe",
        long_arg: &["input", "output", "error"],
        ..BASE
    },
    // flock [-w secs] [-E code] FILE cmd | FILE -c CMD | FD
    Grammar {
        name: "flock",
        short_arg: b"wE",
        long_arg: &["timeout", "wait", "conflict-exit-code"],
        short_code: b"c",
        long_code: &["command"],
        operands: Operands::One,
        options_after_operands: true,
        ..BASE
    },
    // chroot DIR without a command runs `$SHELL -i`.
    Grammar {
        name: "chroot",
        long_arg: &["userspec", "groups"],
        operands: Operands::One,
        bare_shell: true,
        ..BASE
    },
    // doas [-Lns] [-C config] [-u user] command; -s runs the user's shell.
    Grammar {
        name: "doas",
        short_arg: b"u",
        short_query: b"C",
        short_shell: b"s",
        ..BASE
    },
    Grammar {
        name: "su",
        short_arg: b"sgGw",
        long_arg: &["shell", "group", "supp-group", "whitelist-environment"],
        short_program: b"s",
        long_program: &["shell"],
        short_code: b"c",
        long_code: &["command", "session-command"],
        permute: true,
        login_dash: true,
        form: Form::CodeOnly,
        bare_shell: true,
        ..BASE
    },
    // sg [-] GROUP [-c] COMMAND: the command is given to /bin/sh -c.
    Grammar {
        name: "sg",
        short_code: b"c",
        operands: Operands::One,
        options_after_operands: true,
        login_dash: true,
        form: Form::Joined,
        ..BASE
    },
    Grammar {
        name: "runuser",
        short_arg: b"ugGsw",
        long_arg: &[
            "user",
            "group",
            "supp-group",
            "shell",
            "whitelist-environment",
        ],
        short_code: b"c",
        long_code: &["command", "session-command"],
        short_program: b"s",
        long_program: &["shell"],
        permute: true,
        login_dash: true,
        argv_needs: Some((b'u', "user")),
        // `runuser USER` is a login shell; `-u USER` without a command is an error.
        bare_shell: true,
        ..BASE
    },
    Grammar {
        name: "setpriv",
        long_arg: &[
            "ruid",
            "euid",
            "rgid",
            "egid",
            "reuid",
            "regid",
            "groups",
            "inh-caps",
            "ambient-caps",
            "bounding-set",
            "securebits",
            "pdeathsig",
            "selinux-label",
            "apparmor-profile",
            "landlock-access",
            "landlock-rule",
            "seccomp-filter",
        ],
        short_query: b"d",
        long_query: &["dump"],
        ..BASE
    },
    Grammar {
        name: "script",
        short_arg: b"EIOBTmo",
        long_arg: &[
            "echo",
            "log-in",
            "log-out",
            "log-io",
            "log-timing",
            "logging-format",
            "output-limit",
        ],
        short_code: b"c",
        long_code: &["command"],
        permute: true,
        form: Form::CodeOnly,
        // Without -c it runs `$SHELL` on a terminal fed from its stdin.
        bare_shell: true,
        ..BASE
    },
    Grammar {
        name: "strace",
        short_arg: b"abeIoOpPsSuUXE",
        long_arg: &[
            "trace",
            "signal",
            "status",
            "abbrev",
            "verbose",
            "raw",
            "read",
            "write",
            "fault",
            "inject",
            "output",
            "string-limit",
            "columns",
            "attach",
            "user",
            "env",
            "summary-sort-by",
            "trace-path",
        ],
        ..BASE
    },
    Grammar {
        name: "ltrace",
        short_arg: b"aADeFlnopsuwx",
        long_arg: &["align", "indent", "library", "output"],
        ..BASE
    },
    // taskset [-a] [-c] MASK cmd; -p acts on a pid.
    Grammar {
        name: "taskset",
        short_query: b"p",
        long_query: &["pid"],
        operands: Operands::One,
        ..BASE
    },
    // chrt [policy] [-T|-P|-D nsec] [PRIORITY] cmd; -p acts on a pid.
    Grammar {
        name: "chrt",
        short_arg: b"TPD",
        long_arg: &["sched-runtime", "sched-period", "sched-deadline"],
        short_query: b"p",
        long_query: &["pid"],
        operands: Operands::Number,
        ..BASE
    },
    // prlimit [--RESOURCE=limits] cmd; resource options take attached arguments only.
    Grammar {
        name: "prlimit",
        short_arg: b"o",
        long_arg: &["output"],
        short_query: b"p",
        long_query: &["pid"],
        ..BASE
    },
    // unshare: namespace options take attached (`=`) arguments only.
    Grammar {
        name: "unshare",
        short_arg: b"SGRwl",
        long_arg: &[
            "root",
            "wd",
            "setuid",
            "setgid",
            "propagation",
            "setgroups",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
            "monotonic",
            "boottime",
            "load-interp",
        ],
        // Without a program it runs `$SHELL`, as nsenter does.
        bare_shell: true,
        ..BASE
    },
    Grammar {
        name: "nsenter",
        short_arg: b"tSGW",
        long_arg: &["target", "setuid", "setgid", "wdns"],
        bare_shell: true,
        ..BASE
    },
    Grammar {
        name: "parallel",
        short_arg: b"aCdEIJjLNnPSsU",
        long_arg: &[
            "arg-file",
            "colsep",
            "delimiter",
            "jobs",
            "sshlogin",
            "sshloginfile",
            "joblog",
            "results",
            "tmpdir",
            "delay",
            "timeout",
            "retries",
            "env",
            "basefile",
            "workdir",
            "tagstring",
            "halt",
            "memfree",
            "load",
            "max-args",
            "max-replace-args",
            "max-chars",
            "profile",
            "return",
            "transferfile",
            "extensionreplace",
            "er",
            "basenamereplace",
            "bnr",
            "dirnamereplace",
            "dnr",
            "basenameextensionreplace",
            "bner",
            "seqreplace",
            "slotreplace",
            "rpl",
        ],
        form: Form::Joined,
        // Without a replacement string in the command it appends the arguments.
        appends: true,
        short_replace: b"IUi",
        long_replace: &[
            "replace",
            "extensionreplace",
            "er",
            "basenamereplace",
            "bnr",
            "dirnamereplace",
            "dnr",
            "basenameextensionreplace",
            "bner",
            "seqreplace",
            "slotreplace",
            "rpl",
        ],
        braces: true,
        ..BASE
    },
    // watch [-n secs] [-q cycles] cmd…: the words are given to `sh -c` (with `-x`,
    // run directly; reading them as shell code then only finds more).
    Grammar {
        name: "watch",
        short_arg: b"nq",
        long_arg: &["interval", "equexit"],
        form: Form::Joined,
        ..BASE
    },
    Grammar {
        name: "busybox",
        ..BASE
    },
    // fakeroot [-l lib] [-f faked] [-i file] [-s file] [-u] [-b fd] [--] [cmd]: the
    // script `eval`s the value of -f as the command that starts faked, and those of
    // -l, -i and -s as its arguments; without a command it runs $SHELL.
    Grammar {
        name: "fakeroot",
        short_arg: b"b",
        long_arg: &["fd-base"],
        short_code: b"f",
        long_code: &["faked"],
        short_eval: b"lis",
        long_eval: &["lib"],
        code_and_command: true,
        bare_shell: true,
        ..BASE
    },
    // hookdex exec [--] CMD… runs CMD with its output filtered; the hidden
    // `supervise-async --timeout-ms N -- PROGRAM …` runs an `.async` rule.
    Grammar {
        name: "hookdex",
        operands: Operands::One,
        subcommands: &[
            ("exec", "hookdex exec"),
            ("supervise-async", "hookdex supervise-async"),
        ],
        ..BASE
    },
    Grammar {
        name: "hookdex exec",
        ..BASE
    },
    Grammar {
        name: "hookdex supervise-async",
        long_arg: &["timeout-ms"],
        ..BASE
    },
    // valgrind [--opt=value | -q | -v | …] prog: every value is attached.
    Grammar {
        name: "valgrind",
        ..BASE
    },
    // perf [--debugfs-dir D] [--buildid-dir D] [--debug V] stat|record|trace …
    Grammar {
        name: "perf",
        long_arg: &["debugfs-dir", "buildid-dir", "debug"],
        operands: Operands::One,
        subcommands: &[
            ("stat", "perf stat"),
            ("record", "perf record"),
            ("trace", "perf trace"),
        ],
        ..BASE
    },
    // perf stat -e -C -D -G -I -M -o -p -r -t -x …; --pre and --post are given to
    // sh -c before and after the command. `perf stat record` (or `rec`, `reco`,
    // `recor`: perf takes any prefix of three letters or more) runs it too.
    Grammar {
        name: "perf stat",
        subcommands: &[
            ("record", "perf stat"),
            ("recor", "perf stat"),
            ("reco", "perf stat"),
            ("rec", "perf stat"),
        ],
        short_arg: b"CDeGIMoprtx",
        long_arg: &[
            "cpu",
            "delay",
            "event",
            "cgroup",
            "interval-print",
            "metrics",
            "output",
            "pid",
            "repeat",
            "tid",
            "field-separator",
            "control",
            "cputype",
            "filter",
            "for-each-cgroup",
            "interval-count",
            "log-fd",
            "td-level",
            "timeout",
        ],
        long_code: &["pre", "post"],
        code_and_command: true,
        ..BASE
    },
    // perf record: -I, -S and -z only take an attached value.
    Grammar {
        name: "perf record",
        short_arg: b"cCDeFGjkmoprtu",
        long_arg: &[
            "count",
            "cpu",
            "delay",
            "event",
            "freq",
            "cgroup",
            "branch-filter",
            "clockid",
            "mmap-pages",
            "output",
            "pid",
            "realtime",
            "tid",
            "uid",
            "affinity",
            "call-graph",
            "clang-opt",
            "clang-path",
            "control",
            "filter",
            "max-size",
            "mmap-flush",
            "num-thread-synthesize",
            "proc-map-timeout",
            "switch-max-files",
            "switch-output-event",
            "synth",
            "vmlinux",
        ],
        ..BASE
    },
    // perf trace …; `perf trace record` hands its words to perf record.
    Grammar {
        name: "perf trace",
        subcommands: &[("record", "perf record")],
        short_arg: b"CDeFGimoptu",
        long_arg: &[
            "cpu",
            "delay",
            "event",
            "pf",
            "cgroup",
            "input",
            "mmap-pages",
            "output",
            "pid",
            "tid",
            "uid",
            "call-graph",
            "duration",
            "expr",
            "filter",
            "filter-pids",
            "map-dump",
            "max-events",
            "max-stack",
            "min-stack",
            "proc-map-timeout",
            "switch-off",
            "switch-on",
        ],
        ..BASE
    },
    // dbus-run-session [--config-file F] [--dbus-daemon B] [--] prog: it reads its
    // two options by hand, each with `=` or the next word.
    Grammar {
        name: "dbus-run-session",
        long_arg: &["config-file", "dbus-daemon"],
        ..BASE
    },
    // catchsegv prog [args]
    Grammar {
        name: "catchsegv",
        ..BASE
    },
    // firejail [--opt | --opt=value …] [-c] [--] [prog]: no option takes the next word;
    // without a program it runs the user's shell.
    Grammar {
        name: "firejail",
        bare_shell: true,
        ..BASE
    },
    // torsocks [-u user] [-p pass] [-a addr] [-P port] [-i] [-d] [-q] cmd; --shell
    // spawns a shell.
    Grammar {
        name: "torsocks",
        short_arg: b"upaP",
        long_arg: &["user", "pass", "address", "port"],
        long_shell: &["shell"],
        ..BASE
    },
    // proxychains(-ng) [-q] [-f config] cmd: at most two option words, by first letter.
    Grammar {
        name: "proxychains",
        custom: Some(proxychains),
        ..BASE
    },
    Grammar {
        name: "proxychains4",
        custom: Some(proxychains),
        ..BASE
    },
    // aa-exec [-p profile] [-n namespace] [-i] [-v] [-d] [--] cmd
    Grammar {
        name: "aa-exec",
        short_arg: b"pn",
        long_arg: &["profile", "namespace"],
        ..BASE
    },
    // cgexec [-g controllers:path] [--sticky] cmd
    Grammar {
        name: "cgexec",
        short_arg: b"g",
        ..BASE
    },
    // systemd-run [opts] cmd; -S/--shell runs $SHELL on a terminal fed from stdin.
    Grammar {
        name: "systemd-run",
        short_arg: b"CHMEpu",
        long_arg: &[
            "capsule",
            "unit",
            "description",
            "slice",
            "expand-environment",
            "host",
            "machine",
            "service-type",
            "uid",
            "gid",
            "nice",
            "setenv",
            "property",
            "on-active",
            "on-boot",
            "on-startup",
            "on-unit-active",
            "on-unit-inactive",
            "on-calendar",
            "timer-property",
            "path-property",
            "socket-property",
            "working-directory",
            "root-directory",
            "job-mode",
            "background",
            "json",
        ],
        short_shell: b"S",
        long_shell: &["shell"],
        ..BASE
    },
    // setarch; without a program it runs /bin/sh (util-linux).
    Grammar {
        name: "setarch",
        custom: Some(setarch),
        bare_shell: true,
        ..BASE
    },
    Grammar {
        name: "setarch ARCH",
        custom: Some(setarch_options),
        bare_shell: true,
        ..BASE
    },
    // ssh-agent [-a bind] [-E hash] [-O option] [-P providers] [-t life] [CMD [ARGS]];
    // -k kills the running agent.
    Grammar {
        name: "ssh-agent",
        short_arg: b"aEOPt",
        short_query: b"k",
        ..BASE
    },
    // screen [-opts] [CMD [ARGS]]: -r/-R/-x reattach to a session and -X/-Q send
    // one a screen command, so no command of the line runs (-d -m starts one
    // detached, with the command).
    Grammar {
        name: "screen",
        short_arg: b"cehpSsTt",
        short_query: b"rRxXQ",
        ..BASE
    },
    // ld.so [--list|--verify] [--library-path P] [--inhibit-rpath L] [--audit L]
    // [--preload L] [--argv0 S] [--glibc-hwcaps-prepend L] [--glibc-hwcaps-mask L]
    // PROG [ARGS] (glibc's `ld.so --help`); every dynamic loader's name maps here.
    Grammar {
        name: "ld.so",
        long_arg: &[
            "library-path",
            "inhibit-rpath",
            "audit",
            "preload",
            "argv0",
            "glibc-hwcaps-prepend",
            "glibc-hwcaps-mask",
        ],
        long_query: &[
            "list",
            "verify",
            "list-tunables",
            "list-diagnostics",
            "help",
            "version",
        ],
        ..BASE
    },
    // gdb [opts] [--args] PROG [ARGS]: the program it loads is run by `-ex run`,
    // by `--args`, or from its prompt.
    Grammar {
        name: "gdb",
        custom: Some(gdb),
        ..BASE
    },
    // start-stop-daemon --start --exec PATH | --startas PATH [-- ARGS] (dpkg).
    Grammar {
        name: "start-stop-daemon",
        custom: Some(start_stop_daemon),
        ..BASE
    },
    // tmux [-2CDlNuVv] [-c SHELL-COMMAND] [-f FILE] [-L NAME] [-S PATH] [-T FEATURES]
    // COMMAND …: the commands that start a shell command (joined, for `sh -c`).
    Grammar {
        name: "tmux",
        short_arg: b"fLST",
        short_code: b"c",
        operands: Operands::One,
        subcommands: &[
            ("new-session", "tmux new-session"),
            ("new", "tmux new-session"),
            ("new-window", "tmux new-window"),
            ("neww", "tmux new-window"),
            ("split-window", "tmux split-window"),
            ("splitw", "tmux split-window"),
            ("respawn-pane", "tmux respawn"),
            ("respawnp", "tmux respawn"),
            ("respawn-window", "tmux respawn"),
            ("respawnw", "tmux respawn"),
            ("run-shell", "tmux run-shell"),
            ("run", "tmux run-shell"),
            ("display-popup", "tmux display-popup"),
            ("popup", "tmux display-popup"),
            ("send-keys", "tmux send-keys"),
            ("send", "tmux send-keys"),
        ],
        ..BASE
    },
    Grammar {
        name: "tmux new-session",
        short_arg: b"cefFnstxy",
        form: Form::Joined,
        ..BASE
    },
    Grammar {
        name: "tmux new-window",
        short_arg: b"ceFnt",
        form: Form::Joined,
        ..BASE
    },
    Grammar {
        name: "tmux split-window",
        short_arg: b"ceFlpt",
        form: Form::Joined,
        ..BASE
    },
    Grammar {
        name: "tmux respawn",
        short_arg: b"cet",
        form: Form::Joined,
        ..BASE
    },
    Grammar {
        name: "tmux run-shell",
        short_arg: b"cdt",
        form: Form::Joined,
        ..BASE
    },
    // send-keys types into a pane, whose shell runs what is typed.
    Grammar {
        name: "tmux send-keys",
        short_arg: b"cNt",
        form: Form::Joined,
        ..BASE
    },
    Grammar {
        name: "tmux display-popup",
        short_arg: b"bcdehsStTwxy",
        form: Form::Joined,
        ..BASE
    },
];

/// The grammar a runner's name reads by: the dynamic loader under any of its
/// names (`ld-linux-x86-64.so.2`, `ld-musl-x86_64.so.1`, `ld.so`), setarch
/// under the architectures it is linked as.
fn canonical(name: &str) -> &str {
    let loader = (name.starts_with("ld-linux")
        || name.starts_with("ld-musl")
        || name.starts_with("ld64.so"))
        && name.contains(".so");
    match name {
        _ if loader => "ld.so",
        "linux32" | "linux64" | "i386" | "i486" | "i586" | "i686" | "x86_64" | "uname26" => {
            "setarch ARCH"
        }
        _ => name,
    }
}

/// gdb's options taking a value (with one dash or two), then `--args PROG ARGS`
/// or the program file as the first operand.
fn gdb(args: &[Cow<'_, str>]) -> Option<usize> {
    const TAKES: &[&str] = &[
        "ex",
        "iex",
        "x",
        "ix",
        "eval-command",
        "init-eval-command",
        "command",
        "init-command",
        "p",
        "pid",
        "c",
        "core",
        "d",
        "directory",
        "cd",
        "tty",
        "s",
        "symbols",
        "e",
        "exec",
        "se",
        "b",
        "l",
        "i",
        "interpreter",
        "data-directory",
        "D",
    ];
    let mut j = 0;
    while let Some(word) = args.get(j) {
        let option = word.trim_start_matches('-');
        if !word.starts_with('-') {
            return Some(j);
        }
        if option == "args" {
            return Some(j + 1);
        }
        j += 1 + usize::from(!option.contains('=') && TAKES.contains(&option));
    }
    Some(j)
}

/// start-stop-daemon runs a program only with `--start`/`-S`: the one of
/// `--startas`/`-a`, else of `--exec`/`-x` (`--opt=value` or the next word).
fn start_stop_daemon(args: &[Cow<'_, str>]) -> Option<usize> {
    let starts = args.iter().any(|a| a == "--start" || a == "-S");
    let value = |names: [&str; 2]| {
        args.iter().enumerate().find_map(|(k, a)| {
            if names.contains(&&**a) {
                return Some(k + 1);
            }
            a.strip_prefix(names[1])
                .and_then(|v| v.strip_prefix('='))
                .map(|_| k)
        })
    };
    match value(["-a", "--startas"]).or(value(["-x", "--exec"])) {
        Some(k) if starts => Some(k),
        _ => None,
    }
}

/// proxychains-ng reads at most two option words, each by its second letter: `-q…`
/// alone, `-f…` with the next word (its config file); any other word starts the
/// command, a dash or not.
fn proxychains(args: &[Cow<'_, str>]) -> Option<usize> {
    let mut j = 0;
    for _ in 0..2 {
        match args.get(j).map(|a| a.as_bytes()) {
            Some([b'-', b'q', ..]) => j += 1,
            Some([b'-', b'f', ..]) => j += 2,
            _ => break,
        }
    }
    Some(j)
}

/// setarch [ARCH] [-BFILRSTXZ3v] [--4gb] [--uname-2.6] [PROG [ARGS]]: the
/// architecture may be left out (util-linux 2.33), and then the options come
/// first; `--list`, `-h`, `-V` only print. No option takes an argument.
fn setarch(args: &[Cow<'_, str>]) -> Option<usize> {
    let arch = args.first().is_some_and(|a| !a.starts_with('-'));
    setarch_options(&args[usize::from(arch)..]).map(|j| j + usize::from(arch))
}

/// linux32, linux64, i386, x86_64, …: setarch with the architecture in its name.
fn setarch_options(args: &[Cow<'_, str>]) -> Option<usize> {
    let mut j = 0;
    while let Some(word) = args.get(j) {
        match &**word {
            "--" => return Some(j + 1),
            "--list" | "--help" | "--version" | "-h" | "-V" => return None,
            w if w.starts_with('-') && w.len() > 1 => j += 1,
            _ => break,
        }
    }
    Some(j)
}

/// What a runner's arguments run, by index into the arguments after its name.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Shell code in option arguments.
    pub(crate) code: Vec<Code>,
    pub(crate) run: Run,
    /// The runner adds words after the command's own.
    pub(crate) appends: bool,
    /// Strings the runner replaces in the command's words.
    pub(crate) replace: Replace,
    /// The argument naming the program the runner starts as its shell (`su -s`),
    /// and the byte its path starts at (`--shell=PATH`).
    pub(crate) program: Option<(usize, usize)>,
}

/// Shell code in an option's argument: the text of word `word` from byte `from` on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Code {
    pub(crate) word: usize,
    pub(crate) from: usize,
    /// The code stands where an argument does, after a command (`eval echo CODE`).
    pub(crate) argument: bool,
}

/// The command a runner runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) enum Run {
    /// The command starts at this word.
    Argv(usize),
    /// The words from here, joined by spaces, are shell code.
    Joined(usize),
    /// A shell, which reads its code from stdin.
    Shell,
    /// None.
    #[default]
    Nothing,
}

/// Whether `name` is a runner.
pub(crate) fn is_runner(name: &str) -> bool {
    let name = canonical(name);
    RUNNERS.iter().any(|g| g.name == name)
}

/// Reads the arguments `args` of runner `name` (as after quote removal).
pub(crate) fn plan(name: &str, args: &[Cow<'_, str>]) -> Plan {
    let name = canonical(name);
    let Some(g) = RUNNERS.iter().find(|g| g.name == name) else {
        return Plan::default();
    };
    if let Some(custom) = g.custom {
        let run = match custom(args) {
            Some(start) if start < args.len() => Run::Argv(start),
            Some(_) if g.bare_shell => Run::Shell,
            _ => Run::Nothing,
        };
        return Plan {
            run,
            ..Plan::default()
        };
    }
    let mut read = Read::default();
    let mut j = read.options(g, args, 0);
    let sub = args
        .get(j)
        .and_then(|a| g.subcommands.iter().find(|(s, _)| *s == a));
    if let Some((_, grammar)) = sub {
        return plan(grammar, &args[j + 1..]).shifted(j + 1);
    }
    if !g.subcommands.is_empty() && g.operands == Operands::One {
        // No subcommand that runs a command; the options' code still runs.
        return Plan {
            code: read.code,
            ..Plan::default()
        };
    }
    j = match g.operands {
        Operands::One if read.operand.is_none() => j + 1,
        Operands::Number if args.get(j).is_some_and(|a| is_number(a)) => j + 1,
        _ => j,
    };
    if g.options_after_operands {
        j = read.options(g, args, j);
    }
    if read.query {
        return Plan::default();
    }
    let start = read.operand.unwrap_or(j);
    let run = if !read.code.is_empty() && !g.code_and_command {
        Run::Nothing
    } else if read.shell {
        Run::Shell
    } else {
        match g.form {
            Form::Argv if start < args.len() && (g.argv_needs.is_none() || read.argv_option) => {
                Run::Argv(start)
            }
            Form::Joined if start < args.len() => Run::Joined(start),
            _ if g.bare_shell => Run::Shell,
            _ => Run::Nothing,
        }
    };
    let replace = match read.replace {
        strings if g.braces => Replace::Braces(strings),
        strings if strings.is_empty() => Replace::None,
        strings => Replace::Strings(strings),
    };
    Plan {
        code: read.code,
        run,
        appends: g.appends,
        replace,
        program: read.program,
    }
}

impl Plan {
    /// The plan of arguments that start `by` words later.
    fn shifted(mut self, by: usize) -> Plan {
        for code in &mut self.code {
            code.word += by;
        }
        self.program = self.program.map(|(k, from)| (k + by, from));
        self.run = match self.run {
            Run::Argv(k) => Run::Argv(k + by),
            Run::Joined(k) => Run::Joined(k + by),
            other => other,
        };
        self
    }
}

/// What the options of one runner said.
#[derive(Default)]
struct Read {
    code: Vec<Code>,
    query: bool,
    /// An option that starts a shell reading stdin was given.
    shell: bool,
    /// The `argv_needs` option was given.
    argv_option: bool,
    /// With `permute`: the first operand.
    operand: Option<usize>,
    /// The replacement strings given (any of them may be in effect).
    replace: Vec<String>,
    /// The argument of a `short_program`/`long_program` option.
    program: Option<(usize, usize)>,
}

impl Read {
    /// Reads options from `j`; returns the index of the first operand (or the end).
    fn options(&mut self, g: &Grammar, args: &[Cow<'_, str>], mut j: usize) -> usize {
        while let Some(word) = args.get(j) {
            if word == "--" {
                return j + 1;
            }
            j += if let Some(long) = word.strip_prefix("--") {
                self.long(g, args, j, long)
            } else if word == "-" && g.login_dash {
                1
            } else if word.len() > 1 && word.starts_with('-') {
                self.short(g, args, j)
            } else if g.permute {
                self.operand.get_or_insert(j);
                1
            } else {
                return j;
            };
        }
        j
    }

    /// One long option at `args[j]`; returns how many words it takes.
    fn long(&mut self, g: &Grammar, args: &[Cow<'_, str>], j: usize, long: &str) -> usize {
        let (name, value) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        self.query |= g.long_query.contains(&name);
        self.shell |= g.long_shell.contains(&name);
        self.argv_option |= g.argv_needs.is_some_and(|(_, l)| l == name);
        let takes_next = value.is_none() && g.long_arg.contains(&name);
        if g.long_program.contains(&name) {
            match value {
                Some(_) => self.program = Some((j, 3 + name.len())),
                None if j + 1 < args.len() => self.program = Some((j + 1, 0)),
                None => {}
            }
        }
        if g.long_replace.contains(&name) {
            let next = args.get(j + 1).filter(|_| takes_next);
            self.replaced(value.or(next.map(|n| &**n)));
        }
        let argument = g.long_eval.contains(&name);
        if argument || g.long_code.contains(&name) {
            let (word, from) = match value {
                Some(_) => (j, 3 + name.len()),
                None => (j + 1, 0),
            };
            if word < args.len() {
                self.code.push(Code {
                    word,
                    from,
                    argument,
                });
            }
            return 1 + usize::from(value.is_none());
        }
        1 + usize::from(takes_next)
    }

    /// A replacement string given, `{}` when the option has no value; for
    /// parallel's `--rpl 'TAG perl'`, the tag.
    fn replaced(&mut self, value: Option<&str>) {
        let value = value.unwrap_or("{}");
        let string = value.split_whitespace().next().unwrap_or(value);
        self.replace.push(string.to_owned());
    }

    /// One cluster of short options at `args[j]`; returns how many words it takes.
    fn short(&mut self, g: &Grammar, args: &[Cow<'_, str>], j: usize) -> usize {
        let word = args[j].as_bytes();
        for (k, &f) in word.iter().enumerate().skip(1) {
            self.query |= g.short_query.contains(&f);
            self.shell |= g.short_shell.contains(&f);
            self.argv_option |= g.argv_needs.is_some_and(|(s, _)| s == f);
            let last = k + 1 == word.len();
            let takes_next = last && g.short_arg.contains(&f);
            if g.short_program.contains(&f) {
                match last {
                    false => self.program = Some((j, k + 1)),
                    true if j + 1 < args.len() => self.program = Some((j + 1, 0)),
                    true => {}
                }
            }
            if g.short_replace.contains(&f) {
                let value = match (last, args.get(j + 1)) {
                    (false, _) => Some(&args[j][k + 1..]),
                    (true, Some(next)) if takes_next => Some(&**next),
                    _ => None,
                };
                self.replaced(value);
                return 1 + usize::from(takes_next);
            }
            let argument = g.short_eval.contains(&f);
            if argument || g.short_code.contains(&f) {
                let (word, from) = if last { (j + 1, 0) } else { (j, k + 1) };
                if word < args.len() {
                    self.code.push(Code {
                        word,
                        from,
                        argument,
                    });
                }
                return 1 + usize::from(last);
            }
            if g.short_arg.contains(&f) {
                return 1 + usize::from(last);
            }
        }
        1
    }
}

fn is_number(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::{plan, Plan, Replace, Run};
    use std::borrow::Cow;

    /// A runner's arguments, what they run and how many code options they carry.
    const CASES: &[(&str, &str, Run, usize)] = &[
        ("xargs", "-I {} -n 1 -P4 rm {}", Run::Argv(5), 0),
        ("xargs", "-0 -a list -- rm", Run::Argv(4), 0),
        ("xargs", "", Run::Nothing, 0),
        ("xargs", "- x", Run::Argv(0), 0),
        ("nice", "-n 5 make", Run::Argv(2), 0),
        ("nice", "-10 make", Run::Argv(1), 0),
        ("ionice", "-c 3 -p 1234", Run::Nothing, 0),
        ("flock", "/tmp/l make", Run::Argv(1), 0),
        ("flock", "-w 5 9", Run::Nothing, 0),
        ("chrt", "-f 10 make", Run::Argv(2), 0),
        ("chrt", "-b make", Run::Argv(1), 0),
        ("chrt", "-p 10 1234", Run::Nothing, 0),
        ("taskset", "-c 0-3 make", Run::Argv(2), 0),
        ("runuser", "root -c x", Run::Nothing, 1),
        // A login: the user's shell reads stdin.
        ("runuser", "bob", Run::Shell, 0),
        ("runuser", "-u bob -- make", Run::Argv(3), 0),
        ("su", "- root", Run::Shell, 0),
        ("su", "-c x root", Run::Nothing, 1),
        ("script", "-q /dev/null", Run::Shell, 0),
        ("chroot", "/srv", Run::Shell, 0),
        ("chroot", "/srv make", Run::Argv(1), 0),
        ("unshare", "-r", Run::Shell, 0),
        ("doas", "-s", Run::Shell, 0),
        ("watch", "-n 1 make", Run::Joined(2), 0),
        ("sg", "- docker make", Run::Joined(2), 0),
        // fakeroot `eval`s -l, -f, -i and -s, and runs the command too.
        (
            "fakeroot",
            "-l lib -u -s state -f faked -- make",
            Run::Argv(8),
            3,
        ),
        ("fakeroot", "-b 3", Run::Shell, 0),
        (
            "valgrind",
            "--tool=memcheck -q --log-file=x make",
            Run::Argv(3),
            0,
        ),
        ("perf", "stat -e cycles -x , -- make", Run::Argv(6), 0),
        ("perf", "stat -i make", Run::Argv(2), 0),
        ("perf", "stat --pre x make", Run::Argv(3), 1),
        (
            "perf",
            "--debug verbose=1 record -o out -g make",
            Run::Argv(6),
            0,
        ),
        ("perf", "trace -i perf.data", Run::Nothing, 0),
        ("perf", "report -i perf.data", Run::Nothing, 0),
        ("perf", "stat record -o f make", Run::Argv(4), 0),
        ("perf", "stat rec make", Run::Argv(2), 0),
        ("perf", "trace record -g -o f make", Run::Argv(5), 0),
        (
            "dbus-run-session",
            "--config-file f -- make",
            Run::Argv(3),
            0,
        ),
        ("catchsegv", "make", Run::Argv(0), 0),
        ("firejail", "--private --net=none -c make", Run::Argv(3), 0),
        ("firejail", "--noprofile", Run::Shell, 0),
        ("torsocks", "-u bob -i make", Run::Argv(3), 0),
        ("torsocks", "--shell", Run::Shell, 0),
        ("proxychains4", "-q -f conf make", Run::Argv(3), 0),
        // Only the second letter counts: `-qf` is `-q`, and a third option word is the command.
        ("proxychains4", "-qf make x", Run::Argv(1), 0),
        ("proxychains", "-q -q -q make", Run::Argv(2), 0),
        ("aa-exec", "-p prof -- make", Run::Argv(3), 0),
        ("cgexec", "-g cpu:/x --sticky make", Run::Argv(3), 0),
        (
            "systemd-run",
            "--user -p A=1 --unit x -t make",
            Run::Argv(6),
            0,
        ),
        ("systemd-run", "-S", Run::Shell, 0),
    ];

    fn words(args: &str) -> Vec<Cow<'_, str>> {
        args.split_whitespace().map(Cow::Borrowed).collect()
    }

    #[test]
    fn table() {
        for (name, args, run, code) in CASES {
            let got = plan(name, &words(args));
            assert_eq!(got.run, *run, "{name} {args}");
            assert_eq!(got.code.len(), *code, "{name} {args}");
        }
    }

    /// What a runner adds to its command's words.
    #[test]
    fn fills() {
        let fill = |name: &str, args: &str| {
            let Plan {
                appends, replace, ..
            } = plan(name, &words(args));
            (appends, replace)
        };
        let strings = |s: &[&str]| s.iter().map(ToString::to_string).collect::<Vec<_>>();
        let replaced = |s: &[&str]| Replace::Strings(strings(s));
        assert_eq!(fill("xargs", "kubectl"), (true, Replace::None));
        assert_eq!(fill("xargs", "-I R kubectl R"), (true, replaced(&["R"])));
        assert_eq!(fill("xargs", "-IR kubectl R"), (true, replaced(&["R"])));
        assert_eq!(fill("xargs", "-i kubectl {}"), (true, replaced(&["{}"])));
        assert_eq!(
            fill("xargs", "--replace=R -I S kubectl R"),
            (true, replaced(&["R", "S"]))
        );
        assert_eq!(
            fill("parallel", "kubectl {}"),
            (true, Replace::Braces(vec![]))
        );
        assert_eq!(
            fill("parallel", "--er X kubectl X"),
            (true, Replace::Braces(strings(&["X"])))
        );
        assert_eq!(fill("nice", "kubectl"), (false, Replace::None));
        let braces = Replace::Braces(strings(&["X"]));
        assert!(braces.matches("a{.}b") && braces.matches("aXb") && !braces.matches("}{"));
    }
}
