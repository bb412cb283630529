//! The hookdex runtime: everything the hook path needs once rules are compiled.
//!
//! It owns the index file format ([`index`]), the lookup that answers "what fires"
//! for one tool call, the shell-command splitter behind `bash.<cli>` matchers
//! ([`shell`]), the tool-name normalization table shared by every harness
//! ([`tool`]), the locations of state and cache ([`view`]), and the hook's
//! pipeline: harness payloads ([`payload`]), running conditions ([`exec`]),
//! reading their output ([`outcome`]), merging ([`answer`]) and replying in
//! each harness's format ([`harness`]).
//!
//! The compiler crate depends on this one for the index types and writes them;
//! nothing here parses rule files or builds automata.
#![deny(missing_docs)]

pub mod answer;
pub mod call;
mod error;
pub mod exec;
pub mod explain;
pub mod harness;
pub mod index;
pub mod log;
pub mod outcome;
pub mod payload;
pub mod rule;
pub mod shell;
pub mod tool;
pub mod trust;
pub mod view;

pub use crate::error::{Error, ErrorKind};
