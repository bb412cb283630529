//! The hookdex compiler: rule sources → validated rules → index file.
//!
//! [`compile`] resolves the layers of a [`View`] (package, bundle, profiles,
//! runtime, directory, managed: [`sources`]), reads each with its rule
//! format ([`formats`]: every format yields [`formats::RuleSpec`]s),
//! resolves overrides, builds the matching tables and the automata (the one
//! place DFAs are built), and emits the index through `hookdex-index`. A
//! rule file that cannot be used never stops a compile: it becomes an
//! invalid entry with a [`RuleError`] saying where and why.
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod automata;
mod compile;
mod emit;
mod error;
pub mod formats;
pub mod interpreters;
mod resolve;
pub mod sources;
mod tables;
mod validate;

pub use crate::compile::{compile, Compiled};
pub use crate::error::{RuleError, RuleErrorKind};
pub use crate::sources::{Scope, View, SYSTEM_MANAGED_DIR};
pub use crate::validate::validate_file;
