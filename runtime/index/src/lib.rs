//! The hookdex index file format: one memory-mapped file per view that
//! answers "what fires". This crate is the format only — header, verified
//! sections, fixed-layout records, checked DFAs, the mapping and the atomic
//! write; it reads no environment and takes no policy decision (which
//! candidates run is [`hookdex_model::RunVerdict`]'s to say).
//!
//! # Layout
//!
//! All integers are little-endian except the serialized DFAs, which are in
//! the writer's native endianness (the header records it, and a reader on
//! another endianness treats the file as foreign and recompiles).
//!
//! ```text
//! header (104 bytes)
//!   magic "HOOKDEX\0" · format version u32 · endian mark (native u32)
//!   total length u64 · section count u32 · reserved u32
//!   header hash u64 (xxh3 of everything after it up to the end of the section table)
//!   automata tag [32] (regex-automata version, from Cargo.lock) · hookdex version [32]
//! section table: per section  id u32 · reserved u32 · offset u64 · length u64 · hashes offset u64
//! sections, each 8-aligned, followed by its block hashes (xxh3 per 1 KiB block)
//! ```
//!
//! Each section is an array of one fixed-layout record type (a `#[repr(C)]`
//! struct of unaligned little-endian fields whose size is asserted at
//! compile time, read in place through `zerocopy`), or a byte pool: strings,
//! posting lists, DFAs. Records refer to strings as `(offset, length)` and
//! to runs of other records as `(start, count)`.
//!
//! # What is checked, and when
//!
//! - The header (magic, version, endianness, automata and hookdex versions,
//!   its own hash, every section's bounds) when the file is parsed.
//! - A block's xxh3 the first time anything in it is read, so a lookup pays
//!   for the few blocks it touches, not for the size of the index; `list`
//!   and `explain` verify every block up front.
//! - Every reference across records (a rule's layer, an overriding rule, a
//!   posting's rule id, an invalid file's layer) where it is read: an out
//!   of range reference is corruption, never a panic.
//! - A DFA is loaded only through `DFA::from_bytes`, which validates it in
//!   full, once per DFA per opened index.
//!
//! Any failed check is an [`Error`] whose [`Error::is_damage`] is true: the
//! caller recompiles; nothing here is undefined behaviour.
//!
//! # Matching and freshness
//!
//! Every matcher alternative is a literal (a tool, a program, an MCP prefix)
//! answered by a hash-table probe ([`Index::candidates`]), which stays flat
//! at any size. DFAs hold what is not literal: filter `paths` globs and
//! inline finder regexes.
//!
//! Freshness is decided by `stat` alone: the index records every candidate
//! directory and every compiled-content file (present or absent) with its
//! stamp, and the index is fresh when every one still stats the same
//! ([`Index::freshness`]). A symlink that leaves its layer is stamped itself
//! ([`StampKind::Link`]) and restatted the same way, never through.
#![deny(missing_docs)]
// The `unsafe` blocks are the mapping (`IndexFile::open`) and `geteuid`
// (`current_user`), each argued where it is.
#![deny(unsafe_code)]

mod atomic;
mod data;
mod dfa;
mod enforcement;
mod error;
mod file;
mod filter;
mod finder_script;
mod guard;
mod header;
mod hook;
mod index;
mod invalid;
mod layer;
mod meta;
mod outfilter;
mod parse;
mod path;
mod rule;
mod section;
mod strings;
mod table;

pub use crate::atomic::{write_atomic, AtomicWrite, TEMP_PREFIX};
pub use crate::data::IndexData;
pub use crate::dfa::Dfa;
pub use crate::enforcement::{Enforcement, EnforcementData};
pub use crate::error::{Error, ErrorKind};
pub use crate::file::{current_user, IndexFile};
pub use crate::filter::{
    Filter, FilterData, Finder, FinderData, GlobSet, GlobSetData, PathMatcher, Search,
};
pub use crate::finder_script::{FinderScript, FinderScriptData};
pub use crate::guard::{
    Guard, GuardData, GuardEntry, GuardKind, GuardPatterns, Prefix, FIELD_END, FIELD_START,
    FIELD_VALUE, WORD_END,
};
pub use crate::header::{AUTOMATA_TAG, FORMAT_VERSION};
pub use crate::hook::{Hook, HookData, InputMatcher};
pub use crate::index::Index;
pub use crate::invalid::{Invalid, InvalidData, NO_LAYER};
pub use crate::layer::{Layer, LayerData};
pub use crate::meta::{Meta, MetaData, ProblemCount};
pub use crate::outfilter::{OutFilter, OutFilterData};
pub use crate::path::{Freshness, PathEntry, Stamp, StampKind};
pub use crate::rule::{Rule, RuleData};
pub use crate::table::{Hit, PatternSetData, Query, StepData, Via};

#[cfg(test)]
mod tests;
