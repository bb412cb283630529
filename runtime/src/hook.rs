//! The hook pipeline as a library function: payload bytes in, the harness's
//! reply out. `Payload → Call → Query → Hit → Job → Outcome → Answer → Reply`:
//! read the payload, look up what fires in the index (recompiled only when
//! stale or damaged), run it (`.async` conditions detached first, the others
//! in parallel), merge the outcomes and shape the reply for the harness.
//! Every condition of the call, whichever call of a batch or run it belongs
//! to, runs within one deadline from the hook's start.
//!
//! It fails open everywhere: a bad payload, a broken index, a crashing or
//! hanging condition never blocks the call; only an explicit decision does.
//! Calls where something fired or went wrong leave one line in the hook log.

use std::cell::OnceCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hookdex_harness::{notice, reply, McpScope, Payload, Reply};
use hookdex_index::Query;
use hookdex_model::{LayerKind, RuleKind, Runner, Switches, Target};
use serde_json::json;

use crate::call::Call;
use crate::exec::{self, Deadline, Job, Stdin};
use crate::load::{self, Verify};
use crate::lookup;
use crate::merge;
use crate::outcome::{self, Outcome};
use crate::settings::Settings;
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
        directory_env: OnceCell::new(),
    };
    let scope = McpScope { cwd: &cwd, var };
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
    if fired.iter().all(Vec::is_empty) {
        return Reply::default();
    }
    let mut ran = Ran::default();
    for ((single, call), fired) in calls.iter().zip(fired) {
        run_call(&judge, single, call, fired, &mut ran);
    }
    if ran.fired.is_empty() {
        if !ran.notes.is_empty() {
            log.write(&[], None, &ran.notes);
        }
        return Reply::default();
    }
    let mut merged = merge::merge(
        payload.step(),
        &payload.tool_input,
        payload.permission_mode.as_deref(),
        &ran.outcomes,
    );
    if calls.len() > 1 && merged.updated_input.take().is_some() {
        merged.note(
            "hookdex: an input rewrite cannot apply to a batch of calls; it was dropped".into(),
        );
    }
    if let Some(input) = merged.updated_input.clone() {
        let (first, _) = &calls[0];
        if let Some(again) = judge_again(&judge, &scope, first, input, &mut ran) {
            merged = again;
        }
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

/// A rewrite goes through the lookup once more, so no rule can rewrite a
/// call past another's guard: every rule that fires for the rewritten input
/// runs on it (those that judged the original too: they saw other text),
/// and the answer is merged again from every outcome, so a deny among them
/// drops the rewrite. A rewrite of the rewritten input is not applied: it
/// would need judging once more, and so on without end. `None` when
/// nothing fires for the rewritten input.
fn judge_again(
    judge: &Judge<'_>,
    scope: &McpScope<'_>,
    original: &Payload,
    input: serde_json::Value,
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
    let fired: Vec<Fired> = fired
        .into_iter()
        .filter(|rule| !(rule.is_async && ran.fired.contains(&rule.file_name)))
        .collect();
    if fired.is_empty() {
        return None;
    }
    let names: Vec<&str> = fired.iter().map(|r| r.file_name.as_str()).collect();
    ran.notes.push(format!(
        "the rewritten call was judged again: {}",
        names.join(", ")
    ));
    let [(rewritten, call)] = &pair;
    let mut again = Ran::default();
    run_call(judge, rewritten, call, fired, &mut again);
    for (name, mut outcome) in again.outcomes {
        if outcome.patch.take().is_some() {
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
struct Judge<'s> {
    target: Target,
    settings: &'s Settings,
    deadline: Deadline,
    /// Reads the environment.
    var: &'s dyn Fn(&str) -> Option<OsString>,
    /// The whole environment of a directory-layer rule
    /// ([`Settings::directory_env`]), read when the first such rule runs.
    directory_env: OnceCell<Vec<(String, String)>>,
}

impl Judge<'_> {
    fn directory_env(&self) -> &[(String, String)] {
        self.directory_env
            .get_or_init(|| Settings::directory_env(self.var))
    }
}

/// What the conditions of every call of a payload did.
#[derive(Default)]
struct Ran {
    /// (condition file name, outcome) of synchronous conditions, in order.
    outcomes: Vec<(String, Outcome)>,
    /// Every condition started, async ones included.
    fired: Vec<String>,
    /// Lines for the hook log.
    notes: Vec<String>,
}

/// A rule that fires, copied out of the index so it can run after the
/// mapping is released.
#[derive(Clone)]
struct Fired {
    file: PathBuf,
    file_name: String,
    runner: Runner,
    is_async: bool,
    kind: RuleKind,
    layer_label: String,
    layer_kind: LayerKind,
}

/// The rules that run for each call, read from the index in one pass
/// (recompiled once if the lookup finds it damaged); when the managed layer
/// is its administrator's, its rules come from their index, after the rest.
fn fired_rules<P, C>(
    settings: &Settings,
    calls: &[(P, C)],
    verify: Verify,
) -> Result<Vec<Vec<Fired>>, String>
where
    P: std::borrow::Borrow<Payload>,
    C: std::borrow::Borrow<Call>,
{
    let mut fired = fired_in(&settings.view, settings, calls, verify, settings.switches())?;
    if let Some(managed) = settings.managed_view() {
        let switches = Switches {
            managed_apart: false,
            ..settings.switches()
        };
        let apart = fired_in(&managed, settings, calls, verify, switches)?;
        for (rules, managed) in fired.iter_mut().zip(apart) {
            // The administrator's index holds the managed layer and nothing else.
            rules.extend(
                managed
                    .into_iter()
                    .filter(|r| r.layer_kind == LayerKind::Managed),
            );
        }
    }
    Ok(fired)
}

/// The rules of the index for `view` that run for each call under `switches`.
fn fired_in<P, C>(
    view: &hookdex_compiler::View,
    settings: &Settings,
    calls: &[(P, C)],
    verify: Verify,
    switches: Switches,
) -> Result<Vec<Vec<Fired>>, String>
where
    P: std::borrow::Borrow<Payload>,
    C: std::borrow::Borrow<Call>,
{
    load::with_index(view, verify, |index| {
        let trust = settings.trust(&index.meta()?);
        calls
            .iter()
            .map(|(payload, call)| {
                let (payload, call) = (payload.borrow(), call.borrow());
                let mut hits = Vec::new();
                for &step in payload.event.rule_steps() {
                    let query = Query {
                        step,
                        ..call.query(settings.shell_strict)
                    };
                    hits.extend(lookup::fires(index, &query, &trust, switches)?);
                }
                // Each step's hits are in execution order; so is their union.
                hits.sort_by_key(|hit| hit.rule);
                hits.dedup_by_key(|hit| hit.rule);
                hits.into_iter()
                    .map(|hit| {
                        let rule = index.rule(hit.rule)?;
                        let layer = index.layer(usize::from(rule.layer))?;
                        Ok(Fired {
                            file: PathBuf::from(rule.file),
                            file_name: rule.file_name().to_string(),
                            runner: rule.runner,
                            is_async: rule.is_async,
                            kind: rule.kind,
                            layer_label: layer.label.to_string(),
                            layer_kind: layer.kind,
                        })
                    })
                    .collect()
            })
            .collect()
    })
    .map_err(|e| e.to_string())
}

/// Runs the conditions that fire for one call: `.async` ones detached
/// first, then the others in parallel. When a rule file vanished between
/// the lookup and its run (deleted or renamed by an editor), the rules are
/// looked up once more (recompiling the index, now stale) and what the
/// second lookup adds runs too.
fn run_call(judge: &Judge<'_>, payload: &Payload, call: &Call, fired: Vec<Fired>, ran: &mut Ran) {
    let first = runnable(&fired, ran);
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
    let added = runnable(&added, ran);
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

/// The rules of `fired` that run in the hook (filters do not yet: noted).
fn runnable<'f>(fired: &'f [Fired], ran: &mut Ran) -> Vec<&'f Fired> {
    let mut runnable = Vec::new();
    for rule in fired {
        if rule.kind == RuleKind::Filter {
            ran.notes.push(format!(
                "{}: filters do not run in the hook yet",
                rule.file_name
            ));
            continue;
        }
        runnable.push(rule);
    }
    runnable
}

/// Starts the `.async` rules of `rules` detached and runs the others, none
/// past the call's deadline; returns each synchronous rule with its
/// outcome, in order.
fn run_rules(
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
        let env = match rule.layer_kind {
            // A repository's own rules get an allow-listed environment: no
            // API keys or tokens of the user's unless a setting passes them.
            LayerKind::Directory => Some(judge.directory_env().to_vec()),
            // The administrator's rules run the system's programs, not ones
            // the user's PATH, BASH_ENV, exported functions or Python site
            // put first.
            LayerKind::Managed => Some(Settings::managed_env(judge.directory_env())),
            _ => None,
        };
        Job {
            file: rule.file.clone(),
            runner: rule.runner,
            clear_env: env.is_some(),
            env: env.into_iter().flatten().chain(contract).collect(),
            mandatory,
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
