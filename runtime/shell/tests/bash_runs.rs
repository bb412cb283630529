//! Runs generated command lines in real bash and checks that every program that
//! actually ran is one the splitter reports (or that it reports the line dynamic).
//!
//! Stub programs (`kubectl`, `helm`, `git`, …) that append their name to a marker file
//! come first on `PATH`; each line runs as `bash -c LINE` in a scratch directory, with
//! stdin from /dev/null, a clean environment and a timeout. Lines come from a seeded
//! grammar of runners, pipes, heredocs, here-strings, substitutions, subshells,
//! `bash -c`, assignments and redirections. Real programs used by the grammar are
//! benign (`echo`, `cat`, `xargs`, `find`, …) and runners missing on this machine are
//! left out. Without bash the test says so and passes.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hookdex_shell::{commands, quote, split};
use hookdex_test_support::{has_bash, write_executable, ScratchDir};

const LINES: usize = 2_000;
const WORKERS: usize = 8;
const TIMEOUT: Duration = Duration::from_secs(10);

/// The stubs: each appends its name to `$MARK`, and reads nothing.
const STUBS: &[&str] = &["kubectl", "helm", "git", "npm", "docker", "terraform"];

/// Runners the grammar may use, with a line that checks each works here.
const RUNNERS: &[(&str, &str)] = &[
    ("nice -n 1", "nice -n 1 true"),
    ("timeout 5", "timeout 5 true"),
    ("env A=1", "env A=1 true"),
    ("stdbuf -oL", "stdbuf -oL true"),
    ("setsid -w", "setsid -w true"),
    ("flock lock", "flock lock true"),
    ("taskset 1", "taskset 1 true"),
    ("ionice -c 3", "ionice -c 3 true"),
    ("chrt -o 0", "chrt -o 0 true"),
    ("nohup", "nohup true"),
    ("command", "command true"),
    ("xargs -0", "xargs -0 true </dev/null"),
    ("fakeroot --", "fakeroot -- true"),
    ("dbus-run-session --", "dbus-run-session -- true"),
    (
        "perf stat -x , -o /dev/null --",
        "perf stat -x , -o /dev/null -- true",
    ),
];

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

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The grammar, over the runners that work here.
struct Gen {
    rng: Rng,
    runners: Vec<&'static str>,
}

impl Gen {
    /// One command line: commands joined by operators.
    fn line(&mut self, depth: usize) -> String {
        let mut line = self.command(depth);
        for _ in 0..self.rng.below(3) {
            let op = self.rng.pick(&[" && ", " || ", "; ", " | ", " |& ", "\n"]);
            line.push_str(op);
            line.push_str(&self.command(depth));
        }
        line
    }

    /// A stub, spelled one of the ways a shell reads as its name.
    fn stub(&mut self) -> String {
        let name = self.rng.pick(STUBS);
        match self.rng.below(6) {
            0 => format!("'{name}'"),
            1 => format!("\"{name}\""),
            2 => format!("\\{name}"),
            _ => name.to_owned(),
        }
    }

    fn simple(&mut self) -> String {
        let stub = self.stub();
        let arg = self
            .rng
            .pick(&["get", "x", "'a b'", "\"$HOME\"", "-n 1", ""]);
        format!("{stub} {arg}")
    }

    /// One command: a simple one, or a construct holding a line.
    fn command(&mut self, depth: usize) -> String {
        let choices = if depth >= 2 { 6 } else { 30 };
        match self.rng.below(choices) {
            0..=3 => self.simple(),
            4 => format!("A=1 B=\"x y\" {}", self.simple()),
            5 => format!("{} >/dev/null 2>&1", self.simple()),
            6 => {
                let runner = self.rng.pick(&self.runners.clone());
                format!("{runner} {}", self.command(depth + 1))
            }
            7 => format!("echo a | xargs -n1 {}", self.simple()),
            8 => format!("echo a | xargs -I{{}} {} {{}}", self.simple()),
            9 => format!("find . -name f1 -exec {} {{}} \\;", self.simple()),
            10 => format!("find . -name 'f*' -execdir {} {{}} +", self.simple()),
            11 => format!("bash -c {}", quote(&self.line(depth + 1))),
            12 => format!("sh -c {}", quote(&self.line(depth + 1))),
            13 => format!("bash <<< {}", quote(&self.line(depth + 1))),
            14 => format!("sh <<EOF\n{}\nEOF\n", self.line(depth + 1)),
            15 => format!("echo {} | sh", quote(&self.line(depth + 1))),
            16 => format!("printf '%s\\n' {} | bash", quote(&self.line(depth + 1))),
            17 => format!("eval {}", quote(&self.line(depth + 1))),
            18 => format!("( {} )", self.line(depth + 1)),
            19 => format!("{{ {}; }}", self.line(depth + 1)),
            20 => format!("echo \"$({})\"", self.line(depth + 1)),
            21 => format!("x=`{}`", self.simple()),
            22 => format!("cat <<EOF\n$({})\nEOF\n", self.simple()),
            23 => format!("cat <<'EOF'\n$({})\nEOF\n", self.simple()),
            24 => format!("if {}; then {}; fi", self.simple(), self.simple()),
            25 => format!("for i in 1; do {}; done", self.line(depth + 1)),
            26 => format!("trap {} EXIT", quote(&self.simple())),
            27 => {
                let stub = self.rng.pick(STUBS);
                self.rng
                    .pick(&[
                        "K={stub}; $K get",
                        "\"$(echo {stub})\" x",
                        "{{{stub},x}} y",
                        "flock lock -c '{stub} x'",
                        "script -qec '{stub} x' /dev/null",
                        "diff <({stub}) <(echo)",
                        "{stub} <<< x",
                        "time -p -- {stub} x",
                        "env -S '{stub}\\_x'",
                        "source <(echo {stub})",
                        "bash <(echo {stub})",
                        "alias k={stub}; k",
                        "hash -p $(command -v {stub}) k; k",
                        "hash -p ../bin/{stub} k; k",
                        "{{stub},get} x",
                        "{sh,-c,'{stub} x'}",
                        "env -S '{stub} -n' x",
                        "bash /dev/stdin <<< '{stub} x'",
                        "bash -c 'sh' <<< '{stub} x'",
                        "{ sh; } <<< '{stub} x'",
                        "fakeroot <<< '{stub} x'",
                    ])
                    .replace("{stub}", stub)
            }
            28 => format!("cat < <({})", self.simple()),
            _ => format!("wait; {} &", self.simple()),
        }
    }
}

