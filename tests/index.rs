//! The index on disk: freshness after changes, recovery from damaged files,
//! and concurrent processes on a cold or stale cache.

mod common;

use std::path::Path;
use std::process::{Child, Stdio};

use common::*;
use serde_json::json;

const BASH_LS: &[&str] = &["--tool", "Bash", "--command", "ls"];

/// Asserts the next call recompiles (not fresh), then the one after is fresh;
/// returns the first answer.
fn stale_then_fresh(s: &Scratch, args: &[&str]) -> Explain {
    let first = s.explain(args);
    assert!(!first.fresh(), "change not noticed: {:#}", first.0["index"]);
    let second = s.explain(args);
    assert!(
        second.fresh(),
        "not fresh after recompiling: {:#}",
        second.0["index"]
    );
    assert_eq!(first.fires(), second.fires());
    first
}

fn warm(s: &Scratch) -> Explain {
    let _ = s.explain(BASH_LS);
    let e = s.explain(BASH_LS);
    assert!(e.fresh(), "{:#}", e.0["index"]);
    e
}

#[test]
fn compile_writes_an_index_the_next_call_uses() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-a.sh");
    let out = s.run(&["compile"]);
    assert_success(&out, &["compile"]);
    assert_eq!(s.index_files("claude").len(), 1);
    let e = s.explain(BASH_LS);
    assert!(e.fresh(), "{:#}", e.0["index"]);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-a.sh")]));
    let ns = e.0["index"]["lookup_ns"].as_u64();
    assert!(ns.is_some(), "lookup_ns: {:#}", e.0["index"]);
}

/// The shipped output filters are the binary's: an index names them and
/// copies none of their automata (9.25 MB when it did), and they still
/// stand in `list`.
#[test]
fn an_index_holds_only_what_the_view_needs() {
    let s = Scratch::new();
    assert_success(&s.run(&["compile"]), &["compile"]);
    let index = &s.index_files("claude")[0];
    let size = std::fs::metadata(index).unwrap().len();
    assert!(size < 256 << 10, "{size} bytes");
    let listed = s.list(&[]);
    let filters = listed["output_filters"].as_array().unwrap();
    assert!(
        filters
            .iter()
            .any(|f| f["name"] == "make" && f["stands"] == true),
        "{listed:#}"
    );
}

#[test]
fn an_added_or_removed_rule_is_noticed_without_compile() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-a.sh");
    assert_success(&s.run(&["compile"]), &["compile"]);
    warm(&s);

    let added = rule(&s.runtime(), "pre-bash-b.sh");
    let e = stale_then_fresh(&s, BASH_LS);
    assert_eq!(
        e.fires(),
        pairs(&[("runtime", "pre-bash-a.sh"), ("runtime", "pre-bash-b.sh")])
    );

    std::fs::remove_file(&added).unwrap();
    let e = stale_then_fresh(&s, BASH_LS);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-a.sh")]));

    // In the repository's folder too, and in the bundle.
    rule(&s.hookdex_dir(), "pre-bash-repo.sh");
    let e = stale_then_fresh(&s, BASH_LS);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("runtime", "pre-bash-a.sh"),
            ("directory", "pre-bash-repo.sh")
        ])
    );
    // `hook` and `list` use the same index and keep it fresh.
    let out = s.run_stdin(
        &["hook", "--target", "claude"],
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    );
    assert!(out.status.success());
    rule(&s.agentihooks_dir(), "pre-bash-old.sh");
    let _ = s.list(&[]);
    let e = s.explain(BASH_LS);
    assert!(
        e.fresh(),
        "list did not refresh the index: {:#}",
        e.0["index"]
    );
    assert!(e.fire_names().contains(&"pre-bash-old.sh".to_string()));
}

#[test]
fn a_renamed_rule_is_noticed() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-a.sh");
    warm(&s);
    std::fs::rename(
        s.runtime().join("pre-bash-a.sh"),
        s.runtime().join("pre-read-a.sh"),
    )
    .unwrap();
    let e = stale_then_fresh(&s, BASH_LS);
    assert!(e.fires().is_empty(), "{:?}", e.fires());
    let e = s.explain(&["--tool", "Read"]);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-read-a.sh")]));
}

