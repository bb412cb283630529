//! The rules that run for each call of a payload, read from the index in
//! one pass and copied out of it ([`Fired`]), so they run after the
//! mapping is released: conditions with what starts them, filters with
//! their automata and resolved finders. A filter whose `paths` admit none
//! of the files the call's texts land in does not fire; deciding that
//! reads its glob automata and nothing else.

use std::path::PathBuf;

use hookdex_harness::Payload;
use hookdex_index::Query;
use hookdex_model::{LayerKind, RuleKind, Runner, Switches};

use crate::call::Call;
use crate::filters::{self, Filter};
use crate::load::{self, Verify};
use crate::lookup;
use crate::settings::Settings;

/// A rule that fires, copied out of the index.
#[derive(Clone, Debug)]
pub struct Fired {
    /// Its file.
    pub file: PathBuf,
    /// Its file name.
    pub file_name: String,
    /// How a condition starts.
    pub runner: Runner,
    /// The interpreter its runner needs, as its index recorded it.
    pub interpreter: Option<PathBuf>,
    /// Whether it is `.async`.
    pub is_async: bool,
    /// Condition or filter.
    pub kind: RuleKind,
    /// Its layer's label.
    pub layer_label: String,
    /// Its layer's kind.
    pub layer_kind: LayerKind,
    /// The filter, for a filter.
    pub filter: Option<Box<Filter>>,
    /// The entry, for an enforcement.
    pub enforcement: Option<hookdex_index::EnforcementData>,
    /// The hook, for a `hooks.yaml` or `HOOK.md` rule.
    pub hook: Option<Box<hookdex_model::HookSpec>>,
    /// The program through which a `bash.<cli>` alternative made the rule
    /// fire (`None` for any other alternative): what the exec-time guard
    /// runs ([`crate::wrap::guard`]).
    pub program: Option<String>,
}

impl Fired {
    /// The name it goes by in the log and the answer: a condition's file
    /// name, a hook's source and label.
    pub fn name(&self) -> String {
        match &self.hook {
            Some(spec) => crate::hooks::display(self.kind, spec, &self.layer_label),
            None => self.file_name.clone(),
        }
    }
}

/// The rules that run for each call, read from the index in one pass
/// (recompiled once if the lookup finds it damaged); when the managed layer
/// is its administrator's, its rules come from their index, after the rest.
///
/// # Errors
///
/// Why the index could not be read, in one line.
pub fn fired_rules<P, C>(
    settings: &Settings,
    calls: &[(P, C)],
    verify: Verify,
) -> Result<Vec<Vec<Fired>>, String>
where
    P: std::borrow::Borrow<Payload>,
    C: std::borrow::Borrow<Call>,
{
    let mut fired = fired_in(&settings.view, settings, calls, verify, settings.switches())?;
    if let Some(managed) = settings.managed_view() {
        let switches = Switches {
            managed_apart: false,
            ..settings.switches()
        };
        let apart = fired_in(&managed, settings, calls, verify, switches)?;
        for (rules, managed) in fired.iter_mut().zip(apart) {
            // The administrator's index holds the managed layer and nothing else.
            rules.extend(
                managed
                    .into_iter()
                    .filter(|r| r.layer_kind == LayerKind::Managed),
            );
        }
    }
    Ok(fired)
}

/// The rules of the index for `view` that run for each call under `switches`.
fn fired_in<P, C>(
    view: &hookdex_compiler::View,
    settings: &Settings,
    calls: &[(P, C)],
    verify: Verify,
    switches: Switches,
) -> Result<Vec<Vec<Fired>>, String>
where
    P: std::borrow::Borrow<Payload>,
    C: std::borrow::Borrow<Call>,
{
    load::with_index(view, verify, |index| {
        let meta = index.meta()?;
        let trust = settings.trust(&meta);
        calls
            .iter()
            .map(|(payload, call)| {
                let (payload, call) = (payload.borrow(), call.borrow());
                let mut hits = Vec::new();
                for &step in payload.event.rule_steps() {
                    let query = Query {
                        step,
                        ..call.query(settings.shell_strict)
                    };
                    hits.extend(lookup::fires(index, &query, &trust, switches)?);
                }
                // Each step's hits are in execution order; so is their union.
                hits.sort_by_key(|hit| hit.rule);
                hits.dedup_by_key(|hit| hit.rule);
                // Where the call's texts land, read once if a filter fires.
                let mut landing: Option<Vec<Option<String>>> = None;
                let mut fired = Vec::with_capacity(hits.len());
                for hit in hits {
                    let rule = index.rule(hit.rule)?;
                    let hook = match rule.kind {
                        RuleKind::HooksYaml | RuleKind::HookMd => {
                            let (event, input) = (payload.event, &payload.tool_input);
                            match crate::hooks::fires(index, hit.rule, event, input)? {
                                Ok(spec) => Some(Box::new(spec)),
                                Err(_) => continue,
                            }
                        }
                        _ => None,
                    };
                    let filter = match rule.kind {
                        RuleKind::Condition
                        | RuleKind::Enforcement
                        | RuleKind::HooksYaml
                        | RuleKind::HookMd => None,
                        RuleKind::Filter => {
                            let landing = landing.get_or_insert_with(|| {
                                filters::text::landing(&call.tool.name, &payload.tool_input)
                            });
                            let paths: Vec<Option<&str>> =
                                landing.iter().map(Option::as_deref).collect();
                            let name = rule.file_name();
                            match Filter::read(index, hit.rule, name, &paths, &trust, switches)? {
                                Some(filter) => Some(Box::new(filter)),
                                None => continue,
                            }
                        }
                    };
                    let layer = index.layer(usize::from(rule.layer))?;
                    fired.push(Fired {
                        file: PathBuf::from(rule.file),
                        file_name: rule.file_name().to_string(),
                        runner: rule.runner,
                        interpreter: meta.interpreters.get(rule.runner).map(PathBuf::from),
                        is_async: rule.is_async,
                        kind: rule.kind,
                        layer_label: layer.label.to_string(),
                        layer_kind: layer.kind,
                        filter,
                        hook,
                        program: match hit.via {
                            hookdex_index::Via::Program(cli) => Some(cli.to_string()),
                            _ => None,
                        },
                        enforcement: index.enforcement(hit.rule)?.map(|e| {
                            hookdex_index::EnforcementData {
                                rule: hit.rule,
                                id: e.id.to_string(),
                                message: e.message.to_string(),
                                cadence: e.cadence,
                            }
                        }),
                    });
                }
                Ok(fired)
            })
            .collect()
    })
    .map_err(|e| e.to_string())
}
