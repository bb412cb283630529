//! The matching tables of each step: `any` postings, and the exact names,
//! `bash.<cli>` programs and MCP prefixes that the index's hash tables map to
//! their rules; for `hooks.yaml` groups, their literal matcher names and the
//! step's one DFA over their regex matchers.

use std::collections::BTreeMap;

use hookdex_index::{PatternSetData, StepData};
use hookdex_model::{Alternative, Step};

use crate::automata;
use crate::formats::NameMatcher;
use crate::resolve::Resolved;

/// The step tables, and the rules left out of them with the reason: a
/// regex matcher too large for an automaton on its own.
pub struct Tables {
    /// One [`StepData`] per step, indexed by step code.
    pub steps: Vec<StepData>,
    /// Rules that never fire, and why.
    pub left_out: Vec<(u32, String)>,
}

/// Builds one [`StepData`] per step (indexed by step code) from the active rules.
pub fn build(rules: &[Resolved]) -> Tables {
    #[derive(Default)]
    struct Acc {
        any: Vec<u32>,
        names: BTreeMap<String, Vec<u32>>,
        programs: BTreeMap<String, Vec<u32>>,
        prefixes: BTreeMap<String, Vec<u32>>,
        exact: BTreeMap<String, Vec<u32>>,
        patterns: Vec<(u32, String)>,
    }
    let mut acc: Vec<Acc> = Step::ALL.iter().map(|_| Acc::default()).collect();
    // Rules replaced outright never run; a rule shadowed by a directory rule
    // stays a candidate, for RunVerdict to decide per call.
    for (id, resolved) in rules.iter().enumerate() {
        if resolved.overridden_by.is_some() && !resolved.shadowed_by_directory {
            continue;
        }
        let id = id as u32;
        let name = &resolved.rule.name;
        let step = &mut acc[usize::from(name.step.code())];
        if let Some(hook) = &resolved.rule.hook {
            match &hook.names {
                NameMatcher::Any => step.any.push(id),
                NameMatcher::Names(names) => {
                    for n in names {
                        let posting = step.exact.entry(n.clone()).or_default();
                        if posting.last() != Some(&id) {
                            posting.push(id);
                        }
                    }
                }
                NameMatcher::Pattern(p) => step.patterns.push((id, p.clone())),
            }
            continue;
        }
        if !name.step.has_matcher() {
            step.any.push(id);
            continue;
        }
        for alternative in &name.alternatives {
            match alternative {
                Alternative::Any => step.any.push(id),
                Alternative::Name(n) => step.names.entry(n.clone()).or_default().push(id),
                Alternative::Program(p) => step.programs.entry(p.clone()).or_default().push(id),
                Alternative::Prefix(p) => step.prefixes.entry(p.clone()).or_default().push(id),
            }
        }
    }
    let mut left_out = Vec::new();
    let steps = acc
        .into_iter()
        .map(|acc| StepData {
            pattern_sets: pattern_sets(&acc.patterns, &mut left_out),
            any: acc.any,
            names: acc.names.into_iter().collect(),
            programs: acc.programs.into_iter().collect(),
            prefixes: acc.prefixes.into_iter().collect(),
            exact: acc.exact.into_iter().collect(),
        })
        .collect();
    Tables { steps, left_out }
}

