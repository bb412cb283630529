//! The matching tables of each step: `any` postings, and the exact names,
//! `bash.<cli>` programs and MCP prefixes that the index's hash tables map to
//! their rules.

use std::collections::BTreeMap;

use hookdex_index::StepData;
use hookdex_model::{Alternative, Step};

use crate::resolve::Resolved;

/// Builds one [`StepData`] per step (indexed by step code) from the active rules.
pub fn build(rules: &[Resolved]) -> Vec<StepData> {
    #[derive(Default)]
    struct Acc {
        any: Vec<u32>,
        names: BTreeMap<String, Vec<u32>>,
        programs: BTreeMap<String, Vec<u32>>,
        prefixes: BTreeMap<String, Vec<u32>>,
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
    acc.into_iter()
        .map(|acc| StepData {
            any: acc.any,
            names: acc.names.into_iter().collect(),
            programs: acc.programs.into_iter().collect(),
            prefixes: acc.prefixes.into_iter().collect(),
        })
        .collect()
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
        ]);
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
