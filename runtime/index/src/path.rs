//! Recorded paths: the stat stamp of every candidate directory and
//! compiled-content file (present or absent), and the freshness check that
//! compares them with the disk.

use std::path::{Path, PathBuf};

use zerocopy::little_endian::{I64, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::strings::{Pool, StrRef};
use crate::Index;

/// What a recorded path was when the index was compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StampKind {
    /// Nothing at the path.
    Absent,
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else (socket, device, …).
    Other,
    /// A symbolic link, stamped itself ([`Stamp::of_link`]): one that
    /// leaves its layer, whose target must not decide freshness.
    Link,
}

/// The stat of one path; two stamps are equal when nothing observable changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// What is at the path.
    pub kind: StampKind,
    /// Modification time, seconds since the epoch.
    pub mtime_sec: i64,
    /// Modification time, nanoseconds part.
    pub mtime_nsec: u32,
    /// Status-change time, seconds (a `touch -d` can set the mtime back;
    /// nothing but the clock sets the ctime).
    pub ctime_sec: i64,
    /// Status-change time, nanoseconds part.
    pub ctime_nsec: u32,
    /// Size in bytes.
    pub size: u64,
    /// Inode number (catches replace-by-rename with an equal mtime).
    pub ino: u64,
    /// Permission bits (a `chmod +x` decides whether a file has a runner).
    pub mode: u32,
}

impl Stamp {
    /// The stamp of an absent path.
    pub const ABSENT: Stamp = Stamp {
        kind: StampKind::Absent,
        mtime_sec: 0,
        mtime_nsec: 0,
        ctime_sec: 0,
        ctime_nsec: 0,
        size: 0,
        ino: 0,
        mode: 0,
    };

    /// Stats `path`, following symlinks; an error of any kind reads as absent.
    pub fn of(path: &Path) -> Stamp {
        Stamp::from_meta(std::fs::metadata(path))
    }

    /// Stats `path` itself (`lstat`): a symlink is stamped as a [`StampKind::Link`]
    /// and its target is never looked at; anything else stamps as with [`Stamp::of`].
    pub fn of_link(path: &Path) -> Stamp {
        Stamp::from_meta(std::fs::symlink_metadata(path))
    }

    /// The stamp `path` has now, taken the way this one was: the link
    /// itself for a [`StampKind::Link`], else through symlinks.
    pub fn retake(self, path: &Path) -> Stamp {
        match self.kind {
            StampKind::Link => Stamp::of_link(path),
            _ => Stamp::of(path),
        }
    }

    /// The stamp `meta` gives (as [`Stamp::of`] would have): for a file
    /// whose metadata was taken on its open descriptor, with no second stat.
    pub fn of_meta(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            kind: if meta.is_file() {
                StampKind::File
            } else if meta.is_dir() {
                StampKind::Dir
            } else if meta.is_symlink() {
                StampKind::Link
            } else {
                StampKind::Other
            },
            mtime_sec: meta.mtime(),
            mtime_nsec: meta.mtime_nsec() as u32,
            ctime_sec: meta.ctime(),
            ctime_nsec: meta.ctime_nsec() as u32,
            size: meta.len(),
            ino: meta.ino(),
            mode: meta.mode() & 0o7777,
        }
    }

    fn from_meta(meta: std::io::Result<std::fs::Metadata>) -> Stamp {
        meta.map_or(Stamp::ABSENT, |meta| Stamp::of_meta(&meta))
    }

    fn kind_code(self) -> u8 {
        match self.kind {
            StampKind::Absent => 0,
            StampKind::File => 1,
            StampKind::Dir => 2,
            StampKind::Other => 3,
            StampKind::Link => 4,
        }
    }

    fn kind_from_code(code: u8) -> Option<StampKind> {
        [
            StampKind::Absent,
            StampKind::File,
            StampKind::Dir,
            StampKind::Other,
            StampKind::Link,
        ]
        .get(usize::from(code))
        .copied()
    }

    /// A short description for `explain`: `absent`, `dir`, `file (12 bytes, 0755)`.
    pub fn describe(self) -> String {
        match self.kind {
            StampKind::Absent => "absent".to_string(),
            StampKind::Dir => "dir".to_string(),
            StampKind::File => format!("file ({} bytes, {:04o})", self.size, self.mode),
            StampKind::Other => "special file".to_string(),
            StampKind::Link => "symlink (not followed)".to_string(),
        }
    }

    /// Whether the path changed at or after `since` (a compile's start), so
    /// what was read of it may already be out of date and a change in the
    /// same timestamp tick would leave an equal stamp (git's racy-file
    /// rule): such a stamp must not be trusted as fresh. Kernel timestamps
    /// are coarse (a tick, 1–10 ms, behind the clock), so a change in the
    /// tick that contains `since` can still read as before it: that window
    /// stays open.
    pub fn is_racy(self, since: std::time::SystemTime) -> bool {
        let Ok(since) = since.duration_since(std::time::UNIX_EPOCH) else {
            return false;
        };
        let since = since.as_nanos() as i128;
        let at = |sec: i64, nsec: u32| i128::from(sec) * 1_000_000_000 + i128::from(nsec);
        let latest = at(self.mtime_sec, self.mtime_nsec).max(at(self.ctime_sec, self.ctime_nsec));
        self.kind != StampKind::Absent && latest >= since
    }

    /// A stamp no path ever has: recorded for a racy path, so the next call
    /// finds the index stale and compiles again, after the tick has passed.
    pub const RACY: Stamp = Stamp {
        kind: StampKind::Other,
        mtime_sec: -1,
        ..Stamp::ABSENT
    };

    /// Whether any execute bit is set.
    pub fn is_executable(self) -> bool {
        self.mode & 0o111 != 0
    }
}

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct PathRecord {
    path: StrRef,
    kind: u8,
    reserved: [u8; 3],
    mtime_nsec: U32,
    mtime_sec: I64,
    size: U64,
    ino: U64,
    mode: U32,
    ctime_nsec: U32,
    ctime_sec: I64,
}

