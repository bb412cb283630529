//! Round trips of the index format, and its behaviour on damaged bytes: every
//! truncation and every flipped byte must give an error or the same answer,
//! never a panic.

use super::*;
use crate::rule::{LayerKind, RuleKind, Runner, Step};
use crate::trust::Trust;

fn rule(file: &str, layer: u16, matcher: &str) -> RuleData {
    RuleData {
        file: file.into(),
        layer,
        step: Step::Pre,
        kind: RuleKind::Condition,
        key: format!("pre-{matcher}-x"),
        matcher: matcher.into(),
        name: "x".into(),
        ext: "sh".into(),
        is_async: false,
        runner: Runner::Bash,
        overridden_by: None,
        shadowed_by_directory: false,
    }
}

/// Rules: 0 any (bundle), 1 bash.git (bundle, shadowed by 3), 2 mcp__gh (runtime),
/// 3 bash.git (directory), 4 edit (managed).
fn sample() -> IndexData {
    let mut shadowed = rule("/b/pre-bash.git-x.sh", 0, "bash.git");
    shadowed.overridden_by = Some(3);
    shadowed.shadowed_by_directory = true;
    let mut pre = StepData {
        any: vec![0],
        names: vec![("edit".into(), vec![4])],
        programs: vec![("git".into(), vec![1, 3])],
        prefixes: vec![("mcp__gh".into(), vec![2])],
    };
    pre.names
        .extend((0..50).map(|i| (format!("tool{i}"), vec![4])));
    let mut steps = vec![StepData::default(); Step::ALL.len()];
    steps[usize::from(Step::Pre.code())] = pre;
    IndexData {
        meta: MetaData {
            target: "claude".into(),
            home: "/h".into(),
            bundle: Some("/b".into()),
            profiles: vec!["a".into(), "b".into()],
            repo_root: Some("/r".into()),
            managed_dir: "/m".into(),
            directory_owner: Some("stranger".into()),
            bundle_owner: Some("acme".into()),
            directory_rules: (3, 4),
            compiled_at_ms: 7,
        },
        paths: vec![("/nonexistent/hookdex-test".into(), Stamp::ABSENT)],
        layers: vec![
            LayerData {
                kind: LayerKind::Bundle,
                label: "bundle".into(),
                dir: "/b".into(),
                count: 2,
            },
            LayerData {
                kind: LayerKind::Runtime,
                label: "runtime".into(),
                dir: "/h".into(),
                count: 1,
            },
            LayerData {
                kind: LayerKind::Directory,
                label: "directory".into(),
                dir: "/r".into(),
                count: 1,
            },
            LayerData {
                kind: LayerKind::Managed,
                label: "managed".into(),
                dir: "/m".into(),
                count: 1,
            },
        ],
        rules: vec![
            rule("/b/pre-any-x.sh", 0, "any"),
            shadowed,
            rule("/h/pre-mcp__gh-x.sh", 1, "mcp__gh"),
            rule("/r/pre-bash.git-x.sh", 2, "bash.git"),
            rule("/m/pre-edit-x.sh", 3, "edit"),
        ],
        invalid: vec![InvalidData {
            file: "/h/bad".into(),
            layer: 1,
            reason: "no `-`".into(),
        }],
        steps,
        filters: Vec::new(),
    }
}

fn aligned(bytes: &[u8]) -> IndexFile {
    IndexFile::from_bytes(std::path::Path::new("test.hdx"), bytes)
}

fn fired(index: &Index<'_>, name: &str, programs: &[&str], trust: &Trust) -> Vec<u32> {
    let programs: Vec<String> = programs.iter().map(|p| p.to_string()).collect();
    let query = Query {
        step: Step::Pre,
        name,
        programs: &programs,
    };
    index
        .lookup(&query, trust)
        .unwrap()
        .hits
        .iter()
        .map(|h| h.rule)
        .collect()
}

