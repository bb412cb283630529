//! Syntax checks of condition scripts at compile time, so a script that
//! cannot parse is listed as invalid (with the interpreter's one-line error)
//! and never runs: `bash -n` for bash scripts, in parallel, and Python's own
//! `compile()` for every python3 script in one process, each with the
//! interpreter the rule will run with ([`crate::interpreters`]).
//!
//! Each check is bounded in time (`BASH_TIMEOUT`, `PYTHON_TIMEOUT`) and
//! so is all of one compile's checking (`BUDGET`); a check that cannot
//! run or does not finish in time leaves the script valid (the hook still
//! skips it if it fails) and is tried again at the next compile.
//!
//! The cache beside the index only saves work: it remembers the scripts
//! that parsed, keyed by what decides the answer (the runner, the
//! interpreter's path and stamp, and a hash of the script's bytes). A
//! "does not parse" would drop a rule, so it is never taken from the
//! cache: it comes from a check of this compile, and a cache file written
//! by anyone else can only spare a check of a script that parses.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use std::collections::BTreeSet;

use hookdex_index::Stamp;
use hookdex_model::Runner;

use crate::interpreters;

/// Longest one `bash -n` may take.
const BASH_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest the one Python process may take, plus [`PYTHON_PER_FILE`] each.
const PYTHON_TIMEOUT: Duration = Duration::from_secs(5);
/// Time added to [`PYTHON_TIMEOUT`] for each file it checks.
const PYTHON_PER_FILE: Duration = Duration::from_millis(5);
/// Longest all the checks of one compile may take: past it, no new check
/// starts (a cold compile of many thousand scripts checks the rest at the
/// next compile, from the cache).
const BUDGET: Duration = Duration::from_secs(5);
/// Most `bash -n` processes at once.
const MAX_PARALLEL: usize = 16;
/// Changes when what a check reports or the cache holds changes, so old
/// cache entries go.
const CACHE_VERSION: u32 = 2;

/// Compiles each file named on the command line and prints one line per
/// file: `ok`, or `err ` and the error as JSON.
const PYTHON_CHECK: &str = r#"
import json, sys
for path in sys.argv[1:]:
    try:
        with open(path, 'rb') as f:
            compile(f.read(), path, 'exec')
        print('ok', flush=True)
    except SyntaxError as e:
        print('err ' + json.dumps('line %s: %s: %s' % (e.lineno, type(e).__name__, e.msg)), flush=True)
    except Exception as e:
        print('err ' + json.dumps('%s: %s' % (type(e).__name__, e)), flush=True)
"#;

/// One script to check.
pub struct Script {
    /// The path it runs from.
    pub path: PathBuf,
    /// Its interpreter.
    pub runner: Runner,
    /// Its stamp, taken before the check.
    pub stamp: Stamp,
}

/// The one-line syntax error of each script (`None` when it parses, or
/// when that could not be learned), in order, checked with `found`'s
/// interpreters (a script whose interpreter was not found is not checked).
/// `cache` is the cache file; it is read, and rewritten (atomically) with
/// the results of this call.
pub fn check(scripts: &[Script], found: &interpreters::Found, cache: &Path) -> Vec<Option<String>> {
    // Where the results cannot be remembered, neither can the index be (the
    // hook would recompile, and check everything, on every call): no check.
    if !writable(cache) {
        return vec![None; scripts.len()];
    }
    let deadline = Instant::now() + BUDGET;
    let remembered = read_cache(cache);
    let keys: Vec<Option<String>> = scripts.iter().map(|s| key(s, found)).collect();
    // `Some(answer)` once known: a parse from the cache, or a check that
    // finished. The cache never answers "does not parse".
    let mut known: Vec<Option<Option<String>>> = keys
        .iter()
        .map(|k| k.as_ref().filter(|k| remembered.contains(*k)).map(|_| None))
        .collect();
    let todo = |known: &[Option<Option<String>>], runner: Runner| -> Vec<usize> {
        (0..scripts.len())
            .filter(|&i| known[i].is_none() && scripts[i].runner == runner)
            .collect()
    };
    // Python first: one process for all, where bash takes one per script.
    if let Some(python3) = found.get(Runner::Python) {
        let python = todo(&known, Runner::Python);
        let answers = python_all(python3, scripts, &python, deadline);
        for (i, answer) in python.iter().zip(answers) {
            known[*i] = answer;
        }
    }
    if let Some(bash) = found.get(Runner::Bash) {
        let todo = todo(&known, Runner::Bash);
        for (i, answer) in todo.iter().zip(bash_all(bash, scripts, &todo, deadline)) {
            known[*i] = answer;
        }
    }
    let parsed: BTreeSet<String> = keys
        .into_iter()
        .zip(&known)
        .filter_map(|(k, answer)| k.filter(|_| matches!(answer, Some(None))))
        .collect();
    if parsed != remembered {
        write_cache(cache, &parsed);
    }
    known.into_iter().map(Option::flatten).collect()
}

