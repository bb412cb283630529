//! "What fires": the index's candidates for a call, each judged by
//! [`RunVerdict`]. The hook, `explain`, `list` and `show` all ask here.

use hookdex_index::{Error, Hit, Index, Query, Rule};
use hookdex_model::{RunVerdict, Trust};

/// A candidate rule with its verdict.
#[derive(Clone, Debug)]
pub struct Judged<'a> {
    /// Why it is a candidate.
    pub hit: Hit<'a>,
    /// The rule.
    pub rule: Rule<'a>,
    /// Whether it runs here.
    pub verdict: RunVerdict,
}

/// The verdict for `rule` under `trust`, with conditions `enabled` or not.
pub fn verdict(rule: &Rule<'_>, trust: &Trust, enabled: bool) -> RunVerdict {
    RunVerdict::of(&rule.standing(), trust, enabled)
}

/// Every candidate of `query`, in execution order, with its verdict.
fn judge<'a>(
    index: &Index<'a>,
    query: &Query<'_>,
    trust: &Trust,
    enabled: bool,
) -> Result<Vec<Judged<'a>>, Error> {
    index
        .candidates(query)?
        .into_iter()
        .map(|hit| {
            let rule = index.rule(hit.rule)?;
            let verdict = verdict(&rule, trust, enabled);
            Ok(Judged { hit, rule, verdict })
        })
        .collect()
}

/// The rules that run for `query`, in execution order.
///
/// # Errors
///
/// When a block the lookup reads is damaged.
pub fn fires<'a>(
    index: &Index<'a>,
    query: &Query<'_>,
    trust: &Trust,
    enabled: bool,
) -> Result<Vec<Judged<'a>>, Error> {
    let mut judged = judge(index, query, trust, enabled)?;
    judged.retain(|j| j.verdict.runs());
    Ok(judged)
}
