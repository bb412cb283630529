//! Round trips of the index format, and its behaviour on damaged bytes: every
//! truncation and every flipped byte — in the rule tables, the filters and
//! the DFAs alike — must give an error or the same answer, never a panic.

use hookdex_model::{
    Alternative, FilterAction, FilterMode, LayerKind, Permission, RuleKind, RunVerdict, Runner,
    Step, Switches, ToolName, Trust,
};
use regex_automata::dfa::{dense, StartKind};

use super::*;

fn kind_of(layer: u16) -> LayerKind {
    [
        LayerKind::Bundle,
        LayerKind::Runtime,
        LayerKind::Directory,
        LayerKind::Managed,
    ][usize::from(layer)]
}

fn alternatives(matcher: &str) -> Vec<Alternative> {
    matcher
        .split('+')
        .map(|alt| match alt {
            "any" => Alternative::Any,
            _ if alt.starts_with("bash.") => Alternative::Program(alt[5..].into()),
            _ if alt.starts_with("mcp__") && !alt[5..].contains("__") => {
                Alternative::Prefix(alt.into())
            }
            _ => Alternative::Name(alt.into()),
        })
        .collect()
}

fn rule(file: &str, layer: u16, matcher: &str) -> RuleData {
    RuleData {
        file: file.into(),
        layer,
        layer_kind: kind_of(layer),
        step: Step::Pre,
        kind: RuleKind::Condition,
        key: format!("pre-{matcher}-x"),
        matcher: matcher.into(),
        alternatives: alternatives(matcher),
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
        names: vec![("edit".into(), vec![4]), ("write".into(), vec![5])],
        programs: vec![("git".into(), vec![1, 3])],
        prefixes: vec![("mcp__gh".into(), vec![2])],
        ..StepData::default()
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
            trust_record: Some("R\t/r\t\n".into()),
            compiled_at_ms: 7,
            directory_names_only: true,
            interpreters: hookdex_model::Interpreters {
                bash: Some("/usr/bin/bash".into()),
                python: None,
                sh: Some("/bin/sh".into()),
            },
            shadowing: 2,
            invalid_persons: 1,
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
            filter_rule(),
        ],
        invalid: vec![InvalidData {
            file: "/h/bad".into(),
            layer: 1,
            at: Some((3, 7)),
            reason: "no `-`".into(),
        }],
        steps,
        filters: vec![filter(5, glob_dfa(r"(?s:.*\.tsx)"))],
        // Written out of order: the index sorts them by name, then layer.
        finder_scripts: vec![
            finder_script("tails", 2, "/r/_finders/tails.py"),
            finder_script("ids", 1, "/h/_finders/ids.sh"),
            finder_script("tails", 0, "/b/_finders/tails.sh"),
        ],
        out_filters: vec![OutFilterData {
            name: "make".into(),
            file: "/h/conditions/make.outfilter.toml".into(),
            line: 3,
            layer: 1,
            min_size: 400,
            claim: b"claim bytes".to_vec(),
            body: vec![7; 3000],
            shipped: false,
        }],
        enforcements: vec![EnforcementData {
            rule: 2,
            id: "kubectl-doctrine".into(),
            message: "Cluster writes go through GitOps.".into(),
            cadence: 2,
        }],
        hooks: Vec::new(),
        guards: vec![guard_data()],
    }
}

#[test]
fn enforcements_are_found_by_rule() {
    let bytes = sample().to_bytes();
    let index = Index::parse(&bytes).unwrap();
    index.verify_all().unwrap();
    let found = index.enforcement(2).unwrap().unwrap();
    assert_eq!((found.id, found.cadence), ("kubectl-doctrine", 2));
    assert_eq!(index.enforcement(1).unwrap(), None);
    assert_eq!(index.enforcement(99).unwrap(), None);
}

#[test]
fn output_filters_round_trip_with_their_bytes() {
    let bytes = sample().to_bytes();
    let index = Index::parse(&bytes).unwrap();
    index.verify_all().unwrap();
    assert_eq!(index.out_filter_count(), 1);
    let f = index.out_filter(0).unwrap();
    assert_eq!(
        (f.name, f.file, f.line, f.layer),
        ("make", "/h/conditions/make.outfilter.toml", 3, 1)
    );
    assert!(!f.shipped);
    assert_eq!(index.out_filter_claim(0).unwrap(), &b"claim bytes"[..]);
    assert_eq!(index.out_filter_body(0).unwrap().len(), 3000);
    assert!(index.out_filter(1).is_err());
}

