//! The hook pipeline as a library function: payload bytes in, the harness's
//! reply out. `Payload → Call → Query → Hit → Job → Outcome → Answer → Reply`:
//! read the payload, look up what fires in the index (recompiled only when
//! stale or damaged), run it (`.async` conditions detached first, the others
//! in parallel, then the filters as a chain on the input as the conditions
//! left it), merge the outcomes and shape the reply for the harness.
//! Every condition of the call, whichever call of a batch or run it belongs
//! to, runs within one deadline from the hook's start.
//!
//! It fails open everywhere: a bad payload, a broken index, a crashing or
//! hanging condition never blocks the call; only an explicit decision does.
//! Calls where something fired or went wrong leave one line in the hook log.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hookdex_harness::{notice, reply, McpScope, Payload, Reply};
use hookdex_model::{Event, LayerKind, RuleKind, Step, Target};
use serde_json::json;

use crate::call::Call;
use crate::exec::{self, Deadline, Job, Stdin};
use crate::filters::actions::Strip;
use crate::filters::{self, Filter};
use crate::fired::{fired_rules, Fired};
use crate::load::Verify;
use crate::merge;
use crate::outcome::{self, Outcome};
use crate::outfilters;
use crate::settings::Settings;
use crate::state::caps::{CapKind, Caps, Counted};
use crate::{contract, log};

/// The largest payload judged (16 MiB, far past what a model writes in one
/// tool call); a larger one is let through with a note, since reading it
/// would cost the hook more memory than any guard is worth.
pub const MAX_PAYLOAD: usize = 16 << 20;

