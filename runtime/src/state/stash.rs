//! The stash of lossy originals: when an output filter dropped content, the
//! whole original is kept under `$HOOKDEX_HOME/stash/<key>` so `hookdex
//! expand <key>` prints it byte for byte. The key is the xxh3-64 of the
//! content (16 hex digits), so the same output stashed twice is one file.
//! Files are written to a temporary file and renamed (no reader sees half
//! of one), created `0600`, and the stash is held to [`MAX_ENTRIES`] files
//! and [`MAX_BYTES`] bytes, the oldest evicted first; a file stashed again
//! counts as new.

use std::path::Path;
use std::time::SystemTime;

use super::Store;

/// The most originals kept.
pub const MAX_ENTRIES: usize = 256;

/// The most bytes kept, all originals together.
pub const MAX_BYTES: u64 = 256 << 20;

/// The stash of one `$HOOKDEX_HOME`.
#[derive(Clone, Debug)]
pub struct Stash {
    store: Store,
}

impl Stash {
    /// The stash under `home`.
    pub fn new(home: &Path) -> Stash {
        Stash {
            store: Store::new(home.join("stash")),
        }
    }

    /// The key of `content`.
    pub fn key(content: &[u8]) -> String {
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(content))
    }

    /// Keeps `content` under `key`, which must be [`Stash::key`] of it (the
    /// caller has it already: it names the key in the recovery hint), then
    /// holds the stash to its bounds.
    ///
    /// # Errors
    ///
    /// When the stash cannot be written (the caller then keeps the original
    /// output whole, since it could not be recovered).
    pub fn put(&self, key: &str, content: &[u8]) -> std::io::Result<()> {
        debug_assert_eq!(key, Stash::key(content));
        // A stash folder that is a link would be pruned wherever it points.
        if std::fs::symlink_metadata(self.store.dir()).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(std::io::Error::other("the stash folder is a link"));
        }
        // Stashed already: a file of another length is not read, one of the
        // same length is compared a piece at a time.
        if self.store.holds_bytes(key, content) {
            let file = std::fs::File::options()
                .append(true)
                .open(self.store.path(key))?;
            file.set_modified(SystemTime::now())?;
        } else {
            self.store.replace(key, content)?;
        }
        self.prune();
        Ok(())
    }

    /// The original stashed under `key`, when it is there. A key that is not
    /// 16 hex digits names nothing (it never reaches the file system).
    pub fn get(&self, key: &str) -> Option<Vec<u8>> {
        if key.len() != 16 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.store.read_bytes(key, MAX_BYTES)
    }

    /// Evicts the oldest originals past the bounds, and temporary files
    /// left by a writer that died. Best effort, as the answer cache's.
    fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(self.store.dir()) else {
            return;
        };
        let now = SystemTime::now();
        let mut kept = Vec::new();
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            let written = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let name = entry.file_name();
            if name
                .to_string_lossy()
                .starts_with(hookdex_index::TEMP_PREFIX)
            {
                let age = now.duration_since(written).unwrap_or_default();
                if age.as_secs() > 600 {
                    let _ = std::fs::remove_file(entry.path());
                }
            } else if meta.is_file() && crate::state::is_hex_name(&name, 16) {
                kept.push((written, meta.len(), entry.path()));
            }
        }
        kept.sort();
        let mut total: u64 = kept.iter().map(|(_, len, _)| len).sum();
        let mut count = kept.len();
        for (_, len, path) in kept {
            if count <= MAX_ENTRIES && total <= MAX_BYTES {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                count -= 1;
                total -= len;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(stash: &Stash, content: &[u8]) -> String {
        let key = Stash::key(content);
        stash.put(&key, content).unwrap();
        key
    }

    #[test]
    fn an_original_comes_back_byte_for_byte_and_keys_name_nothing_else() {
        let home = tempfile::tempdir().unwrap();
        let stash = Stash::new(home.path());
        let original = b"line one\r\n\xff not utf-8\n\n";
        let key = keep(&stash, original);
        assert_eq!(stash.get(&key).as_deref(), Some(&original[..]));
        assert_eq!(keep(&stash, original), key, "one file per content");
        assert_eq!(std::fs::read_dir(stash.store.dir()).unwrap().count(), 1);
        for bad in [
            "../../etc/passwd",
            "",
            "0123456789abcdeg",
            "/etc/passwd00000",
        ] {
            assert_eq!(stash.get(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_oldest_are_evicted_past_the_bound() {
        let home = tempfile::tempdir().unwrap();
        let stash = Stash::new(home.path());
        let old = keep(&stash, b"the oldest");
        let long_ago = SystemTime::now() - std::time::Duration::from_secs(3600);
        let file = std::fs::File::options()
            .append(true)
            .open(home.path().join("stash").join(&old))
            .unwrap();
        file.set_modified(long_ago).unwrap();
        for i in 0..MAX_ENTRIES {
            keep(&stash, format!("output {i}").as_bytes());
        }
        let left = std::fs::read_dir(home.path().join("stash"))
            .unwrap()
            .count();
        assert_eq!(left, MAX_ENTRIES);
        assert_eq!(stash.get(&old), None, "the oldest went first");
    }

    #[test]
    fn only_stash_entries_are_pruned_and_a_linked_folder_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let stash = Stash::new(home.path());
        std::fs::create_dir_all(stash.store.dir()).unwrap();
        let mine = stash.store.path("notes.txt");
        std::fs::write(&mine, "not an original").unwrap();
        let long_ago = SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .append(true)
            .open(&mine)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        for i in 0..=MAX_ENTRIES {
            keep(&stash, format!("output {i}").as_bytes());
        }
        assert!(mine.exists(), "a file that is no stash entry stays");

        let other = tempfile::tempdir().unwrap();
        let linked = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(other.path(), linked.path().join("stash")).unwrap();
        let stash = Stash::new(linked.path());
        let key = Stash::key(b"x");
        assert!(stash.put(&key, b"x").is_err());
        assert_eq!(std::fs::read_dir(other.path()).unwrap().count(), 0);
    }
}
