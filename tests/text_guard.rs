//! The adversarial corpus (`tests/enforce/*.txt`) through the text guard: `hookdex hook`
//! with enforcement off, so only the splitter stands between a line and the program it runs.
//!
//! Each line first runs under real bash with a stub `kubectl` first on PATH, which proves
//! its claim (it runs `kubectl delete`, `kubectl get`, or no kubectl). Then two guards judge
//! it, each with `HOOKDEX_SHELL_STRICT` off and on, and the reply is applied as the harness
//! would: a denied line does not run, an allowed one runs as it did under bash.
//! - a fence (`pre-bash.kubectl-fence.sh`, which denies whatever it sees): it fires on at
//!   least 98 % of the lines whose program the text shows; in strict mode on every line that
//!   runs kubectl; never on a benign line without strict mode;
//! - the package profile `k8s-readonly` (a declarative allow-list of kubectl's read verbs):
//!   no `kubectl delete` runs in strict mode; without it at least 98 % of those the text shows
//!   are stopped; a `kubectl get` the text shows plainly (named with every word told, nothing
//!   dynamic) still runs.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::corpus::*;
use common::hook::*;
use common::*;

/// Lines judged at once.
const THREADS: usize = 8;

/// Seconds one line may run under bash.
const LINE_SECONDS: &str = "10";

/// The share of lines whose program the text shows that a guard must catch without strict mode.
const VISIBLE_GOAL: usize = 98;

/// Says on the terminal (outside the test harness's capture) why the test did not run; in CI
/// (`CI=true`) that is a failure instead.
fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("in CI this test must run, but {why}");
    }
    let _ = writeln!(std::io::stderr(), "tests/text_guard.rs: SKIPPED: {why}");
}

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A guard: a scratch tree with enforcement off, strict or not.
struct Guard {
    s: Scratch,
    name: &'static str,
}

impl Guard {
    fn new(name: &'static str, strict: bool, setup: impl FnOnce(&mut Scratch)) -> Guard {
        let mut s = Scratch::new();
        // The text alone: no exec guard, and no gate (which judges writes, not programs).
        s.set_env("HOOKDEX_ENFORCE", "off");
        s.set_env("HOOKDEX_GATE", "off");
        if strict {
            s.set_env("HOOKDEX_SHELL_STRICT", "1");
        }
        setup(&mut s);
        assert_success(&s.run(&["compile"]), &["compile"]);
        Guard { s, name }
    }

    /// Whether the hook denies `line` (Claude Code's reply: `permissionDecision: deny`).
    fn denies(&self, line: &str) -> bool {
        let reply = hook(&self.s, "claude", &pre_bash(&self.s, "claude", line));
        reply["hookSpecificOutput"]["permissionDecision"] == "deny"
    }
}

/// What a line did under plain bash.
struct Ran {
    delete: bool,
    get: bool,
}

/// Runs `bash -c line` in a fresh directory with a stub first on PATH: `stubs/script` (a
/// `#!/bin/sh` that logs), or for `elf-` lines (ld.so runs ELF programs only) `stubs/elf`, a
/// copy of touch(1) that leaves files named after its arguments.
fn run_bash(root: &Path, stubs: &Path, n: usize, line: &Line) -> Ran {
    let elf = line.class.starts_with("elf-");
    let stubs = stubs.join(if elf { "elf" } else { "script" });
    let dir = root.join(format!("runs/{n}"));
    let cwd = dir.join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let log = dir.join("kubectl.log");
    let host = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(stubs.to_path_buf()).chain(std::env::split_paths(&host)),
    )
    .unwrap();
    let _ = Command::new("timeout")
        .args(["-k", "1", LINE_SECONDS, "bash", "-c", &line.text])
        .env_clear()
        .env("PATH", path)
        .env("HOME", &cwd)
        .env("KUBECTL_LOG", &log)
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let (delete, get) = if elf { left_files(&cwd) } else { logged(&log) };
    Ran { delete, get }
}

/// Counts for one guard: lines it had to catch, and caught.
#[derive(Default)]
struct Tally {
    visible: usize,
    visible_caught: usize,
    escaped: Vec<String>,
    wrongly: Vec<String>,
}

