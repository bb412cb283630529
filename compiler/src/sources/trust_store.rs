//! The trust store: what hookdex remembers of each repository root, kept
//! outside every repository in `$HOOKDEX_HOME/trust/`, one JSON file per
//! [`Identity`] of a root (named by its hash): the person's decision
//! (`hookdex trust`, `--revoke`) and every owner a compile has seen for the
//! root, which only grows, so an owner once seen keeps counting after a
//! remote is renamed, re-pointed or removed, and after the repository is
//! moved or reached by another path.
//!
//! Writers (a compile that sees a new owner, `hookdex trust`) take
//! `flock` on `trust/lock` for the read-modify-write and replace the root's
//! file by renaming a temporary file over it, so readers never see half a
//! record and concurrent hook processes never lose an owner. A killed
//! process drops its lock with it.

use std::fmt;
use std::path::{Path, PathBuf};

use hookdex_model::Decision;
use serde::{Deserialize, Serialize};

use super::confine;

/// The most owners one root keeps; one more is recorded as an unknown owner,
/// which is never trusted.
pub const MAX_OWNERS: usize = 64;

/// The owner recorded once a root has seen more than [`MAX_OWNERS`].
const TOO_MANY: &str = "?more owners seen than the trust store keeps";

/// The largest store file read.
const FILE_LIMIT: u64 = 64 << 10;

/// The trust store of one `$HOOKDEX_HOME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustStore {
    dir: PathBuf,
}

/// What the store holds for one root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The canonical root, as shown to people.
    pub root: String,
    /// `"trust"`, `"revoke"`, or absent: the owners decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// When the decision was made, milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at_ms: Option<u64>,
    /// Every owner seen, first seen first, as `hookdex_model::RecordedOrigin`
    /// records them (`null` for no remote).
    #[serde(default)]
    pub seen: Vec<Option<String>>,
}

impl Entry {
    /// The person's decision.
    pub fn decision(&self) -> Decision {
        match self.decision.as_deref() {
            Some("trust") => Decision::Trusted,
            Some("revoke") => Decision::Revoked,
            _ => Decision::Owners,
        }
    }

    /// Takes in `other`, an entry of the same root under another identity:
    /// its owners, and its decision when it revokes or this one has none.
    fn merge(&mut self, other: Entry) {
        self.add(&other.seen);
        if other.decision() == Decision::Revoked || self.decision.is_none() {
            self.decision = other.decision.or(self.decision.take());
        }
        self.decided_at_ms = self.decided_at_ms.max(other.decided_at_ms);
    }

    /// Adds the owners of `seen` not recorded yet; whether any was new.
    fn add(&mut self, seen: &[Option<String>]) -> bool {
        let before = self.seen.len();
        for owner in seen {
            if self.seen.contains(owner) {
                continue;
            }
            if self.seen.len() + 1 >= MAX_OWNERS {
                let full = Some(TOO_MANY.to_string());
                if !self.seen.contains(&full) {
                    self.seen.push(full);
                }
                break;
            }
            self.seen.push(owner.clone());
        }
        self.seen.len() != before
    }
}

/// Why the trust store could not be read or written.
#[derive(Debug)]
pub struct StoreError {
    /// The file or folder.
    pub path: PathBuf,
    /// What went wrong.
    pub reason: String,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trust store `{}`: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for StoreError {}

/// The canonical form of `root` (links resolved), the store's key for it;
/// `root` itself when it cannot be resolved.
pub fn canonical(root: &Path) -> PathBuf {
    std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
}

/// `path` made absolute with `.` and `..` folded by its text, links left as
/// they are: the path as the caller gave it.
pub fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// One name the store knows a repository by. A repository has several (its
/// path as given, its canonical path, the device and inode of its root and
/// of its git directory), so evidence recorded under one is found after a
/// link, a move or a rename changes another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    /// A path of the root (as given, or canonical).
    Path(PathBuf),
    /// The device and inode of a directory (the root or its git directory):
    /// the same after a move on one filesystem. An inode reused after a
    /// deletion can only bring owners (and a revocation) to the new
    /// directory, never a trust.
    Inode {
        /// `st_dev`.
        dev: u64,
        /// `st_ino`.
        ino: u64,
    },
}

