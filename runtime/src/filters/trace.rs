//! What a firing filter's finders flag on one tool input, for `explain
//! --input`: the texts it reads, each finder with the spans it found (or
//! why it yielded nothing), and what the classifier would be asked. The
//! finders run as the hook runs them, scripts included; the classifier is
//! never asked and no action runs.

use hookdex_index::Index;
use hookdex_model::{FilterMode, Switches, ToolName, Trust};
use serde_json::Value;

use super::{finders, judge, Filter};
use crate::exec::Deadline;
use crate::settings::Settings;

/// One firing filter on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterTrace {
    /// `mode`.
    pub mode: FilterMode,
    /// How many texts of the input it reads.
    pub units: usize,
    /// Each finder, in order, with what it found.
    pub finders: Vec<FinderTrace>,
    /// How many findings the classifier would judge (mode `classifier`:
    /// each text whole); `None` in mode `finders`, where findings stand.
    pub would_ask: Option<usize>,
}

/// One finder of a traced filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinderTrace {
    /// The finder as its filter names it (`string_literals`, `regex:x+`).
    pub name: String,
    /// The spans it flagged.
    pub spans: Vec<SpanTrace>,
    /// Why it yielded nothing, when it failed.
    pub failed: Option<String>,
}

/// One flagged span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanTrace {
    /// The file its text lands in.
    pub path: Option<String>,
    /// Its byte range in that text.
    pub start: usize,
    /// The end of that range.
    pub end: usize,
    /// The span's text.
    pub text: String,
    /// Its reason.
    pub reason: String,
}

/// The trace of rule `rule` (file name `file_name`) of `index` on `input`
/// of `tool`, when it is a filter its `paths` admit; `None` otherwise.
///
/// # Errors
///
/// When a record or automaton it reads is damaged.
#[allow(clippy::too_many_arguments)]
pub fn trace(
    index: &Index<'_>,
    rule: u32,
    file_name: &str,
    tool: &ToolName,
    input: &Value,
    trust: &Trust,
    switches: Switches,
    settings: &Settings,
) -> Result<Option<FilterTrace>, hookdex_index::Error> {
    let landing = super::text::landing(tool, input);
    let paths: Vec<Option<&str>> = landing.iter().map(Option::as_deref).collect();
    let Some(filter) = Filter::read(index, rule, file_name, &paths, trust, switches)? else {
        return Ok(None);
    };
    let units = filter.units(tool, input)?;
    let mut finders: Vec<FinderTrace> = filter
        .finders
        .iter()
        .map(|finder| FinderTrace {
            name: finder.label(),
            spans: Vec::new(),
            failed: None,
        })
        .collect();
    let found = match filter.mode {
        FilterMode::Classifier => Vec::new(),
        FilterMode::Finders | FilterMode::Both => {
            let run = finders::Run {
                settings,
                deadline: Deadline::after(std::time::Instant::now(), settings.exec.timeout),
                tool: tool.as_str(),
            };
            let (found, failed) = finders::find(&filter.finders, &units, &run);
            for failure in failed {
                finders[failure.finder].failed = Some(failure.note);
            }
            found
        }
    };
    for finding in &found {
        let unit = &units[finding.unit];
        let Some(at) = finding.finder else { continue };
        finders[at].spans.push(SpanTrace {
            path: unit.path.clone(),
            start: finding.range.start,
            end: finding.range.end,
            text: unit.text[finding.range.clone()].to_string(),
            reason: finding.reason.clone(),
        });
    }
    let would_ask = (filter.mode != FilterMode::Finders)
        .then(|| judge::candidates(filter.mode, &units, found).len());
    Ok(Some(FilterTrace {
        mode: filter.mode,
        units: units.len(),
        finders,
        would_ask,
    }))
}
