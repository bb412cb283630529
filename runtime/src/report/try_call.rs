//! `hookdex try`: one call judged exactly as the hook would judge it (the
//! same plan, the conditions really run, the filters, the merge, the
//! re-judge of a rewrite, the harness's shaping), as a trial of the hook's
//! own pipeline ([`crate::hook::trial`]), reported rule by rule with the
//! merged answer and what the harness would do with it.
//!
//! A trial leaves the real session alone: it runs in a session of its own
//! ([`TRY_SESSION`] unless one is named), whose block caps start afresh
//! each time, and writes no hook-log line. A broken rule is a rule whose
//! entry says what went wrong, never a failed report.

use hookdex_compiler::formats::cases::Decision;
use hookdex_harness::Payload;
use hookdex_model::{Answer, Permission, Step};
use serde::Serialize;
use serde_json::{json, Value};

use super::{CallSpec, Context, Error};
use crate::hook::trial::Trial;
use crate::outcome::Outcome;
use crate::state::caps::{CapKind, Caps};

/// The session a trial runs in when none is named.
pub const TRY_SESSION: &str = "hookdex-try";

/// The call a trial judges.
#[derive(Clone, Debug)]
pub enum TryCall {
    /// Described by flags.
    Flags(CallSpec),
    /// A harness's payload, as its bytes.
    Payload(Vec<u8>),
}

/// One rule's answer to the call.
#[derive(Clone, Debug, Serialize)]
pub struct RuleAnswer {
    /// The rule, by the name it goes by (a condition's file name).
    pub file: String,
    /// Its layer's label (`hookdex` for the pipeline's own steps).
    pub layer: String,
    /// Its permission decision (at `post`, a block is `deny`).
    pub decision: Decision,
    /// The reason it gave.
    pub reason: Option<String>,
    /// The context it gave the agent.
    pub context: Option<String>,
    /// The tool input as its rewrite leaves it.
    pub rewrite: Option<Value>,
    /// Why it was skipped (a crash, a timeout, bad output).
    pub error: Option<String>,
    /// An `.async` rule: the hook starts it detached and never reads its
    /// answer, so its decision is `none` whatever it printed (a trial waits
    /// for it only to see it finish or fail).
    pub detached: bool,
}

impl RuleAnswer {
    /// The answer of a rule of `layer` that said nothing.
    pub fn silent(file: &str, layer: &str) -> RuleAnswer {
        RuleAnswer {
            file: file.to_string(),
            layer: layer.to_string(),
            decision: Decision::None,
            reason: None,
            context: None,
            rewrite: None,
            error: None,
            detached: false,
        }
    }
}

/// The answer every rule's merge gives.
#[derive(Clone, Debug, Serialize)]
pub struct MergedAnswer {
    /// The decision (at `post`, a block is `deny`).
    pub decision: Decision,
    /// The reasons, joined with `; `.
    pub reason: Option<String>,
    /// The contexts, joined with a blank line.
    pub context: Option<String>,
    /// The rewritten tool input.
    pub rewrite: Option<Value>,
}

/// The harness's reply, as the hook would print it.
#[derive(Clone, Debug, Serialize)]
pub struct ReplyEntry {
    /// Its stdout.
    pub stdout: String,
    /// Its exit code.
    pub exit: i32,
}

/// What `hookdex try` reports; `--json` prints it key for key.
#[derive(Clone, Debug, Serialize)]
pub struct TryReport {
    /// The normalized tool.
    pub tool: String,
    /// The harness.
    pub target: String,
    /// The session the call was judged in.
    pub session: String,
    /// Each rule that ran, in order, with its answer.
    pub rules: Vec<RuleAnswer>,
    /// The merged answer.
    pub merged: MergedAnswer,
    /// What the harness does with the reply, in one line
    /// (`claude: the call is denied: <reason>`).
    pub harness: String,
    /// The reply itself.
    pub reply: ReplyEntry,
    /// The pipeline's notes (why nothing ran, a rewrite judged again, …).
    pub notes: Vec<String>,
}

