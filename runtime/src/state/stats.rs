//! Output-filter counters for `hookdex stats`: each act of a filter (bytes
//! in and out, the original's content hash) and each miss (a selector no
//! filter claimed), appended as one JSON line per record to
//! `$HOOKDEX_HOME/stats/outfilters.jsonl` with `O_APPEND`, so concurrent
//! hook and exec processes never interleave (see the module doc of
//! [`crate::state`]). Read, the lines add up to per-filter and per-family
//! totals: acts, saved bytes and tokens, cumulative and unique by content
//! (a transcript re-sent every turn counts once), and the misses ledger,
//! ranked by count and held to [`MISSES`] selectors.
//!
//! The file is bounded: past [`MAX_BYTES`] a writer compacts it under an
//! `flock` into its totals (one line per filter, the content hashes seen
//! kept up to [`SEEN`], the ledger's [`MISSES`]), written to a temporary
//! file and renamed, so a reader sees the old file or the new.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::Store;

/// The counters' file in the stats folder.
const FILE: &str = "outfilters.jsonl";

/// The file whose `flock` orders appends (shared) and a compaction
/// (exclusive).
const LOCK: &str = ".compact.lock";

/// The misses ledger's bound, in distinct selectors.
pub const MISSES: usize = 200;

/// The content hashes kept per filter across a compaction.
pub const SEEN: usize = 4096;

/// The file's size past which a writer compacts it.
pub const MAX_BYTES: u64 = 4 << 20;

/// Tokens, as the seeds count them: a token per four bytes, rounded up.
pub fn tokens(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

/// The counters of one `$HOOKDEX_HOME`.
#[derive(Clone, Debug)]
pub struct Stats {
    store: Store,
}

/// One filter's (or one family's) totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// How many outputs it shrank.
    pub acts: u64,
    /// Bytes in, all acts.
    pub bytes_in: u64,
    /// Bytes out, all acts.
    pub bytes_out: u64,
    /// Bytes saved, each distinct original once.
    pub saved_unique: u64,
    seen: HashSet<String>,
}

impl Totals {
    /// Bytes saved, all acts.
    pub fn saved(&self) -> u64 {
        self.bytes_in.saturating_sub(self.bytes_out)
    }

    fn add(&mut self, bytes_in: u64, bytes_out: u64, hash: &str) {
        self.acts += 1;
        self.bytes_in += bytes_in;
        self.bytes_out += bytes_out;
        if self.seen.insert(hash.to_string()) {
            self.saved_unique += bytes_in.saturating_sub(bytes_out);
        }
    }
}

/// Everything the counters say.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Per filter.
    pub filters: BTreeMap<String, Totals>,
    /// Per family (the filter's name up to its first `-` or `_`).
    pub families: BTreeMap<String, Totals>,
    /// Selectors no filter claimed, with their counts, most frequent first.
    pub misses: Vec<(String, u64)>,
}

/// The family of a filter: its name up to the first `-`, `_` or `.`.
pub fn family(filter: &str) -> &str {
    filter.split(['-', '_', '.']).next().unwrap_or(filter)
}

impl Stats {
    /// The counters under `home`.
    pub fn new(home: &Path) -> Stats {
        Stats {
            store: Store::new(home.join("stats")),
        }
    }

    /// The counters' file.
    fn file(&self) -> PathBuf {
        self.store.path(FILE)
    }

    /// Counts an act of `filter`: `bytes_in` became `bytes_out`, the
    /// original's content hash being `hash`. Best effort.
    pub fn act(&self, filter: &str, bytes_in: u64, bytes_out: u64, hash: &str) {
        self.append(&json!({"act": filter, "in": bytes_in, "out": bytes_out, "hash": hash}));
    }

    /// Counts a selector no filter claimed (its first line, at most 160
    /// characters). Best effort.
    pub fn miss(&self, selector: &str) {
        let head: String = selector
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(160)
            .collect();
        self.append(&json!({"miss": head}));
    }

    fn append(&self, record: &Value) {
        let mut line = record.to_string();
        line.push('\n');
        let full = {
            // Shared with other appenders, never with a compaction: a line
            // written between its read and its rename would be lost.
            let Ok(lock) = self.store.lock_file(LOCK) else {
                return;
            };
            if lock.lock_shared().is_err() {
                return;
            }
            let Ok(len) = self.store.append(FILE, line.as_bytes()) else {
                return;
            };
            len > MAX_BYTES
        };
        if full {
            self.compact();
        }
    }