#[test]
fn a_new_profile_in_state_json_is_noticed() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(&bundle.join(".claude/conditions"), "pre-bash-b.sh");
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-bash-one.sh",
    );
    s.write_state(&json!({"bundle": bundle, "profiles": []}));
    let e = warm(&s);
    assert_eq!(e.fires(), pairs(&[("bundle", "pre-bash-b.sh")]));

    s.write_state(&json!({"bundle": bundle, "profiles": ["p1"]}));
    let e = stale_then_fresh(&s, BASH_LS);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("bundle", "pre-bash-b.sh"),
            ("profile:p1", "pre-bash-one.sh")
        ])
    );

    // A state.json that appears where there was none is noticed as well.
    std::fs::remove_file(s.home().join("state.json")).unwrap();
    let e = stale_then_fresh(&s, BASH_LS);
    assert!(e.fires().is_empty(), "{:?}", e.fires());
}

#[test]
fn a_missing_profile_that_appears_is_noticed() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    s.write_state(&json!({"bundle": bundle, "profiles": ["late"]}));
    let list = s.list(&[]);
    assert!(invalid(&list)
        .iter()
        .any(|(f, r)| f.ends_with("state.json") && r.contains("`late`")));
    warm(&s);
    rule(
        &bundle.join("profiles/late/.claude/conditions"),
        "pre-bash-l.sh",
    );
    let e = stale_then_fresh(&s, BASH_LS);
    assert_eq!(e.fires(), pairs(&[("profile:late", "pre-bash-l.sh")]));
}

#[test]
fn a_conditions_dir_that_did_not_exist_is_noticed() {
    let s = Scratch::new();
    assert!(!s.runtime().exists());
    let e = warm(&s);
    assert!(e.fires().is_empty());

    rule(&s.runtime(), "pre-bash-late.sh");
    let e = stale_then_fresh(&s, BASH_LS);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-late.sh")]));

    // The same for the managed layer and the repository's `.hookdex`.
    rule(&s.managed(), "pre-bash-policy.sh");
    let e = stale_then_fresh(&s, BASH_LS);
    assert!(e.fire_names().contains(&"pre-bash-policy.sh".to_string()));
    rule(&s.hookdex_dir(), "pre-bash-repo.sh");
    let e = stale_then_fresh(&s, BASH_LS);
    assert!(e.fire_names().contains(&"pre-bash-repo.sh".to_string()));
}

#[test]
fn a_changed_origin_is_noticed() {
    let s = Scratch::new();
    rule(&s.hookdex_dir(), "pre-bash-repo.sh");
    let e = warm(&s);
    assert_eq!(e.fires(), pairs(&[("directory", "pre-bash-repo.sh")]));

    set_origin(&s.repo, "git@github.com:stranger/r.git");
    let e = stale_then_fresh(&s, BASH_LS);
    assert!(e.fires().is_empty(), "{:?}", e.fires());
    assert!(e
        .skip_reason("directory", "/pre-bash-repo.sh")
        .contains("'github.com/stranger'"));

    set_origin(&s.repo, "git@github.com:someone-else/r.git");
    let e = stale_then_fresh(&s, BASH_LS);
    assert!(e
        .skip_reason("directory", "/pre-bash-repo.sh")
        .contains("'github.com/someone-else'"));
}

/// Index recovery: damage the index, then the next call must still answer
/// correctly (recompiling, so not fresh), and the call after is fresh again.
fn recovers_from(damage: impl Fn(&Path)) {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-a.sh");
    rule(&s.runtime(), "pre-bash.git-g.sh");
    rule(&s.runtime(), "pre-mcp__github-m.sh");
    rule(&s.runtime(), "pre-edit+write-w.sh");
    let args = ["--tool", "Bash", "--command", "git push"];
    warm(&s);
    let e = s.explain(&args);
    assert!(e.fresh());
    let want = e.fires();
    assert_eq!(want.len(), 2, "{want:?}");
    damage(&s.index_file());
    let out = s.run(&[
        "explain",
        "--json",
        "--tool",
        "Bash",
        "--command",
        "git push",
    ]);
    assert_success(&out, &args);
    let e = Explain(serde_json::from_slice(&out.stdout).unwrap());
    assert_eq!(e.fires(), want);
    assert!(!e.fresh(), "damage not detected: {:#}", e.0["index"]);
    let e = s.explain(&args);
    assert!(e.fresh(), "{:#}", e.0["index"]);
    assert_eq!(e.fires(), want);
    assert_eq!(s.index_files("claude").len(), 1);
}

