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
        }
    }

    /// The gate as one line.
    pub fn line(&self) -> String {
        match (self.state, self.session.as_deref()) {
            (Some("off"), _) => {
                "off (HOOKDEX_GATE=off): rule sources can be changed by any call".into()
            }
            (Some("open"), Some(session)) => format!(
                "open for session {session} until the turn ends (at most until {} ms since the epoch)",
                self.until_ms.unwrap_or_default()
            ),
            (Some("closed"), Some(session)) => {
                format!("closed for session {session}: rule sources change only when the person asks")
            }
            _ => "on (`--session ID` shows a session's state)".into(),
        }
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
