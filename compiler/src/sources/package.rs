//! The package layer: the files of `rules/` embedded at build time, and their
//! materialization under the cache directory so conditions can be executed.

use std::path::{Path, PathBuf};

use hookdex_outfilter::{Claim, DecodeError, Filter};

include!(concat!(env!("OUT_DIR"), "/package_files.rs"));

/// The package files directly inside `dir` (a path under `rules/` ending in `/`).
pub fn files_in(dir: &str) -> impl Iterator<Item = (&'static str, &'static [u8], bool)> + '_ {
    PACKAGE_FILES.iter().copied().filter(move |(path, _, _)| {
        path.strip_prefix(dir)
            .is_some_and(|rest| !rest.contains('/'))
    })
}

/// A package file's contents as text, refused as any rule file would be
/// when it is not UTF-8.
///
/// # Errors
///
/// [`crate::RuleErrorKind::NotUtf8`].
pub fn text(contents: &[u8]) -> Result<String, crate::error::RuleErrorKind> {
    std::str::from_utf8(contents)
        .map(str::to_string)
        .map_err(|_| crate::error::RuleErrorKind::NotUtf8)
}

/// Every package file: its path under `rules/`, its contents and whether
/// it is executable.
pub fn files() -> impl Iterator<Item = (&'static str, &'static [u8], bool)> {
    PACKAGE_FILES.iter().copied()
}

/// One shipped output filter, compiled when the binary was built.
#[derive(Clone, Copy, Debug)]
pub struct ShippedOutFilter {
    /// Its file, under `rules/`.
    pub path: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Its line in the file.
    pub line: u32,
    /// Its `priority`.
    pub priority: i64,
    /// Its `min_size`.
    pub min_size: usize,
    /// Its claim's bytes: private, so only the build's own bytes are ever
    /// read in place ([`ShippedOutFilter::claim`]).
    claim: &'static [u8],
    /// The whole filter's bytes, private as `claim` is.
    body: &'static [u8],
}

/// Bytes placed where the DFAs they hold can be read in place.
#[repr(C, align(8))]
struct Aligned<T: ?Sized>(T);

impl ShippedOutFilter {
    /// Its claim's bytes, as an index would keep them.
    pub fn claim_bytes(&self) -> &'static [u8] {
        self.claim
    }

    /// The whole filter's bytes, as an index would keep them.
    pub fn body_bytes(&self) -> &'static [u8] {
        self.body
    }

    /// Its claim, read in place: nothing copied and no table checked, so
    /// an output no filter claims costs the search alone.
    ///
    /// # Errors
    ///
    /// When the bytes do not load (a binary built for a big-endian host).
    pub fn claim(&self) -> Result<Claim, DecodeError> {
        // SAFETY: `claim` is private and set only by the build script's
        // table, to bytes `Claim::to_bytes` of this build wrote and the
        // checked loader read before they were embedded; `Aligned` starts
        // them where their DFAs' tables are 4-aligned.
        unsafe { Claim::from_own_bytes(self.claim) }
    }

    /// The whole filter, read in place as [`ShippedOutFilter::claim`] is.
    ///
    /// # Errors
    ///
    /// As [`ShippedOutFilter::claim`].
    pub fn filter(&self) -> Result<Filter, DecodeError> {
        // SAFETY: as in `claim`, for `body` and `Filter::to_bytes`.
        unsafe { Filter::from_own_bytes(self.body) }
    }
}

/// The shipped output filters, compiled at build time.
pub fn shipped_outfilters() -> &'static [ShippedOutFilter] {
    PACKAGE_OUTFILTERS
}

/// The names of the profiles the package ships (`rules/profiles/<name>/`),
/// each once.
pub fn profiles() -> impl Iterator<Item = &'static str> {
    let mut names: Vec<&'static str> = PACKAGE_FILES
        .iter()
        .filter_map(|(path, _, _)| path.strip_prefix("profiles/")?.split_once('/'))
        .map(|(name, _)| name)
        .collect();
    names.sort_unstable();
    names.dedup();
    names.into_iter()
}

/// Whether the package ships a profile called `name`.
pub fn has_profile(name: &str) -> bool {
    let prefix = format!("profiles/{name}/");
    PACKAGE_FILES
        .iter()
        .any(|(path, _, _)| path.starts_with(&prefix))
}

/// The directory package files are materialized in for this binary version
/// and these package rules.
pub fn materialized_root(cache_dir: &Path) -> PathBuf {
    cache_dir.join(format!(
        "package-{}-{PACKAGE_HASH:016x}",
        env!("CARGO_PKG_VERSION")
    ))
}

/// Writes every package file under `root` that does not hold its bytes
/// yet. Errors are left to the scans, which materialize each file again
/// and report a failure as the file's.
pub fn materialize_all(root: &Path) {
    for (path, contents, executable) in files() {
        let _ = materialize(root, path, contents, executable);
    }
}