    /// What the counters say now.
    pub fn report(&self) -> Report {
        let text = std::fs::read(self.file()).unwrap_or_default();
        let mut report = Report::default();
        let mut misses: BTreeMap<String, u64> = BTreeMap::new();
        for line in text.split(|b| *b == b'\n') {
            let Ok(record) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let count = |key: &str| record[key].as_u64().unwrap_or(0);
            if let Some(filter) = record["act"].as_str() {
                let hash = record["hash"].as_str().unwrap_or("");
                let (bytes_in, bytes_out) = (count("in"), count("out"));
                for totals in [
                    report.filters.entry(filter.to_string()).or_default(),
                    report
                        .families
                        .entry(family(filter).to_string())
                        .or_default(),
                ] {
                    totals.add(bytes_in, bytes_out, hash);
                }
            } else if let Some(filter) = record["total"].as_str() {
                let totals = report.filters.entry(filter.to_string()).or_default();
                totals.acts += count("acts");
                totals.bytes_in += count("in");
                totals.bytes_out += count("out");
                totals.saved_unique += count("saved_unique");
                let seen: Vec<String> = record["seen"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect();
                totals.seen.extend(seen.iter().cloned());
                let fam = report
                    .families
                    .entry(family(filter).to_string())
                    .or_default();
                fam.acts += count("acts");
                fam.bytes_in += count("in");
                fam.bytes_out += count("out");
                fam.saved_unique += count("saved_unique");
                // So an original seen before the compaction is not counted
                // again for the family either.
                fam.seen.extend(seen);
            } else if let Some(selector) = record["miss"].as_str() {
                *misses.entry(selector.to_string()).or_default() += count("count").max(1);
            }
        }
        let mut misses: Vec<(String, u64)> = misses.into_iter().collect();
        misses.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        misses.truncate(MISSES);
        report.misses = misses;
        report
    }

    /// Rewrites the file as its totals, holding the compaction lock
    /// exclusively (appenders wait for it, and a second compaction finds the
    /// file small again).
    fn compact(&self) {
        let Ok(lock) = self.store.lock_file(LOCK) else {
            return;
        };
        // Dropped with `lock` at the end of this call, or by the kernel if
        // the process dies holding it.
        if lock.lock().is_err() {
            return;
        }
        if std::fs::metadata(self.file()).map_or(true, |m| m.len() <= MAX_BYTES) {
            return;
        }
        let report = self.report();
        let mut text = String::new();
        for (name, totals) in &report.filters {
            let seen: Vec<&String> = totals.seen.iter().take(SEEN).collect();
            let line = json!({
                "total": name, "acts": totals.acts, "in": totals.bytes_in,
                "out": totals.bytes_out, "saved_unique": totals.saved_unique, "seen": seen,
            });
            text.push_str(&line.to_string());
            text.push('\n');
        }
        for (selector, count) in &report.misses {
            text.push_str(&json!({"miss": selector, "count": count}).to_string());
            text.push('\n');
        }
        let _ = self.store.replace(FILE, text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn totals_add_up_per_filter_and_family_and_unique_by_content() {
        let home = tempfile::tempdir().unwrap();
        let stats = Stats::new(home.path());
        stats.act("cargo-build", 1000, 100, "a");
        stats.act("cargo-build", 1000, 100, "a");
        stats.act("cargo-test", 500, 50, "b");
        stats.miss("$ ls -la\ntotal 8");
        stats.miss("$ ls -la");
        stats.miss("$ whoami");
        let report = stats.report();
        let build = &report.filters["cargo-build"];
        assert_eq!(
            (build.acts, build.saved(), build.saved_unique),
            (2, 1800, 900)
        );
        let cargo = &report.families["cargo"];
        assert_eq!(
            (cargo.acts, cargo.saved(), cargo.saved_unique),
            (3, 2250, 1350)
        );
        assert_eq!(report.misses[0], ("$ ls -la".to_string(), 2));
        assert_eq!(tokens(1800), 450);
    }

    #[test]
    fn a_compaction_keeps_the_totals() {
        let home = tempfile::tempdir().unwrap();
        let stats = Stats::new(home.path());
        stats.act("pip", 800, 80, "x");
        for i in 0..300 {
            stats.miss(&format!("$ tool{i}"));
        }
        let before = stats.report();
        std::fs::OpenOptions::new()
            .append(true)
            .open(stats.file())
            .unwrap()
            .set_len(MAX_BYTES + 1)
            .unwrap();
        stats.compact();
        let after = stats.report();
        assert_eq!(
            after.filters["pip"].saved_unique,
            before.filters["pip"].saved_unique
        );
        assert_eq!(after.misses.len(), MISSES);
        stats.act("pip", 800, 80, "x");
        let report = stats.report();
        assert_eq!(report.filters["pip"].saved_unique, 720, "x was seen before");
        assert_eq!(
            report.families["pip"].saved_unique, 720,
            "by its family too"
        );
    }

    #[test]
    fn appends_racing_a_compaction_are_all_counted() {
        let home = tempfile::tempdir().unwrap();
        let stats = Stats::new(home.path());
        stats.act("make", 500, 50, "first");
        // A filler line to just short of the bound: the next appends compact.
        let len = std::fs::metadata(stats.file()).unwrap().len();
        let filler = format!("{}\n", "x".repeat((MAX_BYTES - len - 10) as usize));
        std::fs::OpenOptions::new()
            .append(true)
            .open(stats.file())
            .unwrap()
            .write_all(filler.as_bytes())
            .unwrap();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let stats = stats.clone();
                std::thread::spawn(move || {
                    for i in 0..25 {
                        stats.act("make", 500, 50, &format!("{t}-{i}"));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(stats.report().filters["make"].acts, 201);
    }
}