impl Identity {
    /// The inode identity of the directory at `dir` (links followed), when
    /// it can be stat'ed.
    pub fn inode_of(dir: &Path) -> Option<Identity> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir).ok()?;
        Some(Identity::Inode {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    /// The bytes hashed to name its file: a path's own bytes (so a path
    /// names the same file it always has), an inode's with a leading NUL,
    /// which no path holds.
    fn key(&self) -> Vec<u8> {
        match self {
            Identity::Path(path) => path.as_os_str().as_encoded_bytes().to_vec(),
            Identity::Inode { dev, ino } => format!("\0inode {dev} {ino}").into_bytes(),
        }
    }
}

impl TrustStore {
    /// The store under `home` (`$HOOKDEX_HOME`).
    pub fn of(home: &Path) -> TrustStore {
        TrustStore {
            dir: home.join("trust"),
        }
    }

    /// The folder of the store.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds the entry of `id`.
    pub fn file_for(&self, id: &Identity) -> PathBuf {
        let hash = xxhash_rust::xxh3::xxh3_128(&id.key());
        self.dir.join(format!("{hash:032x}.json"))
    }

    /// The entry of `id`, `None` when there is none.
    ///
    /// # Errors
    ///
    /// When the file exists but cannot be read or parsed.
    pub fn read(&self, id: &Identity) -> Result<Option<Entry>, StoreError> {
        read_entry(&self.file_for(id))
    }

    /// Records the owners of `seen` under `id` of the root shown as `root`
    /// (canonical); returns the entry as it is now. Writes only when an
    /// owner is new.
    ///
    /// # Errors
    ///
    /// When the store cannot be read, locked or written.
    pub fn observe(
        &self,
        id: &Identity,
        root: &Path,
        seen: &[Option<String>],
    ) -> Result<Entry, StoreError> {
        if let Some(entry) = self.read(id)? {
            if seen.iter().all(|o| entry.seen.contains(o)) {
                return Ok(entry);
            }
        }
        self.update(id, root, false, |entry| entry.add(seen))
    }

    /// Records the person's `decision` under `id` of the root shown as
    /// `root` (canonical), with the owners of `seen` (`Decision::Owners`
    /// clears it); returns the entry.
    ///
    /// # Errors
    ///
    /// When the store cannot be read, locked or written.
    pub fn decide(
        &self,
        id: &Identity,
        root: &Path,
        decision: Decision,
        seen: &[Option<String>],
    ) -> Result<Entry, StoreError> {
        self.update(id, root, true, |entry| {
            entry.add(seen);
            entry.decision = match decision {
                Decision::Trusted => Some("trust".into()),
                Decision::Revoked => Some("revoke".into()),
                Decision::Owners => None,
            };
            entry.decided_at_ms = Some(now_ms());
            true
        })
    }

    /// Every root of the store, its identities' entries merged (the owners
    /// of all, a revocation if any has one); a file that cannot be read is
    /// listed with its error.
    pub fn list(&self) -> Vec<(PathBuf, Result<Entry, StoreError>)> {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let found: Vec<(PathBuf, Result<Entry, StoreError>)> = read
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter_map(|p| match read_entry(&p) {
                Ok(Some(entry)) => Some((p, Ok(entry))),
                Ok(None) => None,
                Err(e) => Some((p, Err(e))),
            })
            .collect();
        let mut merged: Vec<(PathBuf, Result<Entry, StoreError>)> = Vec::new();
        for (path, entry) in found {
            let same = merged.iter_mut().find_map(|(_, m)| match (m, &entry) {
                (Ok(m), Ok(e)) if m.root == e.root => Some(m),
                _ => None,
            });
            match (same, entry) {
                (Some(m), Ok(e)) => m.merge(e),
                (_, entry) => merged.push((path, entry)),
            }
        }
        let mut found = merged;
        found.sort_by(|(pa, a), (pb, b)| match (a, b) {
            (Ok(a), Ok(b)) => a.root.cmp(&b.root),
            _ => pa.cmp(pb),
        });
        found
    }

    /// Reads `root`'s entry, applies `change`, and writes it back when
    /// `change` says it changed, under the store's lock. An entry that
    /// cannot be read is an error, or, when `overwrite` (the person
    /// deciding), replaced.
    fn update(
        &self,
        id: &Identity,
        root: &Path,
        overwrite: bool,
        change: impl FnOnce(&mut Entry) -> bool,
    ) -> Result<Entry, StoreError> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let fail = |path: &Path, e: std::io::Error| StoreError {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|e| fail(&self.dir, e))?;
        let lock_path = self.dir.join("lock");
        let lock = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&lock_path)
            .map_err(|e| fail(&lock_path, e))?;
        lock.lock().map_err(|e| fail(&lock_path, e))?;
        let file = self.file_for(id);
        let mut entry = match read_entry(&file) {
            Ok(entry) => entry.unwrap_or_default(),
            Err(_) if overwrite => Entry::default(),
            Err(e) => return Err(e),
        };
        entry.root = root.display().to_string();
        if change(&mut entry) {
            let text = serde_json::to_string_pretty(&entry).map_err(|e| StoreError {
                path: file.clone(),
                reason: e.to_string(),
            })?;
            hookdex_index::write_atomic(&file, text.as_bytes()).map_err(|e| fail(&file, e))?;
        }
        Ok(entry)
    }
}

