//! The hookdex engine: everything between an index file and a harness
//! reply. It owns load-or-recompile ([`load`]), the settings read once from
//! the environment ([`settings`]), "what fires" ([`lookup`], the one place
//! that applies [`hookdex_model::RunVerdict`]), the hook pipeline as a
//! library function ([`hook::hook`]), the condition script contract
//! (`contract`), running scripts ([`exec`]) with nothing they start
//! outliving the hook ([`procs`]), reading their answers
//! (`outcome`) and merging them (`merge`), the filters that run after
//! the conditions ([`filters`], copied out of the index with the rest of
//! what fires by `rules` as `fired`), `list`, `explain` and `show` as
//! data ([`report`]) with `list`'s warnings ([`lint`]), shared state ([`state`]) and the
//! hook log ([`log`]).
//!
//! The modules the binary, the MCP server and the tests reach are public;
//! the rest (`contract`, `fired`, `hooks`, `merge`, `outcome`, `rules`) are
//! the pipeline's own and stay private.
//!
//! The flow is one way: sources → compiler → index file → this engine →
//! harness reply; the engine calls the compiler only to recompile a stale
//! or damaged index.
#![deny(missing_docs)]
// `unsafe` is allowed only in `exec` and `procs` (process groups, reaping,
// signals) and in `report::status`'s local clock (`localtime_r`), each
// block argued there.
#![deny(unsafe_code)]

pub mod call;
mod contract;
mod error;
pub mod exec;
mod exited;
pub mod filters;
mod fired;
pub mod gate;
pub mod guards;
pub mod hook;
mod hooks;
pub mod lint;
pub mod load;
pub mod log;
pub mod lookup;
mod merge;
mod outcome;
pub mod outfilters;
mod pipes;
pub mod procs;
pub mod report;
mod rules;
pub mod settings;
mod spawn;
pub mod state;
pub mod wrap;

pub use crate::error::{Error, ErrorKind};
