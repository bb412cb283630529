//! Emitting: resolved rules, tables and diagnostics into the index's
//! [`IndexData`], and that into bytes.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use hookdex_index::{
    FinderScriptData, HookData, IndexData, InvalidData, LayerData, MetaData, OutFilterData,
    RuleData, Stamp, StepData, NO_LAYER,
};

use crate::error::RuleError;
use crate::formats::outfilter;
use crate::resolve::Resolved;
use crate::sources::{LayerSource, Sources, View};

/// The result of a compile.
#[derive(Debug)]
pub struct Compiled {
    /// What the index holds.
    pub data: IndexData,
    /// The serialized index.
    pub bytes: Vec<u8>,
}

/// A layer as scanned: its source, how many rules it held, and whether
/// its folders were read by file name only.
pub(crate) struct Layer<'s> {
    pub(crate) source: &'s LayerSource,
    pub(crate) count: u32,
    pub(crate) names_only: bool,
}

/// What one compile found besides its layers.
pub(crate) struct Found {
    /// The rules after override resolution, in execution order.
    pub(crate) resolved: Vec<Resolved>,
    /// The matching tables per step.
    pub(crate) steps: Vec<StepData>,
    /// Every stamp that decides freshness.
    pub(crate) stamps: Vec<(PathBuf, Stamp)>,
    /// Files that cannot be used, with their layer.
    pub(crate) invalid: Vec<(Option<u16>, RuleError)>,
    /// The scripts of the layers' `_finders` folders.
    pub(crate) finder_scripts: Vec<FinderScriptData>,
    /// The output filters of every layer read, with their layer.
    pub(crate) out_filters: Vec<(u16, outfilter::Found)>,
    /// The interpreters rules run with.
    pub(crate) interpreters: hookdex_model::Interpreters,
}

/// Everything one compile found, as index data and bytes.
pub(crate) fn emit(view: &View, sources: &Sources, layers: &[Layer<'_>], found: Found) -> Compiled {
    let Found {
        resolved,
        steps,
        stamps,
        interpreters,
        invalid,
        finder_scripts,
        out_filters,
    } = found;
    let mut filters = Vec::new();
    let mut enforcements = Vec::new();
    let mut hooks = Vec::new();
    let mut guards = Vec::new();
    let rules: Vec<RuleData> = resolved
        .into_iter()
        .enumerate()
        .map(|(id, r)| {
            if let Some(mut filter) = r.rule.filter {
                filter.rule = id as u32;
                filters.push(filter);
            }
            if let Some(mut entry) = r.rule.enforcement {
                entry.rule = id as u32;
                enforcements.push(entry);
            }
            if let Some(hook) = r.rule.hook {
                hooks.push(HookData {
                    rule: id as u32,
                    spec: hook.spec,
                    input: hook.input_dfa,
                });
            }
            if let Some(mut guard) = r.rule.guard {
                guard.rule = id as u32;
                guards.push(*guard);
            }
            let name = r.rule.name;
            RuleData {
                file: r.rule.file,
                layer: r.layer,
                layer_kind: layers[usize::from(r.layer)].source.kind,
                step: name.step,
                kind: name.kind,
                key: name.key,
                matcher: name.matcher,
                alternatives: name.alternatives,
                name: name.name,
                ext: name.ext,
                is_async: name.is_async,
                runner: r.rule.runner,
                overridden_by: r.overridden_by,
                shadowed_by_directory: r.shadowed_by_directory,
            }
        })
        .collect();
    let mut seen = HashSet::new();
    let paths = stamps
        .into_iter()
        .filter(|(path, _)| seen.insert(path.clone()))
        .collect();
    let data = IndexData {
        meta: MetaData {
            target: view.target.as_str().to_string(),
            home: view.home.display().to_string(),
            bundle: sources.bundle.as_ref().map(|b| b.display().to_string()),
            profiles: sources.profiles.clone(),
            repo_root: view.repo_root.as_ref().map(|r| r.display().to_string()),
            managed_dir: view.managed_dir.display().to_string(),
            directory_owner: sources.directory_owner.clone(),
            bundle_owner: sources.bundle_owner.clone(),
            trust_record: sources.trust_record.clone(),
            compiled_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            directory_names_only: layers.iter().any(|l| l.names_only),
            interpreters,
            shadowing: shadowing(&rules),
            invalid_persons: invalid
                .iter()
                .filter(|(layer, _)| {
                    layer.is_none_or(|l| layers[usize::from(l)].source.kind.is_persons())
                })
                .count() as u32,
        },
        paths,
        layers: layers
            .iter()
            .map(|layer| LayerData {
                kind: layer.source.kind,
                label: layer.source.label.clone(),
                dir: layer
                    .source
                    .dirs
                    .iter()
                    .map(|d| d.display())
                    .collect::<Vec<_>>()
                    .join(" + "),
                count: layer.count,
            })
            .collect(),
        rules,
        invalid: invalid
            .into_iter()
            .map(|(layer, e)| InvalidData {
                reason: e.kind.to_string(),
                file: e.file,
                layer: layer.unwrap_or(NO_LAYER),
                at: e.span,
            })
            .collect(),
        steps,
        filters,
        finder_scripts,
        out_filters: out_filter_records(out_filters, layers),
        enforcements,
        hooks,
        guards,
    };
    let bytes = data.to_bytes();
    Compiled { data, bytes }
}

/// How many of `rules` (in execution order, ids their positions) shadow
/// a shipped rule they override ([`hookdex_model::LayerKind::shadows`]).
fn shadowing(rules: &[RuleData]) -> u32 {
    let shadows = |rule: &RuleData| {
        let by = rules.get(rule.overridden_by? as usize)?;
        Some(by.layer_kind.shadows(by.layer, rule.layer_kind, rule.layer))
    };
    rules.iter().filter(|r| shadows(r) == Some(true)).count() as u32
}

/// The output filters as index records, in choosing order: descending
/// priority, then name, then layer from the highest. Of two filters of one
/// name in one layer, the one read last (the later folder or file) stands.
fn out_filter_records(
    found: Vec<(u16, outfilter::Found)>,
    layers: &[Layer<'_>],
) -> Vec<OutFilterData> {
    let mut standing: Vec<(u16, outfilter::Found)> = Vec::with_capacity(found.len());
    for (layer, f) in found {
        let same = |(l, s): &(u16, outfilter::Found)| *l == layer && s.name == f.name;
        match standing.iter_mut().find(|entry| same(entry)) {
            Some(entry) => *entry = (layer, f),
            None => standing.push((layer, f)),
        }
    }
    standing.sort_by(|(la, a), (lb, b)| (b.priority, &a.name, lb).cmp(&(a.priority, &b.name, la)));
    standing
        .into_iter()
        .map(|(layer, f)| {
            // The package's filters are the binary's: the index names them.
            let shipped =
                layers[usize::from(layer)].source.kind == hookdex_model::LayerKind::Package;
            OutFilterData {
                name: f.name,
                line: f.line,
                file: f.file,
                layer,
                min_size: u32::try_from(f.min_size).unwrap_or(u32::MAX),
                claim: if shipped {
                    Vec::new()
                } else {
                    f.claim.into_owned()
                },
                body: if shipped {
                    Vec::new()
                } else {
                    f.body.into_owned()
                },
                shipped,
            }
        })
        .collect()
}
