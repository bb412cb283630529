//! The filter engine: a filter catches text nobody asked for before it
//! lands. Its finders flag spans of the text a call offers ([`text`],
//! [`finders`]), judging decides which stand ([`judge`], asking the
//! [`classifier`] where the mode says so), and its action
//! sends the text back, strips the spans or flags them ([`actions`]), with
//! send-backs capped per session and target ([`rounds`]).
//!
//! Several filters on one call run as a chain ([`run`]), each on the input
//! as the filter before it rewrote it; the hook runs the chain after the
//! conditions, on the input as they rewrote it, and a call site of a
//! synthetic tool runs it through [`check::check`]. A filter never blocks work
//! because it broke: a failing finder yields nothing, a filter that fails
//! or runs past `CONDITIONS_TIMEOUT_SEC` is skipped, an unavailable
//! classifier lets the text pass, and the hook log says which.

pub mod actions;
pub mod check;
pub mod classifier;
pub mod finders;
pub mod inline;
pub mod judge;
pub mod ledger;
mod patch;
pub mod paths;
pub mod rounds;
mod script;
pub mod text;
pub mod trace;

use std::path::Path;
use std::time::Instant;

use hookdex_index::Index;
use hookdex_model::{FilterAction, FilterField, FilterMode, Permission, Switches, ToolName, Trust};
use serde_json::Value;

use self::actions::{Acted, Strip};
use self::finders::Finder;
use self::paths::Globs;
use self::text::Unit;
use crate::exec::Deadline;
use crate::outcome::Outcome;
use crate::settings::Settings;
use crate::state::rounds::Rounds;

/// A filter rule copied out of the index, its finders resolved, ready to
/// run after the mapping is released.
#[derive(Clone, Debug)]
pub struct Filter {
    /// The rule's file name: the filter's name in the log and in round counts.
    pub file_name: String,
    /// `mode`.
    pub mode: FilterMode,
    /// `action`.
    pub action: FilterAction,
    /// `fields` (empty: every field).
    pub fields: Vec<FilterField>,
    /// `max_rounds`.
    pub max_rounds: u32,
    /// `intent`.
    pub intent: String,
    /// `intent_from`: a dotted `tool_input` key whose text replaces `intent`.
    pub intent_from: Option<String>,
    /// `question`.
    pub question: Option<String>,
    /// `paths` (empty: every path).
    pub globs: Vec<Globs>,
    /// `finders`, in order.
    pub finders: Vec<Finder>,
}

impl Filter {
    /// The filter of rule `rule` (file name `file_name`) of `index`, when
    /// its `paths` admit one of `paths` (the files a call's texts land in:
    /// `None` for a text that lands in none), with its `script:` finders
    /// resolved against the layers that run under `trust` and `switches`.
    /// `None` when the rule has no filter record or no path is admitted:
    /// then only its glob automata were read.
    ///
    /// # Errors
    ///
    /// When a record or automaton it reads is damaged.
    pub fn read(
        index: &Index<'_>,
        rule: u32,
        file_name: &str,
        paths: &[Option<&str>],
        trust: &Trust,
        switches: Switches,
    ) -> Result<Option<Filter>, hookdex_index::Error> {
        let Some(sets) = index.filter_paths(rule)? else {
            return Ok(None);
        };
        let globs: Vec<Globs> = sets.iter().map(Globs::from).collect();
        let mut admitted = false;
        for path in paths {
            if paths::verdict(&globs, *path)?.admits() {
                admitted = true;
                break;
            }
        }
        if !admitted {
            return Ok(None);
        }
        let Some(filter) = index.filter(rule)? else {
            return Ok(None);
        };
        let finders = filter
            .finders
            .iter()
            .map(|f| Finder::read(index, f, trust, switches))
            .collect::<Result<_, _>>()?;
        Ok(Some(Filter::new(file_name, &filter, globs, finders)))
    }

    /// The filter `filter` read from an index or a file, called
    /// `file_name`, with its glob sets and its resolved finders.
    pub fn new(
        file_name: &str,
        filter: &hookdex_index::Filter<'_>,
        globs: Vec<Globs>,
        finders: Vec<Finder>,
    ) -> Filter {
        Filter {
            file_name: file_name.to_string(),
            mode: filter.mode,
            action: filter.action,
            fields: filter.fields.clone(),
            max_rounds: filter.max_rounds,
            intent: filter.intent.to_string(),
            intent_from: filter.intent_from.map(String::from),
            question: filter.question.map(String::from),
            globs,
            finders,
        }
    }

    /// The units of `input` this filter reads: those of its `fields` that
    /// land where its `paths` admit.
    pub fn units(&self, tool: &ToolName, input: &Value) -> Result<Vec<Unit>, hookdex_index::Error> {
        let mut out = Vec::new();
        for unit in text::units(tool, input) {
            let field = self.fields.is_empty() || self.fields.contains(&unit.field);
            if field && paths::verdict(&self.globs, unit.path.as_deref())?.admits() {
                out.push(unit);
            }
        }
        Ok(out)
    }
}

/// What the filters of one call share.
pub struct Call<'a> {
    /// The settings (timeouts, environment, `$HOOKDEX_HOME`).
    pub settings: &'a Settings,
    /// The end of the call's time.
    pub deadline: Deadline,
    /// The normalized tool name.
    pub tool: &'a ToolName,
    /// The session's working directory (relative paths resolve against it).
    pub cwd: &'a Path,
    /// The session, which round counts are kept per.
    pub session: Option<&'a str>,
    /// How a strip reaches the tool.
    pub strip: Strip,
}

