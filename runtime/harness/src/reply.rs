//! Replies: one merged [`Answer`] shaped into the wire format of the
//! harness that called, after degrading what that harness cannot do (as the
//! agentihooks harness table and `harness-formats.md` say): `ask` becomes
//! `deny` where there is no ask, a channel that does not exist is dropped
//! with a note in the hook log, a post block becomes context where a post
//! hook cannot block.

use hookdex_model::{Event, Permission, Step, Target, ToolName};
use serde_json::Value;

use crate::harness;
use crate::payload::{Payload, Shape};
use hookdex_model::Answer;

/// What the hook process prints and exits with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// Stdout (empty, or one JSON object and a newline).
    pub stdout: String,
    /// Exit code (0: the harness reads stdout).
    pub exit: i32,
}

impl Reply {
    pub(crate) fn json(value: Value) -> Reply {
        Reply {
            stdout: format!("{value}\n"),
            exit: 0,
        }
    }
}

/// What a harness's hook protocol can carry.
#[derive(Clone, Copy, Debug)]
pub struct Capabilities {
    /// Context for the agent on pre.
    pub pre_context: bool,
    /// An `ask` decision.
    pub ask: Ask,
    /// A rewrite without `allow` (Codex takes `updatedInput` only with allow).
    pub rewrite_without_allow: bool,
    /// A rewrite with no decision at all, which the harness applies and
    /// then decides as it would have (its own approval flow intact): what
    /// running a call under hookdex's guard takes without widening a
    /// permission ([`Answer::guard`]).
    pub rewrite_alone: bool,
    /// Context for the agent after a tool ran.
    pub post_context: bool,
    /// How a replacement output of a non-MCP tool reaches the model.
    pub post_output: OutputChannel,
    /// How a replacement output of an MCP tool reaches the model.
    pub mcp_output: OutputChannel,
    /// Blocking on post.
    pub post_block: bool,
    /// A message shown to the person running the session (`systemMessage`).
    pub user_message: bool,
    /// An input rewrite carried by a PermissionRequest's allow.
    pub permission_rewrite: bool,
    /// The events other than a tool call's that a reply can block
    /// (UserPromptSubmit drops the prompt, Stop makes the agent go on).
    pub block_events: &'static [Event],
    /// The events other than a tool call's whose reply carries context.
    pub context_events: &'static [Event],
}

/// Whether a harness can ask the person before a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// It asks, or decides as it would for an ask, headless too.
    Yes,
    /// It cannot; an `ask` is a deny.
    No,
    /// It asks a person at a terminal and, headless, waits forever; an `ask`
    /// is a deny unless the sessions are interactive ([`ReplyOptions`]).
    Interactive,
}

/// How a replacement tool output reaches the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputChannel {
    /// A reply field that replaces the result.
    Field,
    /// A post block, which withholds the result and shows the reason: the
    /// replacement travels as the reason, marked as hook feedback.
    Block,
    /// No way: the replacement is dropped.
    None,
}

impl Capabilities {
    /// Everything: Claude Code's protocol.
    pub const ALL: Capabilities = Capabilities {
        pre_context: true,
        ask: Ask::Yes,
        rewrite_without_allow: true,
        // Measured in 2.1.332: a rewrite with no decision is applied, then
        // checked against the person's permission rules like any command.
        rewrite_alone: true,
        post_context: true,
        post_output: OutputChannel::Field,
        mcp_output: OutputChannel::Field,
        post_block: true,
        user_message: true,
        permission_rewrite: true,
        block_events: &[Event::UserPromptSubmit, Event::Stop],
        context_events: &[Event::UserPromptSubmit, Event::SessionStart],
    };
}

/// What the person running hookdex asked of replies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplyOptions {
    /// The sessions are interactive (`HOOKDEX_INTERACTIVE=1`): keep `ask`
    /// where the harness asks a person at a terminal ([`Ask::Interactive`]).
    pub interactive: bool,
}

