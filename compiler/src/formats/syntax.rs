//! Syntax checks of condition scripts at compile time, so a script that
//! cannot parse is listed as invalid (with the interpreter's one-line error)
//! and never runs, each judged with the interpreter the rule will run with
//! ([`crate::interpreters`]). Every script is checked in the one compile:
//! no check is left for a later one.
//!
//! Bash scripts are parsed in process first, in parallel, by brush-parser;
//! only those it rejects, or is not handed (larger than [`BRUSH_MAX_BYTES`]
//! or with more than [`BRUSH_MAX_NESTING`] openers: its parser recurses
//! once per nesting level), go to `bash -n`, which decides and gives the
//! message shown. A script brush accepts that bash would reject is missed:
//! it stays valid, and the hook fails open on it as on any script that
//! fails when it runs. Measured on 998 scripts (the lines of
//! `tests/enforce/*.txt`, the repository's own, Debian's bash scripts and
//! completions): no miss; 19 rejected by brush (or not handed to it) went
//! to `bash -n`, which accepted them. Python scripts go to Python's own
//! `compile()` in chunks, one python3 process per chunk, chunks in
//! parallel.
//!
//! Each check by an interpreter is bounded in time (`BASH_TIMEOUT`,
//! `PYTHON_TIMEOUT`); a check that cannot run or does not finish in time
//! leaves the script valid (the hook still skips it if it fails), is not
//! remembered, and is tried again at the next compile.
//!
//! The cache beside the index only saves work: it remembers the scripts
//! that parsed, keyed by what decides the answer (the runner, the
//! interpreter's path and stamp, and a hash of the script's bytes). A
//! "does not parse" would drop a rule, so it is never taken from the
//! cache: it comes from a check of this compile, and a cache file written
//! by anyone else can only spare a check of a script that parses.

use std::collections::BTreeSet;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hookdex_index::Stamp;
use hookdex_model::Runner;
use rayon::prelude::*;

use crate::interpreters;
use crate::sources::confine;

/// Longest one `bash -n` may take.
const BASH_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest one Python process may take, plus [`PYTHON_PER_FILE`] each.
const PYTHON_TIMEOUT: Duration = Duration::from_secs(5);
/// Time added to [`PYTHON_TIMEOUT`] for each file it checks.
const PYTHON_PER_FILE: Duration = Duration::from_millis(5);
/// Most files one Python process checks: more are split into chunks, at
/// least one per core, run in parallel.
const PYTHON_CHUNK: usize = 5_000;
/// Most interpreter processes at once.
const MAX_PARALLEL: usize = 16;
/// Largest script read to be hashed and parsed; a larger one goes to its
/// interpreter each time.
const MAX_SCRIPT_BYTES: u64 = 16 << 20;
/// Largest script handed to brush-parser; a larger one goes to `bash -n`.
pub const BRUSH_MAX_BYTES: usize = 64 << 10;
/// Most openers (punctuation and keywords, see `openers`) a script handed
/// to brush-parser may hold: each can be one level of its recursion, and a
/// stack overflow would end the compile.
pub const BRUSH_MAX_NESTING: usize = 4_096;
/// The stack of each thread that runs brush-parser: twice what
/// [`BRUSH_MAX_NESTING`] levels of its deepest recursion measured here take
/// in a debug build (about 32 KiB a level; far less optimized). Only the
/// pages touched are committed.
const BRUSH_STACK: usize = 256 << 20;
/// Changes when what a check reports or the cache holds changes, so old
/// cache entries go.
const CACHE_VERSION: u32 = 3;

/// Compiles each file named on standard input (NUL-separated: a list of
/// 100,000 paths does not fit on a command line) and prints one line per
/// file: `ok`, or `err ` and the error as JSON.
const PYTHON_CHECK: &str = r#"
import json, os, sys
for path in sys.stdin.buffer.read().split(b'\0')[:-1]:
    try:
        with open(path, 'rb') as f:
            compile(f.read(), os.fsdecode(path), 'exec')
        print('ok')
    except SyntaxError as e:
        print('err ' + json.dumps('line %s: %s: %s' % (e.lineno, type(e).__name__, e.msg)))
    except Exception as e:
        print('err ' + json.dumps('%s: %s' % (type(e).__name__, e)))
    sys.stdout.flush()
