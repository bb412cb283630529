//! The hookdex compiler: rule sources → validated rules → index file.
//!
//! [`compile`] resolves the layers of a [`View`](hookdex_runtime::view::View)
//! (package, bundle, profiles, runtime, directory, managed), scans each
//! directory with the filename and matcher grammars, validates filter files,
//! resolves overrides, builds the matching automata and serializes everything
//! through the runtime's index format. A broken rule file never stops a
//! compile: it becomes an invalid entry with its reason.
#![deny(missing_docs)]

mod automata;
mod compile;
mod error;
pub mod filename;
pub mod filter;
pub mod git;
pub mod matcher;
pub mod package;
mod resolve;
mod scan;
pub mod sources;
mod tables;

pub use crate::compile::{compile, Compiled, NO_LAYER};
pub use crate::error::Error;
