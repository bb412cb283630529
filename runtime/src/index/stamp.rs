//! The stat stamp of one recorded path: present or absent, kind, mtime, size, inode.

use std::path::Path;

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

    pub(crate) fn kind_code(self) -> u8 {
        match self.kind {
            StampKind::Absent => 0,
            StampKind::File => 1,
            StampKind::Dir => 2,
            StampKind::Other => 3,
        }
    }

    pub(crate) fn kind_from_code(code: u8) -> Option<StampKind> {
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