/// Writes `contents` to `root/rel` unless it already holds them; written
/// through a temporary file and a rename, executable when `exec` is set.
///
/// # Errors
///
/// When the directory or the file cannot be written.
pub fn materialize(
    root: &Path,
    rel: &str,
    contents: &[u8],
    exec: bool,
) -> std::io::Result<PathBuf> {
    let dest = root.join(rel);
    if holds(&dest, contents, mode(exec)) {
        return Ok(dest);
    }
    // A rename replaces whatever is at `dest`, a symlink included, itself.
    hookdex_index::AtomicWrite::new()
        .mode(mode(exec))
        .write(&dest, contents)?;
    Ok(dest)
}

/// The mode of a materialized file.
fn mode(exec: bool) -> u32 {
    if exec {
        0o755
    } else {
        0o644
    }
}

/// Whether `dest` is what materializing writes: a regular file (not a
/// link to one, whose target could change unseen) with `mode` and exactly
/// `contents`. Anything else is written again, so the hook runs the
/// package's own bytes.
fn holds(dest: &Path, contents: &[u8], mode: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(dest) else {
        return false;
    };
    meta.is_file()
        && meta.mode() & 0o7777 == mode
        && meta.len() == contents.len() as u64
        && super::confine::read_regular(dest, contents.len() as u64)
            .is_ok_and(|have| have == contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_filter_read_in_place_answers_as_read_checked() {
        let shipped = shipped_outfilters();
        assert!(shipped.len() > 10, "{} shipped filters", shipped.len());
        let outputs = [
            "",
            "error: something failed\n",
            "=== test session starts ===\ncollected 3 items\n",
            "   Compiling foo v0.1.0\nwarning: unused\n",
            "On branch main\nnothing to commit\n",
            "Step 1/5 : FROM alpine\n",
            "ünïcödé ✓ line\n",
        ];
        for f in shipped {
            let own = f.claim().unwrap();
            let checked = Claim::from_bytes(f.claim_bytes()).unwrap();
            assert_eq!(own.to_bytes(), f.claim_bytes(), "{}", f.name);
            for command in shipped.iter().map(|g| Some(g.name)).chain([None]) {
                for output in outputs {
                    let selector = hookdex_outfilter::Selector::new(command, output);
                    assert_eq!(
                        selector.claims(&own),
                        selector.claims(&checked),
                        "{} on {command:?} {output:?}",
                        f.name
                    );
                }
            }
            let own = f.filter().unwrap();
            let checked = Filter::from_bytes(f.body_bytes()).unwrap();
            assert_eq!(own.to_bytes(), f.body_bytes(), "{}", f.name);
            let text = outputs.concat().repeat(20);
            assert_eq!(
                hookdex_outfilter::apply(&own, &text),
                hookdex_outfilter::apply(&checked, &text),
                "{}",
                f.name
            );
        }
    }

    #[test]
    fn the_package_hash_follows_every_file_it_embeds() {
        // Recomputed here from the embedded table: a package rule edited,
        // added, removed or made executable changes the hash, and with it
        // the index key and the materialized root.
        let mut digest = Vec::new();
        for (path, contents, exec) in PACKAGE_FILES {
            let parts: [&[u8]; 3] = [path.as_bytes(), contents, &[u8::from(*exec)]];
            for part in parts {
                digest.extend((part.len() as u64).to_le_bytes());
                digest.extend_from_slice(part);
            }
        }
        assert!(!PACKAGE_FILES.is_empty());
        assert_eq!(PACKAGE_HASH, xxhash_rust::xxh3::xxh3_64(&digest));
        let root = materialized_root(Path::new("/c"));
        assert!(
            root.to_string_lossy()
                .ends_with(&format!("{PACKAGE_HASH:016x}")),
            "{}",
            root.display()
        );
    }

    #[test]
    fn a_materialized_file_that_differs_in_any_way_is_written_again() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let bytes = b"#!/bin/sh\nexit 2\n";
        let dest = materialize(root, "c/pre-bash-x.sh", bytes, true).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let restored = |what: &str| {
            let again = materialize(root, "c/pre-bash-x.sh", bytes, true).unwrap();
            assert_eq!(again, dest);
            assert_eq!(std::fs::read(&dest).unwrap(), bytes, "{what}");
            assert_eq!(mode(&dest), 0o755, "{what}");
            assert!(
                !std::fs::symlink_metadata(&dest).unwrap().is_symlink(),
                "{what}"
            );
        };
        std::fs::write(&dest, b"#!/bin/sh\nexit 0\n").unwrap();
        restored("same length, other bytes");
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o644)).unwrap();
        restored("mode");
        std::fs::remove_file(&dest).unwrap();
        restored("deleted");
        let elsewhere = root.join("copy.sh");
        std::fs::write(&elsewhere, bytes).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::remove_file(&dest).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &dest).unwrap();
        restored("a link to identical bytes");
    }
}
