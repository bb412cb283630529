//! "What fires": the index's candidates for a call, each judged by
//! [`RunVerdict`]. The hook, `explain`, `list` and `show` all ask here;
//! so do filters, for the finder script of a name that runs.

use hookdex_index::{Error, FinderScript, Hit, Index, Query, Rule};
use hookdex_model::{LayerKind, RunVerdict, Standing, Switches, Trust};

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

/// The script of the finder `name` that runs under `trust` and `switches`,
/// with its layer's kind: of the layers whose `_finders` folder has one,
/// the highest whose rules run (a script overrides no rule, so only its
/// layer's standing counts: an untrusted repository's script does not run,
/// and a lower layer's stands instead). `None` when no layer that runs has one.
///
/// # Errors
///
/// When a record it reads is damaged.
pub fn finder_script<'a>(
    index: &Index<'a>,
    name: &str,
    trust: &Trust,
    switches: Switches,
) -> Result<Option<(FinderScript<'a>, LayerKind)>, Error> {
    for script in index.finder_scripts(name)?.into_iter().rev() {
        let layer = index.layer(usize::from(script.layer))?.kind;
        if layer_runs(layer, trust, switches) {
            return Ok(Some((script, layer)));
        }
    }
    Ok(None)
}

/// Whether a layer of kind `layer` runs under `trust` and `switches`: the
/// standing of what a layer holds apart from rules (finder scripts, output
/// filters), which overrides no rule, so only its layer counts.
pub fn layer_runs(layer: LayerKind, trust: &Trust, switches: Switches) -> bool {
    let standing = Standing {
        layer,
        overridden_by: None,
        shadowed_by_directory: false,
    };
    RunVerdict::of(&standing, trust, switches).runs()
}
