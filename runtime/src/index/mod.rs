//! The index file: one memory-mapped file per view that answers "what fires".
//!
//! # Layout
//!
//! All integers are little-endian except the serialized DFAs, which are in the
//! writer's native endianness (the header records it, and a reader on another
//! endianness treats the file as foreign and recompiles).
//!
//! ```text
//! header (104 bytes)
//!   magic "HOOKDEX\0" · format version u32 · endian mark u32 (native)
//!   total length u64 · section count u32 · reserved u32
//!   header hash u64 (xxh3 of everything after it up to the end of the section table)
//!   automata tag [32] · hookdex version [32]
//! section table: per section  id u32 · reserved u32 · offset u64 · length u64 · hashes offset u64
//! sections, each 8-aligned, followed by its block hashes (xxh3 per 1 KiB block)
//! ```
//!
//! Sections hold fixed-size records and a shared string pool; nothing is
//! decoded whole. A reader verifies a block's hash the first time it touches
//! the block, so a lookup pays for the few blocks it reads, not for the size of
//! the index, and any bit flip in what it reads means "recompile", never
//! undefined behaviour. A DFA is verified in full before it is loaded without
//! validation.
//!
//! Matching a call never needs an automaton: every matcher alternative is a
//! literal (a tool, a program, an MCP prefix) answered by a hash-table probe,
//! which stays flat at any size. DFAs hold what is not literal: filter `paths`
//! globs and inline finder regexes.
//!
//! Freshness is decided by `stat` alone: the index records every candidate
//! directory and every compiled-content file (present or absent) with its
//! stamp, and the index is fresh when every one still stats the same.

mod data;
mod file;
mod filter;
mod read;
mod stamp;
mod wire;
mod write;

pub use self::data::{
    FilterData, FinderData, GlobSetData, IndexData, InvalidData, LayerData, MetaData, RuleData,
    StepData,
};
pub use self::file::IndexFile;
pub use self::filter::{Filter, Finder, GlobSet};
pub use self::read::{
    Freshness, Hit, Index, Invalid, Layer, Lookup, Meta, PathEntry, Query, Rule, Via,
};
pub use self::stamp::{Stamp, StampKind};
pub use self::wire::FORMAT_VERSION;

#[cfg(test)]
mod tests;