/// The cache key of a script: its runner, the interpreter that checks it
/// (path and stamp) and a hash of its bytes; `None` when it cannot be read
/// or has no interpreter.
fn key(script: &Script, found: &interpreters::Found) -> Option<String> {
    let interpreter = found.get(script.runner)?;
    let i = Stamp::of(interpreter);
    let bytes = std::fs::read(&script.path).ok()?;
    Some(format!(
        "{CACHE_VERSION} {:?} {} {} {} {} {} {:032x}",
        script.runner,
        interpreter.display(),
        i.mtime_sec,
        i.mtime_nsec,
        i.size,
        i.ino,
        xxhash_rust::xxh3::xxh3_128(&bytes)
    ))
}

fn read_cache(path: &Path) -> BTreeSet<String> {
    crate::sources::confine::read_regular(path, 64 << 20)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Whether a file can be created beside `cache` (creating its directory).
fn writable(cache: &Path) -> bool {
    let Some(dir) = cache.parent() else {
        return false;
    };
    let _ = std::fs::create_dir_all(dir);
    tempfile::NamedTempFile::new_in(dir).is_ok()
}

/// Writes the cache by rename, so a reader sees the old or the new one;
/// a cache that cannot be written is only a slower next compile.
fn write_cache(path: &Path, entries: &BTreeSet<String>) {
    if let Ok(bytes) = serde_json::to_vec(entries) {
        let _ = hookdex_index::write_atomic(path, &bytes);
    }
}

/// Runs `bash -n` on the scripts at `which`, at most [`MAX_PARALLEL`] at
/// once and none started after `deadline`; each answer is `Some(error or
/// None)` when the check finished.
fn bash_all(
    bash: &Path,
    scripts: &[Script],
    which: &[usize],
    deadline: Instant,
) -> Vec<Option<Option<String>>> {
    let answers: Mutex<Vec<Option<Option<String>>>> = Mutex::new(vec![None; which.len()]);
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .min(MAX_PARALLEL)
        .min(which.len());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = which.get(n) else { break };
                if Instant::now() >= deadline {
                    break;
                }
                let answer = bash_one(bash, &scripts[i].path);
                answers.lock().unwrap_or_else(|e| e.into_inner())[n] = answer;
            });
        }
    });
    answers.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// `bash -n FILE`: its first error line, without the file name bash puts
/// in front (`line 3: syntax error near unexpected token `then'`).
fn bash_one(bash: &Path, path: &Path) -> Option<Option<String>> {
    let mut cmd = Command::new(bash);
    cmd.arg("-n").arg(path);
    let (finished, _, stderr) = run(cmd, BASH_TIMEOUT)?;
    if finished? {
        return Some(None);
    }
    let prefix = format!("{}: ", path.display());
    let line = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = line.strip_prefix(&prefix).unwrap_or(line).trim();
    Some(Some(if line.is_empty() {
        "bash -n failed".to_string()
    } else {
        format!("bash -n: {line}")
    }))
}

