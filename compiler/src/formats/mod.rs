//! Rule formats. Each module reads one kind of rule source and yields
//! [`RuleSpec`]s, the one rule representation the rest of the compiler
//! resolves, tables and emits; adding a format adds a module here and
//! nothing in the engine beyond the rule kind it runs.

pub mod conditions;
pub mod filename;
pub mod filter;
pub mod finder_dir;
pub mod matcher;
pub mod outfilter;
pub mod syntax;

use hookdex_index::FilterData;
use hookdex_model::Runner;

use self::filename::RuleName;

/// A rule as a format read it, before override resolution gives it an id.
#[derive(Clone, Debug)]
pub struct RuleSpec {
    /// Full path (package rules: their materialized path).
    pub file: String,
    /// The file name alone, which orders execution within a layer.
    pub file_name: String,
    /// Position of its directory within the layer (later wins a shared key).
    pub dir_index: usize,
    /// The parsed name: step, matcher alternatives, key, kind.
    pub name: RuleName,
    /// How it runs.
    pub runner: Runner,
    /// The compiled filter, for `.filter.yaml` files.
    pub filter: Option<FilterData>,
}