/// Shapes `answer` for the harness that sent `payload`; `tool` is the
/// normalized tool name. What the harness cannot carry is dropped from
/// `answer`, with a line in its log saying so.
pub fn reply(
    target: Target,
    payload: &Payload,
    tool: &ToolName,
    answer: &mut Answer,
    options: ReplyOptions,
) -> Reply {
    degrade(target, payload, tool, answer, options);
    if answer.is_empty() {
        return Reply::default();
    }
    harness(target).render(payload, tool, answer)
}

/// A reply carrying only `message` for the person running the session, for
/// when hookdex could not answer the call itself (a broken hook command, an
/// unreadable payload, an internal fault): empty where the harness has no
/// channel to the user. It never decides anything.
pub fn notice(target: Target, message: &str) -> Reply {
    if harness(target).capabilities(Shape::Snake).user_message {
        Reply::json(serde_json::json!({ "systemMessage": message }))
    } else {
        Reply::default()
    }
}

fn degrade(
    target: Target,
    payload: &Payload,
    tool: &ToolName,
    answer: &mut Answer,
    options: ReplyOptions,
) {
    let caps = harness(target).capabilities(payload.shape);
    let event = payload.event;
    if event.observe_only() {
        observe_only(event, answer);
        return;
    }
    let step = payload.step();
    if !event.is_tool_event() {
        decision_at_event(event, answer);
    }
    let asks = match caps.ask {
        Ask::Yes => true,
        Ask::No => false,
        Ask::Interactive => options.interactive,
    };
    if answer.decision == Some(Permission::Ask) && !asks {
        answer.decision = Some(Permission::Deny);
        let why = match caps.ask {
            Ask::Interactive => format!(
                "hookdex: this call needs approval, and {target} cannot ask for it in this session (HOOKDEX_INTERACTIVE=1 lets it ask), so it is denied"
            ),
            _ => format!("hookdex: {target} cannot ask the user, so the call is denied"),
        };
        answer.reasons.insert(0, why);
        answer.log.push(format!("ask turned into deny on {target}"));
    }
    if answer.updated_input.is_some() {
        let applies = match (step, answer.decision) {
            (Step::Pre, Some(Permission::Allow)) => true,
            (Step::Pre, Some(Permission::Ask)) => caps.rewrite_without_allow,
            (Step::Permission, Some(Permission::Allow)) => caps.permission_rewrite,
            _ => false,
        };
        if !applies {
            answer.updated_input = None;
            let why = match step {
                Step::Pre | Step::Permission => "it needs allow there",
                _ => "this event has no tool input to rewrite",
            };
            answer
                .log
                .push(format!("input rewrite dropped on {target}: {why}"));
        }
    }
    // Told only once the rewrite is sure to be sent: the model should know
    // that what ran is not what it asked for.
    if let Some(input) = &answer.updated_input {
        let what = match input.get("command").and_then(serde_json::Value::as_str) {
            Some(command) => format!("; it ran as: {command}"),
            None => String::new(),
        };
        let note = format!(
            "hookdex: this call's input was rewritten by {} before it ran{what}",
            answer.rewriters.join(", ")
        );
        answer.contexts.push(note);
    }
    if let Some(guarded) = answer.guard.take() {
        let carried = step == Step::Pre
            && match answer.decision {
                Some(Permission::Allow) => true,
                Some(Permission::Ask) => caps.rewrite_without_allow,
                Some(Permission::Deny) => false,
                None => caps.rewrite_alone,
            };
        match carried {
            true => answer.updated_input = Some(guarded),
            false => answer.log.push(format!(
                "guard wrap dropped on {target}: the reply cannot carry it"
            )),
        }
    }
    let after_tool = matches!(step, Step::Post | Step::Fail);
    if let (Some(_), false) = (&answer.tool_output, after_tool) {
        answer.tool_output = None;
        answer.log.push(format!(
            "tool_output dropped: {} has no tool output to replace",
            event.as_str()
        ));
    }
    if let Some(output) = answer.tool_output.take() {
        let channel = if tool.is_mcp() {
            caps.mcp_output
        } else {
            caps.post_output
        };
        match channel {
            OutputChannel::Field => answer.tool_output = Some(output),
            OutputChannel::Block => {
                let feedback = format!(
                    "hookdex replaced this tool's output (hook feedback; the original is withheld):\n{}",
                    output_text(&output)
                );
                answer.block = Some(match answer.block.take() {
                    Some(reason) => format!("{reason}\n\n{feedback}"),
                    None => feedback,
                });
            }
            OutputChannel::None => answer.log.push(format!(
                "{target} cannot replace a tool's output; tool_output dropped"
            )),
        }
    }
    if let Some(block) = answer.block.take() {
        let block = hookdex_model::text::cut(&block, hookdex_model::text::MAX_TEXT);
        if !after_tool {
            if caps.block_events.contains(&event) {
                answer.block = Some(block);
            } else {
                answer.log.push(format!(
                    "{target} cannot block {}; dropped: {block}",
                    event.as_str()
                ));
            }
        } else if caps.post_block {
            answer.block = Some(block);
        } else {
            answer.log.push(format!(
                "{target} cannot block after a tool ran; the reason becomes context"
            ));
            answer
                .contexts
                .push(format!("hookdex: blocked after the tool ran: {block}"));
        }
    }
    let has_context = match step {
        Step::Pre => caps.pre_context,
        Step::Post | Step::Fail => caps.post_context,
        Step::Permission => false,
        _ => caps.context_events.contains(&event),
    };
    if !has_context && !answer.contexts.is_empty() {
        let dropped = std::mem::take(&mut answer.contexts);
        answer.log.push(format!(
            "{target} has no context channel at {}; dropped: {}",
            payload.step().as_str(),
            dropped.join(" | ")
        ));
    }
    if !caps.user_message && !answer.user_notes.is_empty() {
        let dropped = std::mem::take(&mut answer.user_notes);
        answer.log.push(format!(
            "{target} has no channel to the user; not shown: {}",
            dropped.join(" | ")
        ));
    }
}

