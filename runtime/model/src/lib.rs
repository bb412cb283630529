//! The vocabulary every hookdex crate shares, with no I/O: lifecycle
//! [`Event`]s and the rule-file [`Step`]s that answer them, harness
//! [`Target`]s, [`LayerKind`]s, rule kinds and runners, permission
//! decisions, the trust and run verdicts, matcher [`Alternative`]s and
//! normalized [`ToolName`]s.
//!
//! The stable codes (`code`/`from_code`) are what the index file stores.
//!
//! ```
//! use hookdex_model::{Event, RunVerdict, Standing, LayerKind, Switches, Trust};
//!
//! assert_eq!(Event::PreToolUse.step().as_str(), "pre");
//! let stranger = Trust::decide(Some("github.com/stranger"), Some("github.com/acme"), "");
//! let rule = Standing { layer: LayerKind::Directory, overridden_by: None, shadowed_by_directory: false };
//! assert_eq!(RunVerdict::of(&rule, &stranger, Switches::ALL), RunVerdict::Untrusted);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod alternative;
mod answer;
mod error;
mod event;
mod hook;
mod layer;
mod permission;
mod rule;
mod target;
pub mod text;
mod tool;
mod trust;

pub use crate::alternative::Alternative;
pub use crate::answer::Answer;
pub use crate::error::{Error, ErrorKind};
pub use crate::event::{Event, Step};
pub use crate::hook::{HookAction, HookSpec, InputPattern, Requires};
pub use crate::layer::LayerKind;
pub use crate::permission::Permission;
pub use crate::rule::{FilterAction, FilterField, FilterMode, Interpreters, RuleKind, Runner};
pub use crate::target::Target;
pub use crate::tool::{ToolName, SYNTHETIC_TOOLS};
pub use crate::trust::{
    Decision, RecordedOrigin, RootFacts, RunVerdict, Seen, Sighting, Standing, Switches, Trust,
    TrustRecord, DEFAULT_FORGE,
};
