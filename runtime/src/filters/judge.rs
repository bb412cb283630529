//! Judging: which findings stand. `finders`: every finding stands.
//! `classifier`: each whole text is one finding, which the classifier
//! confirms or not. `both`: the finders flag, the classifier confirms each
//! finding. One yes or no question per finding ([`Question`]) carries the
//! intent (or the `intent_from` text of the input), the question, the
//! span, its reason, the lines that enclose it, the path and the tool.
//!
//! A finding the classifier did not answer does not stand, and the filter
//! says why it passed unjudged. With no classifier configured
//! (`HOOKDEX_CLASSIFIER_CMD`, `HOOKDEX_CLASSIFIER_URL`), nothing is asked
//! and nothing is looked up: [`needs_nothing`] tells the filter before its
//! finders run, so a front-end edit costs no finder work then.

use hookdex_model::text::cut;
use hookdex_model::{FilterMode, ToolName};
use serde_json::Value;

use super::classifier::{self, Answer, Question, Unavailable};
use super::finders::Finding;
use super::text::Unit;
use super::Filter;
use crate::exec::Deadline;
use crate::settings::Settings;

/// The reason of a whole text asked about in mode `classifier`.
pub const WHOLE_TEXT: &str = "whole text";

/// The question asked when a filter gives none.
pub const DEFAULT_QUESTION: &str = "Does this finding go against the filter intent?";

/// The most of the enclosing lines a question carries.
const MAX_CONTEXT: usize = 4000;

/// What judging concluded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// The findings that stand, in order.
    pub confirmed: Vec<Finding>,
    /// How many findings the classifier did not answer, and why the first
    /// of them was not.
    pub unanswered: Option<(usize, Unavailable)>,
}

/// What a filter's questions share.
pub struct Asking<'a> {
    /// The classifier's settings, and `$HOOKDEX_HOME` for its cache.
    pub settings: &'a Settings,
    /// When the filter's time is up.
    pub deadline: Deadline,
    /// The normalized tool name.
    pub tool: &'a ToolName,
    /// The tool input (for `intent_from`).
    pub input: &'a Value,
}

/// Why `filter` cannot judge anything here, before its finders run: it
/// needs the classifier, and none is configured. `None` when it can.
pub fn needs_nothing(filter: &Filter, settings: &Settings) -> Option<Unavailable> {
    let configured = settings.classifier.command.is_some() || settings.classifier.url.is_some();
    (filter.mode != FilterMode::Finders && !configured).then_some(Unavailable::NotConfigured)
}

/// The findings `mode` judges: the finders' `found`, or in mode
/// `classifier` each non-blank unit whole.
pub fn candidates(mode: FilterMode, units: &[Unit], found: Vec<Finding>) -> Vec<Finding> {
    match mode {
        FilterMode::Finders | FilterMode::Both => found,
        FilterMode::Classifier => units
            .iter()
            .enumerate()
            .filter(|(_, unit)| !unit.text.trim().is_empty())
            .map(|(unit, u)| Finding {
                finder: None,
                unit,
                range: 0..u.text.len(),
                reason: WHOLE_TEXT.to_string(),
            })
            .collect(),
    }
}

/// Judges `findings` of `units` for `filter`.
pub fn judge(
    filter: &Filter,
    findings: Vec<Finding>,
    units: &[Unit],
    asking: &Asking<'_>,
) -> Judged {
    if filter.mode == FilterMode::Finders || findings.is_empty() {
        return Judged {
            confirmed: findings,
            unanswered: None,
        };
    }
    let intent = intent(filter, asking.input);
    let question = filter.question.as_deref().unwrap_or(DEFAULT_QUESTION);
    let questions: Vec<Question> = findings
        .iter()
        .map(|finding| {
            let unit = &units[finding.unit];
            Question {
                intent: intent.to_string(),
                question: question.to_string(),
                span: unit
                    .text
                    .get(finding.range.clone())
                    .unwrap_or_default()
                    .to_string(),
                reason: finding.reason.clone(),
                context: cut(enclosing(&unit.text, &finding.range), MAX_CONTEXT),
                path: unit.path.clone(),
                tool: asking.tool.to_string(),
            }
        })
        .collect();
    let answers = classifier::judge(asking.settings, &questions, asking.deadline);
    let mut judged = Judged::default();
    for (finding, answer) in findings.into_iter().zip(answers) {
        match answer {
            Ok(Answer::Yes) => judged.confirmed.push(finding),
            Ok(Answer::No) => {}
            Err(why) => match &mut judged.unanswered {
                Some((count, _)) => *count += 1,
                None => judged.unanswered = Some((1, why)),
            },
        }
    }
    judged
}

/// The filter's intent: the text at its `intent_from` key of the input
/// (`case.intent`: `input["case"]["intent"]`) when that is a non-blank
/// string, else its `intent`.
fn intent<'a>(filter: &'a Filter, input: &'a Value) -> &'a str {
    let from = filter.intent_from.as_deref().and_then(|dotted| {
        dotted
            .split('.')
            .try_fold(input, |value, key| value.get(key))?
            .as_str()
            .filter(|text| !text.trim().is_empty())
    });
    from.unwrap_or(&filter.intent)
}

/// The whole lines of `text` that `range` touches, without the final line break.
fn enclosing<'t>(text: &'t str, range: &std::ops::Range<usize>) -> &'t str {
    let start = text
        .get(..range.start)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |at| at + 1);
    let end = text
        .get(range.end..)
        .and_then(|after| after.find('\n'))
        .map_or(text.len(), |at| range.end + at);
    text.get(start..end).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_enclosing_lines() {
        let text = "a = 1\nreason += '; x'\nb = 2";
        let at = text.find("; x").unwrap();
        assert_eq!(enclosing(text, &(at..at + 3)), "reason += '; x'");
        assert_eq!(enclosing(text, &(0..text.len())), text);
        assert_eq!(enclosing(text, &(2..8)), "a = 1\nreason += '; x'");
        assert_eq!(enclosing("one line", &(4..8)), "one line");
    }

    #[test]
    fn intent_from_reads_a_dotted_key() {
        let filter = |from: Option<&str>| Filter {
            file_name: "f".into(),
            mode: FilterMode::Both,
            action: hookdex_model::FilterAction::SendBack,
            fields: Vec::new(),
            max_rounds: 3,
            intent: "the filter's".into(),
            intent_from: from.map(String::from),
            question: None,
            globs: Vec::new(),
            finders: Vec::new(),
        };
        let input = serde_json::json!({"case": {"intent": "the case's", "blank": " "}});
        assert_eq!(intent(&filter(Some("case.intent")), &input), "the case's");
        assert_eq!(intent(&filter(Some("case.blank")), &input), "the filter's");
        assert_eq!(
            intent(&filter(Some("case.missing")), &input),
            "the filter's"
        );
        assert_eq!(intent(&filter(None), &input), "the filter's");
    }
}
