//! `hookdex test` on filter files: the package's filters pass their own
//! tests; a failing test is named with what differs and exits 1; a broken
//! file exits 1 naming its line; a `_finders` script beside the file is the
//! one its tests run; `--json` reports every test.

mod common;

use common::*;

#[test]
fn the_package_filters_pass_their_own_tests() {
    let s = Scratch::new();
    let out = s.run(&["test", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    for shipped in ["ui_slop.filter.yaml", "judge-blind.filter.yaml"] {
        assert!(files.iter().any(|f| f.ends_with(shipped)), "{files:?}");
    }
    assert_eq!(report["failed"], 0);
    assert!(report["passed"].as_u64().unwrap() >= 8, "{report}");
}

#[test]
fn a_failing_test_is_named_with_what_differs() {
    let s = Scratch::new();
    let dir = s.path("filters");
    std::fs::create_dir_all(dir.join("_finders")).unwrap();
    let file = rule_with(
        &dir,
        "pre-write-todo.filter.yaml",
        "finders:\n  - regex: '\\bTODO\\b'\n    reason: a to-do\n  - script: world\nmode: finders\ntests:\n  - name: passes\n    text: 'a TODO b'\n    expect: [TODO]\n  - name: wants more\n    text: 'a TODO b'\n    expect: [TODO, b]\n  - name: the script beside the file runs\n    text: 'hello world'\n    expect: [world]\n",
    );
    std::fs::write(
        dir.join("_finders/world.py"),
        "import json, sys\nt = json.load(sys.stdin)['text']\ni = t.find('world')\nprint(json.dumps([{'start': i, 'end': i + 5, 'text': 'world'}] if i >= 0 else []))\n",
    )
    .unwrap();
    let out = s.run(&["test", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("ok      passes"), "{text}");
    assert!(text.contains("FAIL    wants more (line 10)"), "{text}");
    assert!(text.contains(r#"expected, not flagged: "b""#), "{text}");
    assert!(
        text.contains("ok      the script beside the file runs"),
        "{text}"
    );
    assert!(
        text.contains("3 tests in 1 files: 2 passed, 1 failed"),
        "{text}"
    );
}

#[test]
fn a_broken_file_fails_naming_its_line() {
    let s = Scratch::new();
    let dir = s.path("filters");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = rule_with(
        &dir,
        "pre-write-bad.filter.yaml",
        "intent: x\ncolour: red\n",
    );
    let good = rule_with(
        &dir,
        "pre-write-good.filter.yaml",
        "finders:\n  - regex: x\ntests:\n  - {name: one, text: axb, expect: [x]}\n",
    );
    let out = s.run(&["test", bad.to_str().unwrap(), good.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("BROKEN  line 2"), "{text}");
    assert!(text.contains("colour"), "{text}");
    assert!(
        text.contains("ok      one"),
        "the other file still runs: {text}"
    );
    let missing = s.run(&["test", "/nonexistent/pre-write-x.filter.yaml"]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn a_broken_finder_fails_its_tests_and_a_fifo_is_refused_without_a_hang() {
    let s = Scratch::new();
    let dir = s.path("filters");
    std::fs::create_dir_all(dir.join("_finders")).unwrap();
    std::fs::write(dir.join("_finders/broken.sh"), "exit 3\n").unwrap();
    let file = rule_with(
        &dir,
        "pre-write-b.filter.yaml",
        "finders:\n  - script: broken\nmode: finders\ntests:\n  - {name: clean, text: abc, expect: []}\n",
    );
    let out = s.run(&["test", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL    clean") && text.contains("exit 3"),
        "{text}"
    );

    let fifo = dir.join("pre-write-fifo.filter.yaml");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = s.run(&["test", fifo.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("BROKEN"), "{text}");
}
