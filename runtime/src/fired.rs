//! A rule that fires for a call, copied out of the index ([`Fired`]) so it
//! runs after the mapping is released: a condition with what starts it, a
//! filter with its automata and resolved finders, a hook with its spec, an
//! enforcement with its entry, a guard with its automaton. [`crate::rules`] reads them.

use std::path::PathBuf;

use hookdex_model::{LayerKind, RuleKind, Runner};

use crate::filters::Filter;

/// A rule that fires, copied out of the index.
#[derive(Clone, Debug)]
pub struct Fired {
    /// Its file.
    pub file: PathBuf,
    /// Its file name.
    pub file_name: String,
    /// How a condition starts.
    pub runner: Runner,
    /// The interpreter its runner needs, as its index recorded it.
    pub interpreter: Option<PathBuf>,
    /// Whether it is `.async`.
    pub is_async: bool,
    /// Condition or filter.
    pub kind: RuleKind,
    /// Its layer's label.
    pub layer_label: String,
    /// Its layer's kind.
    pub layer_kind: LayerKind,
    /// The filter, for a filter.
    pub filter: Option<Box<Filter>>,
    /// The entry, for an enforcement.
    pub enforcement: Option<hookdex_index::EnforcementData>,
    /// The hook, for a `hooks.yaml` or `HOOK.md` rule.
    pub hook: Option<Box<hookdex_model::HookSpec>>,
    /// The guard, for a `.guard.yaml` rule.
    pub guard: Option<Box<hookdex_index::Guard>>,
    /// The name it goes by in the log and the answer: a condition's file
    /// name, a hook's source and label ([`crate::hooks::display`]).
    pub log_name: String,
    /// The program through which a `bash.<cli>` alternative made the rule
    /// fire (`None` for any other alternative): what the exec-time guard
    /// runs ([`crate::wrap::guard`]).
    pub program: Option<String>,
}

impl Fired {
    /// The name it goes by in the log and the answer: a condition's file
    /// name, a hook's source and label.
    pub fn name(&self) -> String {
        self.log_name.clone()
    }
}
