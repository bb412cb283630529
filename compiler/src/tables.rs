//! The matching tables of each step: `any` postings, and the exact names,
//! `bash.<cli>` programs and MCP prefixes that the index's hash tables map to
//! their rules; for `hooks.yaml` groups, their literal matcher names and the
//! step's one DFA over their regex matchers.

use std::collections::BTreeMap;

use hookdex_index::StepData;
use hookdex_model::{Alternative, Step};

use crate::automata;
use crate::formats::NameMatcher;
use crate::resolve::Resolved;

/// The step tables, and the rules left out of them with the reason: the
/// regex matchers of a step that together exceed the automaton limit.
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
        .map(|acc| {
            let regexes: Vec<String> = acc.patterns.iter().map(|(_, p)| p.clone()).collect();
            let pattern_gate = regexes
                .iter()
                .map(|r| automata::literal_prefixes(r))
                .collect::<Option<Vec<Vec<String>>>>()
                .map(|all| {
                    let mut gate: Vec<String> = all.into_iter().flatten().collect();
                    gate.sort();
                    gate.dedup();
                    gate
                });
            let (patterns, pattern_dfa) = match regexes.is_empty() {
                true => (Vec::new(), Vec::new()),
                false => match automata::name_patterns(&regexes) {
                    Ok(dfa) => (acc.patterns.iter().map(|(id, _)| *id).collect(), dfa),
                    Err(reason) => {
                        left_out.extend(acc.patterns.iter().map(|(id, _)| {
                            (*id, format!("the step's matcher regexes together are too large for an automaton: {reason}"))
                        }));
                        (Vec::new(), Vec::new())
                    }
                },
            };
            StepData {
                any: acc.any,
                names: acc.names.into_iter().collect(),
                programs: acc.programs.into_iter().collect(),
                prefixes: acc.prefixes.into_iter().collect(),
                exact: acc.exact.into_iter().collect(),
                pattern_gate: pattern_gate.filter(|_| !patterns.is_empty()),
                patterns,
                pattern_dfa,
            }
        })
        .collect();
    Tables { steps, left_out }
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
            },
            layer: 0,
            overridden_by,
            shadowed_by_directory: shadowed,
        }
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
