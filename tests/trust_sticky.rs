//! Trust the agent cannot raise, end to end with the real git and
//! `hookdex hook`: a stranger's repository stays untrusted whatever is done
//! inside it (a remote renamed, re-pointed or removed, a nested `.git`, a
//! config include, the repository re-created), only the person's `hookdex
//! trust` makes its rules run and `--revoke` stops them, a repository that
//! never had a stranger works as before, and concurrent hook processes keep
//! the trust store whole.

mod common;

use std::path::Path;

use serde_json::Value;

use common::git::*;
use common::hook::{hook, pre_bash, replaced};
use common::*;

const STRANGER: &str = "https://github.com/stranger/r.git";

/// `explain --json`'s trust kind and reason.
fn trust_of(s: &Scratch) -> (String, String) {
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    let text = |k: &str| e.0[k].as_str().unwrap_or_default().to_string();
    (text("trust_kind"), text("trust"))
}

/// Asserts the repository's rule does not run, for a reason of `kind`.
fn stays_untrusted(s: &Scratch, kind: &str, step: &str) {
    assert!(!hook_denies(s), "{step}: the stranger's rule ran");
    let (got, why) = trust_of(s);
    assert_eq!(got, kind, "{step}: {why}");
    assert!(why.contains("not trusted"), "{step}: {why}");
}

#[test]
fn renaming_or_removing_the_strangers_origin_does_not_trust_it() {
    let s = git_repo(STRANGER);
    stays_untrusted(&s, "owner", "seen");
    git(&s, &s.repo, &["remote", "rename", "origin", "upstream"]);
    stays_untrusted(&s, "remote", "renamed");
    git(&s, &s.repo, &["remote", "remove", "upstream"]);
    stays_untrusted(&s, "sticky", "removed");
    let (_, why) = trust_of(&s);
    assert!(why.contains("'github.com/stranger'"), "{why}");
}

#[test]
fn a_renamed_origin_is_a_stranger_even_on_first_sight() {
    // Cloned and renamed before hookdex ever saw the repository.
    let s = git_repo(STRANGER);
    git(&s, &s.repo, &["remote", "rename", "origin", "upstream"]);
    stays_untrusted(&s, "remote", "first sight");
}

#[test]
fn pointing_origin_at_a_trusted_owner_does_not_trust_it() {
    let mut s = git_repo(STRANGER);
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    stays_untrusted(&s, "owner", "seen");
    git(
        &s,
        &s.repo,
        &["remote", "set-url", "origin", "git@github.com:acme/r.git"],
    );
    stays_untrusted(&s, "sticky", "set-url");
    // The person's own setting still decides over every owner seen.
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme, stranger");
    assert!(hook_denies(&s));
}

#[test]
fn an_include_cannot_trust_it() {
    let mut s = git_repo(STRANGER);
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    stays_untrusted(&s, "owner", "seen");
    // An include that clears origin's url and names acme's.
    std::fs::write(
        s.path("acme.inc"),
        "[remote \"origin\"]\n\turl =\n\turl = git@github.com:acme/r.git\n",
    )
    .unwrap();
    git(&s, &s.repo, &["config", "include.path", "../../acme.inc"]);
    stays_untrusted(&s, "sticky", "include");

    // A trusted repository that an include gives a stranger's remote.
    let mut s = git_repo("git@github.com:acme/r.git");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    assert!(hook_denies(&s));
    std::fs::write(
        s.path("evil.inc"),
        "[remote \"evil\"]\n\turl = https://github.com/stranger/r\n",
    )
    .unwrap();
    git(&s, &s.repo, &["config", "include.path", "../../evil.inc"]);
    stays_untrusted(&s, "remote", "included remote");

    // An include that cannot be read is unknown, never trusted.
    let mut s = git_repo("");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "*");
    std::fs::create_dir_all(s.path("a-folder.inc")).unwrap();
    git(
        &s,
        &s.repo,
        &["config", "include.path", "../../a-folder.inc"],
    );
    stays_untrusted(&s, "unknown", "unreadable include");
}

#[test]
fn re_creating_the_repository_does_not_trust_it() {
    let s = git_repo(STRANGER);
    stays_untrusted(&s, "owner", "seen");
    std::fs::remove_dir_all(s.repo.join(".git")).unwrap();
    git(&s, &s.repo, &["init", "-q"]);
    stays_untrusted(&s, "sticky", "rm -rf .git && git init");
}