#[test]
fn guards_read_back_and_walk_words_through_their_patterns() {
    let mut data = sample();
    let guard = guard_data();
    data.guards = vec![guard.clone()];
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    index.verify_all().unwrap();
    let read = index.guard(3).unwrap().unwrap();
    assert_eq!(read.data.kind, GuardKind::Program);
    assert_eq!(read.data.reason, "GitOps");
    assert_eq!(read.data.otherwise, Some(Permission::Deny));
    assert_eq!(read.data.cannot_tell, Permission::Ask);
    assert_eq!(read.data.valued, guard.valued);
    assert_eq!(read.data.flags, guard.flags);
    assert_eq!(read.data.entries, guard.entries);
    assert_eq!(read.data.depth, 2);
    assert!(index.guard(2).unwrap().is_none());
    let walk = |entry: usize, text: &[u8]| read.patterns.prefix(entry, text).unwrap();
    assert_eq!(walk(0, b"get\0pods\0"), Prefix::Matched);
    assert_eq!(walk(0, b"get\0"), Prefix::Matched);
    assert_eq!(walk(0, b"ge"), Prefix::Open);
    assert_eq!(walk(0, b"gets\0"), Prefix::Closed);
    assert_eq!(walk(1, b"rollout\0"), Prefix::Open);
    assert_eq!(walk(1, b"rollout\0status\0"), Prefix::Closed);
    assert_eq!(walk(1, b"rollout\0restart\0"), Prefix::Matched);
    assert!(read.patterns.prefix(2, b"x").is_err());
}

/// A program guard on rule 3 with an `allow` and a `deny` entry.
fn guard_data() -> GuardData {
    let patterns = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .starts_for_each_pattern(true),
        )
        .build_many(&[r"get\x00", r"rollout\x00restart\x00"])
        .unwrap();
    GuardData {
        rule: 3,
        kind: GuardKind::Program,
        reason: "GitOps".into(),
        otherwise: Some(Permission::Deny),
        cannot_tell: Permission::Ask,
        programs: vec!["kubectl".into()],
        valued: vec!["-n".into(), "--namespace".into()],
        flags: vec!["--debug".into()],
        depth: 2,
        entries: vec![
            GuardEntry {
                decision: Permission::Allow,
                text: "get".into(),
            },
            GuardEntry {
                decision: Permission::Deny,
                text: "rollout restart".into(),
            },
        ],
        dfa: serialized(&patterns),
    }
}

fn finder_script(name: &str, layer: u16, file: &str) -> FinderScriptData {
    FinderScriptData {
        name: name.into(),
        file: file.into(),
        layer,
        runner: if file.ends_with(".py") {
            Runner::Python
        } else {
            Runner::Bash
        },
    }
}

#[test]
fn finder_scripts_are_found_by_name_lowest_layer_first() {
    let file = aligned(&sample().to_bytes());
    let index = file.index().unwrap();
    index.verify_all().unwrap();
    let files = |name: &str| -> Vec<(u16, String)> {
        index
            .finder_scripts(name)
            .unwrap()
            .into_iter()
            .map(|s| (s.layer, s.file.to_string()))
            .collect()
    };
    assert_eq!(
        files("tails"),
        [
            (0, "/b/_finders/tails.sh".into()),
            (2, "/r/_finders/tails.py".into())
        ]
    );
    assert_eq!(files("ids"), [(1, "/h/_finders/ids.sh".into())]);
    assert!(files("nothing").is_empty());
    assert!(files("").is_empty());
    assert_eq!(
        index.finder_scripts("tails").unwrap()[1].runner,
        Runner::Python
    );
    // A script naming a layer the index does not have is damage.
    let mut data = sample();
    data.finder_scripts[0].layer = 9;
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    assert!(index.verify_all().unwrap_err().is_damage());
}

/// Rule 5: a filter on `write` in the runtime layer.
fn filter_rule() -> RuleData {
    let mut filter = rule("/h/pre-write-slop.filter.yaml", 1, "write");
    filter.kind = RuleKind::Filter;
    filter.runner = Runner::None;
    filter
}

