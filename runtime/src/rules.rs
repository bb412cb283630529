//! The rules that run for each call of a payload, read from each index a
//! call's rules come from (the user's, and the administrator's when the
//! managed layer runs apart) in one pass per index and copied out
//! ([`Fired`]). A filter whose `paths` admit none of the files the call's
//! texts land in does not fire; deciding that reads its glob automata and
//! nothing else. A hook fires when it answers the event and its
//! `input_matcher` matches ([`crate::hooks::fires`]).

use std::path::PathBuf;

use hookdex_harness::Payload;
use hookdex_index::Query;
use hookdex_model::{LayerKind, RuleKind, Switches};

use crate::call::Call;
use crate::filters::{self, Filter};
use crate::fired::Fired;
use crate::load::{self, Verify};
use crate::lookup;
use crate::settings::Settings;

/// An index a call's rules come from: the user's, or the administrator's
/// when the managed layer runs apart ([`Settings::managed_view`]).
pub struct Source {
    /// Its view.
    pub view: hookdex_compiler::View,
    /// What decides, besides trust, whether its rules run.
    pub switches: Switches,
    /// Only its managed layer counts (the administrator's index holds the
    /// managed layer and nothing else).
    pub managed_only: bool,
}

/// The indexes a call's rules come from, in the order their rules join:
/// the user's, then the administrator's.
pub fn sources(settings: &Settings) -> Vec<Source> {
    let mut sources = vec![Source {
        view: settings.view.clone(),
        switches: settings.switches(),
        managed_only: false,
    }];
    if let Some(managed) = settings.managed_view() {
        sources.push(Source {
            view: managed,
            switches: Switches {
                managed_apart: false,
                ..settings.switches()
            },
            managed_only: true,
        });
    }
    sources
}

/// Adds the rules `from` a source to each call's rules `into`, after them.
pub fn join(into: &mut [Vec<Fired>], from: Vec<Vec<Fired>>, source: &Source) {
    for (rules, more) in into.iter_mut().zip(from) {
        rules.extend(
            more.into_iter()
                .filter(|r| !source.managed_only || r.layer_kind == LayerKind::Managed),
        );
    }
}

/// The rules that run for each call, read from each index in one pass
/// (recompiled once if the lookup finds it damaged); when the managed layer
/// is its administrator's, its rules come from their index, after the rest.
///
/// # Errors
///
/// Which index could not be read, and why.
pub fn fired_rules<P, C>(
    settings: &Settings,
    calls: &[(P, C)],
    verify: Verify,
) -> Result<Vec<Vec<Fired>>, crate::Error>
where
    P: std::borrow::Borrow<Payload>,
    C: std::borrow::Borrow<Call>,
{
    let mut fired = vec![Vec::new(); calls.len()];
    for source in sources(settings) {
        let more = load::with_index(&source.view, verify, |index| {
            read(index, settings, calls, source.switches)
        })?;
        join(&mut fired, more, &source);
    }
    Ok(fired)
}

/// The programs the running `bash.<cli>` conditions and guards of `index` name, each
/// lowercase with whether a managed rule names it: what the exec-time
/// guard watches ([`crate::wrap::guard`]).
///
/// # Errors
///
/// When a block the lookup reads is damaged.
pub fn guarded_programs(
    index: &hookdex_index::Index<'_>,
    settings: &Settings,
    switches: Switches,
) -> Result<Vec<(String, bool)>, hookdex_index::Error> {
    let trust = settings.trust(&index.meta()?);
    let bash = hookdex_model::ToolName::new("bash");
    let query = Query {
        step: hookdex_model::Step::Pre,
        tool: &bash,
        raw_tool: "Bash",
        programs: &[],
        any_program: true,
    };
    let mut found = Vec::new();
    for hit in lookup::fires(index, &query, &trust, switches)? {
        let hookdex_index::Via::AnyProgram(cli) = hit.via else {
            continue;
        };
        let rule = index.rule(hit.rule)?;
        if !matches!(rule.kind, RuleKind::Condition | RuleKind::Guard) {
            continue;
        }
        let layer = index.layer(usize::from(rule.layer))?.kind;
        found.push((cli.to_ascii_lowercase(), layer == LayerKind::Managed));
    }
    Ok(found)
}

/// The rules of `index` that run for each call under `switches`.
///
/// # Errors
///
/// When a block the lookup reads is damaged.
pub fn read<P, C>(
    index: &hookdex_index::Index<'_>,
    settings: &Settings,
    calls: &[(P, C)],
    switches: Switches,
) -> Result<Vec<Vec<Fired>>, hookdex_index::Error>
where
    P: std::borrow::Borrow<Payload>,
    C: std::borrow::Borrow<Call>,
{
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
                    | RuleKind::HookMd
                    | RuleKind::Guard => None,
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
                let log_name = match &hook {
                    Some(spec) => crate::hooks::display(rule.kind, spec, layer.label),
                    None => rule.file_name().to_string(),
                };
                fired.push(Fired {
                    log_name,
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
                    guard: match rule.kind {
                        RuleKind::Guard => index.guard(hit.rule)?.map(Box::new),
                        _ => None,
                    },
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
}
