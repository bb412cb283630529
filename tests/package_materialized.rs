//! Package rules run from verified bytes: the package profile's guard is
//! decided from its compiled record, so the copy materialized under the
//! cache directory (which `show` prints) is never what decides: editing it
//! to allow a write, or deleting it, changes nothing.

mod common;

use std::path::{Path, PathBuf};

use common::hook::*;
use common::*;

const PROFILE: &str = "k8s-readonly";
const RULE: &str = "pre-bash.kubectl-readonly.guard.yaml";

/// A tree using the package profile, or `None` (said why) when the package
/// lacks it.
fn with_package_profile() -> Option<Scratch> {
    if !package_has_profile(PROFILE) {
        eprintln!("skipped: the package has no profile {PROFILE}");
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
fn an_edited_materialized_guard_is_not_what_decides() {
    let Some(s) = with_package_profile() else {
        return;
    };
    let path = materialized(&s);
    std::fs::write(&path, "reason: edited\nallow: [delete]\n").unwrap();
    assert!(denies(&s), "the package's guard still denies");
    let e = s.explain(&["--tool", "Bash", "--command", "kubectl delete pod x"]);
    assert!(e.fresh(), "the copy is not an input: {:#}", e.0["index"]);
}

#[test]
fn a_deleted_materialized_guard_changes_nothing() {
    let Some(s) = with_package_profile() else {
        return;
    };
    let path = materialized(&s);
    std::fs::remove_file(&path).unwrap();
    assert!(denies(&s));
}
