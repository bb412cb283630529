//! [`Store`]: one kind of state's folder and the only ways its records are
//! read and written — replaced by an atomic rename, appended as whole
//! lines, updated under `flock`, marked once — so every state file follows
//! the locking story of [`crate::state`] by construction. Folders are
//! created `0700` when missing, records `0600`; nothing is opened through a
//! link, as anything but a regular file, or in a way that can block.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The flags every record is opened with: never through a link, never
/// blocking on a FIFO, never taking a terminal.
const SAFE_OPEN: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;

/// The folder of one kind of state (the gate, the caps, a session's round
/// counters, …). Records are named relative to it.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store in `dir`, created on the first write.
    pub fn new(dir: PathBuf) -> Store {
        Store { dir }
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the record `name` (a file name, or `shard/name`).
    pub fn path(&self, name: impl AsRef<Path>) -> PathBuf {
        self.dir.join(name)
    }

    /// The record's text when it is a regular file of at most `max` bytes
    /// of UTF-8 (a FIFO or a link planted there reads as nothing, never a
    /// hang).
    pub fn read(&self, name: impl AsRef<Path>, max: u64) -> Option<String> {
        String::from_utf8(self.read_bytes(name, max)?).ok()
    }

    /// The record's bytes when it is a regular file of at most `max` bytes.
    pub fn read_bytes(&self, name: impl AsRef<Path>, max: u64) -> Option<Vec<u8>> {
        let (file, len) = self.open_file(name)?;
        if len > max {
            return None;
        }
        let mut bytes = Vec::with_capacity(len as usize);
        file.take(max + 1).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= max).then_some(bytes)
    }

    /// Whether the record is a regular file of exactly `bytes`, read a piece
    /// at a time beside them: a large record is never held whole.
    pub fn holds_bytes(&self, name: impl AsRef<Path>, bytes: &[u8]) -> bool {
        let Some((mut file, len)) = self.open_file(name) else {
            return false;
        };
        if len != bytes.len() as u64 {
            return false;
        }
        let mut piece = vec![0u8; 64 << 10];
        let mut at = 0;
        loop {
            match file.read(&mut piece) {
                Ok(0) => return at == bytes.len(),
                Ok(n) if bytes.get(at..at + n) == Some(&piece[..n]) => at += n,
                Ok(_) => return false,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
    }

    /// The record opened for reading, with its length, when it is a
    /// regular file.
    fn open_file(&self, name: impl AsRef<Path>) -> Option<(File, u64)> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(SAFE_OPEN)
            .open(self.path(name))
            .ok()?;
        let meta = file.metadata().ok()?;
        meta.is_file().then_some((file, meta.len()))
    }

    /// Replaces the record with `bytes` by an atomic rename: readers see
    /// the old record or the new one; of two racing writers the later wins.
    ///
    /// # Errors
    ///
    /// When the folder or the record cannot be written.
    pub fn replace(&self, name: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
        hookdex_index::AtomicWrite::new()
            .dir_mode(0o700)
            .write(&self.path(name), bytes)
    }

    /// Appends `line` (one whole record) to the record with `O_APPEND`, so
    /// concurrent appends do not interleave; returns the record's length
    /// after it.
    ///
    /// # Errors
    ///
    /// When the folder or the record cannot be opened or written, or the
    /// record is not a regular file.
    pub fn append(&self, name: impl AsRef<Path>, line: &[u8]) -> io::Result<u64> {
        let mut file = self.open(name.as_ref(), std::fs::OpenOptions::new().append(true))?;
        file.write_all(line)?;
        Ok(file.metadata()?.len())
    }

    /// Reads the small record (at most 256 bytes), writes what `change`
    /// makes of its text, holding `flock` on it for the read-modify-write
    /// only (the locking story's "must not be lost" case); the kernel drops
    /// the lock when the process dies.
    ///
    /// # Errors
    ///
    /// When the folder or the record cannot be opened, locked or written,
    /// or the record is not a regular file.
    pub fn update<T>(
        &self,
        name: impl AsRef<Path>,
        change: impl FnOnce(&str) -> (String, T),
    ) -> io::Result<T> {
        let mut file = self.open(
            name.as_ref(),
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .truncate(false),
        )?;
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

    /// Creates the empty record `name` unless it is there: whether this
    /// call created it (the first of many askers, one `open` each).
    pub fn mark(&self, name: impl AsRef<Path>) -> bool {
        let path = self.path(name);
        let create = || {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(SAFE_OPEN)
                .open(&path)
        };
        match create() {
            Ok(_) => true,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                self.create_folder(&path).is_ok() && create().is_ok()
            }
            Err(_) => false,
        }
    }

    /// A lock file in the store (its `flock` orders writers of several
    /// records, as the stats' appends and compaction).
    ///
    /// # Errors
    ///
    /// When the folder or the file cannot be opened.
    pub fn lock_file(&self, name: impl AsRef<Path>) -> io::Result<File> {
        self.open(
            name.as_ref(),
            std::fs::OpenOptions::new().write(true).truncate(false),
        )
    }

    /// Removes the record; best effort.
    pub fn remove(&self, name: impl AsRef<Path>) {
        let _ = std::fs::remove_file(self.path(name));
    }

    /// Opens the record with `options`, creating it `0600` (and its folder
    /// `0700`) when missing; only a regular file is accepted.
    fn open(&self, name: &Path, options: &mut std::fs::OpenOptions) -> io::Result<File> {
        let path = self.path(name);
        options.create(true).mode(0o600).custom_flags(SAFE_OPEN);
        let file = match options.open(&path) {
            // The folder is created only when missing: no cost on the hook
            // path, where it exists.
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                self.create_folder(&path)?;
                options.open(&path)?
            }
            file => file?,
        };
        if !file.metadata()?.is_file() {
            return Err(io::Error::other(format!(
                "{}: not a regular file",
                path.display()
            )));
        }
        Ok(file)
    }

    /// Creates the folder of the record at `path`, `0700`.
    fn create_folder(&self, path: &Path) -> io::Result<()> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path.parent().unwrap_or(&self.dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_read_update_append_and_mark() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().join("kind"));
        assert_eq!(store.read("a", 16), None);
        store.replace("a", b"one\n").unwrap();
        assert_eq!(store.read("a", 16).as_deref(), Some("one\n"));
        assert_eq!(store.read("a", 3), None);
        let out = store
            .update("shard/b", |old| (format!("{old}x"), old.len()))
            .unwrap();
        assert_eq!(out, 0);
        store
            .update("shard/b", |old| (format!("{old}x"), ()))
            .unwrap();
        assert_eq!(store.read("shard/b", 16).as_deref(), Some("xx"));
        assert_eq!(store.append("log", b"1\n").unwrap(), 2);
        assert_eq!(store.append("log", b"2\n").unwrap(), 4);
        assert!(store.mark("new/once"));
        assert!(!store.mark("new/once"));
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(store.dir()), 0o700);
        assert_eq!(mode(&store.path("shard")), 0o700);
        assert_eq!(mode(&store.path("a")), 0o600);
        assert_eq!(mode(&store.path("log")), 0o600);
        store.remove("a");
        assert_eq!(store.read("a", 16), None);
    }

    #[test]
    fn a_planted_link_or_fifo_is_never_followed() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().to_path_buf());
        let victim = home.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, store.path("link")).unwrap();
        assert_eq!(store.read("link", 16), None);
        assert!(store.update("link", |_| (String::new(), ())).is_err());
        assert!(store.append("link", b"x").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!store.holds_bytes("link", b"keep"), "not through a link");
    }

    #[test]
    fn a_record_holds_bytes_only_when_every_piece_matches() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().to_path_buf());
        // Over one piece, so the comparison crosses pieces.
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        store.replace("big", &big).unwrap();
        assert!(store.holds_bytes("big", &big));
        let mut last = big.clone();
        *last.last_mut().unwrap() ^= 1;
        assert!(!store.holds_bytes("big", &last), "the last byte differs");
        let mut first_piece = big.clone();
        first_piece[70_000] ^= 1;
        assert!(
            !store.holds_bytes("big", &first_piece),
            "a middle byte differs"
        );
        assert!(!store.holds_bytes("big", &big[1..]), "another length");
        assert!(!store.holds_bytes("missing", b""));
        std::fs::create_dir(store.path("dir")).unwrap();
        assert!(!store.holds_bytes("dir", b""), "not a regular file");
    }
}
