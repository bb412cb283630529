//! `hookdex list [--step S] [--tool N] [--command C] [--path P] [--json]`.

use hookdex_index::Index;
use hookdex_model::{HookAction, HookSpec, LayerKind, RuleKind, RunVerdict, Step, Target, Trust};
use hookdex_runtime::explain::explain;
use hookdex_runtime::hooks;
use hookdex_runtime::lint::Warning;
use hookdex_runtime::list::list;
use hookdex_runtime::load::{self, Verify};
use hookdex_runtime::settings::Settings;
use hookdex_runtime::state::breaker::{Breakers, Gate};
use serde_json::{json, Value};

use super::{current_settings, invalid_json, open, print_json, warnings_json, CallArgs, CmdResult};

/// Lists layers, active rules, invalid files and warnings; with a call, what fires.
pub fn run(
    target: Target,
    session: Option<&str>,
    step: Option<Step>,
    call: Option<CallArgs>,
    json: bool,
) -> CmdResult {
    let settings = current_settings(target);
    let (file, _state) = open(&settings);
    let err = |e: hookdex_index::Error| e.to_string();
    let index = file.index().map_err(err)?;
    let mut listing = list(&index, &settings, step).map_err(err)?;
    let managed = settings
        .managed_view()
        .map(|view| {
            (
                view.index_path().display().to_string(),
                load::load(&view, Verify::Full).1,
            )
        })
        .filter(|(_, state)| !state.is_fresh());
    if let Some((path, state)) = &managed {
        listing.warnings.push(Warning {
            file: path,
            reason: format!(
                "the managed layer is compiled on every call ({}): its owner runs `hookdex compile --managed`",
                state.describe()
            ),
        });
    }
    let (trust, layers, active, finders, invalid, warnings) = (
        &listing.trust,
        &listing.layers,
        &listing.active,
        &listing.finders,
        &listing.invalid,
        &listing.warnings,
    );
    let fires = match &call {
        None => None,
        Some(args) => Some(fires(&index, args, &settings, trust)?),
    };

    // Each active filter's mode, action and round cap.
    let filters: Vec<Option<(&str, &str, u32)>> = active
        .iter()
        .map(|(r, _)| {
            let filter = index.filter(r.id).map_err(err)?;
            Ok(filter.map(|f| (f.mode.as_str(), f.action.as_str(), f.max_rounds)))
        })
        .collect::<Result<_, String>>()?;
    // Each hook's spec, with why it is held back here (HOOK.md), if it is.
    let breakers = Breakers::new(&settings.view.home, settings.breaker_cooldown);
    let var = |name: &str| std::env::var_os(name);
    let hook_specs: Vec<Option<(HookSpec, Option<String>)>> = active
        .iter()
        .map(|(r, _)| {
            if !matches!(r.kind, RuleKind::HooksYaml | RuleKind::HookMd) {
                return Ok(None);
            }
            let spec = hooks::spec(&index, r.id).map_err(err)?;
            let held = match r.kind {
                RuleKind::HookMd => hooks::held(&spec, r.file, &breakers, &var),
                _ => None,
            };
            Ok(Some((spec, held)))
        })
        .collect::<Result<_, String>>()?;
    if json {
        let mut out = json!({
            "layers": layers.iter().map(|(l, trusted)| {
                let mut layer = json!({
                    "label": l.label, "dir": l.dir, "count": l.count, "trusted": trusted,
                });
                // Why the repository's own layer runs or not.
                if l.kind == LayerKind::Directory {
                    layer["trust"] = json!({"kind": trust.kind(), "why": trust.to_string()});
                }
                layer
            }).collect::<Vec<_>>(),
            "active": active.iter().zip(&filters).zip(&hook_specs).map(|(((r, verdict), filter), hook)| {
                let mut rule = json!({
                    "file": r.file,
                    "layer": layers[usize::from(r.layer)].0.label,
                    "step": r.step.as_str(),
                    "matcher": r.matcher,
                    "name": r.name,
                    "kind": r.kind.as_str(),
                    "format": r.kind.format(),
                    "runs": verdict.runs() || *verdict == RunVerdict::ManagedApart,
                });
                if let Some((mode, action, max_rounds)) = filter {
                    rule["filter"] = json!({"mode": mode, "action": action, "max_rounds": max_rounds});
                }
                if let Ok(Some(e)) = index.enforcement(r.id) {
                    rule["enforcement"] = json!({"id": e.id, "cadence": e.cadence, "message": e.message});
                }
                if let Some((spec, held)) = hook {
                    rule["line"] = json!(spec.line);
                    rule["hook"] = hook_json(r.kind, spec, held.as_deref(), &breakers, r.file);
                }
                rule
            }).collect::<Vec<_>>(),
            "finders": finders.iter().map(|(f, runs)| json!({
                "name": f.name,
                "file": f.file,
                "layer": layers[usize::from(f.layer)].0.label,
                "runs": runs,
            })).collect::<Vec<_>>(),
            "output_filters": listing.out_filters.iter().map(|(f, stands)| json!({
                "name": f.name,
                "file": f.file,
                "line": f.line,
                "layer": layers[usize::from(f.layer)].0.label,
                "stands": stands,
            })).collect::<Vec<_>>(),
            "invalid": invalid.iter().map(|i| invalid_json(i.file, i.reason, i.at)).collect::<Vec<_>>(),
            "warnings": warnings_json(warnings),
        });
        if let Some(fires) = fires {
            out["fires"] = Value::Array(fires);
        }
        out["gate"] = super::gate_json(&settings, session);
        out["enforcement"] = super::enforcement_json(&settings, session);
        print_json(&out);
        return Ok(0);
    }

    let width = layers.iter().map(|(l, _)| l.label.len()).max().unwrap_or(0);
    println!("layers");
    for (layer, _) in layers {
        let note = if layer.kind == LayerKind::Directory {
            format!("  {trust}")
        } else {
            String::new()
        };
        println!(
            "  {:<width$} {:>4}  {}{note}",
            layer.label, layer.count, layer.dir
        );
    }
    println!(
        "\ngate: {}",
        super::gate_line(&super::gate_json(&settings, session))
    );
    println!(
        "enforcement: {}",
        super::enforcement_json(&settings, session)["why"]
            .as_str()
            .unwrap_or_default()
    );
    println!("\nactive rules, in execution order");
    if active.is_empty() {
        println!("  (none)");
    }
    for (((rule, verdict), filter), hook) in active.iter().zip(&filters).zip(&hook_specs) {
        let layer = &layers[usize::from(rule.layer)].0;
        let filter = match (filter, index.enforcement(rule.id), hook) {
            (Some((mode, action, max_rounds)), _, _) => {
                format!("  (filter: mode {mode}, action {action}, max_rounds {max_rounds})")
            }
            (None, Ok(Some(e)), _) => format!("  (enforcement {}: cadence {})", e.id, e.cadence),
            (None, _, Some((spec, held))) => {
                let kind = match spec.action {
                    HookAction::Command { .. } => "command",
                    HookAction::Prompt { .. } => "prompt",
                };
                let held = held
                    .as_ref()
                    .map(|why| format!("; not run now: {why}"))
                    .unwrap_or_default();
                format!(
                    ":{}  ({} {}: {kind}, {}{held})",
                    spec.line,
                    rule.kind.format(),
                    spec.label,
                    spec.source_event
                )
            }
            _ => String::new(),
        };
        let held = match verdict {
            RunVerdict::Untrusted => "  (not run: untrusted)",
            RunVerdict::Disabled => "  (not run: CONDITIONS_ENABLED=false)",
            RunVerdict::ManagedApart => "  (runs from the administrator's managed index)",
            RunVerdict::Runs | RunVerdict::Overridden { .. } => "",
        };
        println!("  {:<width$} {}{filter}{held}", layer.label, rule.file);
    }
    if !listing.out_filters.is_empty() {
        let standing = listing.out_filters.iter().filter(|(_, s)| *s).count();
        println!(
            "\noutput filters: {standing} stand ({} in all; `hookdex list --json` lists them)",
            listing.out_filters.len()
        );
    }
    if !finders.is_empty() {
        println!("\nfinder scripts");
        for (script, runs) in finders {
            let layer = &layers[usize::from(script.layer)].0;
            let held = if *runs {
                ""
            } else {
                "  (not run: another layer's runs, or this layer does not)"
            };
            println!(
                "  {:<width$} {:<20} {}{held}",
                layer.label, script.name, script.file
            );
        }
    }
    if !invalid.is_empty() {
        println!("\ninvalid files");
        for bad in invalid {
            println!("  {}", bad.message());
        }
    }
    if !warnings.is_empty() {
        println!("\nwarnings");
        for warning in warnings {
            println!("  {}: {}", warning.file, warning.reason);
        }
    }
    if let (Some(args), Some(fires)) = (&call, fires) {
        println!("\nfires for {}", args.tool);
        if fires.is_empty() {
            println!("  (nothing)");
        }
        for fire in fires {
            println!(
                "  {:<10} {}  ({})",
                fire["layer"].as_str().unwrap_or(""),
                fire["file"].as_str().unwrap_or(""),
                fire["why"].as_str().unwrap_or("")
            );
        }
    }
    Ok(0)
}