#[test]
fn the_text_guard_catches_what_the_text_shows_and_strict_mode_catches_the_rest() {
    if !has("bash") || !has("timeout") {
        return skip("bash or timeout(1) is not on PATH");
    }
    let corpus = corpus();
    let present = present_tools();
    let scratch = tempfile::tempdir().unwrap();
    let stubs: PathBuf = scratch.path().join("stubs");
    std::fs::create_dir_all(stubs.join("script")).unwrap();
    std::fs::create_dir_all(stubs.join("elf")).unwrap();
    set_executable(
        &rule_with(&stubs.join("script"), "kubectl", SCRIPT_STUB),
        true,
    );
    let touch = ["/usr/bin/touch", "/bin/touch"]
        .into_iter()
        .find(|p| is_elf(Path::new(p)));
    match touch {
        Some(touch) => {
            std::fs::copy(touch, stubs.join("elf/kubectl")).unwrap();
        }
        None => return skip("no ELF touch(1) to copy for the `elf-` lines"),
    }

    let fence = |s: &mut Scratch| {
        set_executable(
            &rule_with(
                &s.runtime(),
                "pre-bash.kubectl-fence.sh",
                "#!/bin/sh\necho 'kubectl is fenced here' >&2\nexit 2\n",
            ),
            true,
        );
    };
    let profile = |s: &mut Scratch| s.set_env("HOOKDEX_PROFILES", "k8s-readonly");
    let guards = [
        Guard::new("fence", false, fence),
        Guard::new("fence, strict", true, fence),
        Guard::new("k8s-readonly", false, profile),
        Guard::new("k8s-readonly, strict", true, profile),
    ];

    let next = AtomicUsize::new(0);
    let tallies: Vec<Mutex<Tally>> = guards.iter().map(|_| Mutex::default()).collect();
    let false_claims = Mutex::new(Vec::new());
    let skipped = Mutex::new(BTreeSet::new());
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(line) = corpus.lines.get(n) else {
                    break;
                };
                if let Some(tool) = missing(&line.text, &present) {
                    skipped
                        .lock()
                        .unwrap()
                        .insert(format!("{} ({tool} missing)", line.at));
                    continue;
                }
                let ran = run_bash(scratch.path(), &stubs, n, line);
                let claimed = match line.expect {
                    Expect::Stop => ran.delete,
                    Expect::Run => ran.get && !ran.delete,
                    Expect::Benign => !ran.get && !ran.delete,
                };
                if !claimed {
                    false_claims.lock().unwrap().push(format!(
                        "{} [{}] {:?} under bash: delete {}, get {}: {}",
                        line.at, line.class, line.expect, ran.delete, ran.get, line.text
                    ));
                    continue;
                }
                // A read the text shows plainly: kubectl named with every word told, nothing dynamic.
                let commands = hookdex_shell::commands(&line.text);
                let mut kubectl = commands
                    .iter()
                    .filter(|c| c.program == "kubectl")
                    .peekable();
                let plain = !hookdex_shell::split(&line.text).is_dynamic()
                    && kubectl.peek().is_some()
                    && kubectl.all(|c| c.unknown.is_empty() && !c.more);
                for (guard, tally) in guards.iter().zip(&tallies) {
                    judge(
                        guard,
                        line,
                        corpus.visible(line),
                        plain,
                        &mut tally.lock().unwrap(),
                    );
                }
            });
        }
    });

    let false_claims = false_claims.into_inner().unwrap();
    assert!(
        false_claims.is_empty(),
        "corpus lines whose claim bash does not bear out:\n{}",
        false_claims.join("\n")
    );
    let skipped = skipped.into_inner().unwrap();
    let mut failures = Vec::new();
    for (guard, tally) in guards.iter().zip(tallies) {
        let t = tally.into_inner().unwrap();
        let _ = writeln!(
            std::io::stderr(),
            "text guard `{}`: caught {} of {} lines whose program the text shows; \
             {} lines escaped that must not; {} wrongly judged",
            guard.name,
            t.visible_caught,
            t.visible,
            t.escaped.len(),
            t.wrongly.len(),
        );
        if t.visible_caught * 100 < t.visible * VISIBLE_GOAL {
            failures.push(format!(
                "`{}` caught {} of {} visible lines (goal {VISIBLE_GOAL} %)",
                guard.name, t.visible_caught, t.visible
            ));
        }
        for e in t.escaped.iter().chain(&t.wrongly) {
            failures.push(format!("`{}`: {e}", guard.name));
        }
    }
    if !skipped.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "tests/text_guard.rs: {} lines skipped: {}",
            skipped.len(),
            skipped.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One guard's verdict on one line, applied as the harness would, into `tally`.
fn judge(guard: &Guard, line: &Line, visible: bool, plain: bool, tally: &mut Tally) {
    let strict = guard.name.ends_with("strict");
    let fence = guard.name.starts_with("fence");
    let denied = guard.denies(&line.text);
    let head = format!(
        "{} [{}] {:?}: {}",
        line.at, line.class, line.expect, line.text
    );
    // What must be caught: by the fence every line that runs kubectl, by the profile a delete.
    let must = match line.expect {
        Expect::Stop => true,
        Expect::Run => fence,
        Expect::Benign => false,
    };
    if must {
        if visible {
            tally.visible += 1;
            tally.visible_caught += usize::from(denied);
        }
        if strict && !denied {
            tally.escaped.push(format!("ran: {head}"));
        }
        return;
    }
    match line.expect {
        // The profile lets a plainly shown read run.
        Expect::Run if plain && denied => tally.wrongly.push(format!("read denied: {head}")),
        Expect::Benign if denied && !strict => {
            tally.wrongly.push(format!("benign line denied: {head}"))
        }
        _ => {}
    }
}