"#;

/// One script to check.
pub struct Script {
    /// The path it runs from.
    pub path: PathBuf,
    /// Its interpreter.
    pub runner: Runner,
}

/// What the check of one script found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Its one-line syntax error; `None` when it parses, or when that could
    /// not be learned.
    pub error: Option<String>,
    /// Its stamp, taken before it was read (on the descriptor read from).
    pub stamp: Stamp,
}

/// What is known of one script before any interpreter runs.
struct Prepared {
    /// Its stamp, taken before it was read.
    stamp: Stamp,
    /// Its cache key, when it was read and has an interpreter.
    key: Option<String>,
    /// `Some(None)` when it parses (remembered, or accepted by brush):
    /// nothing else can be known without its interpreter.
    known: Option<Option<String>>,
}

/// What the check of each script found, in order, checked with `found`'s
/// interpreters (a script whose interpreter was not found is not checked).
/// `cache` is the cache file; it is read, and rewritten (atomically) with
/// the results of this call.
pub fn check(scripts: &[Script], found: &interpreters::Found, cache: &Path) -> Vec<Checked> {
    // Where the results cannot be remembered, neither can the index be (the
    // hook would recompile, and check everything, on every call): no check.
    if !writable(cache) {
        return scripts
            .iter()
            .map(|s| Checked {
                error: None,
                stamp: Stamp::of(&s.path),
            })
            .collect();
    }
    let remembered = read_cache(cache);
    let prefixes = [Runner::Bash, Runner::Python].map(|r| (r, key_prefix(r, found)));
    let prefix = |runner: Runner| {
        prefixes
            .iter()
            .find(|(r, _)| *r == runner)
            .and_then(|(_, p)| p.as_deref())
    };
    let one = |s: &Script, brush: bool| prepare(s, prefix(s.runner), &remembered, brush);
    // Reading, hashing and brush's parse, in parallel; the pool's threads
    // have the stack brush may need.
    let prepared: Vec<Prepared> = match rayon::ThreadPoolBuilder::new()
        .stack_size(BRUSH_STACK)
        .build()
    {
        Ok(pool) => pool.install(|| scripts.par_iter().map(|s| one(s, true)).collect()),
        // No threads to be had: read here, and bash decides every script.
        Err(_) => scripts.iter().map(|s| one(s, false)).collect(),
    };
    let mut stamps = Vec::with_capacity(prepared.len());
    let (keys, mut known): (Vec<_>, Vec<_>) = prepared
        .into_iter()
        .map(|p| {
            stamps.push(p.stamp);
            (p.key, p.known)
        })
        .unzip();
    let todo = |runner: Runner| -> Vec<usize> {
        (0..scripts.len())
            .filter(|&i| known[i].is_none() && scripts[i].runner == runner)
            .collect()
    };
    let bash = found.get(Runner::Bash).map(|b| (b, todo(Runner::Bash)));
    let python = found.get(Runner::Python).map(|p| (p, todo(Runner::Python)));
    for (i, answer) in interpreted(scripts, bash, python) {
        known[i] = answer;
    }
    let parsed: BTreeSet<String> = keys
        .into_iter()
        .zip(&known)
        .filter_map(|(k, answer)| k.filter(|_| matches!(answer, Some(None))))
        .collect();
    if parsed != remembered {
        write_cache(cache, &parsed);
    }
    known
        .into_iter()
        .zip(stamps)
        .map(|(answer, stamp)| Checked {
            error: answer.flatten(),
            stamp,
        })
        .collect()
}

/// The part of a cache key its runner gives: the runner and the
/// interpreter that checks it (path and stamp); `None` without one.
fn key_prefix(runner: Runner, found: &interpreters::Found) -> Option<String> {
    let interpreter = found.get(runner)?;
    let i = Stamp::of(interpreter);
    Some(format!(
        "{CACHE_VERSION} {runner:?} {} {} {} {} {}",
        interpreter.display(),
        i.mtime_sec,
        i.mtime_nsec,
        i.size,
        i.ino,
    ))
}

