//! The classifier's [`Answer`] and its cache: one small file per answer, keyed by a
//! hash of what was asked, written by rename (a replace-record of the
//! locking story in [`crate::state`]), expired by age and bounded in count.
//!
//! # Layout
//!
//! `$HOOKDEX_HOME/classifier/answers/<kk>/<key>`: `<key>` is the 64 hex
//! digits of the SHA-256 of the question ([`AnswerKey`]), `<kk>` its first
//! two, one of 256 shard directories. A file holds one line,
//! `1 <yes|no> <unix milliseconds when written>\n` (`1` is the format
//! version).
//! Directories are created `0700`, files `0600`.
//!
//! # Concurrency and damage
//!
//! A writer writes a temporary file (`.tmp*`) in the shard and renames it
//! over the key, so a reader sees a whole old answer or a whole new one;
//! two writers of one key both succeed and the later rename wins, which is
//! harmless because both wrote an answer to the same question. No lock is
//! taken, so a killed hook wedges nothing; the temporary file it may leave
//! is removed by the next writer to that shard once it is a minute old. A
//! file that is not one whole line of this format (torn by a full disk,
//! written by something else) is a miss, and is replaced on the next write.
//!
//! # Bound
//!
//! At most [`PER_SHARD`] answers per shard, so about 256 × 32 = 8,192 in
//! all, each under 100 bytes. A writer that leaves its shard over the bound
//! removes the oldest files (by modification time, which is when they were
//! written: a hit does not refresh an answer, so the hook's read path never
//! writes). Expired answers are misses and go first when a shard is full.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::Store;

/// Answers kept per shard directory; a write past it removes the oldest.
pub const PER_SHARD: usize = 32;

/// The longest answer file read; anything longer is not one of ours.
const MAX_ENTRY: u64 = 128;

/// How old a temporary file must be before a writer takes it for one a
/// killed process left behind and removes it.
const STALE_TEMP: Duration = Duration::from_secs(60);

/// The format version at the start of every answer file.
const VERSION: &str = "1";

/// A definite answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// The finding goes against the intent (as the question asks).
    Yes,
    /// It does not.
    No,
}

impl Answer {
    /// `yes` or `no`.
    pub fn word(self) -> &'static str {
        match self {
            Answer::Yes => "yes",
            Answer::No => "no",
        }
    }

    /// The answer `word` spells, in any case, with no other character.
    pub fn from_word(word: &str) -> Option<Answer> {
        if word.eq_ignore_ascii_case("yes") {
            Some(Answer::Yes)
        } else if word.eq_ignore_ascii_case("no") {
            Some(Answer::No)
        } else {
            None
        }
    }
}

/// Which question an answer belongs to: the SHA-256 of its parts, each
/// length-prefixed so no two different lists of parts hash alike by
/// concatenation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnswerKey([u8; 32]);

/// An answer file's name: its key in hex.
const ANSWER_NAME_LEN: usize = 64;

