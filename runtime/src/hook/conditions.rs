//! Running conditions (`Job → Outcome`), shared by the hook's run stage and
//! the exec-time guard ([`crate::wrap::guard`]): `.async` ones detached
//! first, the others in parallel, none past the call's one deadline.

use std::ffi::OsString;

use hookdex_harness::Payload;
use hookdex_model::{LayerKind, Target};

use crate::call::Call;
use crate::contract;
use crate::exec::{self, Deadline, Job, Stdin};
use crate::fired::Fired;
use crate::outcome::{self, Outcome};
use crate::settings::Settings;

/// What every condition run of one hook call shares: the harness, the
/// settings, and the one deadline of the whole call.
pub(crate) struct Judge<'s> {
    pub(crate) target: Target,
    pub(crate) settings: &'s Settings,
    pub(crate) deadline: Deadline,
    pub(crate) var: &'s dyn Fn(&str) -> Option<OsString>,
    /// Whether `.async` rules are waited for rather than started detached
    /// (a trial, so `try` and `hookdex test` see them finish or fail); their
    /// answers are kept apart in [`Ran::detached`] and never merged.
    pub(crate) awaits_async: bool,
}

/// What the rules of every call of a payload did.
#[derive(Default)]
pub(crate) struct Ran {
    /// (rule name, outcome) of synchronous rules, in order.
    pub(crate) outcomes: Vec<(String, Outcome)>,
    /// Every rule started, async ones included.
    pub(crate) fired: Vec<String>,
    /// Lines for the hook log.
    pub(crate) notes: Vec<String>,
    /// (rule name, outcome) of `.async` rules a trial waited for: what they
    /// did, which the hook never reads.
    pub(crate) detached: Vec<(String, Outcome)>,
}

/// Starts the `.async` rules of `rules` detached (a trial waits for them,
/// keeping their outcomes apart) and runs the others, none past the call's
/// deadline; returns each synchronous rule with its outcome, in order.
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
            // A script with an environment of its own (directory, managed)
            // gets only that; the others see the view's home.
            env: match env {
                Some(own) => own.into_iter().chain(contract).collect(),
                None => judge.settings.script_vars().chain(contract).collect(),
            },
            mandatory,
            cwd: None,
            timeout: None,
        }
    };
    let config = &judge.settings.exec;
    let detached = |rule: &&&Fired| rule.is_async && !judge.awaits_async;
    for rule in rules.iter().filter(detached) {
        ran.fired.push(rule.file_name.clone());
        if let Err(err) = exec::spawn_detached(&job(rule), config, judge.deadline, stdin) {
            ran.notes.push(format!(
                "{}: async condition not started: {err}",
                rule.file_name
            ));
        }
    }
    let waited: Vec<&Fired> = rules.iter().filter(|r| !detached(r)).copied().collect();
    let jobs: Vec<Job> = waited.iter().map(|rule| job(rule)).collect();
    let executions = exec::run_all(&jobs, config, judge.deadline, stdin);
    let mut done = Vec::new();
    for (rule, run) in waited.into_iter().zip(&executions) {
        ran.fired.push(rule.file_name.clone());
        let outcome = outcome::interpret(payload.step(), run);
        match rule.is_async {
            true => ran.detached.push((rule.file_name.clone(), outcome)),
            false => done.push((rule.clone(), outcome)),
        }
    }
    done
}
