//! The adversarial corpus (`tests/enforce/*.txt`, read by `common/corpus.rs`) through `hookdex exec --guard`
//! (SPEC §15): with one selective rule (deny `kubectl delete`, allow the rest) and a stub
//! `kubectl` first on PATH — a `#!/bin/sh` script and an ELF binary — every line that runs
//! `kubectl delete` under bash is stopped when wrapped, every hidden `kubectl get` still runs
//! with the same stdout and exit status, benign lines keep theirs byte for byte, and 16
//! wrapped commands at once each keep their get and lose their delete.

mod common;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Barrier, Mutex};
use std::time::{Duration, Instant};

use common::corpus::*;
use common::*;

/// How long one line may run, wrapped or not.
const LINE_TIMEOUT: Duration = Duration::from_secs(10);

/// Lines run at once.
const THREADS: usize = 8;

/// The rule file, in the runtime layer (`$HOOKDEX_HOME/conditions`).
const RULE: &str = "pre-bash.kubectl-readonly.sh";

/// A selective rule written as a hook script is (SPEC §4): exit 2 with the reason on stderr
/// for a delete, exit 0 for everything else.
const RULE_BODY: &str = r##"#!/bin/sh
# The corpus' guard: `kubectl delete` is refused, every other kubectl call goes on.
if command -v jq >/dev/null 2>&1; then
  command=$(jq -r '.tool_input.command // ""')
elif command -v python3 >/dev/null 2>&1; then
  command=$(python3 -c 'import json, sys; print(json.load(sys.stdin).get("tool_input", {}).get("command", ""))')
else
  command=$(grep -o '"command" *: *"[^"]*"')
fi
case "$command" in
  *" delete"*)
    echo "kubectl delete is not allowed here" >&2
    exit 2
    ;;
esac
exit 0
"##;

/// The script stub: logs its arguments as one line to `$KUBECTL_LOG`, says it ran.
const SCRIPT_STUB: &str =
    "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$KUBECTL_LOG\"\necho \"kubectl-stub $*\"\n";

/// The dynamic loader the `elf-ldso` lines (and one benign line) name.
const LDSO: &str = "/lib64/ld-linux-x86-64.so.2";

/// Programs some lines need that a machine may lack: a line naming a missing one is
/// skipped, and the summary says so.
const TOOLS: &[&str] = &[
    "python3",
    "perl",
    "node",
    "tclsh",
    "make",
    "git",
    "script",
    "setsid",
    "ssh",
    "run-parts",
    "base64",
    "rev",
    "dash",
    "tar",
    "flock",
    "ionice",
    "taskset",
    "stdbuf",
    "tac",
    "md5sum",
    "od",
    "awk",
    "nohup",
    "timeout",
    "rbash",
    "setarch",
    "linux64",
    "ssh-agent",
];

/// The words of a command line, for spotting the programs it names.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
        .filter(|w| !w.is_empty())
}

