//! Package rules run from verified bytes: the copy materialized under the
//! cache directory is stamped in the index, so an edit or a deletion of it
//! after the compile makes the index stale, and the next call writes the
//! package's own bytes again before running them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::hook::*;
use common::*;

const PROFILE: &str = "k8s-readonly";
const RULE: &str = "pre-bash.kubectl-readonly.py";

/// Whether `program` runs here.
fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A tree using the package profile, or `None` (said why) when the package
/// or the interpreters its rule needs are missing.
fn with_package_profile() -> Option<Scratch> {
    if !package_has_profile(PROFILE) {
        eprintln!("skipped: the package has no profile {PROFILE}");
        return None;
    }
    if !have("bash") || !have("python3") {
        eprintln!("skipped: the package rule needs bash and python3");
        return None;
    }
    let mut s = Scratch::new();
    s.set_env("HOOKDEX_PROFILES", PROFILE);
    Some(s)
}

/// The package's own bytes of the rule.
fn package_bytes() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules/profiles")
        .join(PROFILE)
        .join(".claude/conditions")
        .join(RULE);
    std::fs::read(path).unwrap()
}

/// Whether the hook denies `kubectl delete`, as the package rule does.
fn denies(s: &Scratch) -> bool {
    let reply = hook(s, "claude", &pre_bash(s, "claude", "kubectl delete pod x"));
    reply["hookSpecificOutput"]["permissionDecision"] == "deny"
}

/// The materialized copy the index runs, once the index is fresh.
fn materialized(s: &Scratch) -> PathBuf {
    // Written by the first compile (within its timestamp tick, so recorded
    // as racy), the copy is stable from the second one on.
    assert!(denies(s));
    assert!(denies(s));
    let e = s.explain(&["--tool", "Bash", "--command", "kubectl delete pod x"]);
    assert!(e.fresh(), "{:#}", e.0["index"]);
    let path = e
        .fire_paths()
        .into_iter()
        .find(|p| p.ends_with(RULE))
        .unwrap_or_else(|| panic!("{RULE} does not fire: {:#}", e.0));
    let path = PathBuf::from(path);
    assert!(path.starts_with(s.cache()), "{}", path.display());
    assert_eq!(std::fs::read(&path).unwrap(), package_bytes());
    path
}

#[test]
fn an_edited_materialized_rule_is_not_what_runs() {
    let Some(s) = with_package_profile() else {
        return;
    };
    let path = materialized(&s);
    let marker = s.path("edited-rule-ran");
    std::fs::write(
        &path,
        format!("open({:?}, 'w').close()\n", marker.display().to_string()),
    )
    .unwrap();
    assert!(denies(&s), "the package's rule still denies");
    assert!(!marker.exists(), "the edited bytes ran");
    assert_eq!(std::fs::read(&path).unwrap(), package_bytes(), "restored");
}

#[test]
fn a_deleted_materialized_rule_is_written_again() {
    let Some(s) = with_package_profile() else {
        return;
    };
    let path = materialized(&s);
    std::fs::remove_file(&path).unwrap();
    let e = s.explain(&["--tool", "Bash", "--command", "kubectl delete pod x"]);
    assert!(!e.fresh(), "the deletion is noticed");
    assert!(denies(&s));
    assert_eq!(std::fs::read(&path).unwrap(), package_bytes(), "restored");
}