#[test]
fn recovers_from_flipped_bytes_in_the_middle() {
    recovers_from(|path| {
        let mut bytes = std::fs::read(path).unwrap();
        let mid = bytes.len() / 2;
        for b in &mut bytes[mid..mid + 16] {
            *b ^= 0xA5;
        }
        std::fs::write(path, bytes).unwrap();
    });
}

#[test]
fn recovers_from_a_truncated_index() {
    recovers_from(|path| {
        let len = std::fs::metadata(path).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.set_len(len / 2).unwrap();
    });
}

#[test]
fn recovers_from_garbage() {
    recovers_from(|path| {
        let len = std::fs::metadata(path).unwrap().len() as usize;
        let garbage: Vec<u8> = (0..len).map(|i| (i * 7 + 13) as u8).collect();
        std::fs::write(path, garbage).unwrap();
    });
}

#[test]
fn recovers_from_an_empty_file() {
    recovers_from(|path| std::fs::write(path, b"").unwrap());
}

#[test]
fn recovers_from_a_foreign_format_version() {
    recovers_from(|path| {
        let mut bytes = std::fs::read(path).unwrap();
        bytes[8] = bytes[8].wrapping_add(1);
        std::fs::write(path, bytes).unwrap();
    });
}

#[test]
fn recovers_from_trailing_bytes() {
    recovers_from(|path| {
        let mut bytes = std::fs::read(path).unwrap();
        bytes.extend_from_slice(b"appended junk");
        std::fs::write(path, bytes).unwrap();
    });
}