const _: () = assert!(std::mem::size_of::<PathRecord>() == 56);

pub(crate) fn record(path: &Path, stamp: &Stamp, pool: &mut Pool) -> PathRecord {
    use std::os::unix::ffi::OsStrExt;
    PathRecord {
        path: pool.put_bytes(path.as_os_str().as_bytes()),
        kind: stamp.kind_code(),
        reserved: [0; 3],
        mtime_nsec: U32::new(stamp.mtime_nsec),
        mtime_sec: I64::new(stamp.mtime_sec),
        size: U64::new(stamp.size),
        ino: U64::new(stamp.ino),
        mode: U32::new(stamp.mode),
        ctime_nsec: U32::new(stamp.ctime_nsec),
        ctime_sec: I64::new(stamp.ctime_sec),
    }
}

/// A recorded path and its stamp at compile time.
#[derive(Clone, Debug)]
pub struct PathEntry<'a> {
    /// The path.
    pub path: &'a Path,
    /// Its stamp at compile time.
    pub stamp: Stamp,
}

/// Whether the index still describes the files on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Every recorded path stats the same.
    Fresh {
        /// How many paths were checked.
        checked: usize,
    },
    /// A recorded path changed.
    Stale {
        /// The first path that changed.
        path: PathBuf,
        /// Its stamp at compile time.
        was: Stamp,
        /// Its stamp now.
        now: Stamp,
    },
}

impl<'a> Index<'a> {
    /// How many paths are recorded.
    pub fn path_count(&self) -> usize {
        self.paths.records::<PathRecord>()
    }

    /// The recorded path at `i`.
    ///
    /// # Errors
    ///
    /// When the record is out of range or damaged.
    pub fn path(&self, i: usize) -> Result<PathEntry<'a>, Error> {
        let r: &PathRecord = self.paths.record(i)?;
        let kind = Stamp::kind_from_code(r.kind).ok_or_else(|| Error::corrupt("path kind"))?;
        use std::os::unix::ffi::OsStrExt;
        Ok(PathEntry {
            path: Path::new(std::ffi::OsStr::from_bytes(self.bytes(&r.path)?)),
            stamp: Stamp {
                kind,
                mtime_sec: r.mtime_sec.get(),
                mtime_nsec: r.mtime_nsec.get(),
                ctime_sec: r.ctime_sec.get(),
                ctime_nsec: r.ctime_nsec.get(),
                size: r.size.get(),
                ino: r.ino.get(),
                mode: r.mode.get(),
            },
        })
    }

    /// Stats every recorded path; fresh when all still match.
    ///
    /// # Errors
    ///
    /// When a path record is damaged.
    pub fn freshness(&self) -> Result<Freshness, Error> {
        let count = self.path_count();
        for i in 0..count {
            let entry = self.path(i)?;
            let now = entry.stamp.retake(entry.path);
            if now != entry.stamp {
                return Ok(Freshness::Stale {
                    path: entry.path.to_path_buf(),
                    was: entry.stamp,
                    now,
                });
            }
        }
        Ok(Freshness::Fresh { checked: count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_path_changed_at_or_after_the_compile_is_racy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rule.sh");
        std::fs::write(&path, "x").unwrap();
        let stamp = Stamp::of(&path);
        let long_ago = SystemTime::now() - Duration::from_secs(3600);
        assert!(stamp.is_racy(long_ago), "changed after `since`");
        let later = SystemTime::now() + Duration::from_secs(3600);
        assert!(!stamp.is_racy(later), "changed before `since`");
        assert!(!Stamp::ABSENT.is_racy(long_ago));
        assert_ne!(Stamp::RACY, stamp, "the racy stamp matches no path");
    }

    #[test]
    fn a_link_stamped_itself_is_retaken_itself() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let own = Stamp::of_link(&link);
        assert_eq!(own.kind, StampKind::Link);
        assert_eq!(Stamp::of(&link).kind, StampKind::File, "of follows");
        // The target changing does not change the link's own stamp.
        std::fs::write(&target, "longer").unwrap();
        assert_eq!(own.retake(&link), own);
        // A regular file stamps the same either way.
        assert_eq!(Stamp::of_link(&target), Stamp::of(&target));
        // Replaced by a file, it is no longer the link that was stamped.
        std::fs::remove_file(&link).unwrap();
        std::fs::write(&link, "x").unwrap();
        assert_ne!(own.retake(&link), own);
    }
}
