//! The docs are run: every `hookdex …` line of a fenced block in README.md,
//! SECURITY.md and docs/*.md names a subcommand and flags the binary has
//! (each checked against that subcommand's `--help`), and the README's
//! quick start is walked on a fresh HOME as a person would type it — with
//! the binary under test on PATH in place of `./install.sh`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_hookdex");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents a person reads.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("SECURITY.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// A fenced block: its language and lines, with the line it starts at.
struct Block {
    lang: String,
    line: usize,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if let Some(fence) = line.strip_prefix("```") {
            match open.take() {
                Some(block) => out.push(block),
                None => {
                    open = Some(Block {
                        lang: fence.trim().to_string(),
                        line: n + 1,
                        lines: Vec::new(),
                    })
                }
            }
        } else if let Some(block) = &mut open {
            block.lines.push(line.to_string());
        }
    }
    out
}

/// The command of a doc line that runs hookdex: without a `$ ` prompt and
/// a trailing `# comment`; `None` for other lines (output, other programs).
fn hookdex_command(line: &str) -> Option<&str> {
    let line = line.strip_prefix("$ ").unwrap_or(line);
    if !line.starts_with("hookdex ") {
        return None;
    }
    Some(line.split("  #").next().unwrap().trim_end())
}

/// `hookdex <path…> --help`, cached.
fn help(cache: &mut BTreeMap<Vec<String>, Option<String>>, path: &[String]) -> Option<String> {
    cache
        .entry(path.to_vec())
        .or_insert_with(|| {
            let out = Command::new(BIN).args(path).arg("--help").output().unwrap();
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
        })
        .clone()
}

/// The subcommands a `--help` text lists.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// What is wrong with `command` as the binary reads it, if anything.
fn check(cache: &mut BTreeMap<Vec<String>, Option<String>>, command: &str) -> Option<String> {
    // What follows `--` is the wrapped program's.
    let own = command.split(" -- ").next().unwrap();
    let words: Vec<&str> = own.split_whitespace().skip(1).collect();
    // `hook` reads its own two flags without clap, for speed.
    if words.first() == Some(&"hook") {
        let unknown = flags(own)
            .into_iter()
            .find(|f| f != "--target" && f != "--event");
        return unknown.map(|f| format!("`hook` has no {f}"));
    }
    let mut path: Vec<String> = Vec::new();
    for word in &words {
        let top = help(cache, &path)?;
        if subcommands(&top).iter().any(|s| s == word) {
            path.push(word.to_string());
        } else {
            break;
        }
    }
    if path.is_empty() && !words.first().is_some_and(|w| w.starts_with('-')) {
        return Some(format!("no subcommand `{}`", words.first().unwrap_or(&"")));
    }
    let text = help(cache, &path).unwrap_or_default();
    flags(own)
        .into_iter()
        .find(|flag| !text.contains(flag.as_str()))
        .map(|flag| format!("`hookdex {}` has no {flag}", path.join(" ")))
}

/// The long flags a synopsis line names (`[--scope user|project]`, `--target=T`).
fn flags(line: &str) -> Vec<String> {
    line.split(|c: char| c.is_whitespace() || "[]|()".contains(c))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.split(['=', ','])
                .next()
                .unwrap()
                .trim_end_matches(['…', '.'])
                .to_string()
        })
        .filter(|w| w.len() > 2)
        .collect()
}

#[test]
fn every_documented_command_names_what_the_binary_has() {
    let mut cache = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for block in blocks(&text) {
            if !["sh", "console", "text", ""].contains(&block.lang.as_str()) {
                continue;
            }
            for (at, line) in block.lines.iter().enumerate() {
                let Some(command) = hookdex_command(line) else {
                    continue;
                };
                // A command shown with the usage error it gets is a mistake on purpose.
                if block
                    .lines
                    .get(at + 1)
                    .is_some_and(|l| l.starts_with("error:"))
                {
                    continue;
                }
                seen += 1;
                if let Some(why) = check(&mut cache, command) {
                    let shown = doc.strip_prefix(root()).unwrap_or(&doc).display();
                    wrong.push(format!(
                        "{shown} (block at line {}): {command}: {why}",
                        block.line
                    ));
                }
            }
        }
    }
    assert!(seen > 20, "only {seen} documented commands found");
    assert!(
        wrong.is_empty(),
        "documented commands the binary does not have:\n{}",
        wrong.join("\n")
    );
}

/// The README's quick start, its blocks in order.
fn quick_start() -> Vec<Block> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("## Quick start")
        .expect("README has a quick start");
    let rest = &readme[start + 3..];
    let end = rest.find("\n## ").map_or(rest.len(), |at| at);
    blocks(&rest[..end])
}

/// Runs `script` with bash in `home` (HOME, no inherited hookdex
/// variables), the binary under test first on a minimal PATH.
fn bash(home: &Path, script: &str) -> Output {
    let bin_dir = Path::new(BIN).parent().unwrap();
    Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display()),
        )
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap()
}

#[test]
fn the_quick_start_gives_a_working_tested_guard() {
    if Command::new("bash").arg("--version").output().is_err() {
        eprintln!("skipped: bash is not installed, and the quick start is bash");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let mut outputs = Vec::new();
    for block in quick_start() {
        match block.lang.as_str() {
            // Install is the binary under test, already on PATH.
            "sh" => {
                let script: Vec<&str> = block
                    .lines
                    .iter()
                    .map(String::as_str)
                    .filter(|l| !l.starts_with("./install.sh"))
                    .collect();
                let out = bash(&home, &script.join("\n"));
                assert!(
                    out.status.success(),
                    "quick start block at line {} failed: {}{}",
                    block.line,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            "console" => {
                for line in &block.lines {
                    let Some(command) = line.strip_prefix("$ ") else {
                        continue;
                    };
                    outputs.push((command.to_string(), bash(&home, command)));
                }
            }
            _ => {}
        }
    }
    let text = |out: &Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let [(delete, denied), (get, passed), (doctor, clean)] = &outputs[..] else {
        panic!(
            "the quick start should try two calls and run doctor: {:?}",
            outputs.iter().map(|o| &o.0).collect::<Vec<_>>()
        );
    };
    assert!(delete.contains("kubectl delete") && get.contains("kubectl get"));
    let said = text(denied);
    assert!(
        said.contains("kubectl delete is for people"),
        "{delete}:\n{said}"
    );
    assert!(said.to_lowercase().contains("deny"), "{delete}:\n{said}");
    let said = text(passed);
    assert!(
        said.contains("pre-bash.kubectl-writes.guard.yaml"),
        "the guard did not fire: {said}"
    );
    assert!(
        !said.contains("kubectl delete is for people"),
        "{get}:\n{said}"
    );
    assert!(
        clean.status.success(),
        "{doctor} is not clean:\n{}",
        text(clean)
    );
}
