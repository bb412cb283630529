//! `list` and `show` as data: the layers with their trust, every rule that
//! is not overridden with its [`RunVerdict`], the finder scripts with the
//! one of each name that runs, the output filters with the one of each name
//! that stands, the files that did not parse, and the
//! [`lint`] warnings about the rules and scripts listed.

use hookdex_index::{FinderScript, Index, Invalid, Layer, OutFilter, Rule};
use hookdex_model::{LayerKind, RunVerdict, Step, Trust};

use crate::lint::{self, Warning};
use crate::lookup;
use crate::settings::Settings;

/// What `hookdex list` shows.
#[derive(Clone, Debug)]
pub struct Listing<'a> {
    /// The directory layer's trust verdict.
    pub trust: Trust,
    /// Every layer, with whether its rules may run (only the directory
    /// layer can be untrusted).
    pub layers: Vec<(Layer<'a>, bool)>,
    /// Rules not overridden, in execution order, with their verdict.
    pub active: Vec<(Rule<'a>, RunVerdict)>,
    /// Every layer's `_finders` scripts, by name then layer, each with
    /// whether it is the one of its name that runs here.
    pub finders: Vec<(FinderScript<'a>, bool)>,
    /// Every layer's output filters, in choosing order, each with whether it
    /// is the one of its name that stands here.
    pub out_filters: Vec<(OutFilter<'a>, bool)>,
    /// Files that did not parse.
    pub invalid: Vec<Invalid<'a>>,
    /// Warnings about the active rules, in their order.
    pub warnings: Vec<Warning<'a>>,
}

/// The listing of `index` under `settings`, limited to `step` if given.
///
/// # Errors
///
/// When the index is damaged.
pub fn listing<'a>(
    index: &Index<'a>,
    settings: &Settings,
    step: Option<Step>,
) -> Result<Listing<'a>, hookdex_index::Error> {
    let trust = settings.trust(&index.meta()?);
    let mut layers = Vec::with_capacity(index.layer_count());
    for i in 0..index.layer_count() {
        let layer = index.layer(i)?;
        let trusted = layer.kind != LayerKind::Directory || trust.is_trusted();
        layers.push((layer, trusted));
    }
    let mut active = Vec::new();
    let mut warnings = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let rule = index.rule(id)?;
        let verdict = lookup::verdict(&rule, &trust, settings.switches());
        let overridden = matches!(verdict, RunVerdict::Overridden { .. });
        if !overridden && step.is_none_or(|s| s == rule.step) {
            warnings.extend(lint::rule_warnings(index, &rule)?);
            warnings.extend(lint::reach_warning(settings.view.target, &rule));
            active.push((rule, verdict));
        }
    }
    for (layer, _) in &layers {
        warnings.extend(lint::permission_warning(layer.dir));
    }
    for (rule, _) in &active {
        warnings.extend(lint::permission_warning(rule.file));
    }
    let mut finders = Vec::with_capacity(index.finder_script_count());
    for i in 0..index.finder_script_count() {
        let script = index.finder_script(i)?;
        let chosen = lookup::finder_script(index, script.name, &trust, settings.switches())?;
        warnings.extend(lint::permission_warning(script.file));
        finders.push((script, chosen.is_some_and(|(c, _)| c == script)));
    }
    let stands = crate::outfilters::standing(index, &trust, settings.switches())?;
    let mut out_filters = Vec::with_capacity(stands.len());
    for (i, stands) in stands.into_iter().enumerate() {
        out_filters.push((index.out_filter(i)?, stands));
    }
    let mut invalid = Vec::with_capacity(index.invalid_count());
    for i in 0..index.invalid_count() {
        invalid.push(index.invalid(i)?);
    }
    Ok(Listing {
        trust,
        layers,
        active,
        finders,
        out_filters,
        invalid,
        warnings,
    })
}

/// The rules `name` designates among those `list` shows (not
/// overridden), each with its layer's label. A name is the override key,
/// the file name with or without its extension, the name part, or the
/// path, each optionally after `LAYER/` (as `explain` spells an override:
/// `runtime/pre-bash.git-guard.sh`); letter case aside, except for paths.
/// A rule an untrusted repository holds back counts only when no other
/// rule has the name (so a name shadowed by an untrusted repository's
/// rule still designates the rule that runs).
///
/// # Errors
///
/// When the index is damaged.
pub fn find<'a>(
    index: &Index<'a>,
    settings: &Settings,
    name: &str,
) -> Result<Vec<(Rule<'a>, &'a str)>, hookdex_index::Error> {
    let trust = settings.trust(&index.meta()?);
    let mut found = Vec::new();
    let mut untrusted = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let rule = index.rule(id)?;
        let verdict = lookup::verdict(&rule, &trust, settings.switches());
        if matches!(verdict, RunVerdict::Overridden { .. }) {
            continue;
        }
        let label = index.layer(usize::from(rule.layer))?.label;
        let unlayered = name
            .strip_prefix(label)
            .and_then(|rest| rest.strip_prefix('/'));
        if names(&rule, name) || unlayered.is_some_and(|rest| names(&rule, rest)) {
            match verdict {
                RunVerdict::Untrusted => untrusted.push((rule, label)),
                _ => found.push((rule, label)),
            }
        }
    }
    Ok(if found.is_empty() { untrusted } else { found })
}

/// Whether `name` is one of `rule`'s names (see [`find`]).
fn names(rule: &Rule<'_>, name: &str) -> bool {
    let file_name = rule.file_name();
    let stem = file_name
        .strip_suffix(rule.ext)
        .and_then(|s| s.strip_suffix('.'))
        .unwrap_or(file_name);
    rule.key.eq_ignore_ascii_case(name)
        || file_name.eq_ignore_ascii_case(name)
        || stem.eq_ignore_ascii_case(name)
        || rule.name.eq_ignore_ascii_case(name)
        || rule.file == name
}
