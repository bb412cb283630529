//! What `list` and `explain` both show before any rule: the gate of a
//! session (SPEC §13) and whether its shell calls run under the kernel's
//! guard (SPEC §15).

use serde::Serialize;

use crate::settings::Settings;
use crate::state::gate::{GateState, Gates};

/// The gate of one session: off (`HOOKDEX_GATE=off`), open until a time,
/// or closed; `state` is `null` when no session is named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GateStatus {
    /// Whether the gate runs at all.
    pub enabled: bool,
    /// The session asked about.
    pub session: Option<String>,
    /// `off`, `open` or `closed`; `None` without a session.
    pub state: Option<&'static str>,
    /// When an open gate closes, in milliseconds since the epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<u64>,
    /// The same, as the local time `HH:MM`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

impl GateStatus {
    /// The gate of `session` under `settings`.
    pub fn of(settings: &Settings, session: Option<&str>) -> GateStatus {
        let session_owned = session.map(str::to_string);
        if !settings.gate_enabled {
            return GateStatus {
                enabled: false,
                session: session_owned,
                state: Some("off"),
                until_ms: None,
                until: None,
            };
        }
        let (state, until_ms) = match session.map(|s| Gates::new(&settings.view.home).state(s)) {
            Some(GateState::Open { until_ms }) => (Some("open"), Some(until_ms)),
            Some(GateState::Closed) => (Some("closed"), None),
            None => (None, None),
        };
        GateStatus {
            enabled: true,
            session: session_owned,
            state,
            until_ms,
            until: until_ms.map(local_clock),
        }
    }

    /// The gate as one line.
    pub fn line(&self) -> String {
        match (self.state, self.session.as_deref()) {
            (Some("off"), _) => {
                "off (HOOKDEX_GATE=off): rule sources can be changed by any call".into()
            }
            (Some("open"), Some(session)) => format!(
                "open for session {session} until the turn ends (at the latest {})",
                self.until.as_deref().unwrap_or("in an hour")
            ),
            (Some("closed"), Some(session)) => {
                format!(
                    "closed for session {session}: rule sources change only when the person asks"
                )
            }
            _ => "on (`--session ID` shows a session's state)".into(),
        }
    }
}

/// `ms` since the epoch as the local time `HH:MM` (the time zone of `TZ`
/// or the system's); UTC when the local time cannot be had.
pub fn local_clock(ms: u64) -> String {
    let secs = (ms / 1000) as libc::time_t;
    let (hour, minute) = local_hour_minute(secs).unwrap_or(((secs / 3600) % 24, (secs / 60) % 60));
    format!("{hour:02}:{minute:02}")
}

/// The local hour and minute of `secs` since the epoch.
#[allow(unsafe_code)]
fn local_hour_minute(secs: libc::time_t) -> Option<(libc::time_t, libc::time_t)> {
    // SAFETY: `tm` is plain data that `localtime_r` fills (all zero is a
    // valid value of it); both pointers are to live locals for the call,
    // and `localtime_r` keeps neither. It returns null on failure, and
    // `tm` is read only when it did not.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&secs, &mut tm).is_null() {
            return None;
        }
        Some((
            libc::time_t::from(tm.tm_hour),
            libc::time_t::from(tm.tm_min),
        ))
    }
}

/// Whether shell calls of a session run under the kernel's guard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnforcementStatus {
    /// `HOOKDEX_ENFORCE`'s mode.
    pub mode: &'static str,
    /// Whether the guard is on.
    pub on: bool,
    /// Why it is on or off, one line.
    pub why: String,
    /// The programs it watches.
    pub programs: Vec<String>,
    /// Whether it holds writes to rule sources.
    pub write_gate: bool,
    /// Whether the harness puts its own prefix before shell commands.
    pub harness_prefix: bool,
}

impl EnforcementStatus {
    /// The guard of `session` under `settings`.
    pub fn of(settings: &Settings, session: Option<&str>) -> EnforcementStatus {
        let status = crate::wrap::plan::status(settings, session);
        EnforcementStatus {
            mode: status.mode.as_str(),
            on: status.on(),
            why: status.why(),
            programs: status.watched.programs.clone(),
            write_gate: status.watched.write_gate,
            harness_prefix: settings.harness_guards,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_is_a_local_clock_time() {
        // 2026-12-04 13:05:59 UTC, and this process's zone's view of it.
        let ms = 1_796_389_559_000;
        let clock = local_clock(ms);
        assert_eq!(clock.len(), 5, "{clock}");
        assert_eq!(&clock[2..3], ":");
        let (hour, minute) = local_hour_minute(1_796_389_559).unwrap();
        assert_eq!(clock, format!("{hour:02}:{minute:02}"));
        assert!(hour < 24 && minute < 60, "{clock}");
        let open = GateStatus {
            enabled: true,
            session: Some("s1".into()),
            state: Some("open"),
            until_ms: Some(ms),
            until: Some(clock.clone()),
        };
        let line = open.line();
        assert!(
            line.ends_with(&format!("(at the latest {clock})")),
            "{line}"
        );
        assert!(!line.contains("epoch"), "{line}");
    }
}