#[test]
fn a_nested_git_root_is_no_more_trusted_than_the_repository_around_it() {
    let mut s = git_repo(STRANGER);
    let tools = s.repo.join("tools");
    rule_with(
        &tools.join(".hookdex/conditions"),
        "pre-bash-tools.sh",
        "echo 'the repository rule ran' >&2\nexit 2\n",
    );
    stays_untrusted(&s, "owner", "seen");
    s.cwd = tools.clone();
    std::fs::create_dir_all(tools.join(".git")).unwrap();
    stays_untrusted(&s, "enclosing", "mkdir -p tools/.git");
    // A nested repository that says it is a trusted owner's.
    std::fs::remove_dir_all(tools.join(".git")).unwrap();
    git(&s, &tools, &["init", "-q"]);
    git(
        &s,
        &tools,
        &["remote", "add", "origin", "git@github.com:acme/t.git"],
    );
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    stays_untrusted(&s, "enclosing", "git init tools");
    let (_, why) = trust_of(&s);
    assert!(why.contains(&s.repo.display().to_string()), "{why}");
    // The repository around it removed after it was seen: still a stranger.
    std::fs::remove_dir_all(s.repo.join(".git")).unwrap();
    stays_untrusted(&s, "enclosing", "outer .git removed");
    // The person can trust the nested one by itself.
    let out = s.run(&["trust"]);
    assert_success(&out, &["trust"]);
    assert!(hook_denies(&s));
}

#[test]
fn a_clone_source_counts_when_no_remote_is_left() {
    let s = git_repo("");
    // What `git clone` writes as the first reflog line.
    let line = format!(
        "{} {} A U Thor <a@example.com> 1700000000 +0000\tclone: from {STRANGER}\n",
        "0".repeat(40),
        "1".repeat(40)
    );
    std::fs::create_dir_all(s.repo.join(".git/logs")).unwrap();
    std::fs::write(s.repo.join(".git/logs/HEAD"), line).unwrap();
    stays_untrusted(&s, "clone", "clone line");
}

