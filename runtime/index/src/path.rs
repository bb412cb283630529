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
        size: 0,
        ino: 0,
        mode: 0,
    };

    /// Stats `path`, following symlinks; an error of any kind reads as absent.
    pub fn of(path: &Path) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        match std::fs::metadata(path) {
            Err(_) => Stamp::ABSENT,
            Ok(meta) => Stamp {
                kind: if meta.is_file() {
                    StampKind::File
                } else if meta.is_dir() {
                    StampKind::Dir
                } else {
                    StampKind::Other
                },
                mtime_sec: meta.mtime(),
                mtime_nsec: meta.mtime_nsec() as u32,
                size: meta.len(),
                ino: meta.ino(),
                mode: meta.mode() & 0o7777,
            },
        }
    }

    fn kind_code(self) -> u8 {
        match self.kind {
            StampKind::Absent => 0,
            StampKind::File => 1,
            StampKind::Dir => 2,
            StampKind::Other => 3,
        }
    }

    fn kind_from_code(code: u8) -> Option<StampKind> {
        [
            StampKind::Absent,
            StampKind::File,
            StampKind::Dir,
            StampKind::Other,
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
        }
    }

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
    reserved2: U32,
}

const _: () = assert!(std::mem::size_of::<PathRecord>() == 48);

pub(crate) fn record(path: &str, stamp: &Stamp, pool: &mut Pool) -> PathRecord {
    PathRecord {
        path: pool.put(path),
        kind: stamp.kind_code(),
        reserved: [0; 3],
        mtime_nsec: U32::new(stamp.mtime_nsec),
        mtime_sec: I64::new(stamp.mtime_sec),
        size: U64::new(stamp.size),
        ino: U64::new(stamp.ino),
        mode: U32::new(stamp.mode),
        reserved2: U32::ZERO,
    }
}

/// A recorded path and its stamp at compile time.
#[derive(Clone, Debug)]
pub struct PathEntry<'a> {
    /// The path.
    pub path: &'a str,
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
        Ok(PathEntry {
            path: self.str(&r.path)?,
            stamp: Stamp {
                kind,
                mtime_sec: r.mtime_sec.get(),
                mtime_nsec: r.mtime_nsec.get(),
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
            let now = Stamp::of(Path::new(entry.path));
            if now != entry.stamp {
                return Ok(Freshness::Stale {
                    path: PathBuf::from(entry.path),
                    was: entry.stamp,
                    now,
                });
            }
        }
        Ok(Freshness::Fresh { checked: count })
    }
}
