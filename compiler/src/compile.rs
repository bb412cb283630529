//! One compile: resolve the layers of a view, scan them, resolve overrides,
//! build the matching tables, and produce the index bytes.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use hookdex_runtime::index::{IndexData, InvalidData, LayerData, MetaData, RuleData, Stamp};
use hookdex_runtime::rule::LayerKind;
use hookdex_runtime::view::View;

use crate::error::Error;
use crate::package;
use crate::resolve;
use crate::scan;
use crate::sources;
use crate::tables;

/// The result of a compile.
#[derive(Debug)]
pub struct Compiled {
    /// What the index holds.
    pub data: IndexData,
    /// The serialized index.
    pub bytes: Vec<u8>,
}

impl Compiled {
    /// Files that did not parse, as `(file, reason)`.
    pub fn invalid(&self) -> impl Iterator<Item = (&str, &str)> {
        self.data
            .invalid
            .iter()
            .map(|i| (i.file.as_str(), i.reason.as_str()))
    }
}

/// The layer index used for problems that belong to no layer (`state.json`, a missing profile).
pub const NO_LAYER: u16 = u16::MAX;

/// Compiles every layer of `view` into index bytes. Nothing is written to
/// disk except materialized package rules.
///
/// # Errors
///
/// Only when an automaton cannot be built; problems with rule files become
/// invalid entries instead.
pub fn compile(view: &View) -> Result<Compiled, Error> {
    let sources = sources::resolve(view);
    let package_root = package::materialized_root(&view.cache_dir);
    let mut stamps: Vec<(PathBuf, Stamp)> = sources.recorded.clone();
    let mut invalid: Vec<InvalidData> = sources
        .problems
        .iter()
        .map(|(file, reason)| InvalidData {
            file: file.clone(),
            layer: NO_LAYER,
            reason: reason.clone(),
        })
        .collect();
    let mut layers = Vec::with_capacity(sources.layers.len());
    let mut scanned_layers = Vec::with_capacity(sources.layers.len());
    for (i, layer) in sources.layers.iter().enumerate() {
        let mut rules = Vec::new();
        for (dir_index, dir) in layer.dirs.iter().enumerate() {
            let scanned = scan::scan(dir, dir_index, &package_root);
            stamps.extend(scanned.stamps);
            invalid.extend(
                scanned
                    .invalid
                    .into_iter()
                    .map(|(file, reason)| InvalidData {
                        file,
                        layer: i as u16,
                        reason,
                    }),
            );
            rules.extend(scanned.rules);
        }
        layers.push(LayerData {
            kind: layer.kind,
            label: layer.label.clone(),
            dir: layer
                .dirs
                .iter()
                .map(|d| d.display())
                .collect::<Vec<_>>()
                .join(" + "),
            count: rules.len() as u32,
        });
        scanned_layers.push(rules);
    }
    let directory = sources
        .layers
        .iter()
        .position(|l| l.kind == LayerKind::Directory)
        .map(|i| i as u16);
    let resolved = resolve::resolve(scanned_layers, directory);
    let steps = tables::build(&resolved);
    let directory_rules = id_range(&resolved, &sources.layers, LayerKind::Directory);
    let mut filters = Vec::new();
    let rules = resolved
        .into_iter()
        .enumerate()
        .map(|(id, r)| {
            if let Some(mut filter) = r.rule.filter {
                filter.rule = id as u32;
                filters.push(filter);
            }
            RuleData {
                file: r.rule.file,
                layer: r.layer,
                step: r.rule.name.step,
                kind: r.rule.name.kind,
                key: r.rule.name.key,
                matcher: r.rule.name.matcher,
                name: r.rule.name.name,
                ext: r.rule.name.ext,
                is_async: r.rule.name.is_async,
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
        .map(|(path, stamp)| (path.display().to_string(), stamp))
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
            directory_rules,
            compiled_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        },
        paths,
        layers,
        rules,
        invalid,
        steps,
        filters,
    };
    let bytes = data.to_bytes();
    Ok(Compiled { data, bytes })
}

/// The `[start, end)` ids of the rules of the layer of `kind` (empty when absent).
fn id_range(
    resolved: &[resolve::Resolved],
    layers: &[sources::LayerSource],
    kind: LayerKind,
) -> (u32, u32) {
    let ids: Vec<u32> = resolved
        .iter()
        .enumerate()
        .filter(|(_, r)| layers[usize::from(r.layer)].kind == kind)
        .map(|(i, _)| i as u32)
        .collect();
    match (ids.first(), ids.last()) {
        (Some(&first), Some(&last)) => (first, last + 1),
        _ => (0, 0),
    }
}
