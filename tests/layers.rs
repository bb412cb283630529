//! Layers, overrides, execution order and the profile chain, end to end.

mod common;

use common::*;
use serde_json::json;

#[test]
fn highest_layer_wins_a_shared_key_and_the_others_say_so() {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    rule(&s.runtime(), "pre-bash-x.sh");
    rule(&s.hookdex_dir(), "pre-bash-x.sh");
    // A rule of another key in the bundle is untouched.
    rule(&bundle.join(".claude/conditions"), "pre-bash-y.sh");

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[("bundle", "pre-bash-y.sh"), ("directory", "pre-bash-x.sh")])
    );
    assert_eq!(
        e.fire_paths()[1],
        s.hookdex_dir().join("pre-bash-x.sh").display().to_string()
    );
    for layer in ["bundle", "runtime"] {
        let reason = e.skip_reason(layer, "/pre-bash-x.sh");
        assert!(reason.contains("overridden by"), "{layer}: {reason}");
        assert!(reason.contains("directory"), "{layer}: {reason}");
    }

    let list = s.list(&[]);
    assert_eq!(
        active(&list),
        pairs(&[("bundle", "pre-bash-y.sh"), ("directory", "pre-bash-x.sh")])
    );
    assert_eq!(layer(&list, "bundle")["count"], 2);
    assert_eq!(layer(&list, "runtime")["count"], 1);
}

#[test]
fn managed_layer_overrides_everything() {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    rule(&s.runtime(), "pre-bash-x.sh");
    rule(&s.hookdex_dir(), "pre-bash-x.sh");
    rule(&s.managed(), "pre-bash-x.sh");

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(e.fires(), pairs(&[("managed", "pre-bash-x.sh")]));
    for layer in ["bundle", "runtime", "directory"] {
        let reason = e.skip_reason(layer, "/pre-bash-x.sh");
        assert!(
            reason.contains("overridden by managed/pre-bash-x.sh"),
            "{layer}: {reason}"
        );
    }
}

#[test]
fn override_key_ignores_extension_async_and_case() {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    let conditions = bundle.join(".claude/conditions");
    rule(&conditions, "pre-bash-x.sh");
    rule(&conditions, "pre-bash-loud.sh");
    rule(&s.runtime(), "pre-bash-x.async.py");
    rule(&s.runtime(), "PRE-Bash-LOUD.py");

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("runtime", "PRE-Bash-LOUD.py"),
            ("runtime", "pre-bash-x.async.py")
        ])
    );
    assert!(e
        .skip_reason("bundle", "/pre-bash-x.sh")
        .contains("overridden by runtime/pre-bash-x.async.py"));
    assert!(e
        .skip_reason("bundle", "/pre-bash-loud.sh")
        .contains("overridden by runtime/PRE-Bash-LOUD.py"));
}

/// SPEC §3: "within one layer the file that sorts last wins"; `pre-bash-x.sh`
/// sorts after `pre-bash-x.async.py`, so exactly one of the pair runs.
#[test]
fn same_key_twice_in_one_layer_keeps_only_the_last_sorting_file() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-x.sh");
    rule(&s.runtime(), "pre-bash-x.async.py");

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-x.sh")]));
    let reason = e.skip_reason("runtime", "/pre-bash-x.async.py");
    assert!(
        reason.contains("overridden by runtime/pre-bash-x.sh"),
        "{reason}"
    );
    let list = s.list(&[]);
    assert_eq!(active(&list), pairs(&[("runtime", "pre-bash-x.sh")]));
}

#[test]
fn hookdex_conditions_win_over_agentihooks_conditions() {
    let s = Scratch::new();
    rule(&s.agentihooks_dir(), "pre-bash-x.sh");
    rule(&s.hookdex_dir(), "pre-bash-x.sh");
    rule(&s.agentihooks_dir(), "pre-bash-only_agentihooks.sh");

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    let agentihooks_x = s.agentihooks_dir().join("pre-bash-x.sh");
    let hookdex_x = s.hookdex_dir().join("pre-bash-x.sh");
    let fired = e.fire_paths();
    assert!(
        fired.contains(&hookdex_x.display().to_string()),
        "{fired:?}"
    );
    assert!(
        !fired.contains(&agentihooks_x.display().to_string()),
        "{fired:?}"
    );
    assert!(fired.contains(
        &s.agentihooks_dir()
            .join("pre-bash-only_agentihooks.sh")
            .display()
            .to_string()
    ));
    let skipped = e.0["skipped"].as_array().unwrap();
    let entry = skipped
        .iter()
        .find(|x| x["file"] == agentihooks_x.display().to_string())
        .expect(".agentihooks rule skipped");
    assert!(entry["reason"]
        .as_str()
        .unwrap()
        .contains("overridden by directory/pre-bash-x.sh"));
}

