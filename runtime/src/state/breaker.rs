//! The circuit breaker of `HOOK.md` hooks (SPEC §9, moltis' rule): three
//! failures in a row (an exit other than 0 and 1, a crash, a timeout; a
//! block is not a failure) turn the hook off for the cooldown
//! (`HOOKDEX_BREAKER_COOLDOWN_SEC`, default 60 s), then it runs again
//! with its count at zero.
//!
//! As in moltis the trip is lazy: the third failure only counts, and the
//! next call that would run the hook finds the count at the threshold,
//! stamps the time and skips it; the cooldown runs from that stamp. Unlike
//! moltis (one gateway process), a hook process lives one call, so the
//! state is on disk, one record per hook under `$HOOKDEX_HOME/breaker/`,
//! `failures tripped-at-ms`, updated under `flock` by concurrent hooks.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::state::{hex_name, Store};

/// Failures in a row that open the breaker.
pub const THRESHOLD: u32 = 3;

/// `HOOKDEX_BREAKER_COOLDOWN_SEC` when unset or unusable.
pub const DEFAULT_COOLDOWN: Duration = Duration::from_secs(60);

/// The breakers of one `$HOOKDEX_HOME`.
#[derive(Clone, Debug)]
pub struct Breakers {
    store: Store,
    cooldown: Duration,
}

/// What a breaker says of the next run of its hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// It runs; this many failures in a row so far.
    Closed(u32),
    /// It is skipped until this many milliseconds since the epoch.
    Open {
        /// When the cooldown ends.
        until_ms: u64,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Record {
    failures: u32,
    tripped_at_ms: u64,
}

impl Record {
    fn read(text: &str) -> Record {
        let mut parts = text.split_whitespace().map(str::parse::<u64>);
        let failures = parts.next().and_then(Result::ok).unwrap_or(0);
        Record {
            failures: u32::try_from(failures).unwrap_or(u32::MAX),
            tripped_at_ms: parts.next().and_then(Result::ok).unwrap_or(0),
        }
    }

    fn text(self) -> String {
        format!("{} {}\n", self.failures, self.tripped_at_ms)
    }
}

impl Breakers {
    /// The breakers under `home`, with `cooldown`.
    pub fn new(home: &Path, cooldown: Duration) -> Breakers {
        Breakers {
            store: Store::new(home.join("breaker")),
            cooldown,
        }
    }

    fn path(&self, hook: &str) -> PathBuf {
        self.store.path(hex_name(&[hook]))
    }

    fn cooldown_ms(&self) -> u64 {
        u64::try_from(self.cooldown.as_millis()).unwrap_or(u64::MAX)
    }

    /// What the breaker of `hook` (its file) says now, without changing it.
    pub fn status(&self, hook: &str) -> Gate {
        let text = self.store.read(hex_name(&[hook]), 64).unwrap_or_default();
        self.gate(Record::read(&text), crate::log::now_ms()).0
    }

    /// Whether `hook` may run now, taking the lazy trip and the recovery.
    /// A breaker that cannot be written lets the hook run (failing open).
    pub fn admit(&self, hook: &str) -> Gate {
        let now = crate::log::now_ms();
        self.store
            .update(hex_name(&[hook]), |text| {
                let (gate, record) = self.gate(Record::read(text), now);
                (record.text(), gate)
            })
            .unwrap_or(Gate::Closed(0))
    }

    /// Counts one run of `hook` that `failed` or not: a failure adds one,
    /// anything else starts the count again.
    pub fn record(&self, hook: &str, failed: bool) {
        if !failed && !self.path(hook).exists() {
            return;
        }
        let _ = self.store.update(hex_name(&[hook]), |text| {
            let mut record = Record::read(text);
            record.failures = match failed {
                true => record.failures.saturating_add(1),
                false => 0,
            };
            (record.text(), ())
        });
    }

    /// The gate for `record` at `now`, and the record as it stands after.
    fn gate(&self, mut record: Record, now: u64) -> (Gate, Record) {
        if record.failures < THRESHOLD {
            return (Gate::Closed(record.failures), record);
        }
        // Never stamped, or stamped in the future (a clock set back, a
        // planted record): the cooldown starts now, so it always ends.
        if record.tripped_at_ms == 0 || record.tripped_at_ms > now {
            record.tripped_at_ms = now;
        }
        let until_ms = record.tripped_at_ms.saturating_add(self.cooldown_ms());
        if now < until_ms {
            return (Gate::Open { until_ms }, record);
        }
        (Gate::Closed(0), Record::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_failures_open_it_lazily_and_the_cooldown_closes_it() {
        let home = tempfile::tempdir().unwrap();
        let breakers = Breakers::new(home.path(), Duration::from_millis(300));
        let hook = "/h/hooks/x/HOOK.md";
        for n in 0..THRESHOLD {
            assert_eq!(breakers.admit(hook), Gate::Closed(n));
            breakers.record(hook, true);
        }
        assert!(matches!(breakers.status(hook), Gate::Open { .. }));
        assert!(matches!(breakers.admit(hook), Gate::Open { .. }));
        std::thread::sleep(Duration::from_millis(350));
        assert_eq!(breakers.admit(hook), Gate::Closed(0));
        breakers.record(hook, true);
        assert_eq!(breakers.admit(hook), Gate::Closed(1));
        breakers.record(hook, false);
        assert_eq!(breakers.admit(hook), Gate::Closed(0));
        // Another hook has its own breaker; a hook that never failed writes nothing.
        breakers.record("/other", false);
        assert!(!breakers.path("/other").exists());
    }

    #[test]
    fn a_stamp_in_the_future_still_ends_one_cooldown_from_now() {
        let home = tempfile::tempdir().unwrap();
        let breakers = Breakers::new(home.path(), Duration::from_millis(200));
        std::fs::create_dir_all(breakers.store.dir()).unwrap();
        std::fs::write(breakers.path("/h"), format!("3 {}\n", u64::MAX - 5)).unwrap();
        let Gate::Open { until_ms } = breakers.admit("/h") else {
            panic!("open")
        };
        assert!(until_ms <= crate::log::now_ms() + 200);
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(breakers.admit("/h"), Gate::Closed(0));
    }

    #[test]
    fn parallel_failures_are_all_counted() {
        let home = tempfile::tempdir().unwrap();
        let breakers = Breakers::new(home.path(), Duration::from_secs(60));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let b = breakers.clone();
                std::thread::spawn(move || b.record("/h", true))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let text = std::fs::read_to_string(breakers.path("/h")).unwrap();
        assert_eq!(Record::read(&text).failures, 8);
    }
}
