//! The hook log line of one call, filled in as the call goes: what fired,
//! the decision sent, and the notes.

use std::path::Path;
use std::time::Instant;

use hookdex_harness::Payload;
use hookdex_model::Target;
use serde_json::json;

use crate::settings::Settings;

/// The hook log line of one call.
pub(super) struct Log<'p> {
    home: &'p Path,
    target: Target,
    payload: Option<&'p Payload>,
    started: Instant,
    /// A trial's call leaves no line ([`super::trial`]).
    quiet: bool,
}

impl<'p> Log<'p> {
    /// The line of a call of `target` (of `payload`, once read) that
    /// started at `started`.
    pub(super) fn new(
        settings: &'p Settings,
        target: Target,
        payload: Option<&'p Payload>,
        started: Instant,
    ) -> Log<'p> {
        Log {
            home: &settings.view.home,
            target,
            payload,
            started,
            quiet: false,
        }
    }

    /// The same line, never written when `quiet`.
    pub(super) fn quiet(self, quiet: bool) -> Log<'p> {
        Log { quiet, ..self }
    }

    /// Appends the line: what fired, the decision sent, and the notes.
    pub(super) fn write(&self, fired: &[&str], decision: Option<&str>, notes: &[String]) {
        if self.quiet {
            return;
        }
        let payload = self.payload;
        let entry = json!({
            "ts_ms": crate::log::now_ms(),
            "target": self.target.as_str(),
            "event": payload.map(|p| p.event.as_str()),
            "tool": payload.map(|p| p.tool_name.as_str()),
            "session_id": payload.and_then(|p| p.session_id.as_deref()),
            "tool_use_id": payload.and_then(|p| p.tool_use_id.as_deref()),
            "fired": fired,
            "decision": decision,
            "notes": notes,
            "ms": self.started.elapsed().as_secs_f64() * 1000.0,
        });
        crate::log::append(self.home, &entry);
    }
}
