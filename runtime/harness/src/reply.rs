//! Replies: one merged [`Answer`] shaped into the wire format of the
//! harness that called, after degrading what that harness cannot do (as the
//! agentihooks harness table and `harness-formats.md` say): `ask` becomes
//! `deny` where there is no ask, a channel that does not exist is dropped
//! with a note in the hook log, a post block becomes context where a post
//! hook cannot block.

use hookdex_model::{Permission, Step, Target, ToolName};
use serde_json::Value;

use crate::answer::Answer;
use crate::harness;
use crate::payload::Payload;

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
    pub ask: bool,
    /// A rewrite without `allow` (Codex takes `updatedInput` only with allow).
    pub rewrite_without_allow: bool,
    /// Context for the agent after a tool ran.
    pub post_context: bool,
    /// Replacing the output of a non-MCP tool on post.
    pub post_output: bool,
    /// Blocking on post.
    pub post_block: bool,
}

impl Capabilities {
    /// Everything: Claude Code's protocol.
    pub const ALL: Capabilities = Capabilities {
        pre_context: true,
        ask: true,
        rewrite_without_allow: true,
        post_context: true,
        post_output: true,
        post_block: true,
    };
}

/// Shapes `answer` for the harness that sent `payload`; `tool` is the
/// normalized tool name. What the harness cannot carry is dropped from
/// `answer`, with a line in its log saying so.
pub fn reply(target: Target, payload: &Payload, tool: &ToolName, answer: &mut Answer) -> Reply {
    degrade(target, payload, tool, answer);
    if answer.is_empty() {
        return Reply::default();
    }
    harness(target).render(payload, tool, answer)
}

fn degrade(target: Target, payload: &Payload, tool: &ToolName, answer: &mut Answer) {
    let caps = harness(target).capabilities(payload.shape);
    if answer.decision == Some(Permission::Ask) && !caps.ask {
        answer.decision = Some(Permission::Deny);
        let why = format!("hookdex: {target} cannot ask the user, so the call is denied");
        answer.reasons.insert(0, why);
        answer.log.push(format!("ask turned into deny on {target}"));
    }
    if answer.updated_input.is_some() {
        let applies = match answer.decision {
            Some(Permission::Allow) => true,
            Some(Permission::Ask) => caps.rewrite_without_allow,
            _ => false,
        };
        if !applies {
            answer.updated_input = None;
            answer.log.push(format!(
                "input rewrite dropped on {target}: it needs allow there"
            ));
        }
    }
    if answer.tool_output.is_some() && !caps.post_output && !tool.is_mcp() {
        answer.tool_output = None;
        answer.log.push(format!(
            "{target} cannot replace a tool's output; tool_output dropped"
        ));
    }
    if let Some(block) = answer.block.take() {
        if caps.post_block {
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
    let has_context = if payload.step() == Step::Pre {
        caps.pre_context
    } else {
        caps.post_context
    };
    if !has_context && !answer.contexts.is_empty() {
        let dropped = std::mem::take(&mut answer.contexts);
        answer.log.push(format!(
            "{target} has no context channel at {}; dropped: {}",
            payload.step().as_str(),
            dropped.join(" | ")
        ));
    }
}

/// A replacement tool result as text.
pub(crate) fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
