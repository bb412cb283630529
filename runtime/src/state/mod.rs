//! Shared mutable state between hook processes: the classifier's answer
//! cache ([`answers`]), the filter round counters ([`rounds`]), the
//! classifier's breaker ([`breaker`]), the block caps and enforcement
//! counters ([`caps`]), the gate ([`gate`]), the output stash ([`stash`])
//! and the output-filter counters ([`stats`]). Each keeps its records in
//! one [`Store`], whose methods are the only ways a record is written, so
//! every kind follows this module's locking story rather than inventing
//! its own.
//!
//! # Locking story
//!
//! Hook processes run concurrently (a harness fires several at once) and
//! any of them may be killed at any moment, so no state may need a lock
//! that a dead process could hold, and no reader may see half a write:
//!
//! - **Records that replace** (a counter, a breaker, a gate decision) are
//!   one small file per key in a folder per session (the round counts:
//!   `$HOOKDEX_HOME/filters/rounds/<session>/`, where SPEC §5 puts them),
//!   written to a temporary file in the same directory and renamed over the
//!   old one.
//!   Readers see the old value or the new one. Two writers racing on one
//!   key both succeed and the later rename wins: each such record is
//!   defined so that losing a concurrent update is harmless (a round count
//!   off by one within a burst of parallel calls), or it is not a
//!   replace-record.
//! - **Records that accumulate** (the stash, an audit trail) are appended
//!   as one whole line per `write` to an `O_APPEND` file: the kernel moves
//!   the offset and writes the line in one step on a local filesystem, so
//!   concurrent appends do not interleave; records stay small, and readers
//!   skip a torn last line (a full disk, a network filesystem).
//! - **Where an update must not be lost** (a cap that must hold across
//!   parallel calls), the writer takes `flock(LOCK_EX)` on the key's file
//!   for the read-modify-write only; the kernel drops the lock when the
//!   process dies, so a killed hook never wedges the others.
//! - Everything is keyed by session id where the seed says state is per
//!   session, bounded in size (old sessions are pruned by age when a new
//!   one starts), created `0600`, and opened non-blocking as a regular file.
//! - **A cache** (the classifier's answers) is replace-records shared by
//!   every session, one file per key: losing a concurrent write costs one
//!   more question later, and it is bounded by a count per shard directory
//!   that each writer enforces ([`answers`]).

pub mod answers;
pub mod breaker;
pub mod caps;
pub mod gate;
pub mod rounds;
pub mod stash;
pub mod stats;
mod store;

use std::path::Path;

pub use store::Store;

/// 32 hex digits naming `parts` (a session, a key), each length-prefixed
/// so no two lists of parts name one file by concatenation.
pub(crate) fn hex_name(parts: &[&str]) -> String {
    let mut bytes = Vec::new();
    for part in parts {
        bytes.extend((part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part.as_bytes());
    }
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes))
}

/// The entries of `root` named by [`hex_name`] that nothing wrote to for
/// `ttl`: folders when `dirs`, else files. A `root` that is a link (planted
/// to point at other folders) has none, and nothing else is ever listed.
pub(crate) fn stale(root: &Path, ttl: std::time::Duration, dirs: bool) -> Vec<std::path::PathBuf> {
    if std::fs::symlink_metadata(root).map_or(true, |m| !m.is_dir()) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let now = std::time::SystemTime::now();
    entries
        .flatten()
        .filter(|entry| is_hex_name(&entry.file_name(), 32))
        .filter(|entry| {
            entry
                .metadata()
                .ok()
                .filter(|m| if dirs { m.is_dir() } else { m.is_file() })
                .and_then(|m| m.modified().ok())
                .and_then(|at| now.duration_since(at).ok())
                .is_some_and(|age| age > ttl)
        })
        .map(|entry| entry.path())
        .collect()
}

/// Whether `name` is `len` lowercase hex digits: the names state files and
/// folders are given, and the only ones pruning removes.
pub(crate) fn is_hex_name(name: &std::ffi::OsStr, len: usize) -> bool {
    name.to_str().is_some_and(|n| {
        n.len() == len && n.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}