#[test]
fn round_trip() {
    let file = aligned(&sample().to_bytes());
    let index = file.index().unwrap();
    index.verify_all().unwrap();
    let meta = index.meta().unwrap();
    assert_eq!(
        (meta.target, meta.bundle, meta.repo_root),
        ("claude", Some("/b"), Some("/r"))
    );
    assert_eq!(meta.profiles, vec!["a", "b"]);
    assert_eq!(
        (meta.directory_owner, meta.bundle_owner),
        (Some("stranger"), Some("acme"))
    );
    assert_eq!(index.rule_count(), 5);
    assert_eq!(index.rule(1).unwrap().overridden_by, Some(3));
    assert!(index.rule(1).unwrap().shadowed_by_directory);
    assert_eq!(index.layer(2).unwrap().kind, LayerKind::Directory);
    assert_eq!(index.invalid(0).unwrap().reason, "no `-`");
    assert_eq!(index.path(0).unwrap().stamp, Stamp::ABSENT);
    assert_eq!(index.freshness().unwrap(), Freshness::Fresh { checked: 1 });
    assert!(index.rule(5).is_err());
}

#[test]
fn lookups() {
    let file = aligned(&sample().to_bytes());
    let index = file.index().unwrap();
    let trusted = Trust::NoOrigin;
    let untrusted = Trust::Untrusted("stranger".into());
    assert_eq!(fired(&index, "bash", &["cd", "git"], &trusted), vec![0, 3]);
    assert_eq!(
        fired(&index, "bash", &["cd", "git"], &untrusted),
        vec![0, 1]
    );
    assert_eq!(fired(&index, "bash", &["cd"], &trusted), vec![0]);
    assert_eq!(fired(&index, "edit", &["git"], &trusted), vec![0, 4]);
    assert_eq!(fired(&index, "tool49", &[], &trusted), vec![0, 4]);
    assert_eq!(fired(&index, "mcp__gh__pr", &[], &trusted), vec![0, 2]);
    assert_eq!(fired(&index, "mcp__ghx__pr", &[], &trusted), vec![0]);
    assert_eq!(fired(&index, "mcp__gh", &[], &trusted), vec![0, 2]);
    let held = index
        .lookup(
            &Query {
                step: Step::Pre,
                name: "bash",
                programs: &["git".into()],
            },
            &untrusted,
        )
        .unwrap()
        .untrusted;
    assert_eq!(held.iter().map(|h| h.rule).collect::<Vec<_>>(), vec![3]);
    let post = Query {
        step: Step::Post,
        name: "bash",
        programs: &[],
    };
    assert!(index.lookup(&post, &trusted).unwrap().hits.is_empty());
}

#[test]
fn stale_paths_are_reported() {
    let dir = std::env::temp_dir().join(format!("hookdex-stale-{}", std::process::id()));
    let mut data = sample();
    data.paths = vec![(dir.display().to_string(), Stamp::ABSENT)];
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    assert!(matches!(
        index.freshness().unwrap(),
        Freshness::Fresh { .. }
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let stale = index.freshness().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(stale, Freshness::Stale { now, .. } if now.kind == StampKind::Dir));
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = sample().to_bytes();
    for len in 0..bytes.len() {
        let file = aligned(&bytes[..len]);
        assert!(file.index().is_err(), "truncated to {len} bytes");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(aligned(&longer).index().is_err());
}

#[test]
fn every_flipped_byte_is_an_error_or_harmless() {
    let bytes = sample().to_bytes();
    let want = {
        let file = aligned(&bytes);
        let index = file.index().unwrap();
        fired(&index, "bash", &["git"], &Trust::NoOrigin)
    };
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5a;
        let file = aligned(&damaged);
        let Ok(index) = file.index() else { continue };
        if index.verify_all().is_err() {
            continue;
        }
        // Only padding between sections is outside every checksum.
        let programs = ["git".to_string()];
        let query = Query {
            step: Step::Pre,
            name: "bash",
            programs: &programs,
        };
        let got: Vec<u32> = index
            .lookup(&query, &Trust::NoOrigin)
            .unwrap()
            .hits
            .iter()
            .map(|h| h.rule)
            .collect();
        assert_eq!(got, want, "byte {at} flipped unnoticed changed the answer");
    }
}

#[test]
fn foreign_files_are_named_as_such() {
    let mut bytes = sample().to_bytes();
    assert!(matches!(
        aligned(b"not an index at all, just text.....")
            .index()
            .unwrap_err()
            .kind(),
        crate::ErrorKind::BadMagic
    ));
    bytes[8] = 99;
    assert!(matches!(
        aligned(&bytes).index().unwrap_err().kind(),
        crate::ErrorKind::ForeignVersion(_)
    ));
}
