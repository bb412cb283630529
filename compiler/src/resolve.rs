//! Override resolution and rule ids. A higher layer replaces a lower layer's
//! rule with the same key; within one layer the file that sorts last (by
//! directory, then name) wins. Ids follow execution order: layer, then file name.
//!
//! The directory layer runs only when the repository is trusted, and trust is
//! decided at lookup, so an untrusted repository must not be able to disable a
//! bundle's guard by shipping a file with the same key: a rule replaced only
//! by a directory rule is marked `shadowed_by_directory` and stays in the
//! postings, to be dropped at lookup only when the repository is trusted.

use std::collections::HashMap;

use crate::formats::RuleSpec;

/// A rule with its place in the final order.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The rule.
    pub rule: RuleSpec,
    /// Index of its layer.
    pub layer: u16,
    /// The id of the rule that replaces it, if any.
    pub overridden_by: Option<u32>,
    /// Replaced only by a directory-layer rule: active when the repository is untrusted.
    pub shadowed_by_directory: bool,
}

/// Orders `layers` (lowest priority first, each a list of scanned rules) and
/// marks every rule that another replaces; `directory` is the index of the
/// directory layer, if there is one.
pub fn resolve(layers: Vec<Vec<RuleSpec>>, directory: Option<u16>) -> Vec<Resolved> {
    let mut all: Vec<(u16, RuleSpec)> = layers
        .into_iter()
        .enumerate()
        .flat_map(|(layer, rules)| rules.into_iter().map(move |r| (layer as u16, r)))
        .collect();
    all.sort_by(|(la, a), (lb, b)| {
        (la, &a.file_name, a.dir_index).cmp(&(lb, &b.file_name, b.dir_index))
    });
    let with_directory = winners(&all, |_| true);
    let without_directory = winners(&all, |layer| Some(layer) != directory);
    let overridden: Vec<(Option<u32>, bool)> = all
        .iter()
        .enumerate()
        .map(|(i, (_, rule))| {
            let key = rule.name.key.as_str();
            let winner = with_directory[key];
            let shadowed = winner != i && without_directory.get(key) == Some(&i);
            ((winner != i).then_some(winner as u32), shadowed)
        })
        .collect();
    all.into_iter()
        .zip(overridden)
        .map(
            |((layer, rule), (overridden_by, shadowed_by_directory))| Resolved {
                rule,
                layer,
                overridden_by,
                shadowed_by_directory,
            },
        )
        .collect()
}

fn rank((layer, rule): &(u16, RuleSpec)) -> (u16, usize, &str) {
    (*layer, rule.dir_index, &rule.file_name)
}

/// The winning position of each key among the rules whose layer passes
/// `include`: highest layer, then highest directory, then last file name.
fn winners(all: &[(u16, RuleSpec)], include: impl Fn(u16) -> bool) -> HashMap<&str, usize> {
    let mut winner: HashMap<&str, usize> = HashMap::new();
    for (i, (layer, rule)) in all.iter().enumerate() {
        if !include(*layer) {
            continue;
        }
        match winner.get(rule.name.key.as_str()) {
            Some(&j) if rank(&all[j]) >= rank(&all[i]) => {}
            _ => {
                winner.insert(rule.name.key.as_str(), i);
            }
        }
    }
    winner
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::filename::{classify, FileClass};
    use hookdex_model::Runner;

    fn rule(file_name: &str, dir_index: usize) -> RuleSpec {
        let FileClass::Rule(name) = classify(file_name) else {
            panic!("{file_name}")
        };
        RuleSpec {
            file: format!("d{dir_index}/{file_name}"),
            file_name: file_name.into(),
            dir_index,
            name,
            runner: Runner::Bash,
            filter: None,
            enforcement: None,
            hook: None,
            guard: None,
        }
    }

    fn outcome(resolved: &[Resolved]) -> Vec<(u16, &str, Option<u32>)> {
        resolved
            .iter()
            .map(|r| (r.layer, r.rule.file.as_str(), r.overridden_by))
            .collect()
    }

    #[test]
    fn a_directory_rule_only_shadows() {
        let resolved = resolve(
            vec![
                vec![rule("pre-bash-guard.sh", 0)],
                vec![rule("pre-bash-guard.sh", 1)],
            ],
            Some(1),
        );
        assert_eq!(resolved[0].overridden_by, Some(1));
        assert!(resolved[0].shadowed_by_directory);
        assert!(!resolved[1].shadowed_by_directory);
    }

    #[test]
    fn higher_layer_replaces_lower() {
        let resolved = resolve(
            vec![
                vec![rule("pre-bash-guard.sh", 0), rule("pre-any-audit.sh", 0)],
                vec![rule("pre-bash-guard.py", 0)],
            ],
            None,
        );
        assert_eq!(
            outcome(&resolved),
            vec![
                (0, "d0/pre-any-audit.sh", None),
                (0, "d0/pre-bash-guard.sh", Some(2)),
                (1, "d0/pre-bash-guard.py", None),
            ]
        );
    }

    #[test]
    fn within_a_layer_the_last_sorting_file_wins() {
        let resolved = resolve(
            vec![vec![
                rule("pre-bash-x.sh", 0),
                rule("pre-bash-x.async.py", 0),
            ]],
            None,
        );
        assert_eq!(
            outcome(&resolved),
            vec![
                (0, "d0/pre-bash-x.async.py", Some(1)),
                (0, "d0/pre-bash-x.sh", None)
            ]
        );
    }

    #[test]
    fn the_later_directory_of_a_layer_wins() {
        let resolved = resolve(
            vec![vec![
                rule("pre-bash-x.sh", 0),
                rule("pre-bash-x.async.py", 1),
            ]],
            None,
        );
        assert_eq!(
            outcome(&resolved),
            vec![
                (0, "d1/pre-bash-x.async.py", None),
                (0, "d0/pre-bash-x.sh", Some(0))
            ]
        );
    }
}