#[test]
fn execution_order_is_layer_order_then_file_name() {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    s.set_env("HOOKDEX_PROFILES", "p1");
    let conditions = bundle.join(".claude/conditions");
    rule(&conditions, "pre-any-z.sh");
    rule(&conditions, "pre-any-b.sh");
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-any-a.sh",
    );
    rule(&s.runtime(), "pre-bash-c.sh");
    rule(&s.runtime(), "post-any-a.sh");
    rule(&s.agentihooks_dir(), "pre-any-m.sh");
    rule(&s.hookdex_dir(), "pre-any-k.sh");
    rule(&s.agentihooks_dir(), "pre-any-0.sh");
    rule(&s.managed(), "pre-any-0.sh");

    let list = s.list(&[]);
    assert_eq!(
        layer_labels(&list),
        [
            "package",
            "bundle",
            "profile:p1",
            "runtime",
            "directory",
            "managed"
        ]
    );
    assert_eq!(
        active(&list),
        pairs(&[
            ("bundle", "pre-any-b.sh"),
            ("bundle", "pre-any-z.sh"),
            ("profile:p1", "pre-any-a.sh"),
            ("runtime", "post-any-a.sh"),
            ("runtime", "pre-bash-c.sh"),
            ("directory", "pre-any-k.sh"),
            ("directory", "pre-any-m.sh"),
            ("managed", "pre-any-0.sh"),
        ])
    );
    let step_pre = s.list(&["--step", "pre"]);
    assert!(!active(&step_pre).iter().any(|(_, f)| f == "post-any-a.sh"));

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("bundle", "pre-any-b.sh"),
            ("bundle", "pre-any-z.sh"),
            ("profile:p1", "pre-any-a.sh"),
            ("runtime", "pre-bash-c.sh"),
            ("directory", "pre-any-k.sh"),
            ("directory", "pre-any-m.sh"),
            ("managed", "pre-any-0.sh"),
        ])
    );
    let reason = e.skip_reason("runtime", "/post-any-a.sh");
    assert!(reason.contains("step post"), "{reason}");
    let reason = e.skip_reason("directory", "/pre-any-0.sh");
    assert!(reason.contains("overridden by managed"), "{reason}");

    // `list --tool` answers the same, in the same order.
    let listed = s.list(&["--tool", "Bash", "--command", "ls"]);
    let fires: Vec<String> = listed["fires"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] != "package")
        .map(|f| base(f["file"].as_str().unwrap()).to_string())
        .collect();
    assert_eq!(fires, e.fire_names());
}

#[test]
fn profile_chain_from_state_json() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let linked = s.path("elsewhere/p3");
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-bash-shared.sh",
    );
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-bash-one.sh",
    );
    rule(
        &bundle.join("profiles/p2/.claude/conditions"),
        "pre-bash-shared.sh",
    );
    rule(&linked.join(".claude/conditions"), "pre-bash-three.sh");
    s.write_state(&json!({
        "bundle": bundle,
        "profiles": ["p1", "p2", "p3"],
        "linked_profiles": {"p3": linked},
    }));

    let list = s.list(&[]);
    assert_eq!(
        layer_labels(&list),
        [
            "package",
            "bundle",
            "profile:p1",
            "profile:p2",
            "profile:p3",
            "runtime",
            "directory",
            "managed"
        ]
    );
    assert_eq!(
        layer(&list, "profile:p3")["dir"],
        linked.join(".claude/conditions").display().to_string()
    );
    assert!(invalid(&list).is_empty(), "{:#}", list["invalid"]);

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("profile:p1", "pre-bash-one.sh"),
            ("profile:p2", "pre-bash-shared.sh"),
            ("profile:p3", "pre-bash-three.sh"),
        ])
    );
    let reason = e.skip_reason("profile:p1", "/pre-bash-shared.sh");
    assert!(
        reason.contains("overridden by profile:p2/pre-bash-shared.sh"),
        "{reason}"
    );
}

#[test]
fn hookdex_profiles_overrides_the_state_chain() {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-bash-one.sh",
    );
    rule(
        &bundle.join("profiles/p2/.claude/conditions"),
        "pre-bash-two.sh",
    );
    s.write_state(&json!({"bundle": bundle, "profiles": ["p1"]}));

    let e = s.explain(&["--tool", "Bash"]);
    assert_eq!(e.fires(), pairs(&[("profile:p1", "pre-bash-one.sh")]));

    s.set_env("HOOKDEX_PROFILES", "p2");
    let list = s.list(&[]);
    let labels = layer_labels(&list);
    assert!(labels.contains(&"profile:p2".to_string()), "{labels:?}");
    assert!(!labels.contains(&"profile:p1".to_string()), "{labels:?}");
    let e = s.explain(&["--tool", "Bash"]);
    assert_eq!(e.fires(), pairs(&[("profile:p2", "pre-bash-two.sh")]));

    s.set_env("HOOKDEX_PROFILES", "p2, p1");
    let list = s.list(&[]);
    let profiles: Vec<String> = layer_labels(&list)
        .into_iter()
        .filter(|l| l.starts_with("profile:"))
        .collect();
    assert_eq!(profiles, ["profile:p2", "profile:p1"]);
}

