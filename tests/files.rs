//! Files that are ignored silently and files that are reported as invalid.

mod common;

use common::*;

const IGNORED: &[&str] = &[
    "README.md",
    "notes.MD",
    ".hidden",
    ".pre-bash-hidden.sh",
    "_helper.sh",
    "_finders",
    "x~",
    "pre-bash-backup.sh~",
];

fn tree() -> Scratch {
    let s = Scratch::new();
    let dir = s.runtime();
    for name in IGNORED {
        if *name == "_finders" {
            std::fs::create_dir_all(dir.join(name)).unwrap();
            rule(&dir.join(name), "thing.py");
        } else {
            rule(&dir, name);
        }
    }
    rule(&dir, "bad.sh");
    rule(&dir, "pre-mcp__-x.sh");
    rule(&dir, "pre-bash-ruby.rb");
    rule(&dir, "during-bash-x.sh");
    rule_with(&dir, "pre-edit-style.filter.yaml", "colour: red\n");
    rule_with(&dir, "pre-write-mode.filter.yaml", "mode: loud\n");
    rule(&dir, "pre-bash-good.sh");
    let exec = rule_with(&dir, "pre-bash-tool.rb", "#!/usr/bin/env ruby\n");
    set_executable(&exec, true);
    rule_with(
        &dir,
        "pre-edit-fine.filter.yaml",
        "paths: ['**/*.tsx']\nmode: both\naction: flag\n",
    );
    s
}

#[test]
fn ignored_files_appear_nowhere() {
    let s = tree();
    let list = s.list(&["--tool", "Bash", "--command", "ls"]);
    let text = list.to_string();
    for name in IGNORED {
        let needle = format!("/{name}\"");
        assert!(!text.contains(&needle), "{name} listed: {list:#}");
    }
    // The _finders folder's scripts are finders, never rules.
    for key in ["active", "invalid", "fires"] {
        assert!(
            !list[key].to_string().contains("_finders"),
            "{key}: {list:#}"
        );
    }
    let finders: Vec<&str> = list["finders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        finders,
        ["judge_cues", "thing"],
        "the package's, then the tree's: {list:#}"
    );
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    for file in e.all_files() {
        assert!(!IGNORED.contains(&base(&file)), "{file} in explain");
    }
    let check = s.run(&["compile", "--check"]);
    let out = String::from_utf8_lossy(&check.stdout);
    for name in IGNORED {
        assert!(!out.contains(&format!("/{name}:")), "{name}: {out}");
    }
}

#[test]
fn invalid_files_are_listed_with_a_reason() {
    let s = tree();
    let list = s.list(&[]);
    let cases = [
        ("/bad.sh", "<step>-<matcher>-<name>"),
        ("/pre-mcp__-x.sh", "names no server"),
        ("/pre-bash-ruby.rb", "not executable"),
        ("/during-bash-x.sh", "unknown step `during`"),
        ("/pre-edit-style.filter.yaml", "colour"),
        ("/pre-write-mode.filter.yaml", "loud"),
    ];
    for (file, want) in cases {
        let reason = invalid_reason(&list, file);
        assert!(reason.contains(want), "{file}: {reason}");
        assert!(!reason.contains('\n'), "{file}: {reason}");
    }
    assert_eq!(invalid(&list).len(), cases.len(), "{:#}", list["invalid"]);
    let names: Vec<String> = active(&list).into_iter().map(|(_, f)| f).collect();
    assert_eq!(
        names,
        [
            "pre-bash-good.sh",
            "pre-bash-tool.rb",
            "pre-edit-fine.filter.yaml"
        ]
    );
    let kinds: Vec<&str> = list["active"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["layer"] == "runtime")
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["condition", "condition", "filter"]);
    let fine = list["active"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["file"]
                .as_str()
                .unwrap()
                .ends_with("/pre-edit-fine.filter.yaml")
        })
        .unwrap();
    assert_eq!(fine["step"], "pre");
    assert_eq!(fine["matcher"], "edit");
    assert_eq!(fine["name"], "fine");
}

#[test]
fn valid_rules_next_to_invalid_ones_still_fire() {
    let s = tree();
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("runtime", "pre-bash-good.sh"),
            ("runtime", "pre-bash-tool.rb")
        ])
    );
    let e = s.explain(&["--tool", "Edit", "--path", "a.tsx"]);
    assert_eq!(
        e.fires(),
        pairs(&[("runtime", "pre-edit-fine.filter.yaml")])
    );
    // Invalid files are not rules: explain does not list them as skipped either.
    for file in e.all_files() {
        for bad in [
            "/bad.sh",
            "/pre-mcp__-x.sh",
            "/pre-bash-ruby.rb",
            "/pre-edit-style.filter.yaml",
        ] {
            assert!(!file.ends_with(bad), "{file}");
        }
    }
}

#[test]
fn fixing_an_invalid_filter_or_name_is_noticed() {
    let s = tree();
    let list = s.list(&[]);
    assert!(invalid_reason(&list, "/pre-edit-style.filter.yaml").contains("colour"));
    std::fs::write(
        s.runtime().join("pre-edit-style.filter.yaml"),
        "mode: both\n",
    )
    .unwrap();
    let e = s.explain(&["--tool", "Edit"]);
    assert!(!e.fresh(), "a filter edit went unnoticed");
    assert!(e
        .fire_names()
        .contains(&"pre-edit-style.filter.yaml".to_string()));

    std::fs::rename(
        s.runtime().join("bad.sh"),
        s.runtime().join("pre-bash-bad.sh"),
    )
    .unwrap();
    let list = s.list(&[]);
    let bad: Vec<String> = invalid(&list).into_iter().map(|(f, _)| f).collect();
    assert!(!bad.iter().any(|f| f.ends_with("/bad.sh")), "{bad:?}");
    assert!(
        !bad.iter()
            .any(|f| f.ends_with("/pre-edit-style.filter.yaml")),
        "{bad:?}"
    );
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(e.fire_names().contains(&"pre-bash-bad.sh".to_string()));
}

/// The reason for `pre-bash-ruby.rb` says "chmod +x it"; doing so must take
/// effect, yet the executable bit is not part of any recorded stamp (only the
/// directory and filter files are stamped, by mtime/size/inode), so the index
/// stays "fresh" and the rule stays invalid until something else changes.
#[test]
fn chmod_x_on_a_rule_file_is_noticed() {
    let s = tree();
    let list = s.list(&[]);
    assert!(invalid_reason(&list, "/pre-bash-ruby.rb").contains("not executable"));
    set_executable(&s.runtime().join("pre-bash-ruby.rb"), true);
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(
        e.fire_names().contains(&"pre-bash-ruby.rb".to_string()),
        "{:#}",
        e.0
    );
    // And the other way: chmod -x makes a direct-run rule invalid again.
    set_executable(&s.runtime().join("pre-bash-tool.rb"), false);
    let list = s.list(&[]);
    assert!(invalid_reason(&list, "/pre-bash-tool.rb").contains("not executable"));
}