/// Python's `compile()` of the scripts at `which`, in one python3 process
/// that ends by `deadline` at the latest (what it did not reach is unknown).
fn python_all(
    python3: &Path,
    scripts: &[Script],
    which: &[usize],
    deadline: Instant,
) -> Vec<Option<Option<String>>> {
    let mut answers = vec![None; which.len()];
    if which.is_empty() {
        return answers;
    }
    let mut cmd = Command::new(python3);
    cmd.args(["-I", "-S", "-c", PYTHON_CHECK])
        .args(which.iter().map(|&i| &scripts[i].path));
    let timeout = PYTHON_TIMEOUT + PYTHON_PER_FILE * u32::try_from(which.len()).unwrap_or(u32::MAX);
    let timeout = timeout.min(deadline.saturating_duration_since(Instant::now()));
    let Some((_, stdout, _)) = run(cmd, timeout) else {
        return answers;
    };
    // One line per file, in order (as far as it got when it was killed); a
    // line that does not parse leaves the rest unknown.
    for (answer, line) in answers.iter_mut().zip(stdout.lines()) {
        *answer = match line.strip_prefix("err ") {
            None if line == "ok" => Some(None),
            None => break,
            Some(json) => match serde_json::from_str::<String>(json) {
                Ok(error) => Some(Some(format!("python3 compile: {error}"))),
                Err(_) => break,
            },
        };
    }
    answers
}

/// Runs `cmd` with no input and its output in temporary files (so no pipe
/// can fill and stall it), killing it at `timeout`: `(success, stdout,
/// stderr)` with `success` `None` when it was killed, or `None` when it did
/// not start.
fn run(mut cmd: Command, timeout: Duration) -> Option<(Option<bool>, String, String)> {
    let mut out = tempfile::tempfile().ok()?;
    let mut err = tempfile::tempfile().ok()?;
    cmd.stdin(Stdio::null())
        .stdout(out.try_clone().ok()?)
        .stderr(err.try_clone().ok()?);
    let mut child = cmd.spawn().ok()?;
    let deadline = Instant::now() + timeout;
    // Short naps first: most checks take a few milliseconds.
    let mut nap = Duration::from_micros(100);
    let success = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status.success()),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let read = |file: &mut std::fs::File| {
        let mut text = String::new();
        file.seek(SeekFrom::Start(0)).ok()?;
        file.read_to_string(&mut text).ok()?;
        Some(text)
    };
    Some((success, read(&mut out)?, read(&mut err)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, name: &str, runner: Runner, body: &str) -> Script {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        Script {
            stamp: Stamp::of(&path),
            path,
            runner,
        }
    }

    #[test]
    fn what_does_not_parse_says_why_and_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let scripts = [
            script(d, "ok.sh", Runner::Bash, "echo fine\n"),
            script(d, "bad.sh", Runner::Bash, "echo\nif then\n"),
            script(d, "ok.py", Runner::Python, "print('fine')\n"),
            script(d, "bad.py", Runner::Python, "x = (\n"),
            script(d, "direct", Runner::Direct, "if then\n"),
        ];
        let cache = d.join("cache/syntax.json");
        let expected = [
            None,
            Some("bash -n: line 2: syntax error near unexpected token `then'".to_string()),
            None,
            Some("python3 compile: line 1: SyntaxError: '(' was never closed".to_string()),
            None,
        ];
        let found = interpreters::find();
        assert_eq!(check(&scripts, &found, &cache), expected);
        assert!(cache.exists());
        // The key is the content: an edit that keeps every stamp field but
        // the bytes (same size, mtime put back) is checked again.
        let same_stamp = |path: &Path, body: &str| {
            let before = std::fs::metadata(path).unwrap().modified().unwrap();
            std::fs::write(path, body).unwrap();
            let file = std::fs::File::options().write(true).open(path).unwrap();
            file.set_modified(before).unwrap();
        };
        same_stamp(&scripts[0].path, "if then \n\n");
        same_stamp(&scripts[1].path, "echo\n# fine\n\n");
        let answers = check(&scripts[..2], &found, &cache);
        assert!(answers[0]
            .as_deref()
            .is_some_and(|e| e.contains("syntax error")));
        assert_eq!(answers[1], None);
        // A cache that says a script does not parse is not believed.
        same_stamp(&scripts[0].path, "echo fine\n");
        std::fs::write(&cache, format!(r#"{{"{}": "bash -n: forged"}}"#, 1)).unwrap();
        assert_eq!(check(&scripts[..1], &found, &cache), [None]);
        // No cache can be written: nothing is checked.
        let bad = script(d, "bad2.sh", Runner::Bash, "if then\n");
        let unwritable = d.join("ok.sh/cache.json");
        assert_eq!(check(&[bad], &found, &unwritable), [None]);
    }
}
