//! Rule formats. Each module reads one kind of rule source and yields
//! [`RuleSpec`]s, the one rule representation the rest of the compiler
//! resolves, tables and emits; adding a format adds a module here and
//! nothing in the engine beyond the rule kind it runs.

pub mod conditions;
pub mod enforcements;
pub mod filename;
pub mod filter;
pub mod finder_dir;
pub mod hook_md;
pub mod hooks_yaml;
pub mod matcher;
pub mod outfilter;
pub mod syntax;

use std::path::{Path, PathBuf};

use hookdex_index::{EnforcementData, FilterData, Stamp, StampKind};
use hookdex_model::{HookSpec, Runner};

use crate::error::{RuleError, RuleErrorKind};

use self::filename::RuleName;

/// The text of a source file that is not a conditions folder's (an
/// output-filter file, `enforcements.json`): stamped whatever it is, so
/// its creation or removal recompiles; read only when it is a regular
/// file of at most [`MAX_RULE_BYTES`](conditions::MAX_RULE_BYTES) that
/// does not leave `root`, as UTF-8. What is wrong goes to `invalid`;
/// `None` when there is nothing to read.
pub(crate) fn read_source(
    path: &Path,
    root: &Path,
    stamps: &mut Vec<(PathBuf, Stamp)>,
    invalid: &mut Vec<RuleError>,
) -> Option<String> {
    use crate::sources::confine::{self, Place};
    let shown = path.display().to_string();
    if let Place::Leaves(to) = confine::place(path, root) {
        stamps.push((path.to_path_buf(), Stamp::of_link(path)));
        invalid.push(RuleError::new(shown, RuleErrorKind::LinkLeaves { to }));
        return None;
    }
    let stamp = Stamp::of(path);
    stamps.push((path.to_path_buf(), stamp));
    let refused = match stamp.kind {
        StampKind::Absent => return None,
        StampKind::File => None,
        StampKind::Dir => Some(RuleErrorKind::Directory),
        _ => Some(RuleErrorKind::Special),
    };
    if let Some(kind) = refused {
        invalid.push(RuleError::new(shown, kind));
        return None;
    }
    let limit = conditions::MAX_RULE_BYTES;
    let bytes = match confine::read_regular(path, limit) {
        Ok(bytes) => bytes,
        Err(err) => {
            let kind = match err.kind() {
                std::io::ErrorKind::FileTooLarge => RuleErrorKind::TooLarge { limit },
                _ => RuleErrorKind::Unreadable(err.to_string()),
            };
            invalid.push(RuleError::new(shown, kind));
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(_) => {
            invalid.push(RuleError::new(shown, RuleErrorKind::NotUtf8));
            None
        }
    }
}

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