/// Answers one hook call: `bytes` is the payload a harness of `target` sent,
/// `event` the `--event` it named (if any), and `var` reads the environment.
pub fn hook(
    target: Target,
    event: Option<&str>,
    bytes: &[u8],
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Reply {
    let started = Instant::now();
    let process_cwd = || std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    if bytes.len() > MAX_PAYLOAD {
        let settings = Settings::from_vars(target, &process_cwd(), var);
        let note = format!(
            "payload over {} MiB not judged; no rule ran",
            MAX_PAYLOAD >> 20
        );
        Log::new(&settings, target, None, started).write(&[], None, std::slice::from_ref(&note));
        return notice(target, &format!("hookdex: {note}"));
    }
    let payload = match Payload::parse(target, bytes, event) {
        Ok(payload) => payload,
        Err(reason) => {
            let settings = Settings::from_vars(target, &process_cwd(), var);
            let log = Log::new(&settings, target, None, started);
            log.write(&[], None, &[format!("payload ignored: {reason}")]);
            // An event that is not ours is no one's mistake: nothing to say.
            if matches!(reason, hookdex_harness::PayloadError::UnknownEvent(_)) {
                return Reply::default();
            }
            return notice(
                target,
                &format!("hookdex could not read this call ({reason}); no rule ran for it"),
            );
        }
    };
    let cwd = payload
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .unwrap_or_else(process_cwd);
    let settings = Settings::from_vars(target, &cwd, var);
    let log = Log::new(&settings, target, Some(&payload), started);
    let judge = Judge {
        target,
        settings: &settings,
        deadline: Deadline::after(started, settings.exec.hook_timeout),
        var,
    };
    let trusted = || crate::load::repository_trusted(&settings);
    let scope = McpScope {
        cwd: &cwd,
        var,
        project_trusted: &trusted,
    };
    // Identical calls of a batch are judged once.
    let mut seen = std::collections::HashSet::new();
    let calls: Vec<(Payload, Call)> = payload
        .calls()
        .into_iter()
        .filter(|p| {
            payload.batch.is_empty() || seen.insert((p.tool_name.clone(), p.tool_input.to_string()))
        })
        .map(|p| {
            let call = Call::of(target, &p, &scope);
            (p, call)
        })
        .collect();
    // The gate comes before every rule, and no rule can override it.
    if let Some(reason) = crate::gate::on_event(&settings, &payload, &calls, var) {
        let mut answer = hookdex_harness::Answer {
            decision: Some(hookdex_model::Permission::Deny),
            reasons: vec![reason],
            deciders: vec!["hookdex gate".into()],
            ..Default::default()
        };
        let reply = reply(
            target,
            &payload,
            &calls[0].1.tool.name,
            &mut answer,
            settings.reply,
        );
        log.write(&["hookdex gate"], Some("deny"), &answer.log);
        return reply;
    }
    let fired = match fired_rules(&settings, &calls, Verify::Lazy) {
        Ok(fired) => fired,
        Err(reason) => {
            let message = format!(
                "hookdex could not look up its rules ({reason}); no rule ran for this call"
            );
            log.write(&[], None, &[reason]);
            return notice(target, &message);
        }
    };
    let post_output = payload.step() == Step::Post && settings.outfilters_enabled;
    if fired.iter().all(Vec::is_empty) && !post_output {
        if payload.event == Event::UserPromptSubmit {
            // The person spoke: a run of Stop blocks ends, rules or none.
            let session = payload.session_id.as_deref().unwrap_or_default();
            Caps::new(&settings.view.home).reset(session, CapKind::Stop);
        }
        return guarded_or_nothing(&settings, &payload, &calls, &log, var);
    }
    let mut ran = Ran::default();
    let mut filters = Vec::with_capacity(calls.len());
    for ((single, call), fired) in calls.iter().zip(fired) {
        let (conditions, of_call): (Vec<Fired>, Vec<Fired>) = fired
            .into_iter()
            .partition(|rule| rule.kind == RuleKind::Condition);
        let (enforced, of_call): (Vec<Fired>, Vec<Fired>) = of_call
            .into_iter()
            .partition(|rule| rule.kind == RuleKind::Enforcement);
        let (hooks, of_call): (Vec<Fired>, Vec<Fired>) =
            of_call.into_iter().partition(|rule| rule.hook.is_some());
        run_call(&judge, single, call, conditions, &mut ran);
        run_hooks(&judge, single, call, &hooks, &mut ran);
        enforce(&settings, single, &enforced, &mut ran);
        filters.push(of_call);
    }
    let mut merged = merge_all(&payload, calls.len(), &ran);
    keep_dropped_rewrites_dropped(&merged, &filters, &mut ran);
    if run_filters(&judge, &scope, &calls, &filters, &merged, &mut ran) {
        merged = merge_all(&payload, calls.len(), &ran);
    }
    if post_output && shrink_output(&settings, &calls, &mut ran) {
        merged = merge_all(&payload, calls.len(), &ran);
    }
    if ran.fired.is_empty() {
        if !ran.notes.is_empty() {
            log.write(&[], None, &ran.notes);
        }
        return guarded_or_nothing(&settings, &payload, &calls, &log, var);
    }
    if let Some(input) = merged.updated_input.clone() {
        let (first, _) = &calls[0];
        let rewriters = merged.rewriters.clone();
        if let Some(again) = judge_again(&judge, &scope, first, input, &rewriters, &mut ran) {
            merged = again;
        }
    }
    hold_to_cap(&settings, &payload, &mut merged);
    if let Some(guarded) = guard_call(&settings, &payload, &calls, &mut merged, var) {
        ran.fired.push(guarded);
    }
    merged.log.extend(ran.notes);
    let reply = reply(
        target,
        &payload,
        &calls[0].1.tool.name,
        &mut merged,
        settings.reply,
    );
    let fired: Vec<&str> = ran.fired.iter().map(String::as_str).collect();
    log.write(&fired, merged.decision.map(|d| d.as_str()), &merged.log);
    reply
}

/// The reply to a call where no rule had anything to say: the shell call
/// wrapped to run under the guard where that applies, else nothing.
fn guarded_or_nothing(
    settings: &Settings,
    payload: &Payload,
    calls: &[(Payload, Call)],
    log: &Log<'_>,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Reply {
    let mut answer = hookdex_harness::Answer::default();
    let Some(guarded) = guard_call(settings, payload, calls, &mut answer, var) else {
        return Reply::default();
    };
    let reply = reply(
        settings.view.target,
        payload,
        &calls[0].1.tool.name,
        &mut answer,
        settings.reply,
    );
    log.write(
        &[&guarded],
        answer.decision.map(|d| d.as_str()),
        &answer.log,
    );
    reply
}

/// Runs a shell call under the guard where it applies (SPEC §15,
/// [`crate::wrap::plan`]): sets `answer`'s guard input (and `allow` where
/// the session allows everything anyway), or denies under
/// `HOOKDEX_ENFORCE=require` where it cannot be enforced. The model is told
/// once per session. Returns the name it goes by in the log when it did
/// anything.
fn guard_call(
    settings: &Settings,
    payload: &Payload,
    calls: &[(Payload, Call)],
    answer: &mut hookdex_harness::Answer,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<String> {
    let [(single, call)] = calls else {
        return None;
    };
    if !call.tool.name.is_bash() {
        return None;
    }
    let input = answer.updated_input.as_ref().unwrap_or(&single.tool_input);
    let wrapper = || {
        Some(crate::wrap::plan::Wrapper {
            exe: std::env::current_exe().ok()?,
            env: crate::settings::VARIABLES
                .iter()
                .filter_map(|name| Some((name.to_string(), var(name)?.into_string().ok()?)))
                .collect(),
        })
    };
    let name = "hookdex guard".to_string();
    match crate::wrap::plan::plan(settings, payload, call, answer.decision, input, &wrapper) {
        crate::wrap::plan::Plan::AsIs => None,
        crate::wrap::plan::Plan::Deny(reason) => {
            answer.decision = Some(hookdex_model::Permission::Deny);
            answer.reasons.insert(0, reason);
            answer.deciders = vec![name.clone()];
            answer.updated_input = None;
            Some(name)
        }
        crate::wrap::plan::Plan::Wrap { input, allow } => {
            if allow {
                answer.decision = Some(hookdex_model::Permission::Allow);
                answer.deciders = vec![name.clone()];
            }
            answer.guard = Some(input);
            tell_once(settings, payload, answer);
            Some(name)
        }
        crate::wrap::plan::Plan::ByHarness => tell_once(settings, payload, answer).then_some(name),
    }
}

/// Tells the model of the guard on the session's first guarded call;
/// whether it did.
fn tell_once(settings: &Settings, payload: &Payload, answer: &mut hookdex_harness::Answer) -> bool {
    let session = payload.session_id.as_deref().unwrap_or_default();
    let first = Caps::new(&settings.view.home).first(session, GUARD_NOTICE);
    if first {
        answer.contexts.push(GUARD_TOLD.into());
    }
    first
}

/// The counter of the once-per-session notice.
const GUARD_NOTICE: &str = "hookdex-guard-notice";

/// What the model is told, once per session, of the guard.
const GUARD_TOLD: &str = "hookdex: shell commands in this session run under hookdex's guard. \
A program a rule forbids fails with \"Permission denied\" wherever it runs (a script, make, an \
interpreter), and a line \"hookdex: <rule>: <reason>\" on stderr says why; a write into rule \
sources while they are closed fails the same way (\"hookdex: gate closed: <path>\").";

/// A rewrite the conditions' merge dropped (no decision outside
/// `bypassPermissions`) stays dropped: the filters that run next judge the
/// input without it, so a decision of theirs (a strip's `ask`) must not
/// carry it in when the outcomes are merged again. Its patches leave the
/// outcomes, and the agent is still told it was dropped.
fn keep_dropped_rewrites_dropped(
    merged: &hookdex_harness::Answer,
    filters: &[Vec<Fired>],
    ran: &mut Ran,
) {
    let dropped = merged.updated_input.is_none()
        && merged.decision != Some(hookdex_model::Permission::Deny)
        && filters.iter().any(|f| !f.is_empty());
    if !dropped {
        return;
    }
    let patchers: Vec<String> = ran
        .outcomes
        .iter_mut()
        .filter_map(|(name, outcome)| {
            let patched = outcome.patch.take().is_some();
            let replaced = outcome.replacement.take().is_some();
            (patched || replaced).then(|| name.clone())
        })
        .collect();
    if patchers.is_empty() {
        return;
    }
    let names: Vec<&str> = patchers.iter().map(String::as_str).collect();
    let note = merge::rewrite_dropped(&names);
    ran.notes.push(note.clone());
    let told = Outcome {
        context: Some(note),
        ..Outcome::default()
    };
    ran.outcomes.push(("hookdex".into(), told));
}

/// Output filters on a post call's shell output (SPEC §7): the filter that
/// claims it replaces the output with its shrunk form, unless a condition
/// already replaced it. Returns whether it did. Only a changed output
/// leaves a line in the log: most calls are claimed by no filter.
fn shrink_output(settings: &Settings, calls: &[(Payload, Call)], ran: &mut Ran) -> bool {
    let [(single, call)] = calls else {
        return false;
    };
    if !call.tool.name.is_bash() || ran.outcomes.iter().any(|(_, o)| o.tool_output.is_some()) {
        return false;
    }
    let Some(output) = single.output_text() else {
        return false;
    };
    let command = call.command.as_deref().map(outfilters::selection_command);
    let may_summarize = single.event == hookdex_model::Event::PostToolUse
        && call
            .command
            .as_deref()
            .is_none_or(outfilters::runs_one_program);
    let shrunk = outfilters::shrink(settings, command.as_deref(), &output, may_summarize);
    let (true, Some(name)) = (shrunk.changed, shrunk.filter) else {
        return false;
    };
    let rule = format!("output filter {name}");
    ran.notes.push(format!("{rule}: {}", shrunk.note));
    ran.fired.push(rule.clone());
    let outcome = Outcome {
        tool_output: Some(serde_json::Value::String(shrunk.text)),
        ..Outcome::default()
    };
    ran.outcomes.push((rule, outcome));
    true
}

/// Adds each fired enforcement's message as context on its cadence: on
/// matching call n of the session when n = 1 or n is a multiple of the
/// cadence (agentihooks' rule: calls 1, 2, 4, 6 … for cadence 2).
fn enforce(settings: &Settings, payload: &Payload, fired: &[Fired], ran: &mut Ran) {
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

/// Holds the session's blocks to their caps ([`Caps`]): past them the
/// block is dropped and the agent and the person are told why. A prompt
/// the person sent ends a run of Stop blocks.
fn hold_to_cap(settings: &Settings, payload: &Payload, merged: &mut hookdex_harness::Answer) {
    if !payload.event.is_tool_event() {
        // A Stop rule's `{"decision": "deny"}` is its block: counted too.
        hookdex_harness::decision_at_event(payload.event, merged);
    }
    let caps = Caps::new(&settings.view.home);
    let session = payload.session_id.as_deref().unwrap_or_default();
    let kind = match payload.event {
        Event::PostToolUse | Event::PostToolUseFailure => CapKind::Post,
        Event::Stop => CapKind::Stop,
        Event::UserPromptSubmit => return caps.reset(session, CapKind::Stop),
        _ => return,
    };
    if caps.count(session, kind, merged.block.is_some()) != Counted::Dropped {
        return;
    }
    let reason = merged.block.take().unwrap_or_default();
    merged.warn(format!(
        "hookdex: {} was blocked {} times in a row in this session, so this one goes through (the rule said: {reason})",
        payload.event.as_str(),
        kind.limit()
    ));
}

/// Every outcome of the call merged into one answer; a rewrite is dropped
/// from a batch of `calls` calls (it could not say which call it rewrites).
fn merge_all(payload: &Payload, calls: usize, ran: &Ran) -> hookdex_harness::Answer {
    let mut merged = merge::merge(
        payload.step(),
        &payload.tool_input,
        payload.permission_mode.as_deref(),
        &ran.outcomes,
    );
    if calls > 1 && merged.updated_input.take().is_some() {
        merged.note(
            "hookdex: an input rewrite cannot apply to a batch of calls; it was dropped".into(),
        );
    }
    merged
}

/// Runs the filters of each call as a chain, after the conditions: on the
/// input as they rewrote it (`merged`), unless they denied the call. A
/// rewritten call's filters are looked up again for the rewritten input (a
/// rewrite may move the text to a path another filter's `paths` admit).
/// Their effects join `ran`'s outcomes as conditions' do; `true` when there
/// are any, so the answer must be merged again.
fn run_filters(
    judge: &Judge<'_>,
    scope: &McpScope<'_>,
    calls: &[(Payload, Call)],
    filters: &[Vec<Fired>],
    merged: &hookdex_harness::Answer,
    ran: &mut Ran,
) -> bool {
    if merged.decision == Some(hookdex_model::Permission::Deny) {
        return false;
    }
    if merged.updated_input.is_none() && filters.iter().all(Vec::is_empty) {
        return false;
    }
    let settings = judge.settings;
    let rewritten = merged.updated_input.as_ref().and_then(|input| {
        let mut payload = calls[0].0.clone();
        payload.tool_input = input.clone();
        let call = Call::of(judge.target, &payload, scope);
        let pair = [(payload, call)];
        match fired_rules(settings, &pair, Verify::Lazy) {
            Ok(mut fired) => {
                let [(payload, call)] = pair;
                Some((payload, call, fired.remove(0)))
            }
            Err(reason) => {
                ran.notes.push(format!(
                    "the rewritten call's filters could not be looked up: {reason}"
                ));
                None
            }
        }
    });
    let mut acted = false;
    for (at, ((payload, call), fired)) in calls.iter().zip(filters).enumerate() {
        let (payload, call, fired) = match (at, &rewritten) {
            (0, Some((payload, call, fired))) => (payload, call, fired),
            _ => (payload, call, fired),
        };
        let chain: Vec<Filter> = fired
            .iter()
            .filter_map(|rule| rule.filter.as_deref().cloned())
            .collect();
        if chain.is_empty() {
            continue;
        }
        let caps = hookdex_harness::harness(judge.target).capabilities(payload.shape);
        let strip = Strip::for_call(
            &caps,
            settings.reply.interactive,
            payload.permission_mode.as_deref(),
            calls.len() > 1,
        );
        let filter_call = filters::Call {
            settings,
            deadline: judge.deadline,
            tool: &call.tool.name,
            cwd: &settings.exec.cwd,
            session: payload.session_id.as_deref(),
            strip,
        };
        let done = filters::run(&filter_call, &chain, payload.tool_input.clone());
        acted |= !done.outcomes.is_empty();
        ran.outcomes.extend(done.outcomes);
        ran.fired.extend(done.ran);
        ran.notes.extend(done.notes);
    }
    acted
}

/// Runs the `hooks.yaml` and `HOOK.md` hooks that fire for one call.
fn run_hooks(judge: &Judge<'_>, payload: &Payload, call: &Call, hooks: &[Fired], ran: &mut Ran) {
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
    let rules: Vec<&Fired> = hooks.iter().collect();
    let done = crate::hooks::run(&hook_call, &rules);
    ran.outcomes.extend(done.outcomes);
    ran.fired.extend(done.ran);
    ran.notes.extend(done.notes);
}

/// A rewrite goes through the lookup once more, so no rule can rewrite a
/// call past another's guard: every deny-capable rule that fires for the
/// rewritten input (conditions, `hooks.yaml` and `HOOK.md` hooks; filters
/// judged it already, as the chain's last step) runs on it, those that
/// judged the original too (they saw other text), but not the
/// `rewriters` themselves; the answer is merged again from every outcome,
/// so a deny among them drops the rewrite. A rewrite of the rewritten
/// input is not applied: it would need judging once more, and so on
/// without end. `None` when nothing fires for the rewritten input.
fn judge_again(
    judge: &Judge<'_>,
    scope: &McpScope<'_>,
    original: &Payload,
    input: serde_json::Value,
    rewriters: &[String],
    ran: &mut Ran,
) -> Option<hookdex_harness::Answer> {
    let mut rewritten = original.clone();
    rewritten.tool_input = input;
    let call = Call::of(judge.target, &rewritten, scope);
    let pair = [(rewritten, call)];
    let fired = match fired_rules(judge.settings, &pair, Verify::Lazy) {
        Ok(mut fired) => fired.remove(0),
        Err(reason) => {
            ran.notes.push(format!(
                "the rewritten call could not be looked up: {reason}"
            ));
            return None;
        }
    };
    // An `.async` rule cannot change the call: one that already started
    // does not start twice.
    // Filters judged this input already, as the chain's last step.
    let fired: Vec<Fired> = fired
        .into_iter()
        .filter(|rule| rule.kind == RuleKind::Condition || rule.hook.is_some())
        .filter(|rule| !(rule.is_async && ran.fired.contains(&rule.file_name)))
        .filter(|rule| !rewriters.contains(&rule.name()))
        .collect();
    if fired.is_empty() {
        return None;
    }
    let names: Vec<String> = fired.iter().map(Fired::name).collect();
    ran.notes.push(format!(
        "the rewritten call was judged again: {}",
        names.join(", ")
    ));
    let [(rewritten, call)] = &pair;
    let mut again = Ran::default();
    let (hooks, conditions): (Vec<Fired>, Vec<Fired>) =
        fired.into_iter().partition(|rule| rule.hook.is_some());
    run_call(judge, rewritten, call, conditions, &mut again);
    run_hooks(judge, rewritten, call, &hooks, &mut again);
    for (name, mut outcome) in again.outcomes {
        let rewrote = outcome.replacement.take().is_some();
        if outcome.patch.take().is_some() || rewrote {
            ran.notes.push(format!(
                "{name}: its rewrite of the rewritten call is not applied"
            ));
        }
        // A rule that answered the original text already counts again only
        // when it is stricter about the rewrite (it passed `get` and denies
        // `delete`); otherwise its first answer stands alone.
        let first = ran.outcomes.iter().find(|(n, _)| *n == name);
        if let Some((_, first)) = first {
            if outcome.decision <= first.decision {
                continue;
            }
            outcome.context = None;
        }
        ran.outcomes.push((name, outcome));
    }
    for name in again.fired {
        if !ran.fired.contains(&name) {
            ran.fired.push(name);
        }
    }
    ran.notes.extend(again.notes);
    Some(merge::merge(
        original.step(),
        &original.tool_input,
        original.permission_mode.as_deref(),
        &ran.outcomes,
    ))
}

/// What every condition run of one hook call shares: the harness, the
/// settings, and the one deadline of the whole call.
pub(crate) struct Judge<'s> {
    pub(crate) target: Target,
    pub(crate) settings: &'s Settings,
    pub(crate) deadline: Deadline,
    pub(crate) var: &'s dyn Fn(&str) -> Option<OsString>,
}

/// What the conditions of every call of a payload did.
#[derive(Default)]
pub(crate) struct Ran {
    /// (condition file name, outcome) of synchronous conditions, in order.
    pub(crate) outcomes: Vec<(String, Outcome)>,
    /// Every condition started, async ones included.
    pub(crate) fired: Vec<String>,
    /// Lines for the hook log.
    pub(crate) notes: Vec<String>,
}

/// Runs the conditions that fire for one call: `.async` ones detached
/// first, then the others in parallel. When a rule file vanished between
/// the lookup and its run (deleted or renamed by an editor), the rules are
/// looked up once more (recompiling the index, now stale) and what the
/// second lookup adds runs too.
fn run_call(judge: &Judge<'_>, payload: &Payload, call: &Call, fired: Vec<Fired>, ran: &mut Ran) {
    let first = runnable(&fired);
    if first.is_empty() {
        return;
    }
    let stdin = Stdin::new(contract::stdin(payload, call).to_string().into_bytes());
    let run = |rules: &[&Fired], ran: &mut Ran| run_rules(judge, payload, call, rules, &stdin, ran);
    let mut done = run(&first, ran);
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
    let again = match fired_rules(judge.settings, &[(payload, call)], Verify::Rebuild) {
        Ok(mut again) => again.pop().unwrap_or_default(),
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
    let added: Vec<Fired> = again
        .iter()
        .filter(|rule| !done.iter().any(|(r, _)| r.file == rule.file))
        .cloned()
        .collect();
    let added = runnable(&added);
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

/// The conditions of `fired` (filters run after them, as a chain).
fn runnable(fired: &[Fired]) -> Vec<&Fired> {
    fired
        .iter()
        .filter(|rule| rule.kind == RuleKind::Condition)
        .collect()
}

/// Starts the `.async` rules of `rules` detached and runs the others, none
/// past the call's deadline; returns each synchronous rule with its
/// outcome, in order.
pub(crate) fn run_rules(
    judge: &Judge<'_>,
    payload: &Payload,
    call: &Call,
    rules: &[&Fired],
    stdin: &Stdin,
    ran: &mut Ran,
) -> Vec<(Fired, Outcome)> {
    let job = |rule: &Fired| {
        let contract = contract::env(
            judge.target,
            payload,
            call,
            &rule.file_name,
            &rule.layer_label,
        );
        let mandatory = rule.layer_kind == LayerKind::Managed;
        let env = judge.settings.script_env(rule.layer_kind);
        Job {
            file: rule.file.clone(),
            runner: rule.runner,
            interpreter: rule.interpreter.clone(),
            clear_env: env.is_some(),
            env: env.into_iter().flatten().chain(contract).collect(),
            mandatory,
            cwd: None,
            timeout: None,
        }
    };
    let config = &judge.settings.exec;
    for rule in rules.iter().filter(|r| r.is_async) {
        ran.fired.push(rule.file_name.clone());
        if let Err(err) = exec::spawn_detached(&job(rule), config, judge.deadline, stdin) {
            ran.notes.push(format!(
                "{}: async condition not started: {err}",
                rule.file_name
            ));
        }
    }
    let sync: Vec<&Fired> = rules.iter().copied().filter(|r| !r.is_async).collect();
    let jobs: Vec<Job> = sync.iter().map(|rule| job(rule)).collect();
    let executions = exec::run_all(&jobs, config, judge.deadline, stdin);
    sync.into_iter()
        .zip(&executions)
        .map(|(rule, run)| {
            ran.fired.push(rule.file_name.clone());
            (rule.clone(), outcome::interpret(payload.step(), run))
        })
        .collect()
}

/// The hook log line of one call, filled in as the call goes.
struct Log<'p> {
    home: &'p Path,
    target: Target,
    payload: Option<&'p Payload>,
    started: Instant,
}

impl<'p> Log<'p> {
    fn new(
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
        }
    }

    /// Appends the line: what fired, the decision sent, and the notes.
    fn write(&self, fired: &[&str], decision: Option<&str>, notes: &[String]) {
        let payload = self.payload;
        let entry = json!({
            "ts_ms": log::now_ms(),
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
        log::append(self.home, &entry);
    }
}
