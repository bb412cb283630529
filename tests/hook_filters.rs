//! Filters through `hookdex hook`: the seed's capacity-line example, each
//! action, a chain, the round cap, fail-open finders and filters, and the
//! other harnesses' edit tools (Codex `apply_patch`, Gemini `replace`).

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

/// The line the seed's example appends.
const CAPACITY: &str = r#"reason += f"; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats""#;

/// Its explanation tail.
const TAIL: &str =
    "; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats";

/// The seed's `paths`.
const LEDGER_PATHS: &str = "paths:
  - 'scripts/swarm/capacity.py'
  - '**/scripts/swarm/capacity.py'
  - 'scripts/swarm_ledger/**'
  - '**/scripts/swarm_ledger/**'
";

const INTENT: &str = "intent: >-
  User-facing text states the value or state its label names. It never explains
  why, how it was computed, or adds detail nobody asked for.
";

/// The ledger filter with the explanation tail alone standing as found
/// (mode `finders`), so it answers without a classifier.
fn ledger_finders(action: &str) -> String {
    format!("{LEDGER_PATHS}finders:\n  - script: explanation_tail\nmode: finders\naction: {action}\n{INTENT}")
}

/// The seed's filter as written: both finders, mode `both`.
fn ledger_seed() -> String {
    format!("{LEDGER_PATHS}finders:\n  - script: string_literals\n  - script: explanation_tail\nmode: both\naction: send-back\n{INTENT}")
}

const LEDGER_FILE: &str = "pre-edit+write+multiedit-ledger_ui.filter.yaml";

/// A Claude Code Edit of `rel` (under the repository) writing `new_string`.
fn edit(s: &Scratch, rel: &str, new_string: &str) -> Value {
    let mut payload = fixture(s, "claude-pre-edit");
    payload["tool_input"] = json!({
        "file_path": s.repo.join(rel).display().to_string(),
        "old_string": "return reason",
        "new_string": new_string,
        "replace_all": false,
    });
    payload
}

fn decision(reply: &Value) -> Option<&str> {
    reply
        .pointer("/hookSpecificOutput/permissionDecision")
        .and_then(Value::as_str)
}

fn reason(reply: &Value) -> &str {
    reply
        .pointer("/hookSpecificOutput/permissionDecisionReason")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Every note of the hook log, in order.
fn notes(s: &Scratch) -> Vec<String> {
    hook_log(s)
        .iter()
        .flat_map(|line| line["notes"].as_array().cloned().unwrap_or_default())
        .filter_map(|n| n.as_str().map(String::from))
        .collect()
}

fn sent_back(lines: &[&str]) -> String {
    let mut text = "filter sent the text back:".to_string();
    for line in lines {
        text.push('\n');
        text.push_str(line);
    }
    text
}

/// A classifier command (`HOOKDEX_CLASSIFIER_CMD`) answering yes on
/// explanation tails only, keeping each question it is asked in
/// `home/questions.jsonl`.
fn tail_classifier(s: &mut Scratch) -> std::path::PathBuf {
    let asked = s.path("home/questions.jsonl");
    let script = rule_with(
        &s.path("bin"),
        "classify.py",
        &format!(
            r#"import json, sys
q = json.load(sys.stdin)
with open({asked:?}, "a") as log:
    log.write(json.dumps(q) + "\n")
print(json.dumps({{"answer": "yes" if q["reason"] == "explanation tail" else "no"}}))
"#,
            asked = asked.display().to_string()
        ),
    );
    s.set_env(
        "HOOKDEX_CLASSIFIER_CMD",
        format!("python3 {}", script.display()),
    );
    asked
}

fn questions(asked: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(asked)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_capacity_line_is_sent_back_and_the_plain_label_passes() {
    let mut s = Scratch::new();
    let asked = tail_classifier(&mut s);
    rule_with(&s.agentihooks_dir(), LEDGER_FILE, &ledger_seed());
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "scripts/swarm/capacity.py", CAPACITY),
    );
    assert_eq!(decision(&reply), Some("deny"), "{reply}");
    assert_eq!(
        reason(&reply),
        sent_back(&[&format!("- \"{TAIL}\": explanation tail")])
    );
    // One question per finding: the literal and its tail, each with the
    // intent, its reason and the enclosing line.
    let asked_now = questions(&asked);
    // (Asked in parallel, so in no order; here the literal is its tail whole.)
    let mut spans: Vec<(&str, &str)> = asked_now
        .iter()
        .map(|q| (q["span"].as_str().unwrap(), q["reason"].as_str().unwrap()))
        .collect();
    spans.sort();
    assert_eq!(
        spans,
        [(TAIL, "explanation tail"), (TAIL, "user-facing literal")]
    );
    for q in &asked_now {
        assert!(
            q["intent"]
                .as_str()
                .unwrap()
                .starts_with("User-facing text states"),
            "{q}"
        );
        assert_eq!(
            q["question"],
            "Does this finding go against the filter intent?"
        );
        assert_eq!(q["context"], CAPACITY);
        assert!(q["path"]
            .as_str()
            .unwrap()
            .ends_with("scripts/swarm/capacity.py"));
        assert_eq!(q["tool"], "edit");
    }
    // Asked again, the answers come from the cache.
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "scripts/swarm/capacity.py", CAPACITY),
    );
    assert_eq!(decision(&reply), Some("deny"), "{reply}");
    assert_eq!(questions(&asked).len(), 2, "nothing asked twice");
    let plain = r#"reason = "changed 9m ago""#;
    let reply = hook(&s, "claude", &edit(&s, "scripts/swarm/capacity.py", plain));
    assert_eq!(reply, Value::Null, "the plain label passes");
    assert_eq!(questions(&asked).len(), 3, "its literal was asked about");
    // Another path is not the filter's.
    let reply = hook(&s, "claude", &edit(&s, "scripts/other.py", CAPACITY));
    assert_eq!(reply, Value::Null, "{reply}");
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "scripts/swarm_ledger/page.py", CAPACITY),
    );
    assert_eq!(decision(&reply), Some("deny"), "{reply}");
}