/// What a chain of filters did to one call.
#[derive(Clone, Debug, Default)]
pub struct Chain {
    /// (filter file name, its effect) of each filter that acted, and last,
    /// one deny carrying every send-back, named by the filters that sent
    /// back; the conditions' merge reads them as it reads conditions'.
    pub outcomes: Vec<(String, Outcome)>,
    /// Every filter that read text.
    pub ran: Vec<String>,
    /// Lines for the hook log.
    pub notes: Vec<String>,
    /// The input after every strip.
    pub input: Value,
    /// The send-back lines, in order.
    pub sent_back: Vec<String>,
}

/// Runs `filters` in order on `input` for `call`.
pub fn run(call: &Call<'_>, filters: &[Filter], input: Value) -> Chain {
    let rounds = Rounds::new(&call.settings.view.home, call.session);
    let mut chain = Chain {
        input,
        ..Chain::default()
    };
    let mut senders = Vec::new();
    for filter in filters {
        let name = &filter.file_name;
        let Some(ran) = run_one(call, filter, &chain.input, &rounds) else {
            continue;
        };
        chain.ran.push(name.clone());
        chain
            .notes
            .extend(ran.notes.iter().map(|note| format!("{name}: {note}")));
        let Some(acted) = ran.acted else { continue };
        let mut outcome = Outcome::default();
        if !acted.context.is_empty() {
            outcome.context = Some(acted.context.join("\n\n"));
        }
        if let Some((cuts, permission)) = &acted.strip {
            let (stripped, patch) = text::apply(&chain.input, cuts);
            chain.input = stripped;
            outcome.patch = Some(patch);
            outcome.decision = Some(*permission);
        }
        if !acted.sent_back.is_empty() {
            senders.push(name.clone());
            chain.sent_back.extend(acted.sent_back);
        }
        if outcome != Outcome::default() {
            chain.outcomes.push((name.clone(), outcome));
        }
    }
    if !chain.sent_back.is_empty() {
        let deny = Outcome {
            decision: Some(Permission::Deny),
            reason: Some(actions::reason(&chain.sent_back)),
            ..Outcome::default()
        };
        chain.outcomes.push((senders.join(", "), deny));
    }
    chain
}

/// What one filter did: `None` from [`run_one`] when it read no text.
struct Ran {
    /// Its action, when findings stood.
    acted: Option<Acted>,
    /// Lines for the hook log, unprefixed.
    notes: Vec<String>,
}

/// Runs one filter on `input`; `None` when the input offers it no text.
fn run_one(call: &Call<'_>, filter: &Filter, input: &Value, rounds: &Rounds) -> Option<Ran> {
    let started = Instant::now();
    let timeout = call.settings.exec.timeout;
    let failed = |why: String| Ran {
        acted: None,
        notes: vec![format!("filter failed, the call is allowed: {why}")],
    };
    let units = match filter.units(call.tool, input) {
        Ok(units) if units.is_empty() => return None,
        Ok(units) => units,
        Err(err) => return Some(failed(err.to_string())),
    };
    if let Some(why) = judge::needs_nothing(filter, call.settings) {
        return Some(Ran {
            acted: None,
            notes: vec![why.note()],
        });
    }
    let deadline = call.deadline.within(timeout);
    let find = finders::Run {
        settings: call.settings,
        deadline,
        tool: call.tool.as_str(),
    };
    let (found, mut notes) = match filter.mode {
        FilterMode::Classifier => (Vec::new(), Vec::new()),
        FilterMode::Finders | FilterMode::Both => {
            let (found, failed) = finders::find(&filter.finders, &units, &find);
            (found, failed.into_iter().map(|f| f.note).collect())
        }
    };
    let candidates = judge::candidates(filter.mode, &units, found);
    let asking = judge::Asking {
        settings: call.settings,
        deadline,
        tool: call.tool,
        input,
    };
    let judged = judge::judge(filter, candidates, &units, &asking);
    if started.elapsed() > timeout {
        let mut ran = failed(format!(
            "ran past CONDITIONS_TIMEOUT_SEC ({:.1} s)",
            timeout.as_secs_f64()
        ));
        ran.notes.splice(0..0, notes);
        return Some(ran);
    }
    if let Some((count, why)) = &judged.unanswered {
        notes.push(match judged.confirmed.is_empty() {
            true => why.note(),
            false => format!("{count} findings passed unjudged: classifier unavailable ({why})"),
        });
    }
    let targets: Vec<String> = units
        .iter()
        .map(|unit| rounds::target(unit, call.tool.as_str(), call.cwd))
        .collect();
    let cap = rounds::Cap {
        rounds,
        filter: &filter.file_name,
        max: filter.max_rounds,
    };
    // A target none of whose text was flagged, all of it judged, passed
    // clean: its count starts again.
    if judged.unanswered.is_none() {
        for (at, target) in targets.iter().enumerate() {
            let flagged = judged.confirmed.iter().any(|f| targets[f.unit] == *target);
            if !flagged && targets[..at].iter().all(|t| t != target) {
                cap.clean(target);
            }
        }
    }
    if judged.confirmed.is_empty() {
        return Some(Ran { acted: None, notes });
    }
    let acted = actions::act(
        filter.action,
        &call.strip,
        &judged.confirmed,
        &units,
        &targets,
        &cap,
    );
    notes.extend(acted.notes.iter().cloned());
    notes.extend(ledger::comment(
        call.settings,
        &filter.file_name,
        &acted.capped,
        deadline,
    ));
    Some(Ran {
        acted: Some(acted),
        notes,
    })
}
