//! The merged answer for one call (`Outcome → Answer → Reply`): the engine
//! fills it (its merge, caps and guard), and a harness shapes it into its
//! reply, fitting it to what the harness can carry. It lives here, in the
//! shared vocabulary, rather than in the engine: the harness's rendering
//! degrades the answer in place (an `ask` a harness cannot put becomes a
//! `deny`, a rewrite it cannot carry is dropped, with a log line), so a
//! read-only view in the harness would need a second answer type and a copy
//! back; here the engine and the harness both name one type and the
//! crossings between them go one way, engine → harness.

use crate::text::{cut, MAX_TEXT};
use crate::Permission;
use serde_json::Value;

/// The merged answer for one call, before a harness shapes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// The winning permission decision.
    pub decision: Option<Permission>,
    /// Reasons given with the winning decision, in order.
    pub reasons: Vec<String>,
    /// The conditions that gave the winning decision.
    pub deciders: Vec<String>,
    /// Context for the agent, in order, notes last.
    pub contexts: Vec<String>,
    /// The full rewritten tool input, when a rewrite is applied.
    pub updated_input: Option<Value>,
    /// The conditions whose patches make up `updated_input`.
    pub rewriters: Vec<String>,
    /// The input that runs the call under hookdex's guard (SPEC §15): sent
    /// in place of the input, with the decision the rules gave, where the
    /// harness carries a rewrite with that decision; the person is told of
    /// it once per session, not by the rewrite note.
    pub guard: Option<Value>,
    /// The replacement tool result (post).
    pub tool_output: Option<Value>,
    /// Post: the call is blocked with this reason.
    pub block: Option<String>,
    /// Notes for the person running the session (a rule that crashed,
    /// timed out or was skipped), shown where the harness has a channel.
    pub user_notes: Vec<String>,
    /// Lines for the hook log only.
    pub log: Vec<String>,
}

impl Answer {
    /// Whether the answer changes nothing.
    pub fn is_empty(&self) -> bool {
        self.decision.is_none()
            && self.contexts.is_empty()
            && self.updated_input.is_none()
            && self.guard.is_none()
            && self.tool_output.is_none()
            && self.block.is_none()
            && self.user_notes.is_empty()
    }

    /// The reasons joined (cut to [`MAX_TEXT`]), or one naming the conditions that decided.
    pub fn reason(&self) -> String {
        if !self.reasons.is_empty() {
            return cut(&self.reasons.join("; "), MAX_TEXT);
        }
        let verb = match self.decision {
            Some(Permission::Deny) => "denied",
            Some(Permission::Ask) => "confirmation asked",
            _ => "allowed",
        };
        format!("{verb} by hookdex rule {}", self.deciders.join(", "))
    }

    /// The contexts joined by blank lines, cut to [`MAX_TEXT`].
    pub fn context(&self) -> Option<String> {
        (!self.contexts.is_empty()).then(|| cut(&self.contexts.join("\n\n"), MAX_TEXT))
    }

    /// Adds a one-line note for the agent (and the log).
    pub fn note(&mut self, note: String) {
        self.log.push(note.clone());
        self.contexts.push(note);
    }

    /// Adds a one-line note for the agent and for the person running the
    /// session: a guardrail did not do its job.
    pub fn warn(&mut self, note: String) {
        self.user_notes.push(note.clone());
        self.note(note);
    }

    /// The notes for the person, one per line, cut to [`MAX_TEXT`].
    pub fn user_message(&self) -> Option<String> {
        (!self.user_notes.is_empty()).then(|| cut(&self.user_notes.join("\n"), MAX_TEXT))
    }
}