#[test]
fn hookdex_trust_runs_the_rules_and_revoke_stops_them() {
    let mut s = git_repo(STRANGER);
    stays_untrusted(&s, "owner", "seen");
    // From a subdirectory, as a person would.
    let sub = s.repo.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    s.cwd = sub;
    let out = s.run(&["trust"]);
    assert_success(&out, &["trust"]);
    assert!(hook_denies(&s), "trusted on the very next call");
    assert_eq!(trust_of(&s).0, "explicit");
    let list = s.list(&[]);
    let directory = layer(&list, "directory");
    assert_eq!(directory["trusted"], true);
    assert_eq!(directory["trust"]["kind"], "explicit");

    // Whatever the remotes do afterwards, the person's decision stands.
    git(
        &s,
        &s.repo,
        &["remote", "add", "other", "https://github.com/x/y"],
    );
    assert!(hook_denies(&s));

    let repo = s.repo.display().to_string();
    let out = s.run(&["trust", "--revoke", &repo]);
    assert_success(&out, &["trust", "--revoke"]);
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "*");
    stays_untrusted(&s, "revoked", "revoked");
    let listed = s.json(&["trust", "--list", "--json"]);
    let roots = listed["roots"].as_array().unwrap();
    assert_eq!(roots.len(), 1, "{listed:#}");
    assert_eq!(roots[0]["root"], Value::from(repo));
    assert_eq!(roots[0]["decision"], "revoke");
    let seen: Vec<&str> = roots[0]["seen"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(seen, ["github.com/stranger", "github.com/x"]);

    // A path that is not there does not fall through to the repository
    // around it, and outside any repository there is nothing to trust.
    let typo = s.repo.join("no-such-dir").display().to_string();
    let out = s.run(&["trust", &typo]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
    let out = s.run(&["trust", &s.path("home").display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not in a git repository"));
}

#[test]
fn a_repository_that_never_had_a_stranger_works_as_before() {
    let s = git_repo("");
    assert!(hook_denies(&s));
    assert_eq!(trust_of(&s).0, "no-origin");
    // Commits write the reflog; only a clone line names a source.
    git(
        &s,
        &s.repo,
        &[
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
    );
    assert!(hook_denies(&s));
    // Its own owner added later, and listed, keeps it trusted.
    let mut s = s;
    git(
        &s,
        &s.repo,
        &["remote", "add", "origin", "git@github.com:me/r.git"],
    );
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "me");
    assert!(hook_denies(&s));
    assert_eq!(trust_of(&s).0, "listed");
}

#[test]
fn the_agent_cannot_run_hookdex_trust() {
    let s = git_repo(STRANGER);
    for (command, gated) in [
        ("hookdex trust", true),
        ("cd /tmp && hookdex trust --revoke .", true),
        ("/usr/local/bin/hookdex trust ~/x", true),
        ("hookdex trust --list", false),
    ] {
        let reply = hook(&s, "claude", &pre_bash(&s, "claude", command));
        assert_eq!(
            reply.to_string().contains("hookdex gate:"),
            gated,
            "{command}: {reply}"
        );
    }
}

/// Hook processes compiling at once (other repositories, other targets of
/// one repository) all write the one trust store: every entry stays whole
/// and keeps every owner seen.
#[test]
fn concurrent_hook_processes_keep_the_store_whole() {
    let s = Scratch::new();
    let repos: Vec<_> = (0..6)
        .map(|i| {
            let repo = s.path(&format!("r{i}"));
            std::fs::create_dir_all(&repo).unwrap();
            git(&s, &repo, &["init", "-q"]);
            let url = format!("https://github.com/stranger{i}/r.git");
            git(&s, &repo, &["remote", "add", "origin", &url]);
            git(
                &s,
                &repo,
                &["remote", "add", "fork", "https://github.com/f/r"],
            );
            rule_with(
                &repo.join(".hookdex/conditions"),
                "pre-bash-repo.sh",
                "echo 'the repository rule ran' >&2\nexit 2\n",
            );
            repo
        })
        .collect();
    let mut children = Vec::new();
    for repo in &repos {
        for target in ["claude", "codex", "gemini"] {
            let payload = replaced(
                &pre_bash(&s, target, "ls"),
                &s.repo.display().to_string(),
                &repo.display().to_string(),
            );
            let mut cmd = s.cmd(&["hook", "--target", target]);
            cmd.current_dir(repo)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            std::io::Write::write_all(&mut stdin, payload.to_string().as_bytes()).unwrap();
            drop(stdin);
            children.push(child);
        }
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(!String::from_utf8_lossy(&out.stdout).contains("the repository rule ran"));
    }
    let listed = s.json(&["trust", "--list", "--json"]);
    let roots = listed["roots"].as_array().unwrap();
    for (i, repo) in repos.iter().enumerate() {
        let entry = roots
            .iter()
            .find(|r| r["root"] == repo.display().to_string())
            .unwrap_or_else(|| panic!("{} not in {listed:#}", repo.display()));
        let seen: Vec<&str> = entry["seen"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mut seen = seen.clone();
        seen.sort_unstable();
        let mut want = vec![format!("github.com/stranger{i}"), "github.com/f".into()];
        want.sort_unstable();
        assert_eq!(seen, want, "{entry:#}");
    }
    assert!(roots.iter().all(|r| r.get("error").is_none()), "{listed:#}");
    assert_no_temp_files(&s.path("hookdex-home/trust"));
}

/// No temporary file of an atomic write is left behind.
fn assert_no_temp_files(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            name == "lock" || name.ends_with(".json"),
            "left in the store: {name}"
        );
    }
}

/// A store that cannot be written never fails the hook: the verdict is
/// taken from what could be read, so local work still runs its rules and a
/// stranger's still does not.
#[test]
fn a_store_that_cannot_be_written_fails_nothing() {
    for (url, runs) in [("", true), (STRANGER, false)] {
        let s = git_repo(url);
        // The writers' lock cannot be opened: every write fails.
        std::fs::create_dir_all(s.path("hookdex-home/trust/lock")).unwrap();
        assert_eq!(hook_denies(&s), runs, "{url:?}");
        let listed = s.json(&["trust", "--list", "--json"]);
        assert_eq!(
            listed["roots"],
            Value::Array(Vec::new()),
            "{url:?}: nothing written"
        );
        let out = s.run(&["trust"]);
        assert_eq!(out.status.code(), Some(1), "{url:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("trust store"));
    }
}

/// Commits everything in the repository, the rule included.
fn commit_all(s: &Scratch) {
    git(s, &s.repo, &["add", "-A"]);
    git(
        s,
        &s.repo,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "x",
        ],
    );
}

#[test]
fn a_link_at_the_seen_path_to_the_moved_repository_does_not_trust_it() {
    let s = git_repo(STRANGER);
    stays_untrusted(&s, "owner", "seen");
    let real = s.path("real");
    std::fs::rename(&s.repo, &real).unwrap();
    std::os::unix::fs::symlink(&real, &s.repo).unwrap();
    git(&s, &real, &["remote", "remove", "origin"]);
    // The same working directory, now reached through the link.
    stays_untrusted(&s, "sticky", "linked");
}

#[test]
fn a_worktree_of_the_seen_repository_is_as_untrusted_as_it() {
    let mut s = git_repo(STRANGER);
    commit_all(&s);
    stays_untrusted(&s, "owner", "seen");
    let wt = s.path("wt");
    git(
        &s,
        &s.repo,
        &["worktree", "add", "-q", wt.to_str().unwrap()],
    );
    git(&s, &wt, &["remote", "remove", "origin"]);
    s.cwd = wt;
    stays_untrusted(&s, "enclosing", "worktree");
    // Capped by the repository itself, not by its `.git` folder.
    let (_, why) = trust_of(&s);
    let main = format!("inside {} (", s.repo.display());
    assert!(why.contains(&main), "{why}");
}

#[test]
fn a_moved_repository_keeps_what_was_seen() {
    let mut s = git_repo(STRANGER);
    commit_all(&s);
    stays_untrusted(&s, "owner", "seen");
    let moved = s.path("repo2");
    std::fs::rename(&s.repo, &moved).unwrap();
    git(&s, &moved, &["remote", "remove", "origin"]);
    std::fs::remove_dir_all(moved.join(".git/logs")).unwrap();
    s.cwd = moved;
    stays_untrusted(&s, "sticky", "moved");
}
