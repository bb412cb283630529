//! The splitter on 1 MB lines of every nesting construct: opened and closed, opened
//! and never closed, nested deep and repeated side by side, each followed by
//! `kubectl delete pod x`. Real bash runs the same construct at a small size first
//! (with a stub `kubectl` first on `PATH`): when it runs kubectl there, the splitter
//! must name kubectl on the 1 MB line or report the line dynamic (too deep), never
//! miss it silently; side-by-side constructs must name it. How long these lines take
//! is measured by `benches/splitter.rs` (`cargo bench -p hookdex-benches --bench
//! splitter`), not asserted here.

use std::process::{Command, Stdio};

use hookdex_shell::{commands, split};
use hookdex_test_support::{has_bash, write_executable, ScratchDir};

/// How the 1 MB line must come out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// kubectl named.
    Named,
    /// kubectl named, or the line dynamic; checked only when bash runs kubectl at the
    /// small size.
    Found,
}

/// A construct: its name, the line it makes with `n` repetitions, and what the 1 MB
/// line must give.
struct Construct {
    name: &'static str,
    unit: &'static str,
    make: fn(&str, usize) -> String,
    expect: Expect,
}

/// `n` units nested, then closed: `open` is the unit, `close` what closes one.
fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// The constructs, each built from a unit repeated; the command after them follows.
fn constructs() -> Vec<Construct> {
    fn c(name: &'static str, unit: &'static str, make: fn(&str, usize) -> String) -> Construct {
        Construct {
            name,
            unit,
            make,
            expect: Expect::Found,
        }
    }
    fn named(name: &'static str, unit: &'static str, make: fn(&str, usize) -> String) -> Construct {
        Construct {
            expect: Expect::Named,
            ..c(name, unit, make)
        }
    }
    vec![
        // Nested and closed.
        c("braces", "{", |u, n| format!("echo {}", u.repeat(n))),
        c("brace groups", "{a,", |u, n| {
            format!("echo {}", nested(u, "a", "}", n))
        }),
        c("command substitution", "$(", |u, n| {
            format!("echo {}", nested(u, "echo", ")", n))
        }),
        c("parameter", "${x:-", |u, n| {
            format!("echo {}", nested(u, "a", "}", n))
        }),
        c("arithmetic expansion", "(", |u, n| {
            format!("echo $(( {} ))", nested(u, "1", ")", n))
        }),
        c("arithmetic command", "(", |u, n| {
            format!("(( {} ))", nested(u, "1", ")", n))
        }),
        c("subshells", "(", |u, n| nested(u, "true", ")", n)),
        c("test groups", "( ", |u, n| {
            format!("[[ {} ]]", nested(u, "a", " )", n))
        }),
        c("process substitution", "<(cat ", |u, n| {
            format!("cat {}", nested(u, "/dev/null", ")", n))
        }),
        c("double quotes in substitutions", "\"$(echo ", |u, n| {
            format!("echo {}", nested(u, "a", ")\"", n))
        }),
        c("comments in substitutions", "$(: #)\n", |u, n| {
            format!("echo {}", nested(u, "", ")", n))
        }),
        c("bracket arithmetic", "(", |u, n| {
            format!("echo $[{}]", nested(u, "1", ")", n))
        }),
        c("extglob groups", "@(", |u, n| {
            format!("shopt -s extglob\necho {}", nested(u, "a", ")", n))
        }),
        c("backtick pairs escaped", "\\`", |u, n| {
            format!("echo `echo {}`", u.repeat(n))
        }),
        // Side by side, closed: every one is read, and the command after them is named.
        named("brace groups side by side", "{a,b} ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("sequences side by side", "{1..2} ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("substitutions side by side", "$(echo) ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("backticks side by side", "`echo` ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("parameters side by side", "${x:-a} ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("arithmetic side by side", "$((1)) ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("arithmetic commands side by side", "((1)); ", |u, n| {
            u.repeat(n)
        }),
        named("subshells side by side", "(true); ", |u, n| u.repeat(n)),
        named("process substitutions side by side", "<(true) ", |u, n| {
            format!("cat {}", u.repeat(n))
        }),
        named("single quotes side by side", "'a' ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("double quotes side by side", "\"a\" ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("ANSI-C quotes side by side", "$'\\'' ", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("array elements", "x ", |u, n| {
            format!("a=({})", u.repeat(n))
        }),
        named("arrays side by side", "a=(x); ", |u, n| u.repeat(n)),
        named("case patterns", "y|", |u, n| {
            format!("case x in {}z) ;; esac", u.repeat(n))
        }),
        named("case items", "y) ;; ", |u, n| {
            format!("case x in {}esac", u.repeat(n))
        }),
        // Half as many, so the line with its bodies stays within `MAX_LINE`.
        named("heredocs", "<<E ", |u, n| {
            format!("cat {}\n{}true", u.repeat(n / 2), "E\n".repeat(n / 2))
        }),
        named("heredoc body", "x\n", |u, n| {
            format!("cat <<E\n{}E\ntrue", u.repeat(n))
        }),
        named("heredoc body with substitutions", "$(echo)\n", |u, n| {
            format!("cat <<E\n{}E\ntrue", u.repeat(n))
        }),
        named("line continuations", "\\\n", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        named("comments", "# (\n", |u, n| u.repeat(n)),
        named("test brackets", "[[ a ]] && ", |u, n| {
            format!("{}true", u.repeat(n))
        }),
        named("glob brackets", "[", |u, n| format!("echo {}", u.repeat(n))),
        named("extglob side by side", "@(a) ", |u, n| {
            format!("shopt -s extglob\necho {}", u.repeat(n))
        }),
        named("commands", "a;", |u, n| u.repeat(n)),
        named("pipes", "echo a | ", |u, n| format!("{}cat", u.repeat(n))),
        // Opened and never closed: bash runs nothing, the splitter must still return.
        c("unclosed braces", "{", |u, n| u.repeat(n)),
        c("unclosed parentheses", "(", |u, n| u.repeat(n)),
        c("unclosed substitutions", "$(", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        c("unclosed parameters", "${", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        c("unclosed arithmetic", "$((", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        c("unclosed arithmetic commands", "((", |u, n| u.repeat(n)),
        c("unclosed test", "[[ ", |u, n| u.repeat(n)),
        c("unclosed process substitutions", "<(", |u, n| {
            format!("cat {}", u.repeat(n))
        }),
        c("unclosed double quotes", "\"$(", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        c("unclosed single quote", "'", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        c("unclosed backticks", "`", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        c("unclosed ANSI-C quotes", "$'\\'", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
        c("unclosed arrays", "a=(", |u, n| u.repeat(n)),
        c("unclosed extglob", "@(", |u, n| {
            format!("shopt -s extglob\necho {}", u.repeat(n))
        }),
        c("unclosed case", "(", |u, n| {
            format!("case x in {}", u.repeat(n))
        }),
        c("unclosed heredocs", "<<E ", |u, n| {
            format!("cat {}", u.repeat(n))
        }),
        c("unclosed bracket arithmetic", "$[", |u, n| {
            format!("echo {}", u.repeat(n))
        }),
    ]
}

/// What follows each construct.
const AFTER: &[&str] = &[" ; kubectl delete pod x", "\nkubectl delete pod x"];

/// How long a big line is.
const BIG: usize = 1_000_000;

#[test]
fn megabyte_lines_of_every_construct_are_named_or_dynamic() {
    let Some(bash) = Bash::new() else {
        eprintln!("no bash here: the lines are checked without it");
        return check_all(|_| true);
    };
    check_all(|line| bash.runs_kubectl(line));
}

/// Checks every construct and suffix, asking `runs` whether bash runs kubectl on a
/// small line of it.
fn check_all(runs: impl Fn(&str) -> bool) {
    let mut failures = Vec::new();
    for construct in constructs() {
        for after in AFTER {
            let small = format!("{}{after}", (construct.make)(construct.unit, 40));
            let n = BIG / construct.unit.len();
            let big = format!("{}{after}", (construct.make)(construct.unit, n));
            let found = split(&big);
            if after == &AFTER[0] {
                // `commands` reads the same text and must return too.
                let _ = commands(&big);
            }
            let named = found.programs.iter().any(|p| p == "kubectl");
            let ok = match construct.expect {
                Expect::Named => named,
                Expect::Found => named || found.is_dynamic() || !runs(&small),
            };
            if !ok {
                failures.push(format!(
                    "{} then {after:?}: {:?} {:?}",
                    construct.name, found.programs, found.dynamic
                ));
            }
        }
    }
    assert!(failures.is_empty(), "missed:\n{}", failures.join("\n"));
}

/// Real bash with a stub kubectl first on `PATH`.
struct Bash {
    dir: ScratchDir,
}

impl Bash {
    fn new() -> Option<Self> {
        if !has_bash() {
            return None;
        }
        let dir = ScratchDir::new("shell-linear");
        write_executable(
            &dir.path().join("kubectl"),
            "#!/bin/sh\necho ran >> \"$MARK\"\n",
        );
        Some(Bash { dir })
    }

    /// Whether `bash -c line` runs kubectl, in an empty directory, stdin from /dev/null.
    fn runs_kubectl(&self, line: &str) -> bool {
        let mark = self.dir.path().join("mark");
        let _ = std::fs::remove_file(&mark);
        let work = self.dir.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let path = format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let _ = Command::new("timeout")
            .args(["10", "bash", "-c", line])
            .current_dir(&work)
            .env("PATH", path)
            .env("MARK", &mark)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        mark.exists()
    }
}

/// A line longer than [`hookdex_shell::MAX_LINE`] is read from its start with the
/// budget of the longest line: what it names there is named, and what lies past the
/// budget is reported too deep, not read.
#[test]
fn a_line_past_the_longest_read_is_read_to_its_budget() {
    let mut long = String::from("kubectl delete pod x; ");
    while long.len() < 12 * hookdex_shell::MAX_LINE {
        long.push_str("echo a; ");
    }
    long.push_str("git push");
    let found = hookdex_shell::split(&long);
    assert_eq!(found.programs, ["kubectl", "echo"]);
    assert!(
        found
            .dynamic
            .iter()
            .any(|d| d.reason == hookdex_shell::Reason::TooDeep),
        "{:?}",
        found.dynamic.first()
    );
    let fits = format!(
        "kubectl delete pod x; echo '{}'; git push",
        "a".repeat(hookdex_shell::MAX_LINE - 40)
    );
    assert_eq!(hookdex_shell::programs(&fits), ["kubectl", "echo", "git"]);
}

/// Runners each running the next (`nice nice … kubectl get pods`) to 1 MB: past the
/// runner limit the line is reported too deep without the rest being walked again at
/// each level, and a chain the splitter follows names kubectl.
#[test]
fn megabyte_runner_chains_are_named_or_too_deep() {
    for unit in [
        "nice ",
        "flock f ",
        "chroot / ",
        "xargs -I{} ",
        "taskset 1 ",
        "doas ",
        "env ",
        "sudo ",
        "nohup ",
    ] {
        let line = format!("{}kubectl get pods", unit.repeat(BIG / unit.len()));
        let found = split(&line);
        let too_deep = found
            .dynamic
            .iter()
            .any(|d| d.reason == hookdex_shell::Reason::TooDeep);
        assert!(
            too_deep || found.programs.iter().any(|p| p == "kubectl"),
            "{unit:?} chain: {:?} {:?}",
            found.programs,
            found.dynamic.first()
        );
        let small = format!("{}kubectl get pods", unit.repeat(3));
        assert!(
            split(&small).programs.iter().any(|p| p == "kubectl"),
            "{small:?}"
        );
    }
}