/// One flipped byte anywhere must never make a command fail or answer wrong.
/// Today a flipped byte in a section that is not verified when the index is
/// opened (Rules, Names, Postings, …) passes the freshness check, and the
/// later read fails its checksum: `explain` exits 1 with
/// `hookdex: index is corrupt: section Rules: checksum mismatch in block 0`
/// instead of recompiling, and it keeps failing on every call.
#[test]
fn recovers_from_a_flipped_byte_anywhere() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-a.sh");
    rule(&s.runtime(), "pre-bash.git-g.sh");
    rule(&s.runtime(), "pre-mcp__github-m.sh");
    rule(&s.runtime(), "pre-edit+write-w.sh");
    let args = [
        "explain",
        "--json",
        "--tool",
        "Bash",
        "--command",
        "git push",
    ];
    let want = s.explain(&args[2..]).fires();
    let path = s.index_file();
    let good = std::fs::read(&path).unwrap();
    let mut failures = Vec::new();
    let step = (good.len() / 97).max(1);
    for offset in (0..good.len()).step_by(step) {
        let mut bad = good.clone();
        bad[offset] ^= 0x5A;
        std::fs::write(&path, &bad).unwrap();
        for attempt in 0..2 {
            let out = s.run(&args);
            let answer = serde_json::from_slice(&out.stdout)
                .ok()
                .map(|v| Explain(v).fires());
            if !out.status.success() || answer.as_ref() != Some(&want) {
                failures.push(format!(
                    "offset {offset} (call {attempt}): exit {:?}: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
                break;
            }
        }
        // Also through `list`.
        std::fs::write(&path, &bad).unwrap();
        let out = s.run(&["list", "--json"]);
        if !out.status.success() {
            failures.push(format!(
                "offset {offset} (list): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    std::fs::write(&path, &good).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn spawn_explain(s: &Scratch, args: &[&str]) -> Child {
    let mut all = vec!["explain", "--json"];
    all.extend_from_slice(args);
    s.cmd(&all)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

fn eight_at_once(s: &Scratch, args: &[&str]) -> Vec<Explain> {
    let children: Vec<Child> = (0..8).map(|_| spawn_explain(s, args)).collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            assert_success(&out, args);
            Explain(serde_json::from_slice(&out.stdout).expect("JSON"))
        })
        .collect()
}

fn assert_clean_cache(s: &Scratch) {
    assert_eq!(s.index_files("claude").len(), 1, "{:?}", walk(&s.cache()));
    for file in walk(&s.cache()) {
        let name = file_name(&file);
        assert!(
            !name.starts_with('.') && !name.ends_with(".tmp"),
            "temporary file left behind: {}",
            file.display()
        );
    }
}

#[test]
fn eight_processes_on_a_cold_cache_agree() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(&bundle.join(".claude/conditions"), "pre-any-b.sh");
    rule(&s.runtime(), "pre-bash.git-g.sh");
    rule(&s.hookdex_dir(), "pre-bash-d.sh");
    s.write_state(&json!({"bundle": bundle}));
    let want = pairs(&[
        ("bundle", "pre-any-b.sh"),
        ("runtime", "pre-bash.git-g.sh"),
        ("directory", "pre-bash-d.sh"),
    ]);
    assert!(s.index_files("claude").is_empty());
    for e in eight_at_once(&s, &["--tool", "Bash", "--command", "git push"]) {
        assert_eq!(e.fires(), want);
    }
    assert_clean_cache(&s);
    let e = s.explain(&["--tool", "Bash", "--command", "git push"]);
    assert!(e.fresh());
    assert_eq!(e.fires(), want);
}

#[test]
fn eight_processes_after_a_rule_was_added_agree() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-a.sh");
    warm(&s);
    rule(&s.runtime(), "pre-bash-b.sh");
    let want = pairs(&[("runtime", "pre-bash-a.sh"), ("runtime", "pre-bash-b.sh")]);
    for e in eight_at_once(&s, BASH_LS) {
        assert_eq!(e.fires(), want);
    }
    assert_clean_cache(&s);
    let e = s.explain(BASH_LS);
    assert!(e.fresh());
    assert_eq!(e.fires(), want);
}

#[test]
fn an_unwritable_cache_still_answers() {
    let mut s = Scratch::new();
    rule(&s.runtime(), "pre-bash-a.sh");
    // The cache "directory" is a file: nothing can be written there.
    let blocker = s.path("not-a-dir");
    std::fs::write(&blocker, b"x").unwrap();
    s.set_env("HOOKDEX_CACHE_DIR", blocker.display().to_string());
    let e = s.explain(BASH_LS);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-a.sh")]));
    assert!(!e.fresh());
    let out = s.run_stdin(
        &["hook", "--target", "claude"],
        br#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    );
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
}

#[test]
fn recovers_from_a_forged_index_whose_checksums_hold() {
    // Whoever can write the cache can write consistent checksums; a bad
    // reference between records must still mean a recompile, not an error.
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash.git-g.sh");
    let args = ["--tool", "Bash", "--command", "git push"];
    warm(&s);
    let want = s.explain(&args).fires();
    let view =
        hookdex_compiler::View::from_vars(hookdex_model::Target::Claude, &s.cwd, |n| s.var(n));
    let mut data = hookdex_compiler::compile(&view).data;
    data.rules[0].layer = 99;
    let forged = data.to_bytes();
    for command in [
        &["list"][..],
        &["show", "pre-bash.git-g"],
        &["explain", "--tool", "Bash"],
    ] {
        std::fs::write(s.index_file(), &forged).unwrap();
        let out = s.run(command);
        assert_success(&out, command);
        assert_ne!(
            std::fs::read(s.index_file()).unwrap(),
            forged,
            "{command:?} left the forged index in place"
        );
    }
    assert_eq!(s.explain(&args).fires(), want);
}

#[test]
fn an_edit_that_restores_the_mtime_is_noticed_by_its_ctime() {
    let s = Scratch::new();
    set_origin(&s.repo, "https://github.com/acme/r.git");
    let _ = warm(&s);
    std::thread::sleep(std::time::Duration::from_millis(20));
    // The trust-deciding config rewritten in place with the same size, and
    // its mtime set back: only the ctime tells.
    let config = s.repo.join(".git/config");
    let before = std::fs::metadata(&config).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("acme", "evil");
    std::fs::write(&config, text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&config)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let e = s.explain(BASH_LS);
    assert!(
        !e.fresh(),
        "an edit with the mtime set back must be noticed: {:#}",
        e.0["index"]
    );
}