#[test]
fn only_a_filter_of_a_directory_listed_by_name_may_lack_its_record() {
    let mut data = sample();
    let mut unread = filter_rule();
    unread.file = "/r/pre-write-x.filter.yaml".into();
    unread.layer = 2;
    unread.layer_kind = LayerKind::Directory;
    data.rules.push(unread);
    // (the directory layer was listed by name only, the index is sound)
    for (names_only, sound) in [(true, true), (false, false)] {
        data.meta.directory_names_only = names_only;
        let file = aligned(&data.to_bytes());
        let verified = file.index().and_then(|index| index.verify_all());
        assert_eq!(verified.is_ok(), sound, "{names_only}: {verified:?}");
    }
    // Another layer's filter needs its record whatever the directory's reading.
    let mut data = sample();
    data.rules.push(filter_rule());
    data.meta.directory_names_only = true;
    let file = aligned(&data.to_bytes());
    assert!(file.index().and_then(|index| index.verify_all()).is_err());
}

fn filter(rule: u32, dfa: Vec<u8>) -> FilterData {
    FilterData {
        rule,
        mode: FilterMode::Finders,
        action: FilterAction::Strip,
        fields: 0,
        max_rounds: 3,
        intent: "plain".into(),
        intent_from: None,
        question: None,
        globs: vec![GlobSetData {
            globs: vec!["**/*.tsx".into()],
            dfa,
        }],
        finders: vec![FinderData::Script {
            name: "string_literals".into(),
            reason: None,
        }],
    }
}

/// An anchored dense DFA for `regex`, serialized as the compiler does.
fn glob_dfa(regex: &str) -> Vec<u8> {
    let dfa = dense::Builder::new()
        .configure(dense::Config::new().start_kind(StartKind::Anchored))
        .build(regex)
        .unwrap();
    serialized(&dfa)
}

/// `dfa`'s bytes as the index stores them.
fn serialized(dfa: &dense::DFA<Vec<u32>>) -> Vec<u8> {
    let (bytes, pad) = dfa.to_bytes_native_endian();
    bytes[pad..].to_vec()
}

fn aligned(bytes: &[u8]) -> IndexFile {
    IndexFile::from_bytes(std::path::Path::new("test.hdx"), bytes)
}

/// The candidates of a pre call that run under `trust`.
fn fired(index: &Index<'_>, name: &str, programs: &[&str], trust: &Trust) -> Vec<u32> {
    runs(index, Step::Pre, name, programs, trust).unwrap()
}

