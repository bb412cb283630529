//! The one atomic write every hookdex file goes through (the index, the
//! engine's state records, the MCP server's rule files, `init`'s settings,
//! the package copy, the compiler's caches and trust store): a temporary
//! file in the destination's folder, written whole, then renamed over the
//! destination, so a concurrent reader sees the old file or the new one and
//! never a part. Concurrent writers are normal: each writes its own
//! temporary file and the later rename wins.

use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

/// The prefix of every temporary file: state pruning recognizes (and
/// removes, once old) what a killed writer left by it.
pub const TEMP_PREFIX: &str = ".tmp";

/// Replaces the file at `path` with `bytes` atomically, created `0600` like
/// any temporary file, its folder created when missing. See [`AtomicWrite`]
/// for the options.
///
/// # Errors
///
/// When the folder cannot be created, or the file written or renamed; the
/// destination is then as it was, and no temporary file is left.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    AtomicWrite::new().write(path, bytes)
}

/// How [`write_atomic`] writes: a plain options value with `&mut self`
/// setters, ended by [`AtomicWrite::write`].
#[derive(Clone, Copy, Debug)]
pub struct AtomicWrite {
    mode: Mode,
    dir_mode: u32,
    sync: bool,
    page_writes: bool,
}

/// The permission bits the new file gets.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// The temporary file's own, `0600`.
    Private,
    /// These bits.
    Fixed(u32),
    /// The bits of the file being replaced, or these when there is none.
    Keep(u32),
}

impl Default for AtomicWrite {
    fn default() -> AtomicWrite {
        AtomicWrite::new()
    }
}

impl AtomicWrite {
    /// The defaults: the new file `0600`, a missing folder created with the
    /// process's umask, no `fsync`.
    pub fn new() -> AtomicWrite {
        AtomicWrite {
            mode: Mode::Private,
            dir_mode: 0o777,
            sync: false,
            page_writes: false,
        }
    }

    /// Gives the new file permission bits `mode` (`0o644` for what every
    /// user reads, `0o755` for a script).
    pub fn mode(&mut self, mode: u32) -> &mut AtomicWrite {
        self.mode = Mode::Fixed(mode);
        self
    }

    /// Keeps the permission bits of the file being replaced; a new file
    /// gets `default` (a user's settings file keeps what they chose).
    pub fn keep_mode(&mut self, default: u32) -> &mut AtomicWrite {
        self.mode = Mode::Keep(default);
        self
    }

    /// Creates a missing folder with `mode` (`0o700` for private state).
    pub fn dir_mode(&mut self, mode: u32) -> &mut AtomicWrite {
        self.dir_mode = mode;
        self
    }

    /// Flushes the new file to disk before the rename, so a crash cannot
    /// leave an empty file where a good one was (worth it for a file a
    /// person wrote, not for a cache).
    pub fn sync(&mut self, yes: bool) -> &mut AtomicWrite {
        self.sync = yes;
        self
    }

    /// Writes the file one page (4 KiB) at a time, so the page cache holds
    /// it in single pages rather than large folios. For a file that is
    /// mapped and read a few records at a time (the index): Linux maps a
    /// whole folio on one fault, and a 2.5 MB index written in one piece
    /// was 2.4 MB of a hook's resident set after 3 faults (6.18, ext4).
    pub fn page_writes(&mut self, yes: bool) -> &mut AtomicWrite {
        self.page_writes = yes;
        self
    }

    /// Replaces the file at `path` with `bytes`. A rename replaces whatever
    /// is at `path`, a symlink included, itself.
    ///
    /// # Errors
    ///
    /// When the folder cannot be created, or the file written or renamed;
    /// the destination is then as it was, and no temporary file is left.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mode = match self.mode {
            Mode::Private => None,
            Mode::Fixed(mode) => Some(mode),
            Mode::Keep(default) => Some(
                std::fs::metadata(path).map_or(default, |meta| meta.permissions().mode() & 0o7777),
            ),
        };
        let mut temp = match temp_in(dir) {
            // The folder is created only when missing: no cost on the hook
            // path, where state folders exist.
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(self.dir_mode)
                    .create(dir)?;
                temp_in(dir)?
            }
            temp => temp?,
        };
        if let Some(mode) = mode {
            temp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        match self.page_writes {
            true => bytes
                .chunks(PAGE)
                .try_for_each(|page| temp.write_all(page))?,
            false => temp.write_all(bytes)?,
        }
        if self.sync {
            temp.as_file().sync_all()?;
        }
        temp.persist(path).map_err(|err| err.error)?;
        Ok(())
    }
}

/// The size of one write with [`AtomicWrite::page_writes`].
const PAGE: usize = 4096;

/// A new temporary file in `dir`, removed when dropped unrenamed.
fn temp_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_writes_write_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        for len in [0, 1, PAGE - 1, PAGE, PAGE + 1, 3 * PAGE + 17] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            AtomicWrite::new()
                .page_writes(true)
                .write(&path, &bytes)
                .unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{len}");
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/file");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(names(&dir.path().join("a/b")), ["file"]);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn the_mode_is_set_or_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let mode_of = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        AtomicWrite::new().mode(0o755).write(&path, b"x").unwrap();
        assert_eq!(mode_of(&path), 0o755);
        AtomicWrite::new()
            .keep_mode(0o644)
            .sync(true)
            .write(&path, b"y")
            .unwrap();
        assert_eq!(mode_of(&path), 0o755);
        let fresh = dir.path().join("fresh");
        AtomicWrite::new()
            .keep_mode(0o640)
            .write(&fresh, b"z")
            .unwrap();
        assert_eq!(mode_of(&fresh), 0o640);
    }

    #[test]
    fn a_missing_folder_gets_the_folder_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("private/file");
        AtomicWrite::new()
            .dir_mode(0o700)
            .write(&path, b"x")
            .unwrap();
        let meta = std::fs::metadata(dir.path().join("private")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    }

    #[test]
    fn concurrent_writers_leave_one_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::thread::scope(|scope| {
            for i in 0..8u8 {
                let path = &path;
                scope.spawn(move || {
                    for _ in 0..20 {
                        write_atomic(path, &[b'a' + i; 4096]).unwrap();
                    }
                });
            }
        });
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 4096);
        assert!(bytes.iter().all(|b| *b == bytes[0]));
        assert_eq!(names(dir.path()), ["file"]);
    }

    #[test]
    fn a_failed_rename_leaves_the_destination_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("taken");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), b"keep").unwrap();
        assert!(write_atomic(&path, b"x").is_err());
        assert_eq!(names(dir.path()), ["taken"]);
    }
}
