//! Counters per session (SPEC §9): the block caps — a session's post-tool
//! blocks (3) and consecutive Stop blocks (5) in a row; past the cap the
//! call passes with a note, so a rule that blocks every time cannot trap
//! an agent in a loop — and each enforcement's count of matching calls,
//! which its cadence reads.
//!
//! One counter file per session and kind under `$HOOKDEX_HOME/caps/`,
//! named by 32 hex digits of both; the read-modify-write of a count holds
//! `flock` on its file (the locking story's "must not be lost" case), so
//! parallel hook processes of one session count every block once. Only
//! calls where a rule fired touch a counter: "in a row" means among those.

use std::path::Path;
use std::time::Duration;

use crate::state::{hex_name, Store};

/// What a cap counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapKind {
    /// Blocks after a tool ran (PostToolUse, PostToolUseFailure).
    Post,
    /// Consecutive Stop blocks.
    Stop,
}

impl CapKind {
    /// How many blocks in a row stand; the next one is dropped.
    pub fn limit(self) -> u32 {
        match self {
            CapKind::Post => 3,
            CapKind::Stop => 5,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            CapKind::Post => "post",
            CapKind::Stop => "stop",
        }
    }
}

/// How long a session's counters are kept after their last write.
const SESSION_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// The caps of one `$HOOKDEX_HOME`.
#[derive(Clone, Debug)]
pub struct Caps {
    store: Store,
}

/// What [`Caps::count`] decided for one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    /// Its block stands; this many blocks in a row now.
    Kept(u32),
    /// Its block is dropped: the cap was reached; the count starts again.
    Dropped,
    /// It did not block; the count starts again.
    Reset,
}

impl Caps {
    /// The caps under `home`.
    pub fn new(home: &Path) -> Caps {
        Caps {
            store: Store::new(home.join("caps")),
        }
    }

    /// How many blocks of `kind` in a row `session` has now (0 when none
    /// or unreadable).
    pub fn current(&self, session: &str, kind: CapKind) -> u32 {
        self.store
            .read(hex_name(&[session, kind.as_str()]), 32)
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Counts one call of `session` at `kind` that `blocked` or not. A
    /// counter that cannot be written counts nothing, and the block stands
    /// (failing open would be to drop it, which is not ours to decide).
    pub fn count(&self, session: &str, kind: CapKind, blocked: bool) -> Counted {
        let name = hex_name(&[session, kind.as_str()]);
        let fresh = !self.store.path(&name).exists();
        // Nothing to start again: a call that does not block writes nothing.
        if fresh && !blocked {
            return Counted::Reset;
        }
        let updated = self.update(&name, |n| match (blocked, n >= kind.limit()) {
            (false, _) => (0, Counted::Reset),
            (true, true) => (0, Counted::Dropped),
            (true, false) => (n + 1, Counted::Kept(n + 1)),
        });
        if fresh {
            self.prune();
        }
        updated.unwrap_or(if blocked {
            Counted::Kept(1)
        } else {
            Counted::Reset
        })
    }

    /// Counts one more matching call of enforcement `id` in `session` and
    /// returns the count (1 for the first; 0 when the counter cannot be
    /// written, so the message is not repeated on every call).
    pub fn bump(&self, session: &str, id: &str) -> u32 {
        let name = hex_name(&[session, "enforcement", id]);
        let fresh = !self.store.path(&name).exists();
        let counted = self
            .update(&name, |n| (n.saturating_add(1), n.saturating_add(1)))
            .unwrap_or(0);
        if fresh {
            self.prune();
        }
        counted
    }

    /// Starts the count of `kind` again for `session` (a new prompt ends a
    /// run of Stop blocks).
    pub fn reset(&self, session: &str, kind: CapKind) {
        let name = hex_name(&[session, kind.as_str()]);
        if self.store.path(&name).exists() {
            let _ = self.update(&name, |_| (0, ()));
        }
    }

    /// Whether this is the first time `id` is asked of `session`: the
    /// first asker creates its mark, every later one only finds it (one
    /// `open` a call, never a write after the first).
    pub fn first(&self, session: &str, id: &str) -> bool {
        self.store.mark(hex_name(&[session, "once", id]))
    }

    /// Reads the counter `name`, writes `change`'s new count, under `flock`.
    fn update<T>(&self, name: &str, change: impl FnOnce(u32) -> (u32, T)) -> std::io::Result<T> {
        self.store.update(name, |text| {
            let (count, out) = change(text.trim().parse().unwrap_or(0));
            (format!("{count}\n"), out)
        })
    }

    /// Removes counters nothing wrote to for [`SESSION_TTL`]; best effort,
    /// and only files with a counter's name.
    fn prune(&self) {
        for stale in crate::state::stale(self.store.dir(), SESSION_TTL, false) {
            let _ = std::fs::remove_file(stale);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_stand_up_to_the_cap_then_one_passes() {
        let home = tempfile::tempdir().unwrap();
        let caps = Caps::new(home.path());
        let counted: Vec<Counted> = (0..7)
            .map(|_| caps.count("s1", CapKind::Stop, true))
            .collect();
        use Counted::*;
        assert_eq!(
            counted,
            [
                Kept(1),
                Kept(2),
                Kept(3),
                Kept(4),
                Kept(5),
                Dropped,
                Kept(1)
            ]
        );
        assert_eq!(caps.count("s1", CapKind::Stop, false), Reset);
        assert_eq!(caps.count("s1", CapKind::Stop, true), Kept(1));
        // A session that never blocked has no counter written.
        assert_eq!(caps.count("quiet", CapKind::Post, false), Reset);
        assert!(!caps.store.path(hex_name(&["quiet", "post"])).exists());
        // Another session and another kind count apart.
        assert_eq!(caps.count("s2", CapKind::Stop, true), Kept(1));
        assert_eq!(caps.count("s1", CapKind::Post, true), Kept(1));
        caps.reset("s1", CapKind::Stop);
        assert_eq!(caps.current("s1", CapKind::Stop), 0);
    }

    #[test]
    fn parallel_counts_lose_nothing() {
        let home = tempfile::tempdir().unwrap();
        let caps = Caps::new(home.path());
        let threads: Vec<_> = (0..16)
            .map(|_| {
                let caps = caps.clone();
                std::thread::spawn(move || caps.count("s", CapKind::Post, true))
            })
            .collect();
        let counted: Vec<Counted> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        // 3 kept, 1 dropped, 3 kept, 1 dropped, …: 16 calls drop 4.
        let dropped = counted.iter().filter(|c| **c == Counted::Dropped).count();
        assert_eq!(dropped, 4, "{counted:?}");
    }

    #[test]
    fn a_counter_at_its_largest_stays_there() {
        let home = tempfile::tempdir().unwrap();
        let caps = Caps::new(home.path());
        std::fs::create_dir_all(caps.store.dir()).unwrap();
        let path = caps.store.path(hex_name(&["s", "enforcement", "e"]));
        std::fs::write(&path, format!("{}\n", u32::MAX)).unwrap();
        assert_eq!(caps.bump("s", "e"), u32::MAX);
    }

    #[test]
    fn a_planted_link_is_not_followed() {
        let home = tempfile::tempdir().unwrap();
        let caps = Caps::new(home.path());
        std::fs::create_dir_all(home.path().join("caps")).unwrap();
        let victim = home.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, caps.store.path(hex_name(&["s", "post"]))).unwrap();
        assert_eq!(caps.count("s", CapKind::Post, true), Counted::Kept(1));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
}
