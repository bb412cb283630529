//! The trust facts of a repository, as the index records them
//! ([`TrustRecord`]): its root and every root enclosing it, each with what
//! its git configuration shows now ([`git::evidence`]) joined to what the
//! [`TrustStore`] remembers of it (the owners seen before, the person's
//! decision), and the new owners written to the store.
//!
//! A root encloses the repository when it is an ancestor (of the path as
//! given or of its canonical form) that holds a `.git` entry, or that the
//! store knows (a repository whose `.git` was removed after it was seen is
//! still an enclosing stranger).
//!
//! A store that cannot be written still lets the compile go on with what it
//! could read; a store entry that cannot be read counts as an unknown
//! owner (never trusted), so a broken store never trusts a stranger and
//! never stops the person's own layers.

use std::path::{Path, PathBuf};

use hookdex_index::Stamp;
use hookdex_model::{Decision, RootFacts, Seen, Sighting, TrustRecord};

use super::git::{self, GitUser};
use super::trust_store::{canonical, TrustStore};

/// The trust record of the repository rooted at `root`, writing the owners
/// seen now to `store`; the files read to decide it (git configuration and
/// store entries) are added to `stamps`.
pub fn record(
    root: &Path,
    user: &GitUser,
    store: &TrustStore,
    stamps: &mut Vec<(PathBuf, Stamp)>,
) -> TrustRecord {
    let own = canonical(root);
    let mut roots = vec![(root.to_path_buf(), own.clone())];
    for dir in enclosing(root, &own, store) {
        roots.push((dir.clone(), dir));
    }
    let roots = roots
        .into_iter()
        .map(|(at, key)| facts(&at, &key, user, store, stamps))
        .collect();
    TrustRecord { roots }
}

/// The roots enclosing `root` (whose canonical form is `own`), innermost
/// first, canonical.
fn enclosing(root: &Path, own: &Path, store: &TrustStore) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    let ancestors = root.ancestors().skip(1).chain(own.ancestors().skip(1));
    for dir in ancestors {
        let is_root = std::fs::symlink_metadata(dir.join(".git")).is_ok()
            || std::fs::symlink_metadata(store.file_for(&canonical(dir))).is_ok();
        if !is_root {
            continue;
        }
        let dir = canonical(dir);
        if dir != own && !found.contains(&dir) {
            found.push(dir);
        }
    }
    // Innermost first: the longer path lies inside the shorter.
    found.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    found
}

/// One root's facts: what `at` shows now, and what the store holds under
/// `key` (its canonical path).
fn facts(
    at: &Path,
    key: &Path,
    user: &GitUser,
    store: &TrustStore,
    stamps: &mut Vec<(PathBuf, Stamp)>,
) -> RootFacts {
    let evidence = git::evidence(at, user);
    for (path, stamp) in evidence.read {
        if !stamps.iter().any(|(p, _)| *p == path) {
            stamps.push((path, stamp));
        }
    }
    let mut sightings: Vec<Sighting> = evidence
        .sightings
        .into_iter()
        .map(|(seen, remote)| Sighting {
            origin: super::recorded(&remote),
            seen,
        })
        .collect();
    let now: Vec<Option<String>> = sightings.iter().map(|s| s.origin.clone()).collect();
    let stored = store
        .observe(key, &now)
        .map(Some)
        .or_else(|_| store.read(key));
    let file = store.file_for(key);
    stamps.push((file.clone(), Stamp::of(&file)));
    let decision = match stored {
        Ok(Some(entry)) => {
            for origin in entry.seen.iter().filter(|o| !now.contains(o)) {
                sightings.push(Sighting {
                    origin: origin.clone(),
                    seen: Seen::Before,
                });
            }
            entry.decision()
        }
        Ok(None) => Decision::Owners,
        Err(e) => {
            sightings.push(Sighting {
                origin: Some(format!("?{e}")),
                seen: Seen::Before,
            });
            Decision::Owners
        }
    };
    RootFacts {
        root: key.display().to_string(),
        decision,
        sightings,
    }
}

/// What `hookdex trust` records for the repository rooted at `root`: its
/// canonical root and the owners it shows now.
pub fn seen_now(root: &Path, user: &GitUser) -> (PathBuf, Vec<Option<String>>) {
    let evidence = git::evidence(root, user);
    let seen = evidence
        .sightings
        .iter()
        .map(|(_, remote)| super::recorded(remote))
        .collect();
    (canonical(root), seen)
}
