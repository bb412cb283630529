//! "What fires": the index's candidates for a call, each judged by
//! [`RunVerdict`]. The hook, `explain`, `list` and `show` all ask here.

use hookdex_index::{Error, Hit, Index, Query, Rule};
use hookdex_model::{RunVerdict, Switches, Trust};

/// The verdict for `rule` under `trust` and `switches`.
pub fn verdict(rule: &Rule<'_>, trust: &Trust, switches: Switches) -> RunVerdict {
    RunVerdict::of(&rule.standing(), trust, switches)
}

/// The candidates of `query` that run, in execution order. Only what the
/// verdict needs is read per candidate; [`Index::rule`] reads the rest.
///
/// # Errors
///
/// When a block the lookup reads is damaged.
pub fn fires<'a>(
    index: &Index<'a>,
    query: &Query<'_>,
    trust: &Trust,
    switches: Switches,
) -> Result<Vec<Hit<'a>>, Error> {
    let mut hits = index.candidates(query)?;
    let mut damage = None;
    hits.retain(|hit| match index.standing(hit.rule) {
        Ok(standing) => RunVerdict::of(&standing, trust, switches).runs(),
        Err(err) => {
            damage.get_or_insert(err);
            false
        }
    });
    match damage {
        Some(err) => Err(err),
        None => Ok(hits),
    }
}
