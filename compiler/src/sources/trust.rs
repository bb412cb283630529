//! The trust facts of a repository, as the index records them
//! ([`TrustRecord`]): its root and every root enclosing it, each with what
//! its git configuration shows now ([`git::evidence`]) joined to what the
//! [`TrustStore`] remembers of it (the owners seen before, the person's
//! decision), and the new owners written to the store.
//!
//! A root encloses the repository when it is an ancestor (of the path as
//! given or of its canonical form) that holds a `.git` entry, or that the
//! store knows (a repository whose `.git` was removed after it was seen is
//! still an enclosing stranger). The repository a worktree's (or a `.git`
//! file's) common git directory belongs to counts as one too.
//!
//! A store that cannot be written still lets the compile go on with what it
//! could read; a store entry that cannot be read counts as an unknown
//! owner (never trusted), so a broken store never trusts a stranger and
//! never stops the person's own layers.

use std::path::{Path, PathBuf};

use hookdex_index::Stamp;
use hookdex_model::{Decision, RootFacts, Seen, Sighting, TrustRecord};

use super::git::{self, GitUser};
use super::trust_store::{canonical, lexical, Identity, TrustStore};

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
    let (facts_of_own, main) = facts(root, user, store, stamps);
    let mut outer = enclosing(root, &own, store);
    // A worktree's (or a `.git` file's) repository holds its history: it
    // caps this root like an enclosing one.
    if let Some(main) = main {
        if main != own && !outer.contains(&main) {
            outer.insert(0, main);
        }
    }
    let mut roots = vec![facts_of_own];
    roots.extend(outer.iter().map(|dir| facts(dir, user, store, stamps).0));
    TrustRecord { roots }
}

/// The roots enclosing `root` (whose canonical form is `own`), innermost
/// first, canonical.
fn enclosing(root: &Path, own: &Path, store: &TrustStore) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    let ancestors = root.ancestors().skip(1).chain(own.ancestors().skip(1));
    for dir in ancestors {
        let known = || store.file_for(&Identity::Path(canonical(dir)));
        let is_root = std::fs::symlink_metadata(dir.join(".git")).is_ok()
            || known().symlink_metadata().is_ok();
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

/// The names the store knows the repository rooted at `at` by: its path as
/// given, its canonical path, the inode of the root and of its git
/// directory `git_dir`.
fn identities(at: &Path, git_dir: Option<&Path>) -> Vec<Identity> {
    let ids = [
        Some(Identity::Path(canonical(at))),
        Some(Identity::Path(lexical(at))),
        Identity::inode_of(at),
        git_dir.and_then(Identity::inode_of),
    ];
    let mut unique: Vec<Identity> = Vec::new();
    for id in ids.into_iter().flatten() {
        if !unique.contains(&id) {
            unique.push(id);
        }
    }
    unique
}

/// The repository a git directory belongs to: the folder holding a
/// `.git`, or a bare repository itself.
fn repository_of(common: &Path) -> PathBuf {
    match common.file_name().is_some_and(|n| n == ".git") {
        true => common
            .parent()
            .map_or_else(|| common.to_path_buf(), Path::to_path_buf),
        false => common.to_path_buf(),
    }
}

/// One root's facts: what `at` shows now, and what the store holds under
/// each of its identities, taking the least trust: the owners of all, a
/// revocation under any, and the person's trust only from the canonical
/// path (an inode can be reused, a given path can be a new link). With it,
/// the repository its common git directory belongs to.
fn facts(
    at: &Path,
    user: &GitUser,
    store: &TrustStore,
    stamps: &mut Vec<(PathBuf, Stamp)>,
) -> (RootFacts, Option<PathBuf>) {
    let evidence = git::evidence(at, user);
    for (path, stamp) in evidence.read {
        if !stamps.iter().any(|(p, _)| *p == path) {
            stamps.push((path, stamp));
        }
    }
    let shown = canonical(at);
    let mut sightings: Vec<Sighting> = evidence
        .sightings
        .into_iter()
        .map(|(seen, remote)| Sighting {
            origin: super::recorded(&remote),
            seen,
        })
        .collect();
    let now: Vec<Option<String>> = sightings.iter().map(|s| s.origin.clone()).collect();
    let mut decision = Decision::Owners;
    let mut revoked = false;
    for id in identities(at, evidence.git_dir.as_deref()) {
        let stored = store
            .observe(&id, &shown, &now)
            .map(Some)
            .or_else(|_| store.read(&id));
        let file = store.file_for(&id);
        if !stamps.iter().any(|(p, _)| *p == file) {
            let stamp = Stamp::of(&file);
            stamps.push((file, stamp));
        }
        let before = match stored {
            Ok(Some(entry)) => {
                revoked |= entry.decision() == Decision::Revoked;
                if id == Identity::Path(shown.clone()) {
                    decision = entry.decision();
                }
                entry.seen
            }
            Ok(None) => Vec::new(),
            Err(e) => vec![Some(format!("?{e}"))],
        };
        for origin in before {
            if !sightings.iter().any(|s| s.origin == origin) {
                sightings.push(Sighting {
                    origin,
                    seen: Seen::Before,
                });
            }
        }
    }
    if revoked {
        decision = Decision::Revoked;
    }
    let facts = RootFacts {
        root: shown.display().to_string(),
        decision,
        sightings,
    };
    // `commondir` is relative (`../..`): resolved before its name is read.
    let main = evidence
        .common
        .map(|common| repository_of(&canonical(&common)));
    (facts, main)
}

/// What `hookdex trust` records for the repository rooted at `root`: every
/// identity of it, its canonical root, and the owners it shows now.
pub fn seen_now(root: &Path, user: &GitUser) -> (Vec<Identity>, PathBuf, Vec<Option<String>>) {
    let evidence = git::evidence(root, user);
    let seen = evidence
        .sightings
        .iter()
        .map(|(_, remote)| super::recorded(remote))
        .collect();
    let ids = identities(root, evidence.git_dir.as_deref());
    (ids, canonical(root), seen)
}