fn runs(
    index: &Index<'_>,
    step: Step,
    name: &str,
    programs: &[&str],
    trust: &Trust,
) -> Result<Vec<u32>, Error> {
    let programs: Vec<String> = programs.iter().map(|p| p.to_string()).collect();
    let tool = ToolName::new(name);
    let query = Query {
        step,
        tool: &tool,
        raw_tool: tool.as_str(),
        programs: &programs,
        any_program: false,
    };
    let mut out = Vec::new();
    for hit in index.candidates(&query)? {
        let rule = index.rule(hit.rule)?;
        if RunVerdict::of(&rule.standing(), trust, Switches::ALL).runs() {
            out.push(hit.rule);
        }
    }
    Ok(out)
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
    assert_eq!(meta.trust_record, Some("R\t/r\t\n"));
    assert!(meta.directory_names_only);
    assert_eq!((meta.shadowing, meta.invalid_persons), (2, 1));
    // The shadowing rules and the one invalid file.
    assert_eq!(
        index.problem_count().unwrap(),
        crate::ProblemCount {
            invalid: 1,
            shadowing: 2
        }
    );
    assert_eq!(
        meta.interpreters,
        hookdex_model::Interpreters {
            bash: Some("/usr/bin/bash".into()),
            python: None,
            sh: Some("/bin/sh".into()),
        }
    );
    assert_eq!(index.rule_count(), 6);
    assert_eq!(index.rule(1).unwrap().overridden_by, Some(3));
    assert!(index.rule(1).unwrap().shadowed_by_directory);
    assert_eq!(index.rule(3).unwrap().layer_kind, LayerKind::Directory);
    assert_eq!(
        index.alternatives(&index.rule(1).unwrap()).unwrap(),
        vec![Alternative::Program("git".into())]
    );
    assert_eq!(index.layer(2).unwrap().kind, LayerKind::Directory);
    let invalid = index.invalid(0).unwrap();
    assert_eq!(invalid.reason, "no `-`");
    assert_eq!(invalid.message(), "/h/bad: 3:7: no `-`");
    assert_eq!(index.path(0).unwrap().stamp, Stamp::ABSENT);
    assert_eq!(index.freshness().unwrap(), Freshness::Fresh { checked: 1 });
    assert!(index.rule(6).is_err());
    let filter = index.filter(5).unwrap().unwrap();
    assert_eq!(filter.action, FilterAction::Strip);
    assert!(filter.globs[0].is_match("src/App.tsx").unwrap());
    assert!(!filter.globs[0].is_match("src/App.ts").unwrap());
    assert!(index.filter(4).unwrap().is_none());
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
    let bash = ToolName::new("bash");
    let candidates = index
        .candidates(&Query {
            step: Step::Pre,
            tool: &bash,
            raw_tool: bash.as_str(),
            programs: &["git".into()],
            any_program: false,
        })
        .unwrap();
    assert_eq!(
        candidates.iter().map(|h| h.rule).collect::<Vec<_>>(),
        vec![0, 1, 3],
        "candidates are every matching rule, whatever the trust"
    );
    let strict = index
        .candidates(&Query {
            step: Step::Pre,
            tool: &bash,
            raw_tool: bash.as_str(),
            programs: &[],
            any_program: true,
        })
        .unwrap();
    assert_eq!(
        strict.iter().map(|h| (h.rule, h.via)).collect::<Vec<_>>(),
        vec![
            (0, Via::Any),
            (1, Via::AnyProgram("git")),
            (3, Via::AnyProgram("git"))
        ],
        "any_program matches every bash.<cli> alternative"
    );
    let edit = ToolName::new("edit");
    let not_bash = Query {
        step: Step::Pre,
        tool: &edit,
        raw_tool: edit.as_str(),
        programs: &[],
        any_program: true,
    };
    assert!(index
        .candidates(&not_bash)
        .unwrap()
        .iter()
        .all(|h| !matches!(h.via, Via::AnyProgram(_))));
    assert!(runs(&index, Step::Post, "bash", &[], &trusted)
        .unwrap()
        .is_empty());
}

#[test]
fn stale_paths_are_reported() {
    let dir = std::env::temp_dir().join(format!("hookdex-stale-{}", std::process::id()));
    let mut data = sample();
    data.paths = vec![(dir.to_path_buf(), Stamp::ABSENT)];
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
        answers(&index).unwrap()
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
        assert_eq!(
            answers(&index).unwrap(),
            want,
            "byte {at} flipped unnoticed changed the answer"
        );
    }
}

#[test]
fn every_flipped_byte_read_lazily_is_an_error_or_harmless() {
    // The hook verifies blocks as it reads them: every read must notice.
    let bytes = sample().to_bytes();
    let want = answers(&aligned(&bytes).index().unwrap()).unwrap();
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5a;
        let file = aligned(&damaged);
        let Ok(index) = file.index() else { continue };
        if let Ok(got) = answers(&index) {
            assert_eq!(got, want, "byte {at} flipped unnoticed changed the answer");
        }
    }
}

/// What the sample answers: lookups, the layers of the rules that fire, the
/// filter with its glob verdicts, the invalid file.
fn answers(index: &Index<'_>) -> Result<String, Error> {
    let mut out = Vec::new();
    for (name, programs) in [("bash", &["git"][..]), ("write", &[]), ("mcp__gh__pr", &[])] {
        for id in runs(index, Step::Pre, name, programs, &Trust::NoOrigin)? {
            let rule = index.rule(id)?;
            out.push(format!(
                "{id} {} {}",
                rule.file,
                index.layer(usize::from(rule.layer))?.label
            ));
        }
    }
    let filter = index.filter(5)?.expect("rule 5 is a filter");
    for path in ["a/b.tsx", "a/b.rs"] {
        out.push(format!("{path} {}", filter.globs[0].is_match(path)?));
    }
    out.push(index.invalid(0)?.message());
    Ok(out.join("\n"))
}

