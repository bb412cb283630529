//! The run stage: for each call of the plan, its conditions (looked up once
//! more on a rebuilt index when a rule file vanished before it ran), its
//! `hooks.yaml` and `HOOK.md` hooks, and its enforcements' messages on
//! their cadence. Filters run later, as a chain ([`super::filters`]).

use std::path::Path;

use hookdex_harness::Payload;

use super::conditions::{run_rules, Judge, Ran};
use super::plan::{self, Planned};
use crate::call::Call;
use crate::contract;
use crate::exec::Stdin;
use crate::fired::Fired;
use crate::outcome::Outcome;
use crate::settings::Settings;
use crate::state::caps::Caps;

/// Runs what fires for one call of the plan, but its filters.
pub(super) fn run_call(judge: &Judge<'_>, planned: &Planned, ran: &mut Ran) {
    let (payload, call) = (&planned.payload, &planned.call);
    run_guards(judge.settings, payload, call, &planned.guards(), ran);
    run_conditions(judge, payload, call, &planned.conditions(), ran);
    run_hooks(judge, payload, call, &planned.hooks(), ran);
    enforce(judge.settings, payload, &planned.enforcements(), ran);
}

/// Runs the conditions that fire for one call: `.async` ones detached
/// first, then the others in parallel. When a rule file vanished between
/// the lookup and its run (deleted or renamed by an editor), the rules are
/// looked up once more (recompiling the index, now stale) and what the
/// second lookup adds runs too.
pub(super) fn run_conditions(
    judge: &Judge<'_>,
    payload: &Payload,
    call: &Call,
    first: &[&Fired],
    ran: &mut Ran,
) {
    if first.is_empty() {
        return;
    }
    let stdin = Stdin::new(contract::stdin(payload, call).to_string().into_bytes());
    let run = |rules: &[&Fired], ran: &mut Ran| run_rules(judge, payload, call, rules, &stdin, ran);
    let mut done = run(first, ran);
    let vanished: Vec<String> = done
        .iter()
        .filter(|(rule, outcome)| vanished_at_start(&rule.file, outcome))
        .map(|(rule, _)| rule.file_name.clone())
        .collect();
    if vanished.is_empty() {
        ran.outcomes
            .extend(done.into_iter().map(|(rule, o)| (rule.file_name, o)));
        return;
    }
    ran.notes.push(format!(
        "{} vanished before it ran; the rules were looked up again",
        vanished.join(", ")
    ));
    let again = match plan::again(judge.settings, payload, call) {
        Ok(again) => again,
        Err(reason) => {
            ran.notes
                .push(format!("the second lookup failed: {reason}"));
            ran.outcomes
                .extend(done.into_iter().map(|(rule, o)| (rule.file_name, o)));
            return;
        }
    };
    // What vanished is gone from the answer; what the new index has and did
    // not answer yet runs (a file put back in the meantime runs again).
    done.retain(|(rule, _)| !vanished.contains(&rule.file_name));
    let added: Vec<&Fired> = again
        .iter()
        .filter(|rule| rule.kind == hookdex_model::RuleKind::Condition)
        .filter(|rule| !done.iter().any(|(r, _)| r.file == rule.file))
        .collect();
    done.extend(run(&added, ran));
    // A file that vanished again under the second run is not a rule any
    // more: it says nothing, rather than a failure nobody made.
    let before = done.len();
    done.retain(|(rule, outcome)| !vanished_at_start(&rule.file, outcome));
    if done.len() < before {
        ran.notes
            .push("a rule file vanished again; it was left out".into());
    }
    // In the new index's order; anything it no longer has keeps its place at the end.
    done.sort_by_key(|(rule, _)| {
        again
            .iter()
            .position(|r| r.file == rule.file)
            .unwrap_or(usize::MAX)
    });
    ran.outcomes
        .extend(done.into_iter().map(|(rule, o)| (rule.file_name, o)));
}

/// Whether a rule failed because its file was gone when it started: it is
/// gone now, or its interpreter said so of the file itself (it may be back
/// already). A missing interpreter (`#!/nonexistent/python`) is not this.
fn vanished_at_start(file: &Path, outcome: &Outcome) -> bool {
    let Some(failure) = &outcome.failure else {
        return false;
    };
    let said_missing = failure.starts_with("exit 127")
        && failure.contains(&format!("{}: No such file or directory", file.display()));
    said_missing || std::fs::symlink_metadata(file).is_err()
}

/// Runs the `hooks.yaml` and `HOOK.md` hooks that fire for one call.
pub(super) fn run_hooks(
    judge: &Judge<'_>,
    payload: &Payload,
    call: &Call,
    hooks: &[&Fired],
    ran: &mut Ran,
) {
    if hooks.is_empty() {
        return;
    }
    let hook_call = crate::hooks::HookCall {
        settings: judge.settings,
        deadline: judge.deadline,
        payload,
        call,
        var: judge.var,
    };
    let done = crate::hooks::run(&hook_call, hooks);
    ran.outcomes.extend(done.outcomes);
    ran.fired.extend(done.ran);
    ran.notes.extend(done.notes);
}

/// Decides the guards that fire for one call, in the hook process: the
/// shell line split once for all of them.
pub(super) fn run_guards(
    settings: &Settings,
    payload: &Payload,
    call: &Call,
    guards: &[&Fired],
    ran: &mut Ran,
) {
    if guards.is_empty() {
        return;
    }
    let at = settings.place();
    for rule in guards {
        let Some(guard) = &rule.guard else {
            continue;
        };
        ran.fired.push(rule.file_name.clone());
        let judged = crate::guards::judge_call(guard, call, &payload.tool_input, &at);
        let outcome = match judged {
            Some(judged) => Outcome {
                decision: Some(judged.decision),
                reason: Some(judged.reason),
                ..Outcome::default()
            },
            None => Outcome::default(),
        };
        ran.outcomes.push((rule.file_name.clone(), outcome));
    }
}

/// Adds each fired enforcement's message as context on its cadence: on
/// matching call n of the session when n = 1 or n is a multiple of the
/// cadence (agentihooks' rule: calls 1, 2, 4, 6 … for cadence 2).
fn enforce(settings: &Settings, payload: &Payload, fired: &[&Fired], ran: &mut Ran) {
    let counters = Caps::new(&settings.view.home);
    let session = payload.session_id.as_deref().unwrap_or_default();
    for rule in fired {
        let Some(entry) = &rule.enforcement else {
            continue;
        };
        let n = counters.bump(session, &entry.id);
        let name = format!("enforcement {}", entry.id);
        ran.fired.push(name.clone());
        if n == 1 || (n > 1 && n.is_multiple_of(entry.cadence)) {
            let outcome = Outcome {
                context: Some(entry.message.clone()),
                ..Outcome::default()
            };
            ran.outcomes.push((name, outcome));
        }
    }
}
