//! The owned description of an index that the compiler fills in and
//! [`IndexData::to_bytes`](super::IndexData::to_bytes) serializes.

use crate::index::Stamp;
use crate::rule::{FilterAction, FilterMode, LayerKind, RuleKind, Runner, Step};

/// Everything an index file holds, before serialization.
#[derive(Clone, Debug, Default)]
pub struct IndexData {
    /// The view the index was compiled for.
    pub meta: MetaData,
    /// Every recorded path with its stamp at compile time.
    pub paths: Vec<(String, Stamp)>,
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
}

/// The view and trust facts recorded with an index.
#[derive(Clone, Debug, Default)]
pub struct MetaData {
    /// Target name.
    pub target: String,
    /// `$HOOKDEX_HOME`.
    pub home: String,
    /// The bundle directory, if one is linked.
    pub bundle: Option<String>,
    /// Profile names of the chain, in order.
    pub profiles: Vec<String>,
    /// The repository root, if the view is inside one.
    pub repo_root: Option<String>,
    /// The managed directory.
    pub managed_dir: String,
    /// The repository's `origin` owner (lowercased), if it has an origin.
    pub directory_owner: Option<String>,
    /// The bundle's `origin` owner (lowercased), if it has one.
    pub bundle_owner: Option<String>,
    /// The ids `[start, end)` of the directory layer's rules (contiguous by construction).
    pub directory_rules: (u32, u32),
    /// Compile time, milliseconds since the epoch.
    pub compiled_at_ms: u64,
}

/// One layer: a labelled directory of rules.
#[derive(Clone, Debug)]
pub struct LayerData {
    /// Which kind of layer.
    pub kind: LayerKind,
    /// `package`, `bundle`, `profile:<name>`, `runtime`, `directory` or `managed`.
    pub label: String,
    /// The directory read (for the package layer, `package:rules/...`).
    pub dir: String,
    /// Rule files found (active or overridden).
    pub count: u32,
}

/// One rule file that parsed.
#[derive(Clone, Debug)]
pub struct RuleData {
    /// The path of the file (package rules: where they were materialized).
    pub file: String,
    /// Index into [`IndexData::layers`].
    pub layer: u16,
    /// The step.
    pub step: Step,
    /// Condition or filter.
    pub kind: RuleKind,
    /// The override key `<step>-<matcher>-<name>`, lowercased.
    pub key: String,
    /// The matcher as written, lowercased (empty for `prompt` and `stop`).
    pub matcher: String,
    /// The name part.
    pub name: String,
    /// The extension (`sh`, `py`, `filter.yaml`, …).
    pub ext: String,
    /// Whether the file is `.async`.
    pub is_async: bool,
    /// How the script is started.
    pub runner: Runner,
    /// The rule that replaces this one, if it is overridden.
    pub overridden_by: Option<u32>,
    /// Replaced only by a directory-layer rule, so active while the repository is untrusted.
    pub shadowed_by_directory: bool,
}

/// A rule file that did not parse.
#[derive(Clone, Debug)]
pub struct InvalidData {
    /// The path of the file.
    pub file: String,
    /// Index into [`IndexData::layers`].
    pub layer: u16,
    /// Why it is invalid, one line.
    pub reason: String,
}

/// The matching tables of one step. Every posting is a sorted list of active rule ids.
#[derive(Clone, Debug, Default)]
pub struct StepData {
    /// Rules whose matcher has `any`.
    pub any: Vec<u32>,
    /// Exact normalized names (tools, `mcp__s__t`, event field values) and their rules.
    pub names: Vec<(String, Vec<u32>)>,
    /// `bash.<cli>` program names and their rules.
    pub programs: Vec<(String, Vec<u32>)>,
    /// Prefix alternatives (`mcp`, `mcp__server`) and their rules.
    pub prefixes: Vec<(String, Vec<u32>)>,
}

/// One compiled `.filter.yaml` rule.
#[derive(Clone, Debug)]
pub struct FilterData {
    /// The rule id of the filter.
    pub rule: u32,
    /// `mode`.
    pub mode: FilterMode,
    /// `action`.
    pub action: FilterAction,
    /// `fields`, as a [`FilterField`](crate::rule::FilterField) bit set (0 = every field).
    pub fields: u8,
    /// `max_rounds`.
    pub max_rounds: u32,
    /// `intent`.
    pub intent: String,
    /// `intent_from`.
    pub intent_from: Option<String>,
    /// `question`.
    pub question: Option<String>,
    /// `paths`, compiled into one or more glob sets (empty: every path).
    pub globs: Vec<GlobSetData>,
    /// `finders`, in order.
    pub finders: Vec<FinderData>,
}

/// Some of a filter's `paths` globs compiled into one DFA.
#[derive(Clone, Debug)]
pub struct GlobSetData {
    /// The globs as written.
    pub globs: Vec<String>,
    /// An anchored dense DFA matching any of them, native endianness.
    pub dfa: Vec<u8>,
}

/// One finder of a filter.
#[derive(Clone, Debug)]
pub enum FinderData {
    /// An inline regex, compiled into a forward and a reverse dense DFA.
    Regex {
        /// The regex as written.
        source: String,
        /// The reason attached to each finding.
        reason: Option<String>,
        /// Forward DFA, native endianness.
        forward: Vec<u8>,
        /// Reverse DFA, native endianness.
        reverse: Vec<u8>,
    },
    /// A named finder: built in, or a `_finders/<name>` script.
    Script {
        /// The finder's name.
        name: String,
        /// The reason attached to each finding.
        reason: Option<String>,
    },
}