#[test]
fn a_crafted_dfa_with_good_checksums_is_refused_not_trusted() {
    // Whoever can write the cache can write any bytes with matching hashes:
    // the DFA must be validated, not loaded on faith.
    let mut data = sample();
    let mut garbage = glob_dfa(r"(?s:.*\.tsx)");
    let middle = garbage.len() / 2;
    for byte in &mut garbage[middle..] {
        *byte = 0xff;
    }
    data.filters = vec![filter(5, garbage)];
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    assert!(index.verify_all().unwrap_err().is_damage());
    let err = index.filter(5).unwrap_err();
    assert!(err.is_damage(), "{err}");
    assert!(err.to_string().contains("DFA"), "{err}");
}

#[test]
fn references_out_of_range_are_corruption_not_panics() {
    let mut data = sample();
    data.rules[0].layer = 9;
    data.rules[2].overridden_by = Some(77);
    data.steps[usize::from(Step::Pre.code())].any = vec![0, 40];
    data.invalid[0].layer = 12;
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    // Every checksum holds, yet a full verification finds the references,
    // so `list` and `explain` recompile instead of failing halfway.
    let err = index.verify_all().unwrap_err();
    assert!(err.is_damage(), "{err}");
    assert!(index.rule(0).unwrap_err().is_damage());
    assert!(index.rule(2).unwrap_err().is_damage());
    assert!(index.invalid(0).unwrap_err().is_damage());
    let bash = ToolName::new("bash");
    let query = Query {
        step: Step::Pre,
        tool: &bash,
        raw_tool: bash.as_str(),
        programs: &[],
        any_program: false,
    };
    assert!(index.candidates(&query).unwrap_err().is_damage());
}

#[test]
fn foreign_files_are_named_as_such() {
    let mut bytes = sample().to_bytes();
    assert!(matches!(
        aligned(b"not an index at all, just text.....")
            .index()
            .unwrap_err()
            .kind(),
        ErrorKind::BadMagic
    ));
    bytes[8] = 99;
    assert!(matches!(
        aligned(&bytes).index().unwrap_err().kind(),
        ErrorKind::ForeignVersion(_)
    ));
}

#[test]
fn the_automata_tag_names_the_built_regex_automata_version() {
    let version = AUTOMATA_TAG
        .strip_prefix("regex-automata ")
        .and_then(|rest| rest.strip_suffix(" dense"))
        .unwrap_or_else(|| panic!("{AUTOMATA_TAG}"));
    let parts: Vec<&str> = version.split('.').collect();
    assert_eq!(
        parts.len(),
        3,
        "a full version, not a hand-written `0.4`: {version}"
    );
    assert!(parts.iter().all(|p| p.parse::<u32>().is_ok()), "{version}");
    // A file written by another automata version is foreign, not corrupt.
    let mut bytes = sample().to_bytes();
    bytes[40] ^= 1;
    let header_end = 104 + crate::section::SectionId::ALL.len() * 32;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes[40..header_end]);
    bytes[32..40].copy_from_slice(&hash.to_le_bytes());
    assert!(matches!(
        aligned(&bytes).index().unwrap_err().kind(),
        ErrorKind::ForeignVersion(_)
    ));
}

#[test]
fn finder_dfas_that_disagree_are_damage_not_a_panic() {
    // A crafted index can pair a forward DFA with a reverse one that never
    // finds the start (regex-automata's `Regex` panics there).
    let forward = serialized(&dense::DFA::new("because").unwrap());
    let mut data = sample();
    data.filters[0].finders = vec![FinderData::Regex {
        source: "because".into(),
        reason: None,
        forward,
        reverse: glob_dfa("x"),
    }];
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    let filter = index.filter(5).unwrap().unwrap();
    let err = filter.finders[0]
        .find_all("it works because it does")
        .unwrap_err();
    assert!(err.is_damage(), "{err}");
}

#[test]
fn finders_find_every_match_with_their_own_dfas() {
    let regex = regex_automata::dfa::regex::Regex::new(r"(?i-u)because|which means|x*").unwrap();
    let mut data = sample();
    data.filters[0].finders = vec![FinderData::Regex {
        source: "because".into(),
        reason: None,
        forward: serialized(regex.forward()),
        reverse: serialized(regex.reverse()),
    }];
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    let filter = index.filter(5).unwrap().unwrap();
    let text = "Because xx, which means BECAUSE";
    let spans = filter.finders[0].find_all(text).unwrap();
    let found: Vec<&str> = spans.iter().map(|&(s, e)| &text[s..e]).collect();
    assert_eq!(found, ["Because", "xx", "which means", "BECAUSE"]);
}