fn read_entry(path: &Path) -> Result<Option<Entry>, StoreError> {
    let bytes = match confine::read_regular(path, FILE_LIMIT) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(StoreError {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| StoreError {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_accumulate_and_decisions_stand() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::of(dir.path());
        let root = Path::new("/r");
        let id = &Identity::Path(root.to_path_buf());
        assert_eq!(store.read(id).unwrap(), None);
        let stranger = Some("github.com/stranger".to_string());
        let first = store
            .observe(id, root, std::slice::from_ref(&stranger))
            .unwrap();
        assert_eq!(first.seen, std::slice::from_ref(&stranger));
        let stamp = std::fs::metadata(store.file_for(id))
            .unwrap()
            .modified()
            .unwrap();
        // Nothing new: nothing written.
        store
            .observe(id, root, std::slice::from_ref(&stranger))
            .unwrap();
        let again = std::fs::metadata(store.file_for(id))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(stamp, again);
        let now = store.observe(id, root, &[None]).unwrap();
        assert_eq!(now.seen, [stranger.clone(), None]);
        let trusted = store.decide(id, root, Decision::Trusted, &[]).unwrap();
        assert_eq!(trusted.decision(), Decision::Trusted);
        let read = store.read(id).unwrap().unwrap();
        assert_eq!(read.decision(), Decision::Trusted);
        assert_eq!(read.seen, [stranger, None]);
        assert_eq!(store.list().len(), 1);
    }

    #[test]
    fn concurrent_writers_lose_no_owner() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::of(dir.path());
        let root = Path::new("/r");
        let id = &Identity::Path(root.to_path_buf());
        // Each thread opens the lock itself, as a process would.
        std::thread::scope(|scope| {
            for i in 0..16 {
                let store = store.clone();
                scope.spawn(move || {
                    for j in 0..3 {
                        store
                            .observe(id, root, &[Some(format!("h/o{i}-{j}"))])
                            .unwrap();
                    }
                });
            }
        });
        let entry = store.read(id).unwrap().unwrap();
        assert_eq!(entry.seen.len(), 48, "{entry:?}");
        assert_eq!(
            std::fs::read_dir(store.dir()).unwrap().count(),
            2,
            "the entry and the lock, no temporary file left"
        );
    }

    #[test]
    fn a_root_keeps_a_bounded_number_of_owners_and_then_trusts_none() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::of(dir.path());
        let root = Path::new("/r");
        let id = &Identity::Path(root.to_path_buf());
        let many: Vec<Option<String>> = (0..200).map(|i| Some(format!("h/o{i}"))).collect();
        let entry = store.observe(id, root, &many).unwrap();
        assert_eq!(entry.seen.len(), MAX_OWNERS);
        assert_eq!(entry.seen.last().unwrap().as_deref(), Some(TOO_MANY));
    }

    #[test]
    fn an_unreadable_entry_is_an_error_not_an_empty_one() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::of(dir.path());
        let root = Path::new("/r");
        let id = &Identity::Path(root.to_path_buf());
        std::fs::create_dir_all(store.dir()).unwrap();
        std::fs::write(store.file_for(id), "{not json").unwrap();
        assert!(store.read(id).is_err());
        assert!(store.observe(id, root, &[None]).is_err());
        // The person deciding replaces it.
        let entry = store.decide(id, root, Decision::Revoked, &[None]).unwrap();
        assert_eq!(store.read(id).unwrap(), Some(entry));
    }

    #[test]
    fn identities_name_distinct_files_and_list_merges_them_by_root() {
        assert_eq!(lexical(Path::new("/a/./b/../c")), Path::new("/a/c"));
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::of(dir.path());
        let root = Path::new("/r");
        let path = Identity::Path(root.to_path_buf());
        let inode = Identity::Inode { dev: 1, ino: 2 };
        assert_ne!(store.file_for(&path), store.file_for(&inode));
        store.observe(&path, root, &[None]).unwrap();
        let stranger = Some("h/stranger".to_string());
        store
            .decide(
                &inode,
                root,
                Decision::Revoked,
                std::slice::from_ref(&stranger),
            )
            .unwrap();
        let listed = store.list();
        assert_eq!(listed.len(), 1, "{listed:?}");
        let entry = listed[0].1.as_ref().unwrap();
        assert_eq!(entry.decision(), Decision::Revoked);
        assert_eq!(entry.seen, [None, stranger]);
    }
}
