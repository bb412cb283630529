//! The output stage (SPEC §7): on a post call's shell output, the output
//! filter that claims it replaces the output with its shrunk form, unless
//! a condition already replaced it.

use hookdex_model::Event;

use super::conditions::Ran;
use super::plan::Plan;
use crate::outcome::Outcome;
use crate::outfilters;
use crate::settings::Settings;

/// Shrinks the output of the plan's one shell call; whether it did. Only
/// a changed output leaves a line in the log: most calls are claimed by no
/// filter. `counted`: whether `hookdex stats` counts the output (a trial's
/// is not).
pub(super) fn shrink_output(
    settings: &Settings,
    plan: &Plan,
    ran: &mut Ran,
    counted: bool,
) -> bool {
    let [planned] = plan.calls.as_slice() else {
        return false;
    };
    let (single, call) = (&planned.payload, &planned.call);
    if !call.tool.name.is_bash() || ran.outcomes.iter().any(|(_, o)| o.tool_output.is_some()) {
        return false;
    }
    let Some(output) = single.output_text() else {
        return false;
    };
    let command = call.command.as_deref().map(outfilters::selection_command);
    let may_summarize = single.event == Event::PostToolUse
        && call
            .command
            .as_deref()
            .is_none_or(outfilters::runs_one_program);
    let shrunk = outfilters::shrink(
        settings,
        command.as_deref(),
        &output,
        may_summarize,
        counted,
    );
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