#[test]
fn per_target_profiles_in_state_json() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-bash-one.sh",
    );
    rule(
        &bundle.join("profiles/p2/.claude/conditions"),
        "pre-bash-two.sh",
    );
    s.write_state(&json!({
        "bundle": bundle,
        "profiles": ["p1"],
        "targets": {"codex": {"profiles": ["p2"]}},
    }));

    let claude = s.explain(&["--tool", "Bash"]);
    assert_eq!(claude.fires(), pairs(&[("profile:p1", "pre-bash-one.sh")]));
    let codex = s.explain(&["--tool", "exec", "--target", "codex"]);
    assert_eq!(codex.tool(), "bash");
    assert_eq!(codex.fires(), pairs(&[("profile:p2", "pre-bash-two.sh")]));
}

#[test]
fn hookdex_bundle_overrides_the_state_bundle() {
    let mut s = Scratch::new();
    let b1 = s.bundle("b1");
    let b2 = s.bundle("b2");
    rule(&b1.join(".claude/conditions"), "pre-bash-from_b1.sh");
    rule(&b2.join(".claude/conditions"), "pre-bash-from_b2.sh");
    s.write_state(&json!({"bundle": b1}));

    let e = s.explain(&["--tool", "Bash"]);
    assert_eq!(e.fires(), pairs(&[("bundle", "pre-bash-from_b1.sh")]));

    s.set_env("HOOKDEX_BUNDLE", b2.display().to_string());
    let list = s.list(&[]);
    assert_eq!(
        layer(&list, "bundle")["dir"],
        b2.join(".claude/conditions").display().to_string()
    );
    let e = s.explain(&["--tool", "Bash"]);
    assert_eq!(e.fires(), pairs(&[("bundle", "pre-bash-from_b2.sh")]));
    assert!(!e
        .all_files()
        .iter()
        .any(|f| f.ends_with("pre-bash-from_b1.sh")));
}

#[test]
fn a_missing_profile_is_reported_and_the_rest_still_fires() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(&bundle.join(".claude/conditions"), "pre-bash-b.sh");
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-bash-one.sh",
    );
    s.write_state(&json!({"bundle": bundle, "profiles": ["ghost", "p1"]}));

    let list = s.list(&[]);
    let bad = invalid(&list);
    let ghost = bad
        .iter()
        .find(|(f, r)| f.contains("ghost") || r.contains("ghost"))
        .unwrap_or_else(|| panic!("missing profile not reported: {bad:?}"));
    assert!(ghost.1.contains("`ghost`"), "{ghost:?}");
    assert!(ghost.1.contains("not found"), "{ghost:?}");
    assert!(!layer_labels(&list).contains(&"profile:ghost".to_string()));

    let e = s.explain(&["--tool", "Bash"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("bundle", "pre-bash-b.sh"),
            ("profile:p1", "pre-bash-one.sh")
        ])
    );
}

#[test]
fn package_profile_k8s_readonly_resolves_from_the_package() {
    if !package_has_profile("k8s-readonly") {
        eprintln!("skipped: rules/profiles/k8s-readonly/.claude/conditions is not in the package");
        return;
    }
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    // A bundle profile of the same name must lose to the package's.
    rule(
        &bundle.join("profiles/k8s-readonly/.claude/conditions"),
        "pre-bash-from_bundle.sh",
    );
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    s.set_env("HOOKDEX_PROFILES", "k8s-readonly");
    let list = s.list(&[]);
    let profile = layer(&list, "profile:k8s-readonly");
    let dir = profile["dir"].as_str().unwrap();
    assert!(
        dir.starts_with("package:rules/profiles/k8s-readonly"),
        "{dir}"
    );
    assert!(
        !invalid(&list)
            .iter()
            .any(|(f, _)| f.contains("k8s-readonly")),
        "{:#}",
        list["invalid"]
    );
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(!e
        .fire_names()
        .contains(&"pre-bash-from_bundle.sh".to_string()));
}

#[test]
fn a_broken_state_json_is_reported_and_nothing_breaks() {
    let s = Scratch::new();
    std::fs::write(s.home().join("state.json"), "{ not json").unwrap();
    rule(&s.runtime(), "pre-bash-r.sh");
    let list = s.list(&[]);
    let reason = invalid_reason(&list, "state.json");
    assert!(!reason.is_empty());
    let e = s.explain(&["--tool", "Bash"]);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-r.sh")]));
    let out = s.run_stdin(
        &["hook", "--target", "claude"],
        br#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    );
    assert!(out.status.success());
}
