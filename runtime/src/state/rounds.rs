//! Filter round counters: how many times a filter sent one target's text
//! back in one session, a replace-record of the locking story in
//! [`crate::state`].
//!
//! # Layout
//!
//! `$HOOKDEX_HOME/filters/rounds/<session>/<key>`: `<session>` and `<key>`
//! are 32 hex digits of the xxh3-128 of the session id and of the filter
//! and target (so neither needs escaping, and a path in a target cannot
//! leave the folder). A file holds one line, `1 <count>\n` (`1` is the
//! format version). Directories are created `0700`, files `0600`.
//!
//! # Concurrency and bound
//!
//! A writer writes a temporary file in the session folder and renames it
//! over the key: readers see the old count or the new one, and two hooks
//! racing on one target lose one round at most, which the cap tolerates.
//! A count is removed when a clean pass resets it. When a session's folder
//! is first created, the folders of sessions untouched for
//! [`SESSION_TTL`] are removed, so old sessions do not pile up.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{hex_name, Store};

/// How long a session's counters are kept after its last write.
pub const SESSION_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The format version at the start of every counter file.
const VERSION: &str = "1";

/// The longest counter file read; anything longer is not one of ours.
const MAX_ENTRY: u64 = 64;

/// The round counters of one session.
#[derive(Clone, Debug)]
pub struct Rounds {
    store: Store,
}

impl Rounds {
    /// The counters of `session` (none: the calls that name no session
    /// share one set) under `home` (`$HOOKDEX_HOME`).
    pub fn new(home: &Path, session: Option<&str>) -> Rounds {
        Rounds {
            store: Store::new(root(home).join(hex_name(&[session.unwrap_or_default()]))),
        }
    }

    /// The file that holds the count of `filter` on `target`.
    pub fn path(&self, filter: &str, target: &str) -> PathBuf {
        self.store.path(hex_name(&[filter, target]))
    }

    /// How many times `filter` sent `target`'s text back; 0 when no count
    /// is kept, or its file is not one of ours (a link, a FIFO, torn).
    pub fn count(&self, filter: &str, target: &str) -> u32 {
        let Some(text) = self.store.read(hex_name(&[filter, target]), MAX_ENTRY) else {
            return 0;
        };
        let Some(line) = text.strip_suffix('\n') else {
            return 0;
        };
        match line.split_once(' ') {
            Some((VERSION, count)) => count.parse().unwrap_or(0),
            _ => 0,
        }
    }

    /// Keeps `count` for `filter` on `target`.
    ///
    /// # Errors
    ///
    /// When the session folder or the counter cannot be written.
    pub fn set(&self, filter: &str, target: &str, count: u32) -> std::io::Result<()> {
        let dir = self.store.dir();
        let fresh = !dir.is_dir();
        let line = format!("{VERSION} {count}\n");
        self.store
            .replace(hex_name(&[filter, target]), line.as_bytes())?;
        if fresh {
            prune(dir.parent().unwrap_or(dir), dir);
        }
        Ok(())
    }

    /// Forgets the count of `filter` on `target` (a clean pass).
    pub fn reset(&self, filter: &str, target: &str) {
        self.store.remove(hex_name(&[filter, target]));
    }
}

/// `$HOOKDEX_HOME/filters/rounds`.
fn root(home: &Path) -> PathBuf {
    home.join("filters").join("rounds")
}

/// Removes the session folders of `root` other than `keep` that nothing
/// wrote to for [`SESSION_TTL`]; best effort.
fn prune(root: &Path, keep: &Path) {
    for stale in super::stale(root, SESSION_TTL, true) {
        if stale != keep {
            let _ = std::fs::remove_dir_all(stale);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    #[test]
    fn a_linked_root_and_foreign_names_are_never_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let old = |path: &Path| {
            std::fs::create_dir_all(path).unwrap();
            let long_ago = SystemTime::now() - SESSION_TTL * 2;
            std::fs::File::open(path)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        };
        let victim = dir.path().join("victim");
        old(&victim.join("project"));
        let session = "0123456789abcdef0123456789abcdef";
        old(&victim.join(session));
        let link = dir.path().join("rounds");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        prune(&link, &link.join("keep"));
        assert!(victim.join(session).exists(), "a linked root is not pruned");
        prune(&victim, &victim.join("keep"));
        assert!(
            victim.join("project").exists(),
            "not a session folder's name"
        );
        assert!(
            !victim.join(session).exists(),
            "a stale session folder goes"
        );
    }

    #[test]
    fn counts_are_kept_per_session_filter_and_target() {
        let home = tempfile::tempdir().unwrap();
        let one = Rounds::new(home.path(), Some("s1"));
        let two = Rounds::new(home.path(), Some("s2"));
        assert_eq!(one.count("f", "/a.py"), 0);
        one.set("f", "/a.py", 2).unwrap();
        assert_eq!(one.count("f", "/a.py"), 2);
        assert_eq!(one.count("f", "/b.py"), 0);
        assert_eq!(one.count("g", "/a.py"), 0);
        assert_eq!(two.count("f", "/a.py"), 0);
        one.reset("f", "/a.py");
        assert_eq!(one.count("f", "/a.py"), 0);
        use std::os::unix::fs::PermissionsExt;
        one.set("f", "/a.py", 1).unwrap();
        let file = one.path("f", "/a.py");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
        assert!(file.starts_with(home.path().join("filters/rounds")));
    }

    #[test]
    fn what_is_not_a_whole_counter_reads_as_zero() {
        let home = tempfile::tempdir().unwrap();
        let rounds = Rounds::new(home.path(), None);
        rounds.set("f", "t", 1).unwrap();
        let path = rounds.path("f", "t");
        for (text, want) in [
            ("1 3\n", 3),
            ("1 3", 0),
            ("2 3\n", 0),
            ("1 x\n", 0),
            ("", 0),
        ] {
            std::fs::write(&path, text).unwrap();
            assert_eq!(rounds.count("f", "t"), want, "{text:?}");
        }
        std::fs::remove_file(&path).unwrap();
        let elsewhere = home.path().join("elsewhere");
        std::fs::write(&elsewhere, "1 9\n").unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert_eq!(rounds.count("f", "t"), 0, "a link is not followed");
    }

    #[test]
    fn a_new_session_prunes_the_stale_ones() {
        let home = tempfile::tempdir().unwrap();
        let old = Rounds::new(home.path(), Some("old"));
        old.set("f", "t", 1).unwrap();
        let old_dir = old.path("f", "t").parent().unwrap().to_path_buf();
        let past = SystemTime::now() - SESSION_TTL - Duration::from_secs(60);
        std::fs::File::open(&old_dir)
            .unwrap()
            .set_modified(past)
            .unwrap();
        let recent = Rounds::new(home.path(), Some("recent"));
        recent.set("f", "t", 1).unwrap();
        let new = Rounds::new(home.path(), Some("new"));
        new.set("f", "t", 1).unwrap();
        assert!(!old_dir.exists());
        assert_eq!(recent.count("f", "t"), 1);
    }
}