/// An observe-only event's reply says nothing to the agent: what a rule
/// asked is logged, and only notes for the person stay.
fn observe_only(event: Event, answer: &mut Answer) {
    let mut dropped = Vec::new();
    if let Some(decision) = answer.decision.take() {
        dropped.push(format!("decision {}", decision.as_str()));
    }
    if let Some(block) = answer.block.take() {
        dropped.push(format!("block ({block})"));
    }
    if answer.updated_input.take().is_some() {
        dropped.push("input rewrite".to_string());
    }
    if answer.tool_output.take().is_some() {
        dropped.push("tool_output".to_string());
    }
    if !answer.contexts.is_empty() {
        dropped.push(format!(
            "context ({})",
            std::mem::take(&mut answer.contexts).join(" | ")
        ));
    }
    if !dropped.is_empty() {
        answer.log.push(format!(
            "observe-only event {}: {} not applied",
            event.as_str(),
            dropped.join(", ")
        ));
    }
}

/// Outside a tool call a deny blocks (the prompt, the stop) with its
/// reason; allow and ask decide nothing there. The engine settles this
/// before it counts a block against its cap; [`reply`] does it again, for
/// answers that reach it unsettled.
pub fn decision_at_event(event: Event, answer: &mut Answer) {
    match answer.decision.take() {
        Some(Permission::Deny) if answer.block.is_none() => {
            answer.block = Some(answer.reason());
        }
        Some(Permission::Deny) => {}
        Some(other) => answer.log.push(format!(
            "{} decides no permission; {} ignored",
            event.as_str(),
            other.as_str()
        )),
        None => {}
    }
}

/// A replacement tool result as text.
pub(crate) fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
