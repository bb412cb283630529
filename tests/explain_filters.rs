//! `explain --input` on filters: each firing filter's finders with the exact
//! spans they flag in the input, a failing finder named with why, what the
//! classifier would be asked (never asked by explain), and a patch's files
//! each matched against `paths`.

mod common;

use serde_json::{json, Value};

use common::*;

const FILTER: &str = "paths: ['**/ui/**']
finders:
  - regex: '(?i)\\bbecause\\b[^<]*'
    reason: explains itself
  - script: broken
  - script: explanation_tail
mode: both
";

fn setup() -> Scratch {
    let s = Scratch::new();
    rule_with(&s.runtime(), "pre-edit+write-plain.filter.yaml", FILTER);
    let finders = s.runtime().join("_finders");
    std::fs::create_dir_all(&finders).unwrap();
    std::fs::write(finders.join("broken.sh"), "echo nonsense\n").unwrap();
    s
}

fn fired_filter(explain: &Value) -> Value {
    let fires = explain["fires"].as_array().unwrap();
    let filter = fires
        .iter()
        .find(|f| {
            f["file"]
                .as_str()
                .unwrap()
                .ends_with("pre-edit+write-plain.filter.yaml")
        })
        .unwrap_or_else(|| panic!("the filter fires: {explain}"));
    filter["filter"].clone()
}

#[test]
fn explain_shows_each_finder_with_its_spans() {
    let s = setup();
    let input = json!({"file_path": "/r/web/ui/Seats.tsx", "content": "<p>Free because done</p>"});
    let e = s.explain(&["--tool", "Write", "--input", &input.to_string()]);
    let filter = fired_filter(&e.0);
    assert_eq!(filter["mode"], "both");
    assert_eq!(filter["texts"], 1);
    let finders = filter["finders"].as_array().unwrap();
    assert_eq!(finders[0]["finder"], "regex:(?i)\\bbecause\\b[^<]*");
    assert_eq!(
        finders[0]["spans"],
        json!([{"path": "/r/web/ui/Seats.tsx", "start": 8, "end": 20, "text": "because done", "reason": "explains itself"}])
    );
    assert_eq!(finders[1]["finder"], "broken");
    assert!(
        finders[1]["failed"]
            .as_str()
            .unwrap()
            .contains("stdout is not JSON"),
        "{finders:?}"
    );
    assert_eq!(finders[1]["spans"], json!([]));
    assert_eq!(finders[2]["spans"][0]["text"], "because done");
    assert_eq!(
        filter["would_ask"], 2,
        "the classifier would judge both findings"
    );

    // The human form says the same, under the filter's line.
    let out = s.run(&["explain", "--tool", "Write", "--input", &input.to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\"because done\" [8..20]: explains itself"),
        "{text}"
    );
    assert!(text.contains("explain does not ask it"), "{text}");
}

#[test]
fn a_patch_fires_the_filter_through_any_of_its_files() {
    let s = setup();
    let patch = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-a\n+b // because\n*** Add File: web/ui/a.tsx\n+<p>Done because it is</p>\n*** End Patch\n";
    let input = json!({"command": patch}).to_string();
    let e = s.explain(&[
        "--target",
        "codex",
        "--tool",
        "apply_patch",
        "--input",
        &input,
    ]);
    let filter = fired_filter(&e.0);
    let spans = &filter["finders"][0]["spans"];
    assert_eq!(
        spans.as_array().unwrap().len(),
        1,
        "only the admitted file's text: {spans}"
    );
    assert_eq!(spans[0]["path"], "web/ui/a.tsx");
    assert_eq!(spans[0]["text"], "because it is");

    // No file of the patch under `paths`: skipped, each path named.
    let other = json!({"command": "*** Begin Patch\n*** Add File: a.py\n+x\n*** Add File: b.py\n+y\n*** End Patch\n"}).to_string();
    let e = s.explain(&[
        "--target",
        "codex",
        "--tool",
        "apply_patch",
        "--input",
        &other,
    ]);
    let why = e.skip_reason("runtime", "pre-edit+write-plain.filter.yaml");
    assert!(why.contains("`a.py`") && why.contains("`b.py`"), "{why}");
}
