//! Shared mutable state between hook processes: the one store that the
//! answer cache, filter round counters, the classifier's breaker, block
//! caps, the gate, enforcement counters and the output stash will share.
//! The classifier's answer cache ([`answers`]), the filter round
//! counters ([`rounds`]), the block caps ([`caps`]), the output stash
//! ([`stash`]) and the output-filter counters ([`stats`]) live here so far; the features that need state
//! bring it, and they follow this module's locking story rather than
//! inventing their own.
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

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// `path`'s text when it is a regular file of at most `max` bytes, opened
/// without blocking, following a link or taking a terminal (a FIFO or a
/// link planted there reads as nothing, never a hang).
pub(crate) fn read_small(path: &Path, max: u64) -> Option<String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(max + 1).read_to_string(&mut text).ok()?;
    (text.len() as u64 <= max).then_some(text)
}

/// Reads the small record at `path` (in `dir`, created `0700`), writes
/// what `change` makes of its text, under `flock` on the file (the locking
/// story's "must not be lost" case). The file is opened `0600`, never
/// through a link, and only as a regular file.
pub(crate) fn update_locked<T>(
    dir: &Path,
    path: &Path,
    change: impl FnOnce(&str) -> (String, T),
) -> std::io::Result<T> {
    use std::io::{Seek, Write};
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    file.lock()?;
    let mut text = String::new();
    (&mut file).take(256).read_to_string(&mut text)?;
    let (new, out) = change(&text);
    file.rewind()?;
    file.set_len(0)?;
    file.write_all(new.as_bytes())?;
    file.unlock()?;
    Ok(out)
}

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