/// Judges `call` as the hook of the context's target would; with `only`,
/// only the rule of that file name runs (a case file's rule).
///
/// # Errors
///
/// When the flags describe no call (`--input` not an object), or the
/// payload cannot be read.
pub fn try_call(ctx: &Context<'_>, call: &TryCall, only: Option<&str>) -> Result<TryReport, Error> {
    let target = ctx.settings.view.target;
    let bytes = match call {
        TryCall::Payload(bytes) => bytes.clone(),
        TryCall::Flags(spec) => flags_payload(ctx, spec)?,
    };
    let payload = Payload::parse(target, &bytes, None).map_err(Error::Payload)?;
    let session = ctx.session.unwrap_or(TRY_SESSION).to_string();
    if ctx.session.is_none() {
        // The try session's blocks in a row start afresh with each trial.
        let caps = Caps::new(&ctx.settings.view.home);
        caps.reset(&session, CapKind::Post);
        caps.reset(&session, CapKind::Stop);
    }
    let mut trial = Trial {
        session: session.clone(),
        only: only.map(str::to_string),
        ..Trial::default()
    };
    crate::hook::judge_call(target, None, &bytes, ctx.var, Some(&mut trial));
    let step = payload.step();
    let rules = rule_answers(&trial, step, &payload.tool_input);
    let merged = merged_answer(&trial.merged, step);
    Ok(TryReport {
        tool: trial.tool.clone().unwrap_or(payload.tool_name.clone()),
        target: target.as_str().into(),
        session,
        rules,
        merged,
        harness: format!("{}: {}", target.as_str(), what_happens(&trial.shaped, step)),
        reply: ReplyEntry {
            stdout: trial.reply.stdout.trim_end().to_string(),
            exit: trial.reply.exit,
        },
        notes: trial.notes,
    })
}

/// The payload a harness would send for the call the flags describe, in
/// the current directory.
fn flags_payload(ctx: &Context<'_>, spec: &CallSpec) -> Result<Vec<u8>, Error> {
    let mut payload = json!({
        "hook_event_name": spec.step.event().as_str(),
        "tool_name": spec.tool,
        "tool_input": spec.input()?,
        "cwd": ctx.settings.exec.cwd,
    });
    if spec.step == Step::Post {
        payload["tool_response"] = json!("");
    }
    Ok(payload.to_string().into_bytes())
}

/// Each rule that ran, with its outcomes folded into one answer.
fn rule_answers(trial: &Trial, step: Step, input: &Value) -> Vec<RuleAnswer> {
    let mut names: Vec<&String> = Vec::new();
    for name in trial
        .fired
        .iter()
        .chain(trial.outcomes.iter().map(|(n, _)| n))
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let layer = trial
                .layers
                .iter()
                .find(|(n, _)| n == name)
                .map_or("hookdex", |(_, layer)| layer.as_str());
            let outcomes = trial.outcomes.iter().filter(|(n, _)| n == name);
            let mut answer = RuleAnswer::silent(name, layer);
            for (_, outcome) in outcomes {
                fold(&mut answer, outcome, step, input);
            }
            if let Some((_, outcome)) = trial.detached.iter().find(|(n, _)| n == name) {
                answer.detached = true;
                answer.error = outcome.failure.clone();
            }
            answer
        })
        .collect()
}

/// Adds one outcome of a rule to its answer: the stricter decision with
/// its reason, the contexts in order, the last rewrite.
fn fold(answer: &mut RuleAnswer, outcome: &Outcome, step: Step, input: &Value) {
    let decision = match (&outcome.block, outcome.decision) {
        (Some(_), _) => Decision::Deny,
        (None, decision) => decision_of(decision),
    };
    if strictness(decision) > strictness(answer.decision) {
        answer.decision = decision;
        answer.reason = outcome.block.clone().or_else(|| outcome.reason.clone());
    } else if answer.reason.is_none() {
        answer.reason = outcome.reason.clone();
    }
    if let Some(context) = &outcome.context {
        answer.context = Some(match answer.context.take() {
            Some(before) => format!("{before}\n\n{context}"),
            None => context.clone(),
        });
    }
    if step == Step::Pre {
        let base = outcome.replacement.as_ref().unwrap_or(input);
        if outcome.replacement.is_some() || outcome.patch.is_some() {
            let mut rewritten = base.clone();
            if let (Some(object), Some(patch)) = (rewritten.as_object_mut(), &outcome.patch) {
                object.extend(patch.clone());
            }
            answer.rewrite = Some(rewritten);
        }
    }
    if let Some(output) = &outcome.tool_output {
        answer.rewrite = Some(json!({ "tool_output": output }));
    }
    if outcome.failure.is_some() {
        answer.error = outcome.failure.clone();
    }
}

fn decision_of(permission: Option<Permission>) -> Decision {
    match permission {
        Some(Permission::Allow) => Decision::Allow,
        Some(Permission::Ask) => Decision::Ask,
        Some(Permission::Deny) => Decision::Deny,
        None => Decision::None,
    }
}

/// `deny > ask > allow > none`, as the merge ranks them.
fn strictness(decision: Decision) -> u8 {
    match decision {
        Decision::None => 0,
        Decision::Allow => 1,
        Decision::Ask => 2,
        Decision::Deny => 3,
    }
}

/// The merged answer as the report shows it.
fn merged_answer(answer: &Answer, step: Step) -> MergedAnswer {
    let (decision, reason) = match &answer.block {
        Some(block) => (Decision::Deny, Some(block.clone())),
        None => (
            decision_of(answer.decision),
            (!answer.reasons.is_empty()).then(|| answer.reasons.join("; ")),
        ),
    };
    let rewrite = match step {
        Step::Post => answer
            .tool_output
            .clone()
            .map(|o| json!({ "tool_output": o })),
        _ => answer.updated_input.clone(),
    };
    MergedAnswer {
        decision,
        reason,
        context: (!answer.contexts.is_empty()).then(|| answer.contexts.join("\n\n")),
        rewrite,
    }
}

