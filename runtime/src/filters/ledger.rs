//! The swarm ledger comment at a round cap: in a swarm session
//! (`AGENTIHOOKS_SWARM` and `AGENTIHOOKS_SWARM_TASK` set), a filter that
//! lets a text pass at its round cap also comments on that ledger task, so
//! the operator sees a filter or an agent failing.
//!
//! hookdex ships no ledger: the comment goes to the command in
//! `HOOKDEX_LEDGER_CMD`, run as `sh -c` in the call's directory under the
//! discipline of a condition script (its own process group, killed whole
//! after [`LEDGER_TIMEOUT`]). Its stdin is one JSON object:
//! `{"swarm", "task", "agent", "filter", "target", "rounds", "findings",
//! "text"}`, where `text` is the comment in plain words and `findings` the
//! finding lines. Unset, failing or slow, the text still passes, and the
//! hook log says why no comment was made.

use std::ffi::OsString;
use std::time::Duration;

use serde_json::json;

use super::actions::Capped;
use crate::exec::{self, Deadline, ExecConfig, Finish, Stdin};
use crate::settings::Settings;

/// How long the ledger command may take.
pub const LEDGER_TIMEOUT: Duration = Duration::from_secs(2);

/// The comment's plain words.
fn text(rounds: u32) -> String {
    format!(
        "A text filter sent this task's text back {rounds} times and then let it pass flagged. \
         The agent may be stuck on it, or the filter may be wrong."
    )
}

/// Comments on the session's ledger task for each of `capped` (targets of
/// `filter` that reached the round cap), when the session is a swarm's;
/// returns lines for the hook log (none outside a swarm).
pub fn comment(
    settings: &Settings,
    filter: &str,
    capped: &[Capped],
    deadline: Deadline,
) -> Vec<String> {
    let ledger = &settings.ledger;
    let (Some(swarm), Some(task)) = (&ledger.swarm, &ledger.task) else {
        return Vec::new();
    };
    if capped.is_empty() {
        return Vec::new();
    }
    let Some(command) = &ledger.command else {
        return vec![format!(
            "no ledger comment on task {task}: HOOKDEX_LEDGER_CMD is not set"
        )];
    };
    let config = ExecConfig {
        cwd: settings.exec.cwd.clone(),
        timeout: LEDGER_TIMEOUT,
        hook_timeout: LEDGER_TIMEOUT,
        max_parallel: 1,
    };
    let args = [OsString::from("-c"), OsString::from(command)];
    capped
        .iter()
        .map(|cap| {
            let stdin = json!({
                "swarm": swarm,
                "task": task,
                "agent": ledger.agent,
                "filter": filter,
                "target": cap.target,
                "rounds": cap.rounds,
                "findings": cap.findings,
                "text": text(cap.rounds),
            });
            let stdin = Stdin::new(stdin.to_string().into_bytes());
            let run = exec::run_program("sh", &args, &config, deadline, &stdin);
            match run.finish {
                Finish::Exited(0) => format!("ledger comment on task {task}: round cap of {}", cap.target),
                Finish::Exited(code) => format!("no ledger comment on task {task}: HOOKDEX_LEDGER_CMD exited {code}"),
                Finish::Signaled(signal) => format!("no ledger comment on task {task}: HOOKDEX_LEDGER_CMD killed by signal {signal}"),
                Finish::TimedOut => format!(
                    "no ledger comment on task {task}: HOOKDEX_LEDGER_CMD timed out after {} s",
                    LEDGER_TIMEOUT.as_secs()
                ),
                Finish::NotStarted(err) => format!("no ledger comment on task {task}: {err}"),
                Finish::PastDeadline => format!("no ledger comment on task {task}: {}", exec::DEADLINE_PASSED),
            }
        })
        .collect()
}
