//! Filters through the whole pipeline: a `.filter.yaml` compiled into the
//! index, read back in place, its globs and finder regexes matched from the
//! stored DFAs, and `explain` narrowing a filter by its `paths`.

use std::path::Path;

use hookdex_compiler::View;
use hookdex_index::{Finder, IndexFile, Query};
use hookdex_model::{
    FilterAction, FilterField, FilterMode, Step, Switches, Target, ToolName, Trust,
};
use hookdex_runtime::report::verdicts;

const UI_SLOP: &str = r#"
paths: ['**/*.tsx', '**/components/**', 'scripts/swarm/capacity.py']
fields: [new_string, content]
finders:
  - regex: '(?i)\b(because|which means)\b[^"]*'
    reason: explanation tail
  - script: string_literals
mode: finders
action: strip
intent: User-facing text states the value its label names.
max_rounds: 2
"#;

fn view(root: &Path) -> View {
    let vars = |name: &str| -> Option<std::ffi::OsString> {
        Some(match name {
            "HOME" => root.join("user").into_os_string(),
            "HOOKDEX_HOME" => root.join("home").into_os_string(),
            "HOOKDEX_CACHE_DIR" => root.join("cache").into_os_string(),
            "HOOKDEX_MANAGED_DIR" => root.join("managed").into_os_string(),
            _ => return None,
        })
    };
    View::from_vars(Target::Claude, root, vars)
}

/// The id of the rule whose file name is `name`.
fn rule_id(index: &hookdex_index::Index<'_>, name: &str) -> u32 {
    (0..index.rule_count() as u32)
        .find(|&id| index.rule(id).unwrap().file_name() == name)
        .unwrap_or_else(|| panic!("no rule {name}"))
}

fn compiled(files: &[(&str, &str)]) -> (tempfile::TempDir, IndexFile) {
    let dir = tempfile::tempdir().unwrap();
    let conditions = dir.path().join("home/conditions");
    std::fs::create_dir_all(&conditions).unwrap();
    for (name, body) in files {
        std::fs::write(conditions.join(name), body).unwrap();
    }
    let compiled = hookdex_compiler::compile(&view(dir.path()));
    let file = IndexFile::from_bytes(Path::new("mem.hdx"), &compiled.bytes);
    (dir, file)
}

#[test]
fn a_filter_round_trips_with_working_automata() {
    let (_dir, file) = compiled(&[("pre-edit+write-ui_slop.filter.yaml", UI_SLOP)]);
    let index = file.index().unwrap();
    index.verify_all().unwrap();
    let id = rule_id(&index, "pre-edit+write-ui_slop.filter.yaml");
    let filter = index.filter(id).unwrap().expect("the rule is a filter");
    assert_eq!(filter.mode, FilterMode::Finders);
    assert_eq!(filter.action, FilterAction::Strip);
    assert_eq!(
        filter.fields,
        vec![FilterField::Content, FilterField::NewString]
    );
    assert_eq!(filter.max_rounds, 2);
    assert!(filter.intent.starts_with("User-facing"));
    let matches = |path: &str| filter.globs.iter().any(|set| set.is_match(path).unwrap());
    assert!(matches("src/App.tsx"));
    assert!(matches("/home/u/repo/web/components/Button.js"));
    assert!(matches("scripts/swarm/capacity.py"));
    assert!(!matches("src/App.ts"));
    assert!(!matches("/other/scripts/swarm/capacity.py"));
    assert_eq!(filter.finders.len(), 2);
    let text = r#"label = "12 seats free, because Codex has 3"; other = "x""#;
    let spans = filter.finders[0].find_all(text).unwrap();
    assert_eq!(spans.len(), 1);
    assert_eq!(&text[spans[0].0..spans[0].1], "because Codex has 3");
    assert!(matches!(
        filter.finders[1],
        Finder::Script {
            name: "string_literals",
            ..
        }
    ));
    assert!(filter.finders[1].find_all(text).unwrap().is_empty());
    assert!(index.filter(id + 1).unwrap().is_none());
}

#[test]
fn explain_narrows_filters_by_paths() {
    let (_dir, file) = compiled(&[
        ("pre-edit+write-ui_slop.filter.yaml", UI_SLOP),
        ("pre-write-anywhere.filter.yaml", "mode: classifier\n"),
    ]);
    let index = file.index().unwrap();
    let write = ToolName::new("write");
    let query = Query {
        step: Step::Pre,
        tool: &write,
        raw_tool: write.as_str(),
        programs: &[],
        any_program: false,
    };
    let verdict = |path: Option<&str>| {
        let (verdicts, _) = verdicts(
            &index,
            None,
            &query,
            &[path],
            &hookdex_runtime::report::HookProbe {
                event: Step::Pre.event(),
                tool_input: &serde_json::Value::Null,
                breakers: hookdex_runtime::state::breaker::Breakers::new(
                    std::path::Path::new("/nonexistent"),
                    std::time::Duration::from_secs(60),
                ),
                var: &|_| None,
            },
            &Trust::NoOrigin,
            Switches::ALL,
        )
        .unwrap();
        verdicts
            .into_iter()
            .map(|v| (v.rule.name.to_string(), v.fires, v.why))
            .collect::<Vec<_>>()
    };
    let tsx = verdict(Some("/r/src/App.tsx"));
    let writes = tsx.iter().filter(|(name, ..)| name != "blind");
    assert!(writes.clone().count() == 3, "{tsx:?}");
    assert!(writes.clone().all(|(_, fires, _)| *fires), "{tsx:?}");
    let rust = verdict(Some("/r/src/main.rs"));
    let slop = rust.iter().find(|(name, ..)| name == "ui_slop").unwrap();
    assert!(
        !slop.1 && slop.2.contains("no glob matches `/r/src/main.rs`"),
        "{slop:?}"
    );
    let none = verdict(None);
    let slop = none.iter().find(|(name, ..)| name == "ui_slop").unwrap();
    assert!(!slop.1 && slop.2.contains("names no file"), "{slop:?}");
    assert!(none
        .iter()
        .any(|(name, fires, _)| name == "anywhere" && *fires));
}

#[test]
fn a_bad_filter_is_invalid_and_the_rest_compiles() {
    let (_dir, file) = compiled(&[
        (
            "pre-edit-bad.filter.yaml",
            "paths: ['**/*.tsx']\ncolour: red\n",
        ),
        ("pre-edit-fine.sh", ""),
    ]);
    let index = file.index().unwrap();
    assert_eq!(index.invalid_count(), 1);
    let bad = index.invalid(0).unwrap();
    assert!(bad.file.ends_with("pre-edit-bad.filter.yaml"));
    assert!(bad.reason.contains("colour"), "{}", bad.reason);
    assert_eq!(
        bad.at.map(|(line, _)| line),
        Some(2),
        "the YAML error keeps its line"
    );
    // The rest: the condition, and the package's own two filters.
    assert_eq!(index.rule_count(), 3);
    assert_eq!(index.filter_count(), 2);
    assert!(index.rule(rule_id(&index, "pre-edit-fine.sh")).is_ok());
}
