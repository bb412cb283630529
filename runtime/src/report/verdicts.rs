//! Why each rule fires or not for one call, as data: the lookup's rules
//! that run, narrowed by filter `paths` globs and by a hook's own events,
//! `input_matcher`, requirements and breaker, plus a reason for every other
//! rule (other step, overridden, untrusted, disabled, matcher missed, no
//! glob matched), from the same [`RunVerdict`] the hook uses and the
//! matcher alternatives the index stores.

use std::collections::HashSet;
use std::time::Instant;

use std::ffi::OsString;

use hookdex_index::{Error, Index, Layer, Query, Rule, Via};
use hookdex_model::{Alternative, Event, LayerKind, RuleKind, RunVerdict, Switches, Trust};
use serde_json::Value;

use crate::filters::paths::{self, Globs, PathVerdict};
use crate::lookup;
use crate::state::breaker::Breakers;

/// What a call carries besides its query that `hooks.yaml` and `HOOK.md`
/// hooks match on: the event, the tool input, and, for `HOOK.md`, the
/// environment its requirements read and the breakers.
pub struct HookProbe<'a> {
    /// The event of the call.
    pub event: Event,
    /// Its tool input.
    pub tool_input: &'a Value,
    /// The breakers of `$HOOKDEX_HOME`.
    pub breakers: Breakers,
    /// Reads the environment.
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
}

/// One rule's verdict.
#[derive(Clone, Debug)]
pub struct Verdict<'a> {
    /// The rule.
    pub rule: Rule<'a>,
    /// Its layer.
    pub layer: Layer<'a>,
    /// Whether it fires.
    pub fires: bool,
    /// Which alternative matched, or why it does not fire.
    pub why: String,
}

/// Every rule's verdict for `query` on a call whose texts land in `paths`
/// (one entry per text, `None` for one that lands in no file; a filter
/// fires when its `paths` admit one of them): firing rules
/// first in execution order, then the others; and the lookup time of
/// `index` in nanoseconds. `managed` is the administrator's index when the
/// managed layer runs apart ([`Switches::managed_apart`]): its managed
/// rules' verdicts join the others, firing ones after every other layer's,
/// as the hook runs them.
///
/// # Errors
///
/// When an index is damaged.
pub fn verdicts<'a>(
    index: &Index<'a>,
    managed: Option<&Index<'a>>,
    query: &Query<'_>,
    paths: &[Option<&str>],
    probe: &HookProbe<'_>,
    trust: &Trust,
    switches: Switches,
) -> Result<(Vec<Verdict<'a>>, u64), Error> {
    let (mut verdicts, lookup_ns) = explain_one(index, query, paths, probe, trust, switches)?;
    if let Some(managed) = managed {
        let switches = Switches {
            managed_apart: false,
            ..switches
        };
        let (apart, _) = explain_one(managed, query, paths, probe, trust, switches)?;
        let apart = apart
            .into_iter()
            .filter(|v| v.layer.kind == LayerKind::Managed);
        let (fires, skipped): (Vec<_>, Vec<_>) = apart.partition(|v| v.fires);
        let at = verdicts.iter().take_while(|v| v.fires).count();
        verdicts.splice(at..at, fires);
        verdicts.extend(skipped);
    }
    Ok((verdicts, lookup_ns))
}

/// [`verdicts`] for one index: firing rules first in execution order, then
/// the others in id order.
fn explain_one<'a>(
    index: &Index<'a>,
    query: &Query<'_>,
    paths: &[Option<&str>],
    probe: &HookProbe<'_>,
    trust: &Trust,
    switches: Switches,
) -> Result<(Vec<Verdict<'a>>, u64), Error> {
    let started = Instant::now();
    let fired = lookup::fires(index, query, trust, switches)?;
    let lookup_ns = started.elapsed().as_nanos() as u64;
    let mut verdicts = Vec::with_capacity(index.rule_count());
    let mut missed = Vec::new();
    for hit in fired {
        let rule = index.rule(hit.rule)?;
        let layer = index.layer(usize::from(rule.layer))?;
        if matches!(rule.kind, RuleKind::HooksYaml | RuleKind::HookMd) {
            let (fires, why) = hook_verdict(index, &rule, &layer, probe)?;
            let why = match fires {
                true => format!("{}; {why}", via_text(hit.via)),
                false => why,
            };
            let verdict = Verdict {
                rule,
                layer,
                fires,
                why,
            };
            match fires {
                true => verdicts.push(verdict),
                false => missed.push(verdict),
            }
            continue;
        }
        match path_verdict(index, hit.rule, paths)? {
            PathVerdict::Missed(reason) => missed.push(Verdict {
                why: reason,
                rule,
                layer,
                fires: false,
            }),
            globs => verdicts.push(Verdict {
                why: match globs {
                    PathVerdict::Matched(globs) => format!("{}; paths: {globs}", via_text(hit.via)),
                    _ => via_text(hit.via),
                },
                rule,
                layer,
                fires: true,
            }),
        }
    }
    verdicts.extend(missed);
    let decided: HashSet<u32> = verdicts.iter().map(|v| v.rule.id).collect();
    for id in 0..index.rule_count() as u32 {
        if decided.contains(&id) {
            continue;
        }
        let rule = index.rule(id)?;
        let layer = index.layer(usize::from(rule.layer))?;
        let why = if rule.step != query.step {
            format!(
                "step {} (this call is {})",
                rule.step.as_str(),
                query.step.as_str()
            )
        } else {
            match lookup::verdict(&rule, trust, switches) {
                RunVerdict::Overridden { by } => {
                    let winner = index.rule(by)?;
                    let winner_layer = index.layer(usize::from(winner.layer))?;
                    format!(
                        "overridden by {}/{}",
                        winner_layer.label,
                        winner.file_name()
                    )
                }
                RunVerdict::Untrusted => trust.to_string(),
                RunVerdict::Disabled => {
                    "CONDITIONS_ENABLED=false: only managed rules run".to_string()
                }
                RunVerdict::ManagedApart => {
                    "managed: answered by the administrator's managed index".to_string()
                }
                RunVerdict::Runs => matcher_miss(&index.alternatives(&rule)?, query),
            }
        };
        verdicts.push(Verdict {
            rule,
            layer,
            fires: false,
            why,
        });
    }
    Ok((verdicts, lookup_ns))
}