#[test]
fn hook_matchers_find_names_exactly_and_by_pattern_and_inputs_search() {
    let mut data = sample();
    let pre = &mut data.steps[usize::from(Step::Pre.code())];
    pre.exact = vec![("Bash".into(), vec![3])];
    let names = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .match_kind(regex_automata::MatchKind::All),
        )
        .build_many(&["(?:mcp__.*)$"])
        .unwrap();
    pre.pattern_sets = vec![PatternSetData {
        rules: vec![2],
        dfa: serialized(&names),
        gate: None,
    }];
    let input = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .starts_for_each_pattern(true),
        )
        .build_many(&[r"(?s:.)*?(?:rm +-rf)", r"(?s:.)*?(?:^/etc/)"])
        .unwrap();
    data.hooks = vec![HookData {
        rule: 2,
        spec: full_spec(),
        input: serialized(&input),
    }];
    let file = aligned(&data.to_bytes());
    let index = file.index().unwrap();
    index.verify_all().unwrap();
    let query = |raw: &str, normalized: &str| {
        let tool = ToolName::new(normalized);
        let q = Query {
            step: Step::Pre,
            tool: &tool,
            raw_tool: raw,
            programs: &[],
            any_program: false,
        };
        let hits = index.candidates(&q).unwrap();
        hits.into_iter()
            .map(|h| (h.rule, h.via))
            .collect::<Vec<_>>()
    };
    assert!(query("Bash", "bash").contains(&(3, Via::Exact("Bash"))));
    // Case-sensitive, and tried on both names.
    assert!(!query("bash", "bash")
        .iter()
        .any(|(_, v)| matches!(v, Via::Exact(_))));
    assert!(query("run_shell_command", "Bash").contains(&(3, Via::Exact("Bash"))));
    assert!(query("mcp__other__x", "mcp__other__x").contains(&(2, Via::Pattern)));
    assert!(!query("xmcp__gh", "xmcp__gh")
        .iter()
        .any(|(_, v)| *v == Via::Pattern));
    let hook = index.hook(2).unwrap().unwrap();
    // The spec reads back field by field, as it was written.
    assert_eq!(hook.spec, full_spec());
    let matcher = hook.input.unwrap();
    assert!(matcher.is_match(0, "sudo rm  -rf /").unwrap());
    assert!(!matcher.is_match(0, "ls").unwrap());
    assert!(matcher.is_match(1, "/etc/hosts").unwrap());
    assert!(!matcher.is_match(1, "x/etc/hosts").unwrap());
    assert!(matcher.is_match(2, "x").is_err());
    assert!(index.hook(1).unwrap().is_none());
    // A gate of prefixes none of the names has skips the DFA.
    data.steps[usize::from(Step::Pre.code())].pattern_sets[0].gate = Some(vec!["zz".into()]);
    let gated = aligned(&data.to_bytes());
    let index = gated.index().unwrap();
    let tool = ToolName::new("mcp__other__x");
    let q = Query {
        step: Step::Pre,
        tool: &tool,
        raw_tool: tool.as_str(),
        programs: &[],
        any_program: false,
    };
    assert!(!index
        .candidates(&q)
        .unwrap()
        .iter()
        .any(|h| h.via == Via::Pattern));
}

/// A hook spec with every field set, lists of several entries and absent
/// options among them.
fn full_spec() -> hookdex_model::HookSpec {
    use hookdex_model::{HookAction, HookSpec, InputPattern, Requires};
    HookSpec {
        label: "PreToolUse[0].hooks[1]".into(),
        line: 7,
        events: vec!["PreToolUse".into(), "PermissionRequest".into()],
        source_event: "BeforeToolCall".into(),
        action: HookAction::Prompt {
            prompt: "no secrets\nin commits".into(),
            model: Some("haiku".into()),
        },
        timeout_ms: 1 << 40,
        cwd: Some("/hooks/x".into()),
        env: vec![("A".into(), "1\n2".into()), ("B".into(), String::new())],
        matcher: None,
        input: vec![
            InputPattern {
                field: None,
                regex: "rm +-rf".into(),
            },
            InputPattern {
                field: Some("params.path".into()),
                regex: "^/etc/".into(),
            },
        ],
        requires: Requires {
            os: vec!["linux".into()],
            bins: vec!["git".into(), "jq".into()],
            env: Vec::new(),
        },
    }
}