#[test]
fn the_capacity_line_in_mode_finders_needs_no_classifier() {
    let s = Scratch::new();
    rule_with(
        &s.agentihooks_dir(),
        LEDGER_FILE,
        &ledger_finders("send-back"),
    );
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "scripts/swarm/capacity.py", CAPACITY),
    );
    assert_eq!(
        reason(&reply),
        sent_back(&[&format!("- \"{TAIL}\": explanation tail")])
    );
    let plain = r#"reason = "changed 9m ago""#;
    assert_eq!(
        hook(&s, "claude", &edit(&s, "scripts/swarm/capacity.py", plain)),
        Value::Null
    );
}

#[test]
fn with_the_classifier_down_both_edits_pass_and_the_log_says_so() {
    let mut s = Scratch::new();
    rule_with(&s.agentihooks_dir(), LEDGER_FILE, &ledger_seed());
    let texts = [CAPACITY, r#"reason = "changed 9m ago""#];
    let passed = |s: &Scratch| {
        let prefix = format!("{LEDGER_FILE}: filter passed: classifier unavailable");
        notes(s).iter().filter(|n| n.starts_with(&prefix)).count()
    };
    // None configured.
    for text in texts {
        let reply = hook(&s, "claude", &edit(&s, "scripts/swarm/capacity.py", text));
        assert_eq!(reply, Value::Null, "{text}: {reply}");
    }
    assert_eq!(passed(&s), 2, "{:?}", notes(&s));
    // One that crashes, or hangs past its timeout.
    for command in ["exit 3", "sleep 30"] {
        s.set_env("HOOKDEX_CLASSIFIER_CMD", command);
        s.set_env("HOOKDEX_CLASSIFIER_TIMEOUT_SEC", "0.5");
        let reply = hook(
            &s,
            "claude",
            &edit(&s, "scripts/swarm/capacity.py", CAPACITY),
        );
        assert_eq!(reply, Value::Null, "{command}: {reply}");
    }
    assert_eq!(passed(&s), 4, "{:?}", notes(&s));
}

#[test]
fn flag_allows_with_the_findings_as_context() {
    let s = Scratch::new();
    rule_with(&s.agentihooks_dir(), LEDGER_FILE, &ledger_finders("flag"));
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "scripts/swarm/capacity.py", CAPACITY),
    );
    assert_eq!(decision(&reply), None, "{reply}");
    assert_eq!(
        context_of(&reply),
        format!("filter flagged:\n- \"{TAIL}\": explanation tail")
    );
}

#[test]
fn strip_rewrites_the_input_and_asks_outside_bypass_permissions() {
    let s = Scratch::new();
    rule_with(&s.agentihooks_dir(), LEDGER_FILE, &ledger_finders("strip"));
    let payload = edit(&s, "scripts/swarm/capacity.py", CAPACITY);
    let reply = hook(&s, "claude", &payload);
    assert_eq!(decision(&reply), Some("ask"), "{reply}");
    let stripped = r#"reason += f"""#;
    let updated = &reply["hookSpecificOutput"]["updatedInput"];
    assert_eq!(updated["new_string"], stripped, "{reply}");
    assert_eq!(
        updated["old_string"], "return reason",
        "the rest of the input stays"
    );
    let mut bypass = payload.clone();
    bypass["permission_mode"] = json!("bypassPermissions");
    let reply = hook(&s, "claude", &bypass);
    assert_eq!(decision(&reply), Some("allow"), "{reply}");
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"]["new_string"],
        stripped
    );
}

