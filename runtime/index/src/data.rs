//! [`IndexData`]: the owned description of an index the compiler fills in,
//! and its serialization through each record module.

use hookdex_model::Step;
use zerocopy::IntoBytes;

use crate::enforcement::EnforcementData;
use crate::filter::{FilterData, FilterSections};
use crate::finder_script::FinderScriptData;
use crate::guard::GuardData;
use crate::header;
use crate::hook::HookData;
use crate::invalid::InvalidData;
use crate::layer::LayerData;
use crate::meta::MetaData;
use crate::outfilter::OutFilterData;
use crate::path::{self, Stamp};
use crate::rule::RuleData;
use crate::section::SectionId;
use crate::strings::Pool;
use crate::table::StepData;

/// Everything an index file holds, before serialization.
#[derive(Clone, Debug, Default)]
pub struct IndexData {
    /// The view the index was compiled for.
    pub meta: MetaData,
    /// Every recorded path with its stamp at compile time.
    pub paths: Vec<(std::path::PathBuf, Stamp)>,
    /// The layers, lowest priority first.
    pub layers: Vec<LayerData>,
    /// Every rule that parsed, in execution order (its position is its id).
    pub rules: Vec<RuleData>,
    /// Files that did not parse, with the reason.
    pub invalid: Vec<InvalidData>,
    /// Matching tables per step, indexed by [`Step::code`].
    pub steps: Vec<StepData>,
    /// Compiled filters, sorted by rule id.
    pub filters: Vec<FilterData>,
    /// The scripts of every layer's `_finders` folder (written sorted by
    /// name, then layer).
    pub finder_scripts: Vec<FinderScriptData>,
    /// Output filters, in choosing order (descending priority, then name,
    /// then layer from the highest).
    pub out_filters: Vec<OutFilterData>,
    /// `enforcements.json` entries, sorted by rule id.
    pub enforcements: Vec<EnforcementData>,
    /// `hooks.yaml` and `HOOK.md` hooks, sorted by rule id.
    pub hooks: Vec<HookData>,
    /// `.guard.yaml` guards, sorted by rule id.
    pub guards: Vec<GuardData>,
}

impl IndexData {
    /// The bytes of the index file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut pool = Pool::default();
        let meta = self.meta.record(&mut pool).as_bytes().to_vec();
        let mut paths = Vec::new();
        for (file, stamp) in &self.paths {
            paths.extend_from_slice(path::record(file, stamp, &mut pool).as_bytes());
        }
        let mut layers = Vec::new();
        for layer in &self.layers {
            layers.extend_from_slice(layer.record(&mut pool).as_bytes());
        }
        let (mut rules, mut alternatives) = (Vec::new(), Vec::new());
        for rule in &self.rules {
            rules.extend_from_slice(rule.record(&mut pool, &mut alternatives).as_bytes());
        }
        let mut invalid = Vec::new();
        for bad in &self.invalid {
            invalid.extend_from_slice(bad.record(&mut pool).as_bytes());
        }
        let (mut steps, mut names, mut postings) = (Vec::new(), Vec::new(), Vec::new());
        let mut pattern_sets = Vec::new();
        let (mut filters, mut finders, mut globs, mut dfas) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let empty = StepData::default();
        for step in Step::ALL {
            let data = self.steps.get(usize::from(step.code())).unwrap_or(&empty);
            let mut tables = crate::table::TableSections {
                pool: &mut pool,
                names: &mut names,
                postings: &mut postings,
                dfas: &mut dfas,
                pattern_sets: &mut pattern_sets,
            };
            steps.extend_from_slice(data.record(&mut tables).as_bytes());
        }
        for filter in &self.filters {
            let mut out = FilterSections {
                pool: &mut pool,
                finders: &mut finders,
                globs: &mut globs,
                dfas: &mut dfas,
            };
            filters.extend_from_slice(filter.record(&mut out).as_bytes());
        }
        let mut scripts: Vec<&FinderScriptData> = self.finder_scripts.iter().collect();
        scripts.sort_by(|a, b| (&a.name, a.layer).cmp(&(&b.name, b.layer)));
        let mut finder_scripts = Vec::new();
        for script in scripts {
            finder_scripts.extend_from_slice(script.record(&mut pool).as_bytes());
        }
        let (mut out_filters, mut out_filter_bytes) = (Vec::new(), Vec::new());
        for filter in &self.out_filters {
            let record = filter.record(&mut pool, &mut out_filter_bytes);
            out_filters.extend_from_slice(record.as_bytes());
        }
        let mut enforcements = Vec::new();
        for entry in &self.enforcements {
            enforcements.extend_from_slice(entry.record(&mut pool).as_bytes());
        }
        let (mut hooks, mut hook_strings) = (Vec::new(), Vec::new());
        for hook in &self.hooks {
            let record = hook.record(&mut pool, &mut hook_strings, &mut dfas);
            hooks.extend_from_slice(record.as_bytes());
        }
        let mut guards = Vec::new();
        for guard in &self.guards {
            let record = guard.record(&mut pool, &mut hook_strings, &mut dfas);
            guards.extend_from_slice(record.as_bytes());
        }
        let hook_strings = hook_strings.as_bytes();
        header::assemble(&[
            (SectionId::Meta, &meta),
            (SectionId::Strings, &pool.bytes),
            (SectionId::Paths, &paths),
            (SectionId::Layers, &layers),
            (SectionId::Rules, &rules),
            (SectionId::Alternatives, &alternatives),
            (SectionId::Invalid, &invalid),
            (SectionId::Steps, &steps),
            (SectionId::Names, &names),
            (SectionId::Postings, &postings),
            (SectionId::Filters, &filters),
            (SectionId::Finders, &finders),
            (SectionId::Globs, &globs),
            (SectionId::Dfa, &dfas),
            (SectionId::FinderScripts, &finder_scripts),
            (SectionId::OutFilters, &out_filters),
            (SectionId::OutFilterBytes, &out_filter_bytes),
            (SectionId::Enforcements, &enforcements),
            (SectionId::Hooks, &hooks),
            (SectionId::PatternSets, &pattern_sets),
            (SectionId::HookStrings, hook_strings),
            (SectionId::Guards, &guards),
        ])
    }
}
