//! The plan stage (`Call → Query → Hit`): what fires for each call of the
//! payload, read in one lookup per index (the user's, and the
//! administrator's when the managed layer runs apart), every source kind at
//! once (conditions, `hooks.yaml` and `HOOK.md` hooks, enforcements,
//! filters), and in the same lookup what the guard watches when it may wrap
//! a shell call. The later stages ask here, not the index: a rewritten
//! input is looked up once ([`Plan::look_up_rewrite`]) for the filters and
//! the re-judge alike, and a rule file that vanished before it ran is
//! looked up once more on a rebuilt index ([`again`]).

use hookdex_harness::{McpScope, Payload};
use hookdex_index::ProblemCount;
use hookdex_model::{Event, RuleKind};
use serde_json::Value;

use crate::call::Call;
use crate::fired::Fired;
use crate::load::{self, Verify};
use crate::rules;
use crate::settings::{Enforce, Settings};

/// One call and the rules that fire for it, in execution order.
pub(super) struct Planned {
    /// The call's own payload.
    pub(super) payload: Payload,
    /// The call.
    pub(super) call: Call,
    /// What fires for it.
    pub(super) fired: Vec<Fired>,
}

impl Planned {
    /// Its conditions.
    pub(super) fn conditions(&self) -> Vec<&Fired> {
        self.fired
            .iter()
            .filter(|r| r.kind == RuleKind::Condition)
            .collect()
    }

    /// Its `hooks.yaml` and `HOOK.md` hooks.
    pub(super) fn hooks(&self) -> Vec<&Fired> {
        self.fired.iter().filter(|r| r.hook.is_some()).collect()
    }

    /// Its enforcements.
    pub(super) fn enforcements(&self) -> Vec<&Fired> {
        self.fired
            .iter()
            .filter(|r| r.kind == RuleKind::Enforcement)
            .collect()
    }

    /// Its guards.
    pub(super) fn guards(&self) -> Vec<&Fired> {
        self.fired.iter().filter(|r| r.guard.is_some()).collect()
    }

    /// Its filters, which run after the rest, as a chain.
    pub(super) fn filters(&self) -> Vec<&Fired> {
        self.fired
            .iter()
            .filter(|r| r.kind == RuleKind::Filter)
            .collect()
    }
}

/// What runs for a payload: each call with its rules.
pub(super) struct Plan {
    /// The calls, in the payload's order.
    pub(super) calls: Vec<Planned>,
    /// Whether the guard has anything to watch for the session (a closed
    /// gate, or a program a running `bash.<cli>` rule names); read only
    /// where it may wrap the call.
    pub(super) watching: bool,
    /// How many problems the user's index records (invalid files, missing
    /// profiles, rules shadowing a shipped rule): the session's notice.
    pub(super) problems: ProblemCount,
    /// The rewritten input last looked up, and what fires for it.
    rewritten: Option<(Value, Result<Planned, crate::Error>)>,
    /// The one rule (by file name) a trial keeps ([`Plan::keep_only`]).
    only: Option<String>,
}

impl Plan {
    /// The plan for the `calls` of `payload`: one lookup per index.
    ///
    /// # Errors
    ///
    /// Why an index could not be read, in one line.
    pub(super) fn of(
        settings: &Settings,
        payload: &Payload,
        calls: Vec<(Payload, Call)>,
    ) -> Result<Plan, crate::Error> {
        let session = payload.session_id.as_deref();
        let guarded = may_be_guarded(settings, payload, &calls);
        let gate_closed = guarded && crate::wrap::guard::gate_closed(settings, session);
        let (fired, programs, problems) =
            look_up(settings, &calls, Verify::Lazy, guarded && !gate_closed)?;
        let calls = calls
            .into_iter()
            .zip(fired)
            .map(|((payload, call), fired)| Planned {
                payload,
                call,
                fired,
            })
            .collect();
        Ok(Plan {
            calls,
            watching: gate_closed || programs,
            problems,
            rewritten: None,
            only: None,
        })
    }