#[test]
fn the_corpus_is_large_and_mostly_hidden_from_a_text_splitter() {
    let corpus = corpus();
    let count = |e: Expect| corpus.lines.iter().filter(|l| l.expect == e).count();
    let (stop, run, benign) = (
        count(Expect::Stop),
        count(Expect::Run),
        count(Expect::Benign),
    );
    let hidden = corpus
        .lines
        .iter()
        .filter(|l| l.expect == Expect::Stop && corpus.dynamic.contains(&l.class))
        .count();
    assert!(corpus.lines.len() >= 320, "{} lines", corpus.lines.len());
    assert!(benign >= 60, "{benign} benign lines");
    assert!(run >= 30, "{run} run lines");
    assert!(
        2 * hidden >= stop,
        "{hidden} of {stop} stop lines in dynamic classes"
    );
    for class in &corpus.dynamic {
        assert!(
            corpus
                .lines
                .iter()
                .any(|l| &l.class == class && l.expect == Expect::Stop),
            "dynamic class `{class}` has no stop line"
        );
    }
    let mut seen = BTreeSet::new();
    for line in &corpus.lines {
        assert!(
            line.class
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{}: class `{}` is not a slug",
            line.at,
            line.class
        );
        // The ELF stub is a copy of touch(1): touch in a line would be kubectl there.
        assert!(
            !words(&line.text).any(|w| w == "touch"),
            "{} uses touch: {}",
            line.at,
            line.text
        );
        assert!(
            seen.insert(&line.text),
            "{} repeats: {}",
            line.at,
            line.text
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The bench: a scratch tree, the rule, the stubs, one line run
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stub {
    /// `#!/bin/sh`: detected by its log.
    Script,
    /// A copy of touch(1) named kubectl: detected by the files it leaves (`kubectl delete
    /// pod x` creates `delete`, `pod` and `x` in its working directory).
    Elf,
}

impl Stub {
    fn name(self) -> &'static str {
        match self {
            Stub::Script => "script",
            Stub::Elf => "ELF",
        }
    }

    /// Whether lines of `class` run with this stub: ld.so runs ELF programs only.
    fn runs(self, class: &str) -> bool {
        self == Stub::Elf || !class.starts_with("elf-")
    }
}

/// What one run of a line did.
struct Ran {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// The exit code, or 128 + the signal that ended it: what a shell's `$?` says, which is
    /// all a wrapper can pass on for a command killed by a signal.
    status: i32,
    /// Why the run did not end on its own, if it did not.
    hung: Option<String>,
    /// Whether the stub ran with `delete` / `get` among its arguments.
    delete: bool,
    get: bool,
}

impl Ran {
    fn describe(&self) -> String {
        format!(
            "exit {}, stdout {}, stderr {}",
            self.status,
            shown(&self.stdout),
            shown(&self.stderr)
        )
    }

    /// The wrapper's denial line for the rule, if any.
    fn denial(&self) -> Option<String> {
        String::from_utf8_lossy(&self.stderr)
            .lines()
            .find(|l| l.starts_with("hookdex: ") && l.contains(RULE))
            .map(String::from)
    }

    /// Whether the wrapper said it ran the command unguarded.
    fn unenforced(&self) -> bool {
        String::from_utf8_lossy(&self.stderr).lines().any(|l| {
            l.starts_with("hookdex: enforcement unavailable") || l.contains("runs unguarded")
        })
    }
}

/// At most 300 bytes of output, quoted.
fn shown(bytes: &[u8]) -> String {
    let cut = bytes.len().min(300);
    let more = if bytes.len() > cut {
        format!(" … ({} bytes)", bytes.len())
    } else {
        String::new()
    };
    format!("{:?}{more}", String::from_utf8_lossy(&bytes[..cut]))
}

/// Where two outputs part.
fn differ(plain: &[u8], wrapped: &[u8]) -> String {
    let at = plain
        .iter()
        .zip(wrapped)
        .position(|(a, b)| a != b)
        .unwrap_or(plain.len().min(wrapped.len()));
    let from = at.saturating_sub(40);
    format!(
        "stdout differs at byte {at} ({} bytes plain, {} wrapped): plain …{} wrapped …{}",
        plain.len(),
        wrapped.len(),
        shown(&plain[from..]),
        shown(&wrapped[from..])
    )
}

/// Says on the terminal (outside the test harness's capture) why `test` did not run; in CI
/// (`CI=true`) that is a failure instead, as in tests/syscalls.rs.
fn skip(test: &str, why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("in CI this test must run, but {why}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "tests/enforce_corpus.rs: {test} SKIPPED: {why}"
    );
}

struct Bench {
    s: Scratch,
    /// Each stub with the directory that holds it and nothing else (glob lines such as
    /// `"${PATH%%:*}"/k*` count on that).
    stubs: Vec<(Stub, PathBuf)>,
    /// The [`TOOLS`] found on PATH.
    present: BTreeSet<&'static str>,
    /// Runs get directories `runs/<n>` from this counter.
    runs: AtomicUsize,
}

impl Bench {
    /// The tree with the rule compiled and the stubs written, or `None` (said on the
    /// terminal) when bash or enforcement is missing here.
    fn new(test: &str) -> Option<Bench> {
        let bash = Command::new("bash")
            .args(["-c", "true"])
            .stdin(Stdio::null())
            .status();
        if !bash.is_ok_and(|s| s.success()) {
            skip(test, "bash is not on PATH");
            return None;
        }
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        if !status.lines().any(|l| l.starts_with("Seccomp:")) {
            skip(
                test,
                "/proc/self/status has no `Seccomp:` line: no seccomp here",
            );
            return None;
        }
        let mut s = Scratch::new();
        s.set_env("HOOKDEX_ENFORCE", "auto");
        let rule = rule_with(&s.runtime(), RULE, RULE_BODY);
        set_executable(&rule, true);
        assert_success(&s.run(&["compile"]), &["compile"]);
        let probe = s.run(&["exec", "--guard", "--", "/bin/true"]);
        let stderr = String::from_utf8_lossy(&probe.stderr);
        if let Some(line) = stderr
            .lines()
            .find(|l| l.starts_with("hookdex: enforcement unavailable"))
        {
            skip(test, line);
            return None;
        }
        if !probe.status.success() {
            skip(
                test,
                &format!(
                    "`hookdex exec --guard -- /bin/true` exited {:?}: {}",
                    probe.status.code(),
                    stderr.trim()
                ),
            );
            return None;
        }

        let mut stubs = Vec::new();
        let script = s.path("stubs/script");
        std::fs::create_dir_all(&script).unwrap();
        let kubectl = rule_with(&script, "kubectl", SCRIPT_STUB);
        set_executable(&kubectl, true);
        stubs.push((Stub::Script, script));
        // No compiler here: an ELF program that leaves traces is touch(1) under another name.
        let touch = ["/usr/bin/touch", "/bin/touch"]
            .into_iter()
            .find(|p| is_elf(Path::new(p)));
        match touch {
            Some(touch) => {
                let elf = s.path("stubs/elf");
                std::fs::create_dir_all(&elf).unwrap();
                std::fs::copy(touch, elf.join("kubectl")).unwrap();
                stubs.push((Stub::Elf, elf));
            }
            None => {
                let _ = writeln!(
                    std::io::stderr(),
                    "tests/enforce_corpus.rs: {test}: no ELF touch(1) to copy: the ELF stub is left out"
                );
            }
        }

        let probe = TOOLS
            .iter()
            .map(|t| format!("command -v {t} >/dev/null 2>&1 && echo {t};"))
            .collect::<String>();
        let found = Command::new("bash")
            .args(["-c", &probe])
            .stdin(Stdio::null())
            .output()
            .expect("run bash");
        let found = String::from_utf8_lossy(&found.stdout).to_string();
        let present = TOOLS
            .iter()
            .copied()
            .filter(|t| found.lines().any(|l| l == *t))
            .collect();
        Some(Bench {
            s,
            stubs,
            present,
            runs: AtomicUsize::new(0),
        })
    }

    fn dir(&self, stub: Stub) -> &Path {
        &self.stubs.iter().find(|(s, _)| *s == stub).unwrap().1
    }

    /// PATH with the stub's directory first.
    fn path(&self, stub: Stub) -> OsString {
        let host = std::env::var_os("PATH").unwrap_or_default();
        let dirs =
            std::iter::once(self.dir(stub).to_path_buf()).chain(std::env::split_paths(&host));
        std::env::join_paths(dirs).expect("PATH")
    }

    /// The tool (or the loader) a line needs that this machine lacks.
    fn missing(&self, text: &str) -> Option<String> {
        if text.contains(LDSO) && !Path::new(LDSO).exists() {
            return Some(LDSO.to_string());
        }
        words(text)
            .find(|w| TOOLS.contains(w) && !self.present.contains(*w))
            .map(String::from)
    }

    /// Runs `bash -c text` in a fresh empty working directory, wrapped or not, with the
    /// same environment either way: the scratch tree's, PATH with the stub first, and
    /// `KUBECTL_LOG`. `ready` is called just before the process starts.
    fn run(&self, stub: Stub, text: &str, wrapped: bool, ready: impl FnOnce()) -> Ran {
        let dir = self.s.path(&format!(
            "runs/{}",
            self.runs.fetch_add(1, Ordering::Relaxed)
        ));
        let cwd = dir.join("cwd");
        std::fs::create_dir_all(&cwd).unwrap();
        let log = dir.join("kubectl.log");
        let mut cmd = if wrapped {
            self.s.cmd(&["exec", "--guard", "--", "bash", "-c", text])
        } else {
            let mut cmd = Command::new("bash");
            cmd.env_clear()
                .envs(self.s.vars_with_prefix(""))
                .args(["-c", text]);
            cmd
        };
        cmd.env("PATH", self.path(stub))
            .env("KUBECTL_LOG", &log)
            .current_dir(&cwd);
        ready();
        let mut ran = capture(cmd);
        (ran.delete, ran.get) = match stub {
            Stub::Script => logged(&log),
            Stub::Elf => left_files(&cwd),
        };
        ran
    }

    /// What went wrong with `line` (none: `None`): its claim checked under plain bash
    /// first (a false claim is a corpus bug), then against the wrapped run.
    fn check(&self, line: &Line, stub: Stub) -> Option<String> {
        let head = format!(
            "[{}] {:?} with the {} stub, {}: {}",
            line.class,
            line.expect,
            stub.name(),
            line.at,
            line.text
        );
        let plain = self.run(stub, &line.text, false, || {});
        let claimed = match line.expect {
            Expect::Stop => plain.delete,
            Expect::Run => plain.get && !plain.delete,
            Expect::Benign => !plain.get && !plain.delete,
        };
        if !claimed || plain.hung.is_some() {
            return Some(format!(
                "{head}\n    CORPUS BUG: the claim does not hold under plain bash (delete ran: {}, get ran: {}{})\n    plain: {}",
                plain.delete,
                plain.get,
                plain.hung.as_deref().map(|h| format!(", {h}")).unwrap_or_default(),
                plain.describe()
            ));
        }
        let wrapped = self.run(stub, &line.text, true, || {});
        let mut wrong = Vec::new();
        if let Some(hung) = &wrapped.hung {
            wrong.push(format!("wrapped: {hung}"));
        }
        if wrapped.unenforced() {
            wrong.push("the wrapper ran the command unguarded".to_string());
        }
        match line.expect {
            Expect::Stop => {
                if wrapped.delete {
                    wrong.push("kubectl delete ran".to_string());
                } else if wrapped.denial().is_none() {
                    wrong.push(format!("no `hookdex: …{RULE}: <reason>` line on stderr"));
                }
            }
            Expect::Run | Expect::Benign => {
                if line.expect == Expect::Run && !wrapped.get {
                    wrong.push("kubectl get did not run".to_string());
                }
                if wrapped.delete || (line.expect == Expect::Benign && wrapped.get) {
                    wrong.push("kubectl ran where plain bash did not".to_string());
                }
                if let Some(denial) = wrapped.denial() {
                    wrong.push(format!("the wrapper denied an exec: {denial}"));
                }
                if wrapped.stdout != plain.stdout {
                    wrong.push(differ(&plain.stdout, &wrapped.stdout));
                }
                if wrapped.status != plain.status {
                    wrong.push(format!(
                        "exit status {} wrapped, {} plain",
                        wrapped.status, plain.status
                    ));
                }
            }
        }
        if wrong.is_empty() {
            return None;
        }
        Some(format!(
            "{head}\n    {}\n    plain:   {}\n    wrapped: {}",
            wrong.join("\n    "),
            plain.describe(),
            wrapped.describe()
        ))
    }
}

fn is_elf(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == *b"\x7fELF"
}

/// Whether the script stub ran `delete` / `get`: a logged line holding the word.
fn logged(log: &Path) -> (bool, bool) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let has = |verb: &str| {
        text.lines()
            .any(|l| l.split_whitespace().any(|w| w == verb))
    };
    (has("delete"), has("get"))
}

/// Whether the ELF stub ran `delete` / `get`: a file of that name anywhere under `cwd`
/// (lines may `cd` into a directory they made).
fn left_files(cwd: &Path) -> (bool, bool) {
    let mut names = BTreeSet::new();
    names_under(cwd, &mut names);
    (names.contains("delete"), names.contains("get"))
}

fn names_under(dir: &Path, names: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        names.insert(entry.file_name().to_string_lossy().into_owned());
        // Not through links: a line may link the stub's directory in.
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            names_under(&entry.path(), names);
        }
    }
}