/// A scratch tree: `bin/` with the stubs, `work/` to run in.
struct Scratch {
    dir: ScratchDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = ScratchDir::new("shell-bash-runs");
        let root = dir.path();
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::create_dir_all(root.join("work")).unwrap();
        std::fs::create_dir_all(root.join("marks")).unwrap();
        for stub in STUBS {
            let body = format!("#!/bin/sh\necho {stub} >> \"$MARK\"\n");
            write_executable(&root.join("bin").join(stub), &body);
        }
        for file in ["f1", "f2", "lock"] {
            std::fs::write(root.join("work").join(file), "").unwrap();
        }
        Scratch { dir }
    }

    /// Runs `line` with bash; the stubs that ran, or `None` when it timed out.
    fn run(&self, line: &str, n: usize) -> Option<Vec<String>> {
        let mark = self.dir.path().join("marks").join(n.to_string());
        let path = format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            self.dir.path().join("bin").display()
        );
        let mut child = Command::new("bash")
            .arg("-c")
            .arg(line)
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.dir.path().join("work"))
            .env("MARK", &mark)
            .current_dir(self.dir.path().join("work"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn bash");
        let start = Instant::now();
        while child.try_wait().expect("wait bash").is_none() {
            if start.elapsed() > TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let ran = std::fs::read_to_string(&mark).unwrap_or_default();
        Some(ran.lines().map(str::to_owned).collect())
    }
}

/// The outcome of one line.
enum Outcome {
    TimedOut,
    /// Stubs ran and the splitter reports each (or the line is dynamic).
    Seen {
        ran: bool,
    },
    /// A stub ran that the splitter does not report.
    Missed(String),
}

fn check(scratch: &Scratch, line: &str, n: usize) -> Outcome {
    let Some(ran) = scratch.run(line, n) else {
        return Outcome::TimedOut;
    };
    let found = split(line);
    // The commands a rule reads arguments from name the same programs: every
    // program has at least one command, and every command's program is one.
    let mut named: Vec<String> = commands(line).into_iter().map(|c| c.program).collect();
    named.sort();
    named.dedup();
    let mut programs = found.programs.clone();
    programs.sort();
    assert_eq!(named, programs, "commands and programs differ on {line:?}");
    let missed: Vec<&String> = ran.iter().filter(|p| !found.programs.contains(p)).collect();
    if missed.is_empty() || found.is_dynamic() {
        Outcome::Seen {
            ran: !ran.is_empty(),
        }
    } else {
        Outcome::Missed(format!(
            "line: {line:?}\n  ran: {ran:?}\n  splitter: {:?}",
            found.programs
        ))
    }
}

#[test]
fn programs_that_run_are_reported() {
    if !has_bash() {
        eprintln!("SKIPPED programs_that_run_are_reported: no bash on PATH");
        return;
    }
    let scratch = Scratch::new();
    let runners: Vec<&str> = RUNNERS
        .iter()
        .filter(|(_, probe)| scratch.run(probe, usize::MAX).is_some_and(|r| r.is_empty()))
        .map(|(runner, _)| *runner)
        .collect();
    let mut gen = Gen {
        rng: Rng(0x00ba_5eba_11ed_c0de),
        runners,
    };
    let lines: Vec<String> = (0..LINES).map(|_| gen.line(0)).collect();
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let chunks: Vec<_> = lines
            .chunks(LINES.div_ceil(WORKERS))
            .enumerate()
            .map(|(w, chunk)| {
                let scratch = &scratch;
                s.spawn(move || {
                    let base = w * LINES.div_ceil(WORKERS);
                    chunk
                        .iter()
                        .enumerate()
                        .map(|(k, line)| check(scratch, line, base + k))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    let ran = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Seen { ran: true } | Outcome::Missed(_)))
        .count();
    let timed_out = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::TimedOut))
        .count();
    let missed: Vec<&String> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Missed(m) => Some(m),
            _ => None,
        })
        .collect();
    eprintln!(
        "bash runs: {LINES} lines, {} runners usable, {ran} ran a stub, {} missed, {timed_out} timed out",
        gen.runners.len(),
        missed.len()
    );
    assert!(ran > LINES / 2, "too few lines ran a stub: {ran}");
    assert!(
        missed.is_empty(),
        "{} of {LINES} lines ran a program the splitter does not report:\n{}",
        missed.len(),
        missed[..missed.len().min(15)]
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
