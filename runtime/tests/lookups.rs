//! One plan per call: a hook call reads each index (the user's, and the
//! administrator's when the managed layer is theirs) once to plan what
//! runs, and once more only to judge an input a rule rewrote. Counted
//! through [`load::take_reads`], so a stage that looks up again fails here.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hookdex_model::Target;
use hookdex_runtime::{hook, load};

/// A scratch tree: home, cache, managed directory and a repository.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for sub in [
            "home",
            "hookdex-home/conditions",
            "cache",
            "managed/conditions",
            "repo/.git",
        ] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        Tree { _dir: dir, root }
    }

    fn var(&self, name: &str) -> Option<OsString> {
        let dir = match name {
            // The guard then reads what it watches from the index, not from
            // a closed gate.
            "HOOKDEX_GATE" => return Some("off".into()),
            "HOME" => "home",
            "HOOKDEX_HOME" => "hookdex-home",
            "HOOKDEX_CACHE_DIR" => "cache",
            "HOOKDEX_MANAGED_DIR" => "managed",
            _ => return None,
        };
        Some(self.root.join(dir).into_os_string())
    }

    /// An executable condition in `layer` (`hookdex-home` or `managed`).
    fn condition(&self, layer: &str, name: &str, body: &str) {
        let path = self.root.join(layer).join("conditions").join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Hands the managed directory to another user, so its layer runs from
    /// the administrator's own index. `false` where this process cannot.
    fn managed_apart(&self) -> bool {
        let managed = self.root.join("managed");
        std::process::Command::new("chown")
            .args(["-R", "4242:4242"])
            .arg(&managed)
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The reads of each index file by one PreToolUse call of `command`
    /// (the call is made twice: the first compiles the indexes).
    fn reads(&self, command: &str) -> BTreeMap<PathBuf, usize> {
        let payload = serde_json::json!({
            "hook_event_name": "PreToolUse",
            "session_id": "lookups",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": self.root.join("repo"),
        })
        .to_string();
        let var = |name: &str| self.var(name);
        hook::hook(Target::Claude, None, payload.as_bytes(), &var);
        load::take_reads();
        hook::hook(Target::Claude, None, payload.as_bytes(), &var);
        let mut reads = BTreeMap::new();
        for path in load::take_reads() {
            *reads.entry(path).or_default() += 1;
        }
        reads
    }
}

const REWRITES_TO_KUBECTL: &str =
    "echo '{\"decision\": \"allow\", \"tool_input\": {\"command\": \"kubectl get pods\"}}'\n";

/// Each index is read at most `most` times, and `indexes` are read.
fn assert_reads(reads: &BTreeMap<PathBuf, usize>, indexes: usize, most: usize, what: &str) {
    assert_eq!(reads.len(), indexes, "{what}: indexes read {reads:?}");
    for (path, n) in reads {
        assert!(*n <= most, "{what}: {} read {n} times", display(path));
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// A rule for each kind of call: one that fires for nothing asked, one
/// that allows, one that rewrites, and one that fires for the rewrite.
fn rules(tree: &Tree, managed: &str) {
    tree.condition("hookdex-home", "pre-bash.git-quiet.sh", "exit 0\n");
    tree.condition(
        managed,
        "pre-bash.kubectl-audit.sh",
        "echo '{\"decision\": \"allow\"}'\n",
    );
    tree.condition("hookdex-home", "pre-bash.ls-sneak.sh", REWRITES_TO_KUBECTL);
    tree.condition(
        managed,
        "pre-bash.cat-allow.sh",
        "echo '{\"decision\": \"allow\"}'\n",
    );
}

fn every_kind_of_call(tree: &Tree, indexes: usize) {
    assert_reads(&tree.reads("pwd"), indexes, 1, "nothing fires");
    assert_reads(&tree.reads("cat x"), indexes, 1, "a condition fires");
    // Planned once, and the rewritten input looked up once.
    assert_reads(&tree.reads("ls"), indexes, 2, "a rewrite is judged again");
}

#[test]
fn a_call_reads_the_users_index_once_per_stage() {
    let tree = Tree::new();
    rules(&tree, "hookdex-home");
    every_kind_of_call(&tree, 1);
}

#[test]
fn a_call_reads_each_index_once_per_stage_when_the_managed_layer_runs_apart() {
    let tree = Tree::new();
    rules(&tree, "managed");
    if !tree.managed_apart() {
        eprintln!("skipped: this process cannot hand a directory to another user");
        return;
    }
    every_kind_of_call(&tree, 2);
}

/// A `hooks.yaml` group whose `input_matcher` has a Unicode word boundary.
fn word_bounded_group(tree: &Tree) {
    std::fs::write(
        tree.root.join("hookdex-home/hooks.yaml"),
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      input_matcher:\n        command: \"\\\\bkubectl\\\\b\"\n      hooks:\n        - type: command\n          command: \"exit 0\"\n",
    )
    .unwrap();
}

#[test]
fn the_hook_path_builds_no_regex_while_the_automaton_answers() {
    let tree = Tree::new();
    word_bounded_group(&tree);
    tree.reads("kubectl get pods");
    hook::take_regex_builds();
    assert_reads(&tree.reads("kubectl get pods"), 1, 1, "an input matcher");
    assert_eq!(
        hook::take_regex_builds(),
        0,
        "a regex was compiled per call"
    );
    // The counter counts: past a non-ASCII character the DFA gives up on
    // `\b`, and only then is the pattern compiled.
    tree.reads("echo café; kubectl get pods");
    assert!(
        hook::take_regex_builds() > 0,
        "the fallback was not counted"
    );
}
