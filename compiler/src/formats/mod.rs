//! Rule formats. Each module reads one kind of rule source and yields
//! [`RuleSpec`]s, the one rule representation the rest of the compiler
//! resolves, tables and emits; adding a format adds a module here and
//! nothing in the engine beyond the rule kind it runs.

pub mod cases;
pub mod claude_permissions;
pub mod conditions;
pub mod enforcements;
pub mod filename;
pub mod filter;
pub mod finder_dir;
pub mod guard;
pub mod hook_md;
pub mod hooks_yaml;
pub mod matcher;
pub mod outfilter;
pub mod source;
pub mod syntax;

use hookdex_index::{EnforcementData, FilterData};
use hookdex_model::{HookSpec, Runner};

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
    /// The entry, for an `enforcements.json` rule.
    pub enforcement: Option<EnforcementData>,
    /// The hook, for a `hooks.yaml` or `HOOK.md` rule.
    pub hook: Option<Box<HookRule>>,
    /// The compiled guard, for `.guard.yaml` files.
    pub guard: Option<Box<hookdex_index::GuardData>>,
}

/// A `hooks.yaml` or `HOOK.md` hook as compiled.
#[derive(Clone, Debug)]
pub struct HookRule {
    /// What the hook reads when it fires.
    pub spec: HookSpec,
    /// Its group's tool-name matcher, for the step tables.
    pub names: NameMatcher,
    /// Its input matcher's DFA, one pattern per [`HookSpec::input`] entry
    /// (empty when it has none).
    pub input_dfa: Vec<u8>,
}

/// A `hooks.yaml` group's `matcher`, as the step tables take it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameMatcher {
    /// Omitted, `""` or `*`: every call of the step.
    Any,
    /// An alternation of plain names, each compared case-sensitively with
    /// the harness's tool name and the normalized one.
    Names(Vec<String>),
    /// Any other text: a regex that must match one of those names whole.
    Pattern(String),
}
