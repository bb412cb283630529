//! Judging: which findings stand. `finders`: every finding stands. `classifier`:
//! each whole text is one finding, and the classifier confirms it or not.
//! `both`: the finders flag, the classifier confirms each finding. A
//! finding the classifier did not answer (unavailable, timed out) does not
//! stand, and is counted so the filter can say it passed unjudged.

use hookdex_model::FilterMode;

use super::finders::Finding;
use super::text::Unit;

/// The reason of a whole text asked about in mode `classifier`.
pub const WHOLE_TEXT: &str = "whole text";

/// What judging concluded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// The findings that stand, in order.
    pub confirmed: Vec<Finding>,
    /// How many findings the classifier did not answer.
    pub unanswered: usize,
}

/// The findings `mode` judges: the finders' `found`, or in mode
/// `classifier` each non-blank unit whole.
pub fn candidates(mode: FilterMode, units: &[Unit], found: Vec<Finding>) -> Vec<Finding> {
    match mode {
        FilterMode::Finders | FilterMode::Both => found,
        FilterMode::Classifier => units
            .iter()
            .enumerate()
            .filter(|(_, unit)| !unit.text.trim().is_empty())
            .map(|(unit, u)| Finding {
                unit,
                range: 0..u.text.len(),
                reason: WHOLE_TEXT.to_string(),
            })
            .collect(),
    }
}

/// Judges `findings` under `mode`.
pub fn judge(mode: FilterMode, findings: Vec<Finding>) -> Judged {
    match mode {
        FilterMode::Finders => Judged {
            confirmed: findings,
            unanswered: 0,
        },
        // The classifier lands with its own branch; until then it is
        // unavailable, and the text passes.
        FilterMode::Classifier | FilterMode::Both => Judged {
            confirmed: Vec::new(),
            unanswered: findings.len(),
        },
    }
}