/// What the harness does with `shaped`, the answer its reply carries.
fn what_happens(shaped: &Answer, step: Step) -> String {
    let reason = || match shaped.reasons.join("; ") {
        r if r.is_empty() => String::new(),
        r => format!(": {r}"),
    };
    // After the tool ran, only a block holds its result back; a permission
    // decision is no harness's answer there.
    let decision = shaped.decision.filter(|_| step != Step::Post);
    let mut line = match (&shaped.block, decision) {
        (Some(block), _) => format!("the tool's result is blocked: {block}"),
        (None, Some(Permission::Deny)) => format!("the call is denied{}", reason()),
        (None, Some(Permission::Ask)) => format!("the person is asked{}", reason()),
        (None, Some(Permission::Allow)) => format!("the call is allowed{}", reason()),
        (None, None) if step == Step::Pre => "the call goes on as usual".to_string(),
        (None, None) => "the result goes back as usual".to_string(),
    };
    let blocked = shaped.block.is_some() || decision == Some(Permission::Deny);
    if !blocked && shaped.updated_input.is_some() {
        line.push_str(", with its input rewritten");
    }
    if shaped.guard.is_some() {
        line.push_str(", under hookdex's guard");
    }
    if shaped.tool_output.is_some() {
        line.push_str(", with its result replaced");
    }
    if !shaped.contexts.is_empty() {
        line.push_str("; the agent is told more (context)");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(file: &str) -> RuleAnswer {
        RuleAnswer::silent(file, "runtime")
    }

    #[test]
    fn a_rule_answer_folds_its_outcomes() {
        let input = json!({"command": "git log", "timeout": 5});
        let mut rule = answer("pre-bash.git-short.sh");
        let rewrite = Outcome {
            patch: Some(
                json!({"command": "git log -20"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            decision: Some(Permission::Allow),
            reason: Some("short".into()),
            context: Some("one".into()),
            ..Outcome::default()
        };
        fold(&mut rule, &rewrite, Step::Pre, &input);
        let stricter = Outcome {
            decision: Some(Permission::Deny),
            reason: Some("judged again".into()),
            context: Some("two".into()),
            ..Outcome::default()
        };
        fold(&mut rule, &stricter, Step::Pre, &input);
        assert_eq!(rule.decision, Decision::Deny);
        assert_eq!(rule.reason.as_deref(), Some("judged again"));
        assert_eq!(rule.context.as_deref(), Some("one\n\ntwo"));
        assert_eq!(
            rule.rewrite,
            Some(json!({"command": "git log -20", "timeout": 5}))
        );
        let mut blocked = answer("post-bash-tests.sh");
        let block = Outcome {
            block: Some("tests failed".into()),
            ..Outcome::default()
        };
        fold(&mut blocked, &block, Step::Post, &input);
        assert_eq!(blocked.decision, Decision::Deny);
        assert_eq!(blocked.reason.as_deref(), Some("tests failed"));
        let mut broken = answer("pre-bash-x.sh");
        let failed = Outcome {
            failure: Some("exit 1: boom".into()),
            ..Outcome::default()
        };
        fold(&mut broken, &failed, Step::Pre, &input);
        assert_eq!(
            (broken.decision, broken.error.as_deref()),
            (Decision::None, Some("exit 1: boom"))
        );
    }

    #[test]
    fn what_the_harness_does_in_a_line() {
        let deny = Answer {
            decision: Some(Permission::Deny),
            reasons: vec!["no".into(), "never".into()],
            updated_input: Some(json!({})),
            ..Answer::default()
        };
        assert_eq!(
            what_happens(&deny, Step::Pre),
            "the call is denied: no; never"
        );
        let rewritten = Answer {
            decision: Some(Permission::Allow),
            updated_input: Some(json!({})),
            contexts: vec!["x".into()],
            ..Answer::default()
        };
        assert_eq!(
            what_happens(&rewritten, Step::Pre),
            "the call is allowed, with its input rewritten; the agent is told more (context)"
        );
        assert_eq!(
            what_happens(&Answer::default(), Step::Post),
            "the result goes back as usual"
        );
        let denied_after = Answer {
            decision: Some(Permission::Deny),
            reasons: vec!["pb".into()],
            ..Answer::default()
        };
        assert_eq!(
            what_happens(&denied_after, Step::Post),
            "the result goes back as usual"
        );
        let block = Answer {
            block: Some("tests failed".into()),
            ..Answer::default()
        };
        assert_eq!(
            what_happens(&block, Step::Post),
            "the tool's result is blocked: tests failed"
        );
    }
}
