//! The hookdex runtime: everything the hook path needs once rules are compiled.
//!
//! It owns the index file format ([`index`]), the lookup that answers "what fires"
//! for one tool call, the shell-command splitter behind `bash.<cli>` matchers
//! ([`shell`]), the tool-name normalization table shared by every harness
//! ([`tool`]), and the locations of state and cache ([`view`]).
//!
//! The compiler crate depends on this one for the index types and writes them;
//! nothing here parses rule files or builds automata.
#![deny(missing_docs)]

pub mod call;
mod error;
pub mod explain;
pub mod index;
pub mod rule;
pub mod shell;
pub mod tool;
pub mod trust;
pub mod view;

pub use crate::error::{Error, ErrorKind};