/// Reads and hashes `script` (its key: `prefix` and the hash), and knows it
/// parses when the cache says so or, with `brush`, when brush-parser
/// accepts a bash script. One that cannot be read has no key: its
/// interpreter decides.
fn prepare(
    script: &Script,
    prefix: Option<&str>,
    remembered: &BTreeSet<String>,
    brush: bool,
) -> Prepared {
    let unknown = || Prepared {
        stamp: Stamp::of(&script.path),
        key: None,
        known: None,
    };
    let Some(prefix) = prefix else {
        return unknown();
    };
    let Ok((bytes, meta)) = confine::read_regular_meta(&script.path, MAX_SCRIPT_BYTES) else {
        return unknown();
    };
    let key = format!("{prefix} {:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
    let parses = remembered.contains(&key)
        || (brush && script.runner == Runner::Bash && brush_accepts(&bytes));
    Prepared {
        stamp: Stamp::of_meta(&meta),
        key: Some(key),
        known: parses.then_some(None),
    }
}

/// Whether brush-parser parses `bytes` as a bash program, with bash's
/// defaults for a script (no extended globs). A script larger than
/// [`BRUSH_MAX_BYTES`] or with more than [`BRUSH_MAX_NESTING`] openers is
/// not handed to it: its parser recurses once per nesting level (and takes
/// minutes over many here-documents), which no answer is worth.
pub fn brush_accepts(bytes: &[u8]) -> bool {
    if bytes.len() > BRUSH_MAX_BYTES || openers(bytes) > BRUSH_MAX_NESTING {
        return false;
    }
    let options = brush_parser::ParserOptions {
        enable_extended_globbing: false,
        ..Default::default()
    };
    brush_parser::Parser::new(bytes, &options)
        .parse_program()
        .is_ok()
}

/// How many places of `bytes` may open a level of the parser's recursion,
/// counted so that there are at least as many as levels, however they
/// close: every ASCII punctuation byte (brackets, quotes, operators, `!`)
/// and every keyword that opens a compound command or a clause, also
/// where it is only part of a word.
fn openers(bytes: &[u8]) -> usize {
    const KEYWORDS: [&str; 13] = [
        "if", "then", "elif", "else", "while", "until", "for", "select", "case", "do", "function",
        "coproc", "time",
    ];
    let punctuation = bytes.iter().filter(|b| b.is_ascii_punctuation()).count();
    KEYWORDS
        .iter()
        .map(|k| memchr::memmem::find_iter(bytes, k).count())
        .sum::<usize>()
        + punctuation
}

fn read_cache(path: &Path) -> BTreeSet<String> {
    confine::read_regular(path, 64 << 20)
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

/// One interpreter process to run.
enum Job<'a> {
    /// `bash -n` on one script.
    Bash(&'a Path, usize),
    /// Python's `compile()` on a chunk of scripts.
    Python(&'a Path, &'a [usize]),
}

/// Runs the interpreters' checks: `bash -n` on each bash script named and
/// python3 on the python scripts named, in chunks, at most one process per
/// core (and [`MAX_PARALLEL`]) at once. Each answer is `(index, Some(error
/// or None))` when its check finished, `(index, None)` when it did not.
fn interpreted(
    scripts: &[Script],
    bash: Option<(&Path, Vec<usize>)>,
    python: Option<(&Path, Vec<usize>)>,
) -> Vec<(usize, Option<Option<String>>)> {
    let cores = std::thread::available_parallelism().map_or(4, |n| n.get());
    let mut jobs = Vec::new();
    // Python first: a chunk takes longest, and bash's checks fill in beside it.
    if let Some((python3, which)) = &python {
        let chunks = which.len().div_ceil(PYTHON_CHUNK).max(cores);
        let size = which.len().div_ceil(chunks).max(1);
        jobs.extend(which.chunks(size).map(|chunk| Job::Python(python3, chunk)));
    }
    if let Some((bash, which)) = &bash {
        jobs.extend(which.iter().map(|&i| Job::Bash(bash, i)));
    }
    let answers = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let workers = cores.min(MAX_PARALLEL).min(jobs.len());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(n) else { break };
                let found = match *job {
                    Job::Bash(bash, i) => vec![(i, bash_one(bash, &scripts[i].path))],
                    Job::Python(python3, which) => {
                        let answers = python_chunk(python3, scripts, which);
                        which.iter().copied().zip(answers).collect()
                    }
                };
                answers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(found);
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
    let (finished, _, stderr) = run(cmd, &[], BASH_TIMEOUT)?;
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
/// bounded in time (what it did not reach is unknown).
fn python_chunk(
    python3: &Path,
    scripts: &[Script],
    which: &[usize],
) -> Vec<Option<Option<String>>> {
    let mut answers = vec![None; which.len()];
    let mut cmd = Command::new(python3);
    cmd.args(["-I", "-S", "-c", PYTHON_CHECK]);
    let mut paths = Vec::new();
    for &i in which {
        paths.extend_from_slice(scripts[i].path.as_os_str().as_encoded_bytes());
        paths.push(0);
    }
    let timeout = PYTHON_TIMEOUT + PYTHON_PER_FILE * u32::try_from(which.len()).unwrap_or(u32::MAX);
    let Some((_, stdout, _)) = run(cmd, &paths, timeout) else {
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

/// Runs `cmd` with `input` on its standard input and its output in
/// temporary files (so no pipe can fill and stall it), killing it at
/// `timeout`: `(success, stdout, stderr)` with `success` `None` when it was
/// killed, or `None` when it did not start.
fn run(
    mut cmd: Command,
    input: &[u8],
    timeout: Duration,
) -> Option<(Option<bool>, String, String)> {
    let mut out = tempfile::tempfile().ok()?;
    let mut err = tempfile::tempfile().ok()?;
    let stdin = if input.is_empty() {
        Stdio::null()
    } else {
        let mut file = tempfile::tempfile().ok()?;
        file.write_all(input).ok()?;
        file.seek(SeekFrom::Start(0)).ok()?;
        Stdio::from(file)
    };
    cmd.stdin(stdin)
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

    /// The errors `check` found.
    fn errors(checked: Vec<Checked>) -> Vec<Option<String>> {
        checked.into_iter().map(|c| c.error).collect()
    }

    fn script(dir: &Path, name: &str, runner: Runner, body: &str) -> Script {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        Script { path, runner }
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
        assert_eq!(errors(check(&scripts, &found, &cache)), expected);
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
        let answers = errors(check(&scripts[..2], &found, &cache));
        assert!(answers[0]
            .as_deref()
            .is_some_and(|e| e.contains("syntax error")));
        assert_eq!(answers[1], None);
        // A cache that says a script does not parse is not believed.
        same_stamp(&scripts[0].path, "echo fine\n");
        std::fs::write(&cache, format!(r#"{{"{}": "bash -n: forged"}}"#, 1)).unwrap();
        assert_eq!(errors(check(&scripts[..1], &found, &cache)), [None]);
        // No cache can be written: nothing is checked.
        let bad = script(d, "bad2.sh", Runner::Bash, "if then\n");
        let unwritable = d.join("ok.sh/cache.json");
        assert_eq!(errors(check(&[bad], &found, &unwritable)), [None]);
    }

    #[test]
    fn brush_decides_what_it_accepts_and_bash_what_it_rejects() {
        // (script, what brush says, what the check lists)
        let table: &[(&str, bool, Option<&str>)] = &[
            ("echo fine\n", true, None),
            (
                "#!/usr/bin/env bash\ncmd=$(jq -r .c)\ncase \"$cmd\" in\n  *rm*) exit 2 ;;\nesac\n[[ -n $cmd ]] && echo \"${cmd:-x}\"\n",
                true,
                None,
            ),
            ("cat <<EOF\nif then\nEOF\n", true, None),
            (
                "echo\nif then\n",
                false,
                Some("bash -n: line 2: syntax error near unexpected token `then'"),
            ),
            (
                "if [ -n \"$1\" ]; then\n  echo x\nfi fi\n",
                false,
                Some("bash -n: line 3: syntax error near unexpected token `fi'"),
            ),
            // Rejected by brush, accepted by bash: bash decides.
            ("for ((;;)); do break; done\n", false, None),
        ];
        let dir = tempfile::tempdir().unwrap();
        let found = interpreters::find();
        let scripts: Vec<Script> = table
            .iter()
            .enumerate()
            .map(|(i, (body, ..))| script(dir.path(), &format!("{i}.sh"), Runner::Bash, body))
            .collect();
        let answers = errors(check(
            &scripts,
            &found,
            &dir.path().join("cache/syntax.json"),
        ));
        for ((body, brush, listed), answer) in table.iter().zip(answers) {
            assert_eq!(brush_accepts(body.as_bytes()), *brush, "brush on {body:?}");
            assert_eq!(answer.as_deref(), *listed, "{body:?}");
        }
    }

    #[test]
    fn many_scripts_are_all_checked_in_one_call() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let found = interpreters::find();
        let n = 3_000;
        let scripts: Vec<Script> = (0..n)
            .map(|i| match (i % 3, i % 100 == 99) {
                (0, false) => script(d, &format!("{i}.py"), Runner::Python, &format!("x = {i}\n")),
                (0, true) => script(d, &format!("{i}.py"), Runner::Python, "x = (\n"),
                (_, false) => script(d, &format!("{i}.sh"), Runner::Bash, &format!("echo {i}\n")),
                (_, true) => script(d, &format!("{i}.sh"), Runner::Bash, "if then\n"),
            })
            .collect();
        let cache = d.join("cache/syntax.json");
        let answers = errors(check(&scripts, &found, &cache));
        let listed: Vec<usize> = (0..n).filter(|&i| answers[i].is_some()).collect();
        let broken: Vec<usize> = (0..n).filter(|i| i % 100 == 99).collect();
        assert_eq!(listed, broken);
        // Every script that parses is remembered: none is left for later.
        assert_eq!(read_cache(&cache).len(), n - broken.len());
    }

    /// The worst script of each kind brush is handed (as many openers as
    /// [`BRUSH_MAX_NESTING`] allows, within [`BRUSH_MAX_BYTES`]), parsed
    /// on a thread of [`BRUSH_STACK`]: each returns (a stack overflow
    /// would end this test's process).
    #[test]
    fn brush_is_handed_nothing_it_cannot_return_from() {
        // (before, repeated opener, middle, repeated closer, after)
        let shapes: &[(&str, &str, &str, &str, &str)] = &[
            ("echo ", "$(echo ", "x", ")", ""),
            ("echo ", "${a:-", "x", "}", ""),
            ("", "(", "true", ")", ""),
            ("", "$(", "", "", ""),
            ("", "\"$(", "", "", ""),
            ("(( ", "(", "1", ")", " ))"),
            ("cat ", "<(cat ", "x", ")", ""),
            ("", "{ ", "true", "; }", ""),
            ("", "if true; then\n", "true\n", "fi\n", ""),
            ("", "while true; do\n", "true\n", "done\n", ""),
            ("", "! ", "true", "", ""),
            ("[[ ", "! ", "a", "", " ]]"),
            ("[[ ", "( ", "a", " )", " ]]"),
            ("", "f() { ", "true", "; }", ""),
            ("echo $(( ", "1 ? ", "1", " : 1", " ))"),
            ("echo $(( ", "a = ", "1", "", " ))"),
            ("echo $(( ", "2 ** ", "1", "", " ))"),
            ("echo $(( ", "- ", "1", "", " ))"),
            ("cat ", "<<E ", "\n", "E\n", "true"),
            ("", "case x in x) ", "true", " ;; esac", ""),
        ];
        let build = |(before, open, middle, close, after): &(&str, &str, &str, &str, &str),
                     k: usize| {
            format!(
                "{before}{}{middle}{}{after}",
                open.repeat(k),
                close.repeat(k)
            )
        };
        let fits = |text: &str| {
            text.len() <= BRUSH_MAX_BYTES && openers(text.as_bytes()) <= BRUSH_MAX_NESTING
        };
        let texts: Vec<String> = shapes
            .iter()
            .map(|shape| {
                let (mut low, mut high) = (0, BRUSH_MAX_BYTES);
                while low < high {
                    let k = (low + high).div_ceil(2);
                    if fits(&build(shape, k)) {
                        low = k;
                    } else {
                        high = k - 1;
                    }
                }
                build(shape, low)
            })
            .collect();
        std::thread::Builder::new()
            .stack_size(BRUSH_STACK)
            .spawn(move || {
                for text in &texts {
                    brush_accepts(text.as_bytes());
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