/// Whether a hook the tables found fires, and the hook with why (its
/// name and line; or its events, its `input_matcher`, a requirement or its
/// breaker, when it does not).
fn hook_verdict(
    index: &Index<'_>,
    rule: &Rule<'_>,
    layer: &Layer<'_>,
    probe: &HookProbe<'_>,
) -> Result<(bool, String), Error> {
    let (spec, missed) = match crate::hooks::fires(index, rule.id, probe.event, probe.tool_input)? {
        Ok(spec) => (spec, None),
        Err((spec, why)) => (spec, Some(why)),
    };
    let name = format!(
        "{}, line {}",
        crate::hooks::display(rule.kind, &spec, layer.label),
        spec.line
    );
    let held = match (rule.kind, &missed) {
        (RuleKind::HookMd, None) => {
            crate::hooks::held(&spec, rule.file, &probe.breakers, probe.var)
        }
        _ => None,
    };
    Ok(match missed.or(held) {
        None => (true, name),
        Some(why) => (false, format!("{name}: {why}")),
    })
}

/// For a filter with `paths`: the glob set that matched the first path
/// admitted, or why none did; [`PathVerdict::Every`] for rules without
/// `paths`.
fn path_verdict(
    index: &Index<'_>,
    rule: u32,
    landing: &[Option<&str>],
) -> Result<PathVerdict, Error> {
    let Some(sets) = index.filter_paths(rule)? else {
        return Ok(PathVerdict::Every);
    };
    let globs: Vec<Globs> = sets.iter().map(Globs::from).collect();
    let landing = if landing.is_empty() {
        &[None][..]
    } else {
        landing
    };
    let mut missed = Vec::new();
    for path in landing {
        match paths::verdict(&globs, *path)? {
            PathVerdict::Every => return Ok(PathVerdict::Every),
            PathVerdict::Matched(globs) => {
                return Ok(PathVerdict::Matched(globs.replace('\n', ", ")))
            }
            PathVerdict::Missed(why) if !missed.contains(&why) => missed.push(why),
            PathVerdict::Missed(_) => {}
        }
    }
    Ok(PathVerdict::Missed(missed.join("; ")))
}

/// How a hit's alternative reads: `any`, `bash`, `bash.git: program git`, `mcp: every MCP tool`.
pub fn via_text(via: Via<'_>) -> String {
    match via {
        Via::Any => "any".to_string(),
        Via::Name(name) => name.to_string(),
        Via::Program(program) => format!("bash.{program}: program {program}"),
        Via::AnyProgram(cli) => {
            format!("bash.{cli}: a program the command cannot name (HOOKDEX_SHELL_STRICT)")
        }
        Via::Prefix("mcp") => "mcp: every MCP tool".to_string(),
        Via::Prefix(server) => format!("{server}: every tool of the server"),
        Via::Exact(name) => format!("{name}: the tool's name"),
        Via::Pattern => "a matcher regex that matches the tool's name".to_string(),
    }
}

/// Why no alternative matched `query`.
fn matcher_miss(alternatives: &[Alternative], query: &Query<'_>) -> String {
    let programs = if query.programs.is_empty() {
        "none".to_string()
    } else {
        query.programs.join(", ")
    };
    let reasons: Vec<String> = alternatives
        .iter()
        .map(|alt| match alt {
            Alternative::Program(cli) if query.tool.is_bash() => {
                format!("bash.{cli}: no program {cli} (programs: {programs})")
            }
            Alternative::Program(cli) => format!("bash.{cli}: tool is {}, not bash", query.tool),
            other => format!("{other}: tool is {}", query.tool),
        })
        .collect();
    reasons.join("; ")
}
