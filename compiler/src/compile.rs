//! One compile: resolve the sources of a view, read each layer's rules with
//! its format, resolve overrides, build the matching tables, and emit the
//! index.

use hookdex_index::Stamp;
use hookdex_model::LayerKind;

use crate::emit::{self, Layer};
use crate::error::RuleError;
use crate::formats::conditions;
use crate::resolve;
use crate::sources::{self, package, View};
use crate::tables;

pub use crate::emit::Compiled;

/// Compiles every layer of `view` into index bytes. Nothing is written to
/// disk except materialized package rules; a rule file that cannot be used
/// becomes an invalid entry with its reason and never stops the others.
pub fn compile(view: &View) -> Compiled {
    let started = std::time::SystemTime::now();
    let sources = sources::resolve(view);
    let package_root = package::materialized_root(&view.cache_dir);
    let mut stamps = sources.recorded.clone();
    let mut invalid: Vec<(Option<u16>, RuleError)> =
        sources.problems.iter().map(|p| (None, p.clone())).collect();
    let mut layers = Vec::with_capacity(sources.layers.len());
    let mut specs = Vec::with_capacity(sources.layers.len());
    for (i, layer) in sources.layers.iter().enumerate() {
        let mut rules = Vec::new();
        for (dir_index, dir) in layer.dirs.iter().enumerate() {
            let scanned = conditions::scan(dir, dir_index, &package_root);
            stamps.extend(scanned.stamps);
            invalid.extend(scanned.invalid.into_iter().map(|e| (Some(i as u16), e)));
            rules.extend(scanned.rules);
        }
        layers.push(Layer {
            source: layer,
            count: rules.len() as u32,
        });
        specs.push(rules);
    }
    let directory = sources
        .layers
        .iter()
        .position(|l| l.kind == LayerKind::Directory)
        .map(|i| i as u16);
    let resolved = resolve::resolve(specs, directory);
    let steps = tables::build(&resolved);
    // A path changed within a timestamp tick of this compile could change
    // again unseen: recorded as racy, it makes the next call compile again.
    let stamps = stamps
        .into_iter()
        .map(|(path, stamp)| {
            let stamp = if stamp.is_racy(started) {
                Stamp::RACY
            } else {
                stamp
            };
            (path, stamp)
        })
        .collect();
    emit::emit(view, &sources, &layers, resolved, steps, stamps, invalid)
}
