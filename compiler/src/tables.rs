//! The matching tables of each step: `any` postings, exact names and
//! `bash.<cli>` programs for the index's hash tables, and prefix alternatives
//! compiled into one anchored multi-pattern DFA per step.

use std::collections::BTreeMap;

use hookdex_runtime::index::StepData;
use hookdex_runtime::rule::Step;
use regex_automata::dfa::{dense, StartKind};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::MatchKind;

use crate::error::Error;
use crate::matcher::Alternative;
use crate::resolve::Resolved;

/// Builds one [`StepData`] per step (indexed by step code) from the active rules.
pub fn build(rules: &[Resolved]) -> Result<Vec<StepData>, Error> {
    #[derive(Default)]
    struct Acc {
        any: Vec<u32>,
        names: BTreeMap<String, Vec<u32>>,
        programs: BTreeMap<String, Vec<u32>>,
        patterns: BTreeMap<String, Vec<u32>>,
    }
    let mut acc: Vec<Acc> = Step::ALL.iter().map(|_| Acc::default()).collect();
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
                Alternative::Prefix(p) => step.patterns.entry(p.clone()).or_default().push(id),
            }
        }
    }
    Step::ALL
        .iter()
        .zip(acc)
        .map(|(step, acc)| {
            let patterns: Vec<(String, Vec<u32>)> = acc.patterns.into_iter().collect();
            let dfa = prefix_dfa(*step, &patterns)?;
            Ok(StepData {
                any: acc.any,
                names: acc.names.into_iter().collect(),
                programs: acc.programs.into_iter().collect(),
                patterns,
                dfa,
            })
        })
        .collect()
}

/// One anchored, all-matches dense DFA whose pattern `i` is `patterns[i]`'s
/// prefix regex, serialized in native endianness (empty when no patterns).
fn prefix_dfa(step: Step, patterns: &[(String, Vec<u32>)]) -> Result<Vec<u8>, Error> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let regexes: Vec<String> = patterns
        .iter()
        .map(|(label, _)| Alternative::prefix_regex(label))
        .collect();
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Anchored)
                .dfa_size_limit(Some(64 << 20)),
        )
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(thompson::Config::new().utf8(false))
        .build_many(&regexes)
        .map_err(|e| Error::Automaton {
            what: format!("step `{}` ({} patterns)", step.as_str(), regexes.len()),
            message: e.to_string(),
        })?;
    let (bytes, pad) = dfa.to_bytes_native_endian();
    Ok(bytes[pad..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_automata::dfa::{Automaton, OverlappingState};
    use regex_automata::{Anchored, Input};

    #[test]
    fn prefix_dfa_round_trips_with_full_validation() {
        let patterns = vec![
            ("mcp".to_string(), vec![0]),
            ("mcp__github".to_string(), vec![1]),
        ];
        let bytes = prefix_dfa(Step::Pre, &patterns).unwrap();
        let mut aligned = vec![0u32; bytes.len().div_ceil(4)];
        let view = unsafe {
            std::slice::from_raw_parts_mut(aligned.as_mut_ptr().cast::<u8>(), bytes.len())
        };
        view.copy_from_slice(&bytes);
        let (dfa, _) = dense::DFA::from_bytes(view).unwrap();
        let matches = |name: &str| {
            let input = Input::new(name).anchored(Anchored::Yes);
            let mut state = OverlappingState::start();
            let mut found = Vec::new();
            loop {
                dfa.try_search_overlapping_fwd(&input, &mut state).unwrap();
                match state.get_match() {
                    None => break,
                    Some(m) if !found.contains(&m.pattern().as_usize()) => {
                        found.push(m.pattern().as_usize())
                    }
                    Some(_) => {}
                }
            }
            found.sort();
            found
        };
        assert_eq!(matches("mcp__github__create_pr"), vec![0, 1]);
        assert_eq!(matches("mcp__gitlab__x"), vec![0]);
        assert_eq!(matches("bash"), Vec::<usize>::new());
        assert_eq!(matches("xmcp__github__y"), Vec::<usize>::new());
    }
}