impl AnswerKey {
    /// The key of the question made of `parts`, in order.
    pub fn of<'a>(parts: impl IntoIterator<Item = &'a str>) -> AnswerKey {
        let mut hash = Sha256::new();
        hash.update(b"hookdex answer key v1\0");
        for part in parts {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        AnswerKey(hash.finalize().into())
    }

    /// The 64 lowercase hex digits of the key.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The answer cache under one home directory.
#[derive(Clone, Debug)]
pub struct AnswerCache {
    store: Store,
    ttl: Duration,
}

impl AnswerCache {
    /// The cache under `home` (`$HOOKDEX_HOME`), whose answers hold for
    /// `ttl` (zero: nothing is kept, nothing is found).
    pub fn new(home: &Path, ttl: Duration) -> AnswerCache {
        AnswerCache {
            store: Store::new(home.join("classifier").join("answers")),
            ttl,
        }
    }

    /// The directory the answers live in.
    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// The file that holds the answer for `key`.
    pub fn path(&self, key: &AnswerKey) -> PathBuf {
        self.store.path(name(key))
    }

    /// The answer cached for `key`, when there is one younger than the TTL.
    /// A missing, unreadable, foreign or torn file is a miss; so is one
    /// written in the future (a clock set back).
    pub fn get(&self, key: &AnswerKey) -> Option<Answer> {
        if self.ttl.is_zero() {
            return None;
        }
        let text = self.store.read(name(key), MAX_ENTRY)?;
        let (answer, written) = parse(&text)?;
        let age = now_ms().checked_sub(written)?;
        (Duration::from_millis(age) < self.ttl).then_some(answer)
    }

    /// Keeps `answer` for `key`, then holds the shard to its bound. A cache
    /// that cannot be written costs a question next time, nothing else.
    ///
    /// # Errors
    ///
    /// When the shard directory or the answer file cannot be written.
    pub fn put(&self, key: &AnswerKey, answer: Answer) -> std::io::Result<()> {
        if self.ttl.is_zero() {
            return Ok(());
        }
        let line = format!("{VERSION} {} {}\n", answer.word(), now_ms());
        self.store.replace(name(key), line.as_bytes())?;
        let path = self.path(key);
        prune(path.parent().expect("an answer file is inside its shard"));
        Ok(())
    }
}

/// The record of `key`: `<kk>/<key>`.
fn name(key: &AnswerKey) -> PathBuf {
    let hex = key.hex();
    Path::new(&hex[..2]).join(&hex)
}

/// The answer and the time it was written, from one whole answer line.
fn parse(text: &str) -> Option<(Answer, u64)> {
    let line = text.strip_suffix('\n')?;
    let mut fields = line.split(' ');
    if fields.next()? != VERSION {
        return None;
    }
    let answer = Answer::from_word(fields.next()?)?;
    let written = fields.next()?.parse().ok()?;
    fields.next().is_none().then_some((answer, written))
}

/// Milliseconds since the epoch (zero before it).
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Holds `shard` to [`PER_SHARD`] answers, the oldest removed first, and
/// removes temporary files older than [`STALE_TEMP`]. Every step is best
/// effort: two writers pruning at once may both remove a file, and one
/// that cannot be removed is left for the next writer.
fn prune(shard: &Path) {
    let Ok(entries) = std::fs::read_dir(shard) else {
        return;
    };
    let now = SystemTime::now();
    let mut answers = Vec::new();
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        let written = meta.modified().unwrap_or(UNIX_EPOCH);
        let temp = entry
            .file_name()
            .to_string_lossy()
            .starts_with(hookdex_index::TEMP_PREFIX);
        if temp {
            let age = now.duration_since(written).unwrap_or_default();
            if age > STALE_TEMP {
                let _ = std::fs::remove_file(entry.path());
            }
        } else if meta.is_file() && super::is_hex_name(&entry.file_name(), ANSWER_NAME_LEN) {
            answers.push((written, entry.path()));
        }
    }
    if answers.len() <= PER_SHARD {
        return;
    }
    answers.sort();
    let excess = answers.len() - PER_SHARD;
    for (_, path) in answers.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(ttl_secs: u64) -> (tempfile::TempDir, AnswerCache) {
        let home = tempfile::tempdir().unwrap();
        let cache = AnswerCache::new(home.path(), Duration::from_secs(ttl_secs));
        (home, cache)
    }

    #[test]
    fn keys_separate_their_parts() {
        assert_ne!(AnswerKey::of(["ab", "c"]), AnswerKey::of(["a", "bc"]));
        assert_ne!(AnswerKey::of(["a"]), AnswerKey::of(["a", ""]));
        assert_eq!(AnswerKey::of(["a", "b"]), AnswerKey::of(["a", "b"]));
        assert_eq!(AnswerKey::of(["x"]).hex().len(), 64);
    }

    #[test]
    fn an_answer_is_kept_under_its_shard() {
        let (home, cache) = cache(60);
        let key = AnswerKey::of(["q"]);
        assert_eq!(cache.get(&key), None);
        cache.put(&key, Answer::Yes).unwrap();
        assert_eq!(cache.get(&key), Some(Answer::Yes));
        cache.put(&key, Answer::No).unwrap();
        assert_eq!(cache.get(&key), Some(Answer::No));
        let hex = key.hex();
        let file = home
            .path()
            .join("classifier/answers")
            .join(&hex[..2])
            .join(&hex);
        assert_eq!(cache.path(&key), file);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("1 no "), "{text}");
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
    }

    #[test]
    fn what_is_not_one_whole_line_is_a_miss() {
        let (_home, cache) = cache(60);
        let key = AnswerKey::of(["q"]);
        cache.put(&key, Answer::Yes).unwrap();
        let path = cache.path(&key);
        let now = now_ms();
        let table = [
            (format!("1 yes {now}\n"), Some(Answer::Yes)),
            (format!("1 yes {now}"), None),
            ("1 ye".to_string(), None),
            (String::new(), None),
            (format!("2 yes {now}\n"), None),
            (format!("1 maybe {now}\n"), None),
            (format!("1 yes {now} extra\n"), None),
            (format!("1 yes {}\n", now + 3_600_000), None),
            (format!("1 yes {}\n", now - 120_000), None),
            (format!("1 yes {now}\n{}", "x".repeat(200)), None),
        ];
        for (text, expected) in table {
            std::fs::write(&path, &text).unwrap();
            assert_eq!(cache.get(&key), expected, "{text:?}");
        }
    }

    #[test]
    fn a_fifo_or_a_link_is_a_miss_not_a_hang() {
        let (home, cache) = cache(60);
        let (fifo, link) = (AnswerKey::of(["fifo"]), AnswerKey::of(["link"]));
        for key in [fifo, link] {
            std::fs::create_dir_all(cache.path(&key).parent().unwrap()).unwrap();
        }
        let made = std::process::Command::new("mkfifo")
            .arg(cache.path(&fifo))
            .status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(cache.get(&fifo), None);
        }
        let target = home.path().join("elsewhere");
        std::fs::write(&target, format!("1 yes {}\n", now_ms())).unwrap();
        std::os::unix::fs::symlink(&target, cache.path(&link)).unwrap();
        assert_eq!(cache.get(&link), None);
    }

    #[test]
    fn a_zero_ttl_keeps_nothing() {
        let (home, cache) = cache(0);
        let key = AnswerKey::of(["q"]);
        cache.put(&key, Answer::Yes).unwrap();
        assert_eq!(cache.get(&key), None);
        assert!(!home.path().join("classifier").exists());
    }

    #[test]
    fn a_shard_holds_its_bound_and_loses_its_oldest_first() {
        let (_home, cache) = cache(3600);
        // Keys of one shard: the first two hex digits agree.
        let keys: Vec<AnswerKey> = (0..)
            .map(|i| AnswerKey::of([i.to_string().as_str()]))
            .filter(|k| k.hex().starts_with("00"))
            .take(PER_SHARD + 3)
            .collect();
        let shard = cache.path(&keys[0]).parent().unwrap().to_path_buf();
        for (i, key) in keys.iter().enumerate() {
            cache.put(key, Answer::No).unwrap();
            // Distinct, increasing modification times, oldest first.
            let at = UNIX_EPOCH + Duration::from_secs(1_000_000 + i as u64);
            let file = std::fs::File::options()
                .write(true)
                .open(cache.path(key))
                .unwrap();
            file.set_modified(at).unwrap();
        }
        let stale = shard.join(".tmpdead");
        std::fs::write(&stale, "1 y").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(UNIX_EPOCH)
            .unwrap();
        cache.put(&keys[0], Answer::Yes).unwrap();
        let left: Vec<_> = std::fs::read_dir(&shard).unwrap().flatten().collect();
        assert_eq!(left.len(), PER_SHARD);
        assert!(!stale.exists());
        // keys[0] was just rewritten; keys[1..=3] were the oldest.
        assert_eq!(cache.get(&keys[0]), Some(Answer::Yes));
        for key in &keys[1..=3] {
            assert!(!cache.path(key).exists());
        }
        assert_eq!(cache.get(&keys[4]), Some(Answer::No));
    }
}