/// 128 + the signal for a process a signal ended.
fn status_code(status: ExitStatus) -> i32 {
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Kills process group `pgid` (whatever is left of it).
fn kill_group(pgid: u32) {
    // SAFETY: kill(2) takes no pointers.
    unsafe {
        libc::kill(-(pgid as libc::pid_t), libc::SIGKILL);
    }
}

/// Runs `cmd` in a session of its own (no controlling terminal, as a harness's tool
/// call has none: `bash -i` lines must not stop on a developer's terminal) with stdin
/// from /dev/null for at most [`LINE_TIMEOUT`], collecting stdout and stderr.
fn capture(mut cmd: Command) -> Ran {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setsid(2) is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| match libc::setsid() {
            -1 => Err(std::io::Error::last_os_error()),
            _ => Ok(()),
        });
    }
    let mut child = cmd.spawn().expect("spawn bash or hookdex");
    // The session leader leads its process group too.
    let pgid = child.id();
    let (tx, rx) = mpsc::channel();
    let streams: [Box<dyn Read + Send>; 2] = [
        Box::new(child.stdout.take().unwrap()),
        Box::new(child.stderr.take().unwrap()),
    ];
    for (at, mut stream) in streams.into_iter().enumerate() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            let _ = tx.send((at, bytes));
        });
    }
    let deadline = Instant::now() + LINE_TIMEOUT;
    let mut hung = None;
    let status = loop {
        match child.try_wait().expect("wait") {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                hung = Some(format!("still running after {LINE_TIMEOUT:?}: killed"));
                kill_group(pgid);
                let _ = child.kill();
                break child.wait().expect("wait");
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    // Output still open after the command ended: something it started lives on.
    let mut output = [Vec::new(), Vec::new()];
    for _ in 0..2 {
        match rx.recv_timeout(Duration::from_secs(2)) {
            Ok((at, bytes)) => output[at] = bytes,
            Err(_) => {
                if hung.is_none() {
                    hung = Some("its output stayed open after it ended".to_string());
                }
                kill_group(pgid);
                break;
            }
        }
    }
    let [stdout, stderr] = output;
    Ran {
        stdout,
        stderr,
        status: status_code(status),
        hung,
        delete: false,
        get: false,
    }
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

#[test]
fn every_corpus_line_keeps_its_claim_when_wrapped() {
    let test = "every_corpus_line_keeps_its_claim_when_wrapped";
    let corpus = corpus();
    let Some(bench) = Bench::new(test) else {
        return;
    };
    let jobs: Vec<(&Line, Stub)> = bench
        .stubs
        .iter()
        .flat_map(|&(stub, _)| {
            corpus
                .lines
                .iter()
                .filter(move |l| stub.runs(&l.class))
                .map(move |l| (l, stub))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let skipped = Mutex::new(BTreeSet::new());
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                while let Some(&(line, stub)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Some(tool) = bench.missing(&line.text) {
                        skipped
                            .lock()
                            .unwrap()
                            .insert(format!("{} ({tool} missing)", line.at));
                        continue;
                    }
                    if let Some(failure) = bench.check(line, stub) {
                        failures.lock().unwrap().push((line.at.clone(), failure));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    let skipped = skipped.into_inner().unwrap();

    let count = |e: Expect| corpus.lines.iter().filter(|l| l.expect == e).count();
    let hidden = corpus
        .lines
        .iter()
        .filter(|l| l.expect == Expect::Stop && corpus.dynamic.contains(&l.class))
        .count();
    let stubs: Vec<&str> = bench.stubs.iter().map(|(s, _)| s.name()).collect();
    let outcome = if failures.is_empty() {
        "all held".to_string()
    } else {
        format!("{} failed", failures.len())
    };
    let _ = writeln!(
        std::io::stderr(),
        "corpus: {} lines, {} stop ({hidden} in the {} dynamic classes), {} run, {} benign, \
         {} runs with the {} stubs{}: {outcome}",
        corpus.lines.len(),
        count(Expect::Stop),
        corpus.dynamic.len(),
        count(Expect::Run),
        count(Expect::Benign),
        jobs.len(),
        stubs.join(" and "),
        if skipped.is_empty() {
            String::new()
        } else {
            format!(
                ", {} skipped: {}",
                skipped.len(),
                skipped.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        }
    );
    const SHOWN: usize = 60;
    let list: Vec<&str> = failures
        .iter()
        .take(SHOWN)
        .map(|(_, f)| f.as_str())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} runs failed{}:\n{}",
        failures.len(),
        jobs.len(),
        if failures.len() > SHOWN {
            format!(" (the first {SHOWN} shown)")
        } else {
            String::new()
        },
        list.join("\n")
    );
}

#[test]
fn sixteen_concurrent_wrapped_commands_each_keep_their_get_and_lose_their_delete() {
    let test = "sixteen_concurrent_wrapped_commands_each_keep_their_get_and_lose_their_delete";
    let Some(bench) = Bench::new(test) else {
        return;
    };
    // A hidden delete per command, a different way for neighbours.
    const HIDDEN: [&str; 4] = [
        "c=kubectl; $c delete pod VICTIM",
        "eval \"$(printf 'kube%s delete pod VICTIM' ctl)\"",
        "printf 'kubectl delete pod VICTIM\\n' | sh",
        "cp \"$(command -v kubectl)\" ./k && ./k delete pod VICTIM",
    ];
    const N: usize = 16;
    let lines: Vec<String> = (0..N)
        .map(|i| {
            format!(
                "kubectl get pods-{i}; {}; echo done-{i}",
                HIDDEN[i % HIDDEN.len()].replace("VICTIM", &format!("victim-{i}"))
            )
        })
        .collect();
    // Each line does run both under plain bash.
    for line in &lines {
        let plain = bench.run(Stub::Script, line, false, || {});
        assert!(plain.get && plain.delete, "{line}: {}", plain.describe());
    }
    let start = Barrier::new(N);
    let ran: Vec<Ran> = std::thread::scope(|scope| {
        let handles: Vec<_> = lines
            .iter()
            .map(|line| {
                let (bench, start) = (&bench, &start);
                scope.spawn(move || {
                    bench.run(Stub::Script, line, true, || {
                        start.wait();
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut wrong = Vec::new();
    for (i, (line, ran)) in lines.iter().zip(&ran).enumerate() {
        let stdout = String::from_utf8_lossy(&ran.stdout);
        let held = ran.hung.is_none()
            && ran.get
            && !ran.delete
            && ran.status == 0
            && stdout == format!("kubectl-stub get pods-{i}\ndone-{i}\n")
            && ran.denial().is_some();
        if !held {
            wrong.push(format!(
                "{line}\n    get ran: {}, delete ran: {}, {}",
                ran.get,
                ran.delete,
                ran.describe()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {N} failed:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