#[test]
fn a_chain_of_filters_sees_each_rewrite() {
    let s = Scratch::new();
    let dir = s.agentihooks_dir();
    let strip =
        |regex: &str| format!("finders:\n  - regex: '{regex}'\nmode: finders\naction: strip\n");
    rule_with(&dir, "pre-edit-a_tail.filter.yaml", &strip(";[^\"]*"));
    rule_with(&dir, "pre-edit-b_count.filter.yaml", &strip("[0-9]+ "));
    // It would flag the tail, which the first filter cut.
    rule_with(
        &dir,
        "pre-edit-c_codex.filter.yaml",
        "finders:\n  - regex: 'Codex'\nmode: finders\naction: flag\n",
    );
    let mut payload = edit(&s, "app.py", r#"x = "12 seats; Codex has 3""#);
    payload["permission_mode"] = json!("bypassPermissions");
    let reply = hook(&s, "claude", &payload);
    assert_eq!(decision(&reply), Some("allow"), "{reply}");
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"]["new_string"],
        r#"x = "seats""#
    );
    assert!(!context_of(&reply).contains("filter flagged"), "{reply}");
    let last = hook_log(&s).pop().unwrap();
    assert_eq!(
        last["fired"],
        json!([
            "pre-edit-a_tail.filter.yaml",
            "pre-edit-b_count.filter.yaml",
            "pre-edit-c_codex.filter.yaml"
        ])
    );
}

#[test]
fn the_round_cap_passes_flagged_and_a_clean_pass_resets_it() {
    let s = Scratch::new();
    let body = format!("{}max_rounds: 2\n", ledger_finders("send-back"));
    rule_with(&s.agentihooks_dir(), LEDGER_FILE, &body);
    let line = format!("- \"{TAIL}\": explanation tail");
    let slop = edit(&s, "scripts/swarm/capacity.py", CAPACITY);
    for round in 1..=2 {
        let reply = hook(&s, "claude", &slop);
        assert_eq!(decision(&reply), Some("deny"), "round {round}: {reply}");
    }
    let reply = hook(&s, "claude", &slop);
    assert_eq!(decision(&reply), None, "the third run passes: {reply}");
    assert_eq!(
        context_of(&reply),
        format!("filter flagged, passed after 2 send-backs:\n{line}")
    );
    assert!(
        notes(&s)
            .iter()
            .any(|n| n.contains("filter flagged: round cap reached")),
        "{:?}",
        notes(&s)
    );
    // Another session has its own count.
    let mut other = slop.clone();
    other["session_id"] = json!("another-session");
    assert_eq!(decision(&hook(&s, "claude", &other)), Some("deny"));
    // A clean pass on the target starts its count again.
    let clean = edit(
        &s,
        "scripts/swarm/capacity.py",
        r#"reason = "changed 9m ago""#,
    );
    assert_eq!(hook(&s, "claude", &clean), Value::Null);
    assert_eq!(decision(&hook(&s, "claude", &slop)), Some("deny"));
    // The counts live under $HOOKDEX_HOME/filters/rounds/.
    assert!(!walk(&s.home().join("filters/rounds")).is_empty());
}