/// The rules that fire for the call, as `{"file", "layer", "why"}` objects.
fn fires(
    index: &Index<'_>,
    args: &CallArgs,
    settings: &Settings,
    trust: &Trust,
) -> Result<Vec<Value>, String> {
    let call = args.call(settings)?;
    let managed = settings
        .managed_view()
        .map(|view| load::load(&view, Verify::Full));
    let managed_index = match &managed {
        Some((file, _)) => Some(file.index().map_err(|e| e.to_string())?),
        None => None,
    };
    let landing = args.landing(&call)?;
    let paths: Vec<Option<&str>> = landing.iter().map(Option::as_deref).collect();
    let input = args.input()?;
    let (verdicts, _) = explain(
        index,
        managed_index.as_ref(),
        &call.query(settings.shell_strict),
        &paths,
        &args.probe(settings, &input),
        trust,
        settings.switches(),
    )
    .map_err(|e| e.to_string())?;
    Ok(verdicts
        .iter()
        .filter(|v| v.fires)
        .map(|v| json!({"file": v.rule.file, "layer": v.layer.label, "why": v.why}))
        .collect())
}

/// A hook as `list --json` shows it: what it runs, on which events, its
/// matchers and requirements, and (`HOOK.md`) its breaker and why it is
/// held back here, if it is.
fn hook_json(
    kind: RuleKind,
    spec: &HookSpec,
    held: Option<&str>,
    breakers: &Breakers,
    file: &str,
) -> Value {
    let (action, what) = match &spec.action {
        HookAction::Command { command } => ("command", json!({"command": command})),
        HookAction::Prompt { prompt, model } => {
            ("prompt", json!({"prompt": prompt, "model": model}))
        }
    };
    let mut hook = json!({
        "label": spec.label,
        "line": spec.line,
        "type": action,
        "event": spec.source_event,
        "events": spec.events,
        "timeout_s": spec.timeout_ms as f64 / 1000.0,
        "matcher": spec.matcher,
        "input_matcher": spec.input.iter().map(|p| json!({"field": p.field, "regex": p.regex})).collect::<Vec<_>>(),
        "held": held,
    });
    if let (Some(object), Value::Object(what)) = (hook.as_object_mut(), what) {
        object.extend(what);
    }
    if kind == RuleKind::HookMd {
        hook["requires"] =
            json!({"os": spec.requires.os, "bins": spec.requires.bins, "env": spec.requires.env});
        hook["breaker"] = match breakers.status(file) {
            Gate::Closed(failures) => json!({"open": false, "failures": failures}),
            Gate::Open { until_ms } => json!({"open": true, "until_ms": until_ms}),
        };
    }
    hook
}
