//! The gate's state (SPEC §13): per session, open from the person's prompt
//! that asks for a rule change until the turn's `Stop`, and never longer
//! than an hour. One file per session under `$HOOKDEX_HOME/gate/`, named by
//! `hex_name`, holding the time it was opened;
//! written by rename, removed when it closes. A file that cannot be read
//! is a closed gate.

use std::path::Path;
use std::time::Duration;

use crate::state::{hex_name, Store};

/// How long the gate stays open at most.
pub const OPEN_FOR: Duration = Duration::from_secs(3600);

/// The gates of one `$HOOKDEX_HOME`.
#[derive(Clone, Debug)]
pub struct Gates {
    store: Store,
}

/// A session's gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateState {
    /// Rule sources cannot be changed.
    Closed,
    /// They can, until this many milliseconds since the epoch (or the
    /// turn's end, whichever comes first).
    Open {
        /// When the hour ends.
        until_ms: u64,
    },
}

impl Gates {
    /// The gates under `home`.
    pub fn new(home: &Path) -> Gates {
        Gates {
            store: Store::new(home.join("gate")),
        }
    }

    /// Opens `session`'s gate now. Best effort: a gate that cannot be
    /// written stays closed, which refuses a change the person asked for,
    /// never allows one they did not.
    pub fn open(&self, session: &str) -> std::io::Result<()> {
        let stamp = format!("{}\n", crate::log::now_ms());
        self.store.replace(hex_name(&[session]), stamp.as_bytes())?;
        self.prune();
        Ok(())
    }

    /// Closes `session`'s gate.
    pub fn close(&self, session: &str) {
        self.store.remove(hex_name(&[session]));
    }

    /// The state of `session`'s gate now.
    pub fn state(&self, session: &str) -> GateState {
        let Some(opened) = self
            .store
            .read(hex_name(&[session]), 32)
            .and_then(|text| text.trim().parse::<u64>().ok())
        else {
            return GateState::Closed;
        };
        let now = crate::log::now_ms();
        let until_ms = opened.saturating_add(OPEN_FOR.as_millis() as u64);
        // A stamp from the future (a planted file, a clock set back) opens nothing.
        match opened <= now && now < until_ms {
            true => GateState::Open { until_ms },
            false => GateState::Closed,
        }
    }

    /// Removes the files of gates long closed by the hour; best effort.
    fn prune(&self) {
        for stale in crate::state::stale(self.store.dir(), OPEN_FOR * 2, false) {
            let _ = std::fs::remove_file(stale);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_opens_per_session_and_closes() {
        let home = tempfile::tempdir().unwrap();
        let gates = Gates::new(home.path());
        assert_eq!(gates.state("a"), GateState::Closed);
        gates.open("a").unwrap();
        assert!(matches!(gates.state("a"), GateState::Open { .. }));
        assert_eq!(gates.state("b"), GateState::Closed);
        gates.close("a");
        assert_eq!(gates.state("a"), GateState::Closed);
    }

    #[test]
    fn an_old_or_future_stamp_is_closed() {
        let home = tempfile::tempdir().unwrap();
        let gates = Gates::new(home.path());
        gates.open("s").unwrap();
        let now = crate::log::now_ms();
        std::fs::write(
            gates.store.path(hex_name(&["s"])),
            format!("{}\n", now - 3_601_000),
        )
        .unwrap();
        assert_eq!(gates.state("s"), GateState::Closed);
        std::fs::write(
            gates.store.path(hex_name(&["s"])),
            format!("{}\n", now + 60_000),
        )
        .unwrap();
        assert_eq!(gates.state("s"), GateState::Closed);
    }
}
