//! Command runners: programs that run a command given in their arguments (`xargs`,
//! `nice`, `flock`, `su -c`, …), with each one's option grammar transcribed from its
//! manual page, so the splitter finds where the command starts.
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
}

const BASE: Grammar = Grammar {
    name: "",
    short_arg: b"",
    long_arg: &[],
    short_code: b"",
    long_code: &[],
    short_query: b"",
    long_query: &[],
    operands: Operands::None,
    options_after_operands: false,
    permute: false,
    login_dash: false,
    argv_needs: None,
    form: Form::Argv,
};

/// The runners, each from its manual page (GNU findutils, coreutils, util-linux,
/// procps, shadow, strace, ltrace, OpenBSD doas, GNU parallel, BusyBox).
const RUNNERS: &[Grammar] = &[
    // xargs: -a file, -E eof, -d delim, -I replace, -L lines, -n args, -P procs,
    // -s chars; -e[eof], -i[replace] and -l[lines] only take an attached argument.
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
    Grammar {
        name: "chroot",
        long_arg: &["userspec", "groups"],
        operands: Operands::One,
        ..BASE
    },
    // doas [-Lns] [-C config] [-u user] command
    Grammar {
        name: "doas",
        short_arg: b"u",
        short_query: b"C",
        ..BASE
    },
    Grammar {
        name: "su",
        short_arg: b"sgGw",
        long_arg: &["shell", "group", "supp-group", "whitelist-environment"],
        short_code: b"c",
        long_code: &["command", "session-command"],
        permute: true,
        login_dash: true,
        form: Form::CodeOnly,
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
        permute: true,
        login_dash: true,
        argv_needs: Some((b'u', "user")),
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
        ..BASE
    },
    Grammar {
        name: "nsenter",
        short_arg: b"tSGW",
        long_arg: &["target", "setuid", "setgid", "wdns"],
        ..BASE
    },
    Grammar {
        name: "parallel",
        short_arg: b"aCdEIJjLNnPSs",
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
        ],
        form: Form::Joined,
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
];

/// What a runner's arguments run, by index into the arguments after its name.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// The command starts at this word.
    Argv(usize),
    /// The words from here, joined by spaces, are shell code.
    Joined(usize),
    /// Shell code: the text of word `.0` from byte `.1` on, for each such option.
    Code(Vec<(usize, usize)>),
    /// Nothing runs.
    Nothing,
}

/// Whether `name` is a runner.
pub(crate) fn is_runner(name: &str) -> bool {
    RUNNERS.iter().any(|g| g.name == name)
}

/// Reads the arguments `args` of runner `name` (as after quote removal).
pub(crate) fn plan(name: &str, args: &[Cow<'_, str>]) -> Plan {
    let Some(g) = RUNNERS.iter().find(|g| g.name == name) else {
        return Plan::Nothing;
    };
    let mut read = Read::default();
    let mut j = read.options(g, args, 0);
    j = match g.operands {
        Operands::One if read.operand.is_none() => j + 1,
        Operands::Number if args.get(j).is_some_and(|a| is_number(a)) => j + 1,
        _ => j,
    };
    if g.options_after_operands {
        j = read.options(g, args, j);
    }
    let start = read.operand.unwrap_or(j);
    if read.query {
        Plan::Nothing
    } else if !read.code.is_empty() {
        Plan::Code(read.code)
    } else if start >= args.len() {
        Plan::Nothing
    } else {
        match g.form {
            Form::Argv if g.argv_needs.is_none() || read.argv_option => Plan::Argv(start),
            Form::Joined => Plan::Joined(start),
            _ => Plan::Nothing,
        }
    }
}

/// What the options of one runner said.
#[derive(Default)]
struct Read {
    code: Vec<(usize, usize)>,
    query: bool,
    /// The `argv_needs` option was given.
    argv_option: bool,
    /// With `permute`: the first operand.
    operand: Option<usize>,
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
            Some((name, _)) => (name, true),
            None => (long, false),
        };
        self.query |= g.long_query.contains(&name);
        self.argv_option |= g.argv_needs.is_some_and(|(_, l)| l == name);
        if g.long_code.contains(&name) {
            if value {
                self.code.push((j, 3 + name.len()));
            } else if j + 1 < args.len() {
                self.code.push((j + 1, 0));
            }
            return 1 + usize::from(!value);
        }
        1 + usize::from(!value && g.long_arg.contains(&name))
    }

    /// One cluster of short options at `args[j]`; returns how many words it takes.
    fn short(&mut self, g: &Grammar, args: &[Cow<'_, str>], j: usize) -> usize {
        let word = args[j].as_bytes();
        for (k, &f) in word.iter().enumerate().skip(1) {
            self.query |= g.short_query.contains(&f);
            self.argv_option |= g.argv_needs.is_some_and(|(s, _)| s == f);
            let last = k + 1 == word.len();
            if g.short_code.contains(&f) {
                match (last, j + 1 < args.len()) {
                    (false, _) => self.code.push((j, k + 1)),
                    (true, true) => self.code.push((j + 1, 0)),
                    (true, false) => {}
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
    use super::{plan, Plan};
    use std::borrow::Cow;

    /// A runner's arguments and the plan they make.
    const CASES: &[(&str, &str, Plan)] = &[
        ("xargs", "-I {} -n 1 -P4 rm {}", Plan::Argv(5)),
        ("xargs", "-0 -a list -- rm", Plan::Argv(4)),
        ("xargs", "", Plan::Nothing),
        ("xargs", "- x", Plan::Argv(0)),
        ("nice", "-n 5 make", Plan::Argv(2)),
        ("nice", "-10 make", Plan::Argv(1)),
        ("ionice", "-c 3 -p 1234", Plan::Nothing),
        ("flock", "/tmp/l make", Plan::Argv(1)),
        ("flock", "-w 5 9", Plan::Nothing),
        ("chrt", "-f 10 make", Plan::Argv(2)),
        ("chrt", "-b make", Plan::Argv(1)),
        ("chrt", "-p 10 1234", Plan::Nothing),
        ("taskset", "-c 0-3 make", Plan::Argv(2)),
        ("runuser", "root -c x", Plan::Code(Vec::new())),
        ("runuser", "bob", Plan::Nothing),
        ("runuser", "-u bob -- make", Plan::Argv(3)),
        ("su", "- root", Plan::Nothing),
        ("watch", "-n 1 make", Plan::Joined(2)),
        ("sg", "- docker make", Plan::Joined(2)),
    ];

    #[test]
    fn table() {
        for (name, args, want) in CASES {
            let args: Vec<Cow<'_, str>> = args.split_whitespace().map(Cow::Borrowed).collect();
            let got = plan(name, &args);
            match (want, &got) {
                // The table leaves the code positions to the splitter's own tests.
                (Plan::Code(_), Plan::Code(found)) => assert!(!found.is_empty(), "{name} {args:?}"),
                _ => assert_eq!(got, *want, "{name} {args:?}"),
            }
        }
    }
}