#[test]
fn in_a_swarm_the_round_cap_comments_on_the_ledger_task() {
    let mut s = Scratch::new();
    let body = format!("{}max_rounds: 1\n", ledger_finders("send-back"));
    rule_with(&s.agentihooks_dir(), LEDGER_FILE, &body);
    let slop = edit(&s, "scripts/swarm/capacity.py", CAPACITY);
    let comments = s.path("comments.jsonl");
    s.set_env("AGENTIHOOKS_SWARM", "buildout");
    s.set_env("AGENTIHOOKS_SWARM_TASK", "t4");
    s.set_env("AGENTIHOOKS_AGENT_NAME", "engineer@1-1");
    s.set_env(
        "HOOKDEX_LEDGER_CMD",
        format!(
            "cat >> '{}'; echo >> '{}'",
            comments.display(),
            comments.display()
        ),
    );
    assert_eq!(decision(&hook(&s, "claude", &slop)), Some("deny"));
    assert!(
        !comments.exists(),
        "a send-back under the cap comments nothing"
    );
    assert_eq!(
        decision(&hook(&s, "claude", &slop)),
        None,
        "passes at the cap"
    );
    let written = std::fs::read_to_string(&comments).unwrap();
    let lines: Vec<Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{written}");
    let comment = &lines[0];
    assert_eq!(
        (
            &comment["swarm"],
            &comment["task"],
            &comment["agent"],
            &comment["rounds"]
        ),
        (
            &json!("buildout"),
            &json!("t4"),
            &json!("engineer@1-1"),
            &json!(1)
        )
    );
    assert_eq!(comment["filter"], LEDGER_FILE);
    assert!(comment["target"]
        .as_str()
        .unwrap()
        .ends_with("scripts/swarm/capacity.py"));
    assert_eq!(
        comment["findings"],
        json!([format!("- \"{TAIL}\": explanation tail")])
    );
    assert!(comment["text"]
        .as_str()
        .unwrap()
        .contains("sent this task's text back 1 times"));
    assert!(notes(&s)
        .iter()
        .any(|n| n.contains("ledger comment on task t4")));

    // A ledger command that fails or is missing: the text still passes, the log says why.
    s.set_env("HOOKDEX_LEDGER_CMD", "exit 3");
    assert_eq!(decision(&hook(&s, "claude", &slop)), None);
    assert!(
        notes(&s)
            .iter()
            .any(|n| n.contains("HOOKDEX_LEDGER_CMD exited 3")),
        "{:?}",
        notes(&s)
    );
    s.unset_env("HOOKDEX_LEDGER_CMD");
    assert_eq!(decision(&hook(&s, "claude", &slop)), None);
    assert!(notes(&s)
        .iter()
        .any(|n| n.contains("HOOKDEX_LEDGER_CMD is not set")));
    // Outside a swarm, no comment and no word of one.
    s.unset_env("AGENTIHOOKS_SWARM_TASK");
    assert_eq!(decision(&hook(&s, "claude", &slop)), None);
    let last = notes_of_last(&s);
    assert!(
        last.contains("round cap reached") && !last.contains("ledger comment"),
        "{last}"
    );
}

#[test]
fn a_patch_in_an_extra_key_does_not_hide_the_edit_text() {
    let s = Scratch::new();
    rule_with(
        &s.agentihooks_dir(),
        LEDGER_FILE,
        &ledger_finders("send-back"),
    );
    for key in ["command", "input", "patch"] {
        let mut payload = edit(&s, "scripts/swarm/capacity.py", CAPACITY);
        payload["tool_input"][key] = json!("*** Begin Patch\n*** End Patch\n");
        let reply = hook(&s, "claude", &payload);
        assert_eq!(decision(&reply), Some("deny"), "{key}: {reply}");
    }
}

/// Found by an attack: a condition's rewrite with no decision is dropped,
/// and a strip's `ask` after it must not carry it in (the filters judged
/// the input without it).
#[test]
fn a_strip_does_not_revive_a_dropped_rewrite() {
    let s = Scratch::new();
    let elsewhere = s.repo.join("src/components/Evil.tsx");
    condition(
        &s.runtime(),
        "pre-write-move.sh",
        &format!(
            "echo '{{\"tool_input\": {{\"file_path\": \"{}\"}}}}'\n",
            elsewhere.display()
        ),
    );
    rule_with(
        &s.runtime(),
        "pre-write-semi.filter.yaml",
        "finders:\n  - regex: ';[^\"\\n]*'\nmode: finders\naction: strip\n",
    );
    let mut payload = fixture(&s, "claude-pre-write");
    let target = s.repo.join("a.py");
    payload["permission_mode"] = json!("default");
    payload["tool_input"] = json!({"file_path": target, "content": "x = \"a; b\""});
    let reply = hook(&s, "claude", &payload);
    assert_eq!(decision(&reply), Some("ask"), "{reply}");
    let input = &reply["hookSpecificOutput"]["updatedInput"];
    assert_eq!(
        input["file_path"],
        json!(target),
        "the dropped rewrite stays dropped: {reply}"
    );
    assert_eq!(input["content"], "x = \"a\"");
    let context = reply["hookSpecificOutput"]["additionalContext"].to_string();
    assert!(
        context.contains("pre-write-move.sh was dropped"),
        "{context}"
    );
}