/// The regex matchers `(rule, regex)` of one step in as few DFAs as fit
/// the automaton limit: all in one when they do, else each half apart, and
/// so on; a regex too large on its own goes to `left_out`. One source's
/// regexes can thus never push another's (the managed layer's) out.
fn pattern_sets(
    patterns: &[(u32, String)],
    left_out: &mut Vec<(u32, String)>,
) -> Vec<PatternSetData> {
    if patterns.is_empty() {
        return Vec::new();
    }
    let regexes: Vec<String> = patterns.iter().map(|(_, p)| p.clone()).collect();
    match automata::name_patterns(&regexes) {
        Ok(dfa) => {
            let gate = regexes
                .iter()
                .map(|r| automata::literal_prefixes(r))
                .collect::<Option<Vec<Vec<String>>>>()
                .map(|all| {
                    let mut gate: Vec<String> = all.into_iter().flatten().collect();
                    gate.sort();
                    // Sorted, a prefix comes right before what it covers.
                    gate.dedup_by(|longer, shorter| longer.starts_with(shorter.as_str()));
                    gate
                });
            vec![PatternSetData {
                rules: patterns.iter().map(|(id, _)| *id).collect(),
                dfa,
                gate,
            }]
        }
        Err(reason) if patterns.len() == 1 => {
            left_out.push((
                patterns[0].0,
                format!("the matcher is too large for an automaton: {reason}"),
            ));
            Vec::new()
        }
        Err(_) => {
            let (low, high) = patterns.split_at(patterns.len() / 2);
            let mut sets = pattern_sets(low, left_out);
            sets.extend(pattern_sets(high, left_out));
            sets
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::filename::{classify, FileClass};
    use crate::formats::RuleSpec;
    use hookdex_model::Runner;

    fn resolved(file_name: &str, overridden_by: Option<u32>, shadowed: bool) -> Resolved {
        let FileClass::Rule(name) = classify(file_name) else {
            panic!("{file_name}")
        };
        Resolved {
            rule: RuleSpec {
                file: file_name.into(),
                file_name: file_name.into(),
                dir_index: 0,
                name,
                runner: Runner::Bash,
                filter: None,
                enforcement: None,
                hook: None,
                guard: None,
            },
            layer: 0,
            overridden_by,
            shadowed_by_directory: shadowed,
        }
    }

    #[test]
    fn regex_matchers_split_into_sets_that_build_and_only_a_bad_one_is_left_out() {
        let patterns: Vec<(u32, String)> =
            [(0, "mcp__a__.*"), (1, "("), (2, "x.*y"), (3, "Ed(it)?")]
                .iter()
                .map(|(id, p)| (*id, p.to_string()))
                .collect();
        let mut left_out = Vec::new();
        let sets = pattern_sets(&patterns, &mut left_out);
        let rules: Vec<u32> = sets.iter().flat_map(|s| s.rules.clone()).collect();
        assert_eq!(rules, [0, 2, 3]);
        assert_eq!(left_out.len(), 1);
        assert_eq!(left_out[0].0, 1);
        let together = pattern_sets(
            &[(5, "mcp__a__.*".into()), (6, "Ed(it)?".into())],
            &mut left_out,
        );
        assert_eq!(together.len(), 1);
        assert_eq!(together[0].gate, Some(vec!["Ed".into(), "mcp__a__".into()]));
    }

    #[test]
    fn alternatives_land_in_their_tables() {
        let steps = build(&[
            resolved("pre-any-a.sh", None, false),
            resolved("pre-bash.git+edit-b.sh", None, false),
            resolved("pre-mcp+mcp__gh+mcp__gh__pr-c.sh", None, false),
            resolved("pre-bash-d.sh", Some(4), false),
            resolved("pre-bash-e.sh", Some(9), true),
            resolved("prompt-f.sh", None, false),
        ])
        .steps;
        let pre = &steps[usize::from(Step::Pre.code())];
        assert_eq!(pre.any, vec![0]);
        assert_eq!(pre.programs, vec![("git".to_string(), vec![1])]);
        assert_eq!(
            pre.names,
            vec![
                ("bash".to_string(), vec![4]),
                ("edit".to_string(), vec![1]),
                ("mcp__gh__pr".to_string(), vec![2]),
            ]
        );
        assert_eq!(
            pre.prefixes,
            vec![
                ("mcp".to_string(), vec![2]),
                ("mcp__gh".to_string(), vec![2])
            ]
        );
        assert_eq!(steps[usize::from(Step::Prompt.code())].any, vec![5]);
    }
}
