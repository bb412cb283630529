//! A trial run of the pipeline (`hookdex try`, and `hookdex test`'s case
//! files through it): the call judged by the same stages as a harness's,
//! in a session of its own, with no hook-log line, and what the stages saw
//! kept for the report — each rule's outcome, the merged answer before and
//! after the harness shaped it, the reply. A hook call has no trial and
//! pays for none of this.

use hookdex_harness::Reply;
use hookdex_model::Answer;

use super::conditions::Ran;
use super::plan::Plan;
use crate::outcome::Outcome;

/// What a trial asks of the pipeline, and what it saw.
#[derive(Debug, Default)]
pub(crate) struct Trial {
    /// The session the call is judged in, in place of the payload's.
    pub(crate) session: String,
    /// Only the rule of this file name runs (a case file's rule).
    pub(crate) only: Option<String>,
    /// The normalized tool of the (first) call.
    pub(crate) tool: Option<String>,
    /// Each rule that could run, by the name it goes by, with its layer's
    /// label.
    pub(crate) layers: Vec<(String, String)>,
    /// Every rule started, in order.
    pub(crate) fired: Vec<String>,
    /// (rule name, outcome) in order, as the merge read them.
    pub(crate) outcomes: Vec<(String, Outcome)>,
    /// (rule name, outcome) of the `.async` rules, waited for here; the
    /// hook starts them detached and never reads them.
    pub(crate) detached: Vec<(String, Outcome)>,
    /// The merged answer, before the harness shaped it.
    pub(crate) merged: Answer,
    /// The answer as the harness's reply carries it.
    pub(crate) shaped: Answer,
    /// The harness's reply.
    pub(crate) reply: Reply,
    /// Why no rule ran, when the call ended before them (the gate, an
    /// unreadable index), and the pipeline's notes.
    pub(crate) notes: Vec<String>,
}

impl Trial {
    /// Keeps the rules of `plan` (and of its rewritten call) with their
    /// layers.
    pub(super) fn saw_plan(&mut self, plan: &Plan) {
        let rules = plan
            .calls
            .iter()
            .chain(plan.rewritten().and_then(|r| r.as_ref().ok()))
            .flat_map(|planned| &planned.fired);
        for rule in rules {
            let name = rule.name();
            if !self.layers.iter().any(|(n, _)| *n == name) {
                self.layers.push((name, rule.layer_label.clone()));
            }
        }
        if self.tool.is_none() {
            self.tool = plan
                .calls
                .first()
                .map(|c| c.call.tool.name.as_str().to_string());
        }
    }

    /// Keeps what ran, and the merged answer before the harness shapes it.
    pub(super) fn saw_run(&mut self, plan: &Plan, ran: &Ran, merged: &Answer) {
        self.saw_plan(plan);
        self.fired = ran.fired.clone();
        self.outcomes = ran.outcomes.clone();
        self.detached = ran.detached.clone();
        self.notes.extend(ran.notes.iter().cloned());
        self.merged = merged.clone();
    }

    /// Keeps the answer as shaped for the harness, and its reply.
    pub(super) fn saw_reply(&mut self, shaped: &Answer, reply: &Reply) {
        self.shaped = shaped.clone();
        self.reply = reply.clone();
    }
}