#[test]
fn an_invalid_filter_is_listed_and_blocks_nothing() {
    let s = Scratch::new();
    rule_with(
        &s.agentihooks_dir(),
        LEDGER_FILE,
        "colour: red\nmode: loud\n",
    );
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "scripts/swarm/capacity.py", CAPACITY),
    );
    assert_ne!(decision(&reply), Some("deny"), "{reply}");
    let list = s.list(&[]);
    assert!(
        invalid_reason(&list, LEDGER_FILE).contains("colour"),
        "{list}"
    );
}

/// A filter of the finder scripts `names`, standing as found.
fn scripted(names: &[&str]) -> String {
    let finders: String = names.iter().map(|n| format!("  - script: {n}\n")).collect();
    format!("finders:\n{finders}mode: finders\naction: send-back\n")
}

#[test]
fn finder_scripts_report_spans_and_a_failing_one_yields_nothing() {
    let s = Scratch::new();
    let finders = s.agentihooks_dir().join("_finders");
    // Python string indices: code points, which "é" makes differ from bytes.
    condition(
        &finders,
        "ids.py",
        r#"import json, re, sys
req = json.load(sys.stdin)
out = [{"start": m.start(), "end": m.end(), "text": m.group(0), "reason": "internal id"}
       for m in re.finditer(r"T-[0-9]+", req["text"])]
print(json.dumps(out))
"#,
    );
    condition(&finders, "crash.py", "import sys\nsys.exit('boom')\n");
    condition(
        &finders,
        "liar.sh",
        "echo '[{\"start\": 0, \"end\": 4, \"text\": \"nope\"}]'\n",
    );
    rule_with(
        &s.agentihooks_dir(),
        "pre-edit-ids.filter.yaml",
        &scripted(&["crash", "liar", "ids"]),
    );
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "notes.py", r#"msg = "café: see T-42""#),
    );
    assert_eq!(decision(&reply), Some("deny"), "{reply}");
    assert_eq!(reason(&reply), sent_back(&["- \"T-42\": internal id"]));
    let notes = notes(&s).join("\n");
    assert!(
        notes.contains("finder `crash` yielded nothing: exit 1: boom"),
        "{notes}"
    );
    assert!(
        notes.contains("finder `liar` yielded nothing: span 0 (0..4) does not match the source"),
        "{notes}"
    );
    // The _finders folder is no rule folder: nothing in it is listed.
    let list = s.list(&[]);
    assert_eq!(invalid(&list), [], "{list}");
    assert!(!list["active"].to_string().contains("_finders"), "{list}");
    // Only failing finders: the edit passes.
    rule_with(
        &s.agentihooks_dir(),
        "pre-edit-ids.filter.yaml",
        &scripted(&["crash", "liar", "missing"]),
    );
    let reply = hook(&s, "claude", &edit(&s, "notes.py", r#"msg = "see T-42""#));
    assert_eq!(reply, Value::Null, "{reply}");
    assert!(
        notes_of_last(&s).contains("finder `missing` yielded nothing: no layer that runs has it")
    );
}

fn notes_of_last(s: &Scratch) -> String {
    hook_log(s).pop().unwrap()["notes"].to_string()
}

#[test]
fn a_later_layers_finder_wins_and_an_untrusted_ones_never_runs() {
    let mut s = Scratch::new();
    let finding = |reason: &str| {
        format!(
            "echo '[{{\"start\": 0, \"end\": 1, \"text\": \"x\", \"reason\": \"{reason}\"}}]'\n"
        )
    };
    condition(
        &s.runtime().join("_finders"),
        "mark.sh",
        &finding("runtime"),
    );
    condition(
        &s.agentihooks_dir().join("_finders"),
        "mark.sh",
        &finding("directory"),
    );
    rule_with(
        &s.runtime(),
        "pre-edit-mark.filter.yaml",
        &scripted(&["mark"]),
    );
    let payload = edit(&s, "a.py", "x = 1");
    assert_eq!(
        reason(&hook(&s, "claude", &payload)),
        sent_back(&["- \"x\": directory"])
    );
    // list names every script and the one of each name that runs.
    let runs = |s: &Scratch| -> Vec<(String, bool)> {
        s.list(&[])["finders"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["name"] == "mark")
            .map(|f| {
                (
                    f["layer"].as_str().unwrap().to_string(),
                    f["runs"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        runs(&s),
        [
            ("runtime".to_string(), false),
            ("directory".to_string(), true)
        ]
    );
    // A stranger's repository: its script does not run, the runtime one does.
    set_origin(&s.repo, "git@github.com:stranger/repo.git");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    assert_eq!(
        reason(&hook(&s, "claude", &payload)),
        sent_back(&["- \"x\": runtime"])
    );
    assert_eq!(
        runs(&s),
        [("runtime".to_string(), true)],
        "an untrusted layer is read by name only"
    );
    // A script added later is noticed: its folder is stamped.
    rule_with(
        &s.runtime(),
        "pre-edit-mark.filter.yaml",
        &scripted(&["other"]),
    );
    assert_eq!(hook(&s, "claude", &payload), Value::Null);
    condition(&s.runtime().join("_finders"), "other.sh", &finding("other"));
    assert_eq!(
        reason(&hook(&s, "claude", &payload)),
        sent_back(&["- \"x\": other"])
    );
}

#[test]
fn codex_apply_patch_and_gemini_replace_are_filtered() {
    let s = Scratch::new();
    rule_with(
        &s.agentihooks_dir(),
        LEDGER_FILE,
        &ledger_finders("send-back"),
    );
    let mut codex = fixture(&s, "codex-pre-edit");
    codex["tool_input"]["command"] = json!(format!(
        "*** Begin Patch\n*** Update File: scripts/swarm/capacity.py\n@@ def reason():\n     reason = base\n+    {CAPACITY}\n*** Add File: docs/notes.md\n+{CAPACITY}\n*** End Patch\n"
    ));
    let reply = hook(&s, "codex", &codex);
    assert_eq!(decision(&reply), Some("deny"), "{reply}");
    assert_eq!(
        reason(&reply),
        sent_back(&[&format!("- \"{TAIL}\": explanation tail")]),
        "only the file the paths name"
    );
    // A strip Codex cannot ask about outside bypassPermissions sends back.
    rule_with(&s.agentihooks_dir(), LEDGER_FILE, &ledger_finders("strip"));
    let reply = hook(&s, "codex", &codex);
    assert_eq!(decision(&reply), Some("deny"), "{reply}");
    codex["permission_mode"] = json!("bypassPermissions");
    let reply = hook(&s, "codex", &codex);
    assert_eq!(decision(&reply), Some("allow"), "{reply}");
    let patch = reply["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap();
    assert!(patch.contains("+    reason += f\"\"\n"), "{patch}");
    assert!(
        patch.contains(&format!("+{CAPACITY}\n")),
        "the other file is untouched: {patch}"
    );
    // Gemini's replace.
    rule_with(
        &s.agentihooks_dir(),
        LEDGER_FILE,
        &ledger_finders("send-back"),
    );
    let mut gemini = fixture(&s, "gemini-pre-edit");
    gemini["tool_input"]["file_path"] = json!(s
        .repo
        .join("scripts/swarm/capacity.py")
        .display()
        .to_string());
    gemini["tool_input"]["new_string"] = json!(CAPACITY);
    let reply = hook(&s, "gemini", &gemini);
    assert_eq!(reply["decision"], "deny", "{reply}");
    assert_eq!(
        reply["reason"],
        sent_back(&[&format!("- \"{TAIL}\": explanation tail")])
    );
}

#[test]
fn the_package_ui_slop_filter_reads_front_end_files_only() {
    let mut s = Scratch::new();
    let tsx = r#"export const Seats = () => <p title="Seats">12 free because Codex has 3</p>;"#;
    hook(&s, "claude", &edit(&s, "web/src/Seats.tsx", tsx));
    let log = notes_of_last(&s);
    assert!(
        log.contains(
            "pre-edit+write+multiedit-ui_slop.filter.yaml: filter passed: classifier unavailable"
        ),
        "{log}"
    );
    // A Python file is not front-end: nothing runs, nothing is logged.
    let before = hook_log(&s).len();
    assert_eq!(
        hook(&s, "claude", &edit(&s, "web/src/seats.py", tsx)),
        Value::Null
    );
    assert_eq!(hook_log(&s).len(), before);
    // `.ts` under a components folder is.
    hook(
        &s,
        "claude",
        &edit(&s, "web/components/seats.ts", "const t = 'x; because'"),
    );
    assert_eq!(hook_log(&s).len(), before + 1);
    // With a classifier, the tail is sent back.
    tail_classifier(&mut s);
    let reply = hook(&s, "claude", &edit(&s, "web/src/Seats.tsx", tsx));
    assert_eq!(
        reason(&reply),
        sent_back(&["- \"because Codex has 3\": explanation tail"])
    );
}

/// `hookdex filter check --tool TOOL` with `input` on stdin: (exit code, verdict).
fn check(s: &Scratch, tool: &str, input: &str) -> (i32, Value) {
    let out = s.run_stdin(&["filter", "check", "--tool", tool], input.as_bytes());
    let verdict = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), verdict)
}

#[test]
fn filter_check_answers_a_synthetic_tools_call_site() {
    let s = Scratch::new();
    let because = "finders:\n  - regex: ' because[^.]*'\n    reason: explains\nmode: finders\n";
    rule_with(
        &s.runtime(),
        "pre-ledger_write-plain_words.filter.yaml",
        &format!("{because}action: send-back\n"),
    );
    rule_with(
        &s.runtime(),
        "pre-inbox_send-trim.filter.yaml",
        &format!("{because}action: strip\n"),
    );
    let (code, verdict) = check(
        &s,
        "ledger_write",
        r#"{"text": "Done because the queue drained.", "task": 7}"#,
    );
    assert_eq!(code, 2, "{verdict}");
    assert_eq!(
        verdict,
        json!({
            "decision": "deny",
            "reason": "filter sent the text back:\n- \" because the queue drained\": explains",
            "tool_input": {"text": "Done because the queue drained.", "task": 7},
        })
    );
    let (code, verdict) = check(&s, "ledger_write", r#"{"text": "Done."}"#);
    assert_eq!(
        (code, &verdict["decision"]),
        (0, &json!("allow")),
        "{verdict}"
    );
    assert_eq!(verdict["tool_input"], json!({"text": "Done."}));
    // A strip rewrites the text outright; one that leaves nothing refuses.
    let (code, verdict) = check(
        &s,
        "inbox_send",
        r#"{"text": "Merged because CI passed.", "to": "ops"}"#,
    );
    assert_eq!(
        (code, &verdict["decision"]),
        (0, &json!("allow")),
        "{verdict}"
    );
    assert_eq!(
        verdict["tool_input"],
        json!({"text": "Merged.", "to": "ops"})
    );
    let (code, verdict) = check(&s, "inbox_send", r#"{"text": " because"}"#);
    assert_eq!(
        (code, &verdict["decision"]),
        (2, &json!("deny")),
        "{verdict}"
    );
    // Errors inside the check allow.
    for bad in ["not json", "[1]"] {
        let (code, verdict) = check(&s, "inbox_send", bad);
        assert_eq!(
            (code, &verdict["decision"]),
            (0, &json!("allow")),
            "{bad}: {verdict}"
        );
    }
    let out = s.run_stdin(&["filter", "check"], b"{}");
    assert_eq!(out.status.code(), Some(0), "a broken command line allows");
    // The round cap holds per session here too.
    rule_with(
        &s.runtime(),
        "pre-ledger_write-plain_words.filter.yaml",
        &format!("{because}action: send-back\nmax_rounds: 1\n"),
    );
    let slop = r#"{"text": "Done because the queue drained."}"#;
    let session = |id: &str| {
        let args = ["filter", "check", "--tool", "ledger_write", "--session", id];
        s.run_stdin(&args, slop.as_bytes()).status.code()
    };
    assert_eq!(session("s1"), Some(2));
    assert_eq!(session("s1"), Some(0), "at the cap it passes");
    assert_eq!(session("s2"), Some(2));
}

#[test]
fn copilot_edits_and_claude_multiedit_and_write_offer_their_text() {
    let s = Scratch::new();
    rule_with(
        &s.runtime(),
        "pre-edit+write+multiedit-tails.filter.yaml",
        "finders:\n  - script: explanation_tail\nmode: finders\naction: strip\n",
    );
    // Copilot's `edit` spells it `new_str`; camelCase payloads cannot ask,
    // so outside bypassPermissions a strip sends back.
    let mut copilot = fixture(&s, "copilot-pre-edit");
    let path = s.repo.join("app.py").display().to_string();
    copilot["toolArgs"] =
        json!(json!({"path": path, "old_str": "a", "new_str": "x = 'seats; because'"}).to_string());
    let reply = hook(&s, "copilot", &copilot);
    assert_eq!(reply["permissionDecision"], "deny", "{reply}");
    assert_eq!(
        reply["permissionDecisionReason"],
        sent_back(&["- \"; because\": explanation tail"])
    );
    // Claude's MultiEdit: each edit's new_string, stripped in place.
    let mut multi = fixture(&s, "claude-pre-edit");
    multi["tool_name"] = json!("MultiEdit");
    multi["permission_mode"] = json!("bypassPermissions");
    multi["tool_input"] = json!({
        "file_path": path,
        "edits": [
            {"old_string": "a", "new_string": "x = 'seats; because'"},
            {"old_string": "b", "new_string": "y = 'plain'"},
        ],
    });
    let reply = hook(&s, "claude", &multi);
    assert_eq!(decision(&reply), Some("allow"), "{reply}");
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"]["edits"],
        json!([
            {"old_string": "a", "new_string": "x = 'seats'"},
            {"old_string": "b", "new_string": "y = 'plain'"},
        ])
    );
    // Write's content.
    let mut write = fixture(&s, "claude-pre-write");
    write["permission_mode"] = json!("bypassPermissions");
    write["tool_input"] = json!({"file_path": path, "content": "x = 'seats; because'\n"});
    let reply = hook(&s, "claude", &write);
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"]["content"],
        "x = 'seats'\n"
    );
    // list shows each filter's mode, action and round cap.
    let list = s.list(&[]);
    let listed = list["active"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file"].as_str().unwrap().ends_with("-tails.filter.yaml"))
        .unwrap()
        .clone();
    assert_eq!(
        listed["filter"],
        json!({"mode": "finders", "action": "strip", "max_rounds": 3})
    );
}

#[test]
fn a_finder_past_its_timeout_yields_nothing_and_the_call_goes_on() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "0.5");
    s.set_env("HOOKDEX_HOOK_TIMEOUT_SEC", "20");
    condition(&s.runtime().join("_finders"), "slow.sh", "sleep 30\n");
    rule_with(
        &s.runtime(),
        "pre-edit-slow.filter.yaml",
        &scripted(&["slow"]),
    );
    assert_success(&s.run(&["compile"]), &["compile"]);
    let hooked = hook_timed(&s, "claude", &edit(&s, "a.py", "x = 1"));
    assert_eq!(hooked.reply, Value::Null);
    assert!(
        hooked.elapsed < std::time::Duration::from_secs(10),
        "{:?}",
        hooked.elapsed
    );
    let log = notes_of_last(&s);
    assert!(
        log.contains("finder `slow` yielded nothing: timed out"),
        "{log}"
    );
}

#[test]
fn a_rewrite_that_moves_the_text_meets_the_filters_of_its_new_path() {
    let s = Scratch::new();
    rule_with(
        &s.agentihooks_dir(),
        LEDGER_FILE,
        &ledger_finders("send-back"),
    );
    let moved = s
        .repo
        .join("scripts/swarm/capacity.py")
        .display()
        .to_string();
    condition(
        &s.runtime(),
        "pre-edit-move.py",
        &format!(
            "import json\nprint(json.dumps({{'tool_input': {{'file_path': {moved:?}}}, 'decision': 'allow'}}))\n"
        ),
    );
    let reply = hook(&s, "claude", &edit(&s, "notes/elsewhere.py", CAPACITY));
    assert_eq!(decision(&reply), Some("deny"), "{reply}");
    assert!(
        reason(&reply).starts_with("filter sent the text back:"),
        "{reply}"
    );
}

#[test]
fn mode_classifier_asks_about_each_whole_text_with_the_intent_from_the_input() {
    let mut s = Scratch::new();
    let asked = s.path("home/asked.jsonl");
    let script = rule_with(
        &s.path("bin"),
        "because.py",
        &format!(
            "import json, sys\nq = json.load(sys.stdin)\nopen({:?}, 'a').write(json.dumps(q) + '\\n')\nprint('yes' if 'because' in q['span'] else 'no')\n",
            asked.display().to_string()
        ),
    );
    s.set_env(
        "HOOKDEX_CLASSIFIER_CMD",
        format!("python3 {}", script.display()),
    );
    rule_with(
        &s.runtime(),
        "pre-judge-bias.filter.yaml",
        "fields: [evidence]\nmode: classifier\nintent: plain\nintent_from: case.intent\nquestion: Is this evidence biased?\n",
    );
    let input = json!({
        "text": "verdict because reasons",
        "evidence": ["the log shows it", {"claim": "fast because cached", "excerpt": "12 ms"}],
        "case": {"intent": "Evidence is quoted, never argued."},
    });
    let (code, verdict) = check(&s, "judge", &input.to_string());
    assert_eq!(code, 2, "{verdict}");
    assert_eq!(
        verdict["reason"],
        "filter sent the text back:\n- \"fast because cached\": whole text"
    );
    let questions = questions(&asked);
    let mut spans: Vec<&str> = questions
        .iter()
        .map(|q| q["span"].as_str().unwrap())
        .collect();
    spans.sort();
    assert_eq!(
        spans,
        ["12 ms", "fast because cached", "the log shows it"],
        "only `evidence`"
    );
    for q in &questions {
        assert_eq!(q["intent"], "Evidence is quoted, never argued.");
        assert_eq!(q["question"], "Is this evidence biased?");
        assert_eq!(q["tool"], "judge");
        assert_eq!(q["path"], Value::Null);
    }
}
