//! The first stage: the payload read from the harness's bytes, with the
//! settings of the directory it names, and split into its calls (`Payload
//! → Call`), identical calls of a batch judged once. A payload that cannot
//! be judged ends the call here, with the reply that says so.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Instant;

use hookdex_harness::{notice, McpScope, Payload, PayloadError, Reply};
use hookdex_model::Target;

use super::log::Log;
use super::MAX_PAYLOAD;
use crate::call::Call;
use crate::settings::Settings;

/// A payload read, with what the rest of the call reads of its environment.
pub(super) struct Read {
    /// The payload.
    pub(super) payload: Payload,
    /// The settings for its directory.
    pub(super) settings: Settings,
    /// Its directory: the one it names when that exists, else this
    /// process's.
    pub(super) cwd: PathBuf,
}

/// Reads the payload `bytes` a harness of `target` sent; `Err` is the reply
/// to a payload too large or unreadable, the log line written.
pub(super) fn read(
    target: Target,
    event: Option<&str>,
    bytes: &[u8],
    var: &dyn Fn(&str) -> Option<OsString>,
    started: Instant,
) -> Result<Read, Reply> {
    let process_cwd = || std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    if bytes.len() > MAX_PAYLOAD {
        let settings = Settings::from_vars(target, &process_cwd(), var);
        let note = format!(
            "payload over {} MiB not judged; no rule ran",
            MAX_PAYLOAD >> 20
        );
        Log::new(&settings, target, None, started).write(&[], None, std::slice::from_ref(&note));
        return Err(notice(target, &format!("hookdex: {note}")));
    }
    let payload = match Payload::parse(target, bytes, event) {
        Ok(payload) => payload,
        Err(reason) => {
            let settings = Settings::from_vars(target, &process_cwd(), var);
            let log = Log::new(&settings, target, None, started);
            log.write(&[], None, &[format!("payload ignored: {reason}")]);
            // An event that is not ours is no one's mistake: nothing to say.
            if matches!(reason, PayloadError::UnknownEvent(_)) {
                return Err(Reply::default());
            }
            return Err(notice(
                target,
                &format!("hookdex could not read this call ({reason}); no rule ran for it"),
            ));
        }
    };
    let cwd = payload
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .unwrap_or_else(process_cwd);
    let settings = Settings::from_vars(target, &cwd, var);
    Ok(Read {
        payload,
        settings,
        cwd,
    })
}

/// The calls of `payload`, each with its [`Call`], built once for the
/// whole pipeline; identical calls of a batch are judged once. The first
/// call takes the payload's input ([`Payload::take_calls`]).
pub(super) fn calls(
    target: Target,
    payload: &mut Payload,
    scope: &McpScope<'_>,
) -> Vec<(Payload, Call)> {
    let mut seen = std::collections::HashSet::new();
    let batch = !payload.batch.is_empty();
    payload
        .take_calls()
        .into_iter()
        .filter(|p| !batch || seen.insert((p.tool_name.clone(), p.tool_input.to_string())))
        .map(|p| {
            let call = Call::of(target, &p, scope);
            (p, call)
        })
        .collect()
}