    /// Keeps only the rule of file name `file_name` in every call, and in
    /// every rewritten call looked up later: a case file's rule, alone.
    pub(super) fn keep_only(&mut self, file_name: &str) {
        for planned in &mut self.calls {
            planned.fired.retain(|rule| rule.file_name == file_name);
        }
        self.only = Some(file_name.to_string());
    }

    /// Whether nothing fires for any call.
    pub(super) fn fires_nothing(&self) -> bool {
        self.calls.iter().all(|c| c.fired.is_empty())
    }

    /// Looks up what fires for the first call with `input` in place of its
    /// own, unless that input was looked up already.
    pub(super) fn look_up_rewrite(
        &mut self,
        settings: &Settings,
        scope: &McpScope<'_>,
        input: &Value,
    ) {
        if matches!(&self.rewritten, Some((seen, _)) if seen == input) {
            return;
        }
        let mut payload = self.calls[0].payload.clone();
        payload.tool_input = input.clone();
        let call = Call::of(settings.view.target, &payload, scope);
        let pair = [(payload, call)];
        let only = self.only.as_deref();
        let planned = look_up(settings, &pair, Verify::Lazy, false).map(|(mut fired, _, _)| {
            let [(payload, call)] = pair;
            let mut fired = fired.remove(0);
            if let Some(only) = only {
                fired.retain(|rule| rule.file_name == only);
            }
            Planned {
                payload,
                call,
                fired,
            }
        });
        self.rewritten = Some((input.clone(), planned));
    }

    /// The rewritten call last looked up ([`Plan::look_up_rewrite`]), or
    /// why it could not be.
    pub(super) fn rewritten(&self) -> Option<&Result<Planned, crate::Error>> {
        self.rewritten.as_ref().map(|(_, planned)| planned)
    }
}

/// What fires for `call` of `payload` on indexes compiled again: a rule
/// file named by the one in hand vanished, whatever its stamps say.
///
/// # Errors
///
/// Which index could not be read, and why.
pub(super) fn again(
    settings: &Settings,
    payload: &Payload,
    call: &Call,
) -> Result<Vec<Fired>, crate::Error> {
    let (mut fired, _, _) = look_up(settings, &[(payload, call)], Verify::Rebuild, false)?;
    Ok(fired.pop().unwrap_or_default())
}

/// What fires for each of `calls`, one lookup per index, whether a
/// running `bash.<cli>` rule names a program when `programs` asks, and the
/// user's index's [problem count](hookdex_index::Index::problem_count).
fn look_up<P, C>(
    settings: &Settings,
    calls: &[(P, C)],
    verify: Verify,
    programs: bool,
) -> Result<(Vec<Vec<Fired>>, bool, ProblemCount), crate::Error>
where
    P: std::borrow::Borrow<Payload>,
    C: std::borrow::Borrow<Call>,
{
    let mut fired = vec![Vec::new(); calls.len()];
    let mut named = false;
    let mut problems = ProblemCount::default();
    for source in rules::sources(settings) {
        let (more, names, count) = load::with_index(&source.view, verify, |index| {
            let more = rules::read(index, settings, calls, source.switches)?;
            let names = match programs {
                true => !rules::guarded_programs(index, settings, source.switches)?.is_empty(),
                false => false,
            };
            let count = match source.managed_only {
                true => ProblemCount::default(),
                false => index.problem_count()?,
            };
            Ok((more, names, count))
        })?;
        rules::join(&mut fired, more, &source);
        named |= names;
        problems += count;
    }
    Ok((fired, named, problems))
}

/// Whether the guard may wrap the payload's call ([`crate::wrap::plan`]):
/// one shell call before it runs, with enforcement on and not left to the
/// harness's own shell prefix.
fn may_be_guarded(settings: &Settings, payload: &Payload, calls: &[(Payload, Call)]) -> bool {
    let [(_, call)] = calls else {
        return false;
    };
    settings.enforce != Enforce::Off
        && payload.event == Event::PreToolUse
        && call.tool.name.is_bash()
        && !(settings.harness_guards && settings.enforce == Enforce::Auto)
}
