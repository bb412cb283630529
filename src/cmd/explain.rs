//! `hookdex explain --tool N [--command C] [--path P] [--input JSON] [--step S] [--json]`:
//! read top to bottom by someone asking "why didn't my hook fire?".

use hookdex_model::{LayerKind, RuleKind, Target};
use hookdex_runtime::explain::explain;
use hookdex_runtime::filters::trace::{trace, FilterTrace};
use hookdex_runtime::load::{self, Verify};
use serde_json::json;

use super::{current_settings, open, print_json, CallArgs, CmdResult};

/// Explains every rule's verdict for one call.
pub fn run(target: Target, session: Option<&str>, args: CallArgs, json: bool) -> CmdResult {
    // Finder scripts run for --input; nothing they start outlives explain.
    super::supervised(|| explain_call(target, session, args, json))
}

fn explain_call(target: Target, session: Option<&str>, args: CallArgs, json: bool) -> CmdResult {
    let settings = current_settings(target);
    let call = args.call(&settings)?;
    let (file, state) = open(&settings);
    let err = |e: hookdex_index::Error| e.to_string();
    let index = file.index().map_err(err)?;
    let meta = index.meta().map_err(err)?;
    let trust = settings.trust(&meta);
    let managed = settings
        .managed_view()
        .map(|view| load::load(&view, Verify::Full));
    let managed_index = match &managed {
        Some((file, _)) => Some(file.index().map_err(err)?),
        None => None,
    };
    let landing = args.landing(&call)?;
    let paths: Vec<Option<&str>> = landing.iter().map(Option::as_deref).collect();
    let input = args.input()?;
    let (verdicts, lookup_ns) = explain(
        &index,
        managed_index.as_ref(),
        &call.query(settings.shell_strict),
        &paths,
        &args.probe(&settings, &input),
        &trust,
        settings.switches(),
    )
    .map_err(err)?;
    // What the gate, which comes before every rule, says of the call.
    let mut gate = super::gate_json(&settings, session);
    let sources = hookdex_runtime::gate::sources::RuleSources::with_wiring(&settings.view);
    let changes = hookdex_runtime::gate::changes_rules(
        &args.tool,
        &input,
        &call,
        &settings.exec.cwd,
        &sources,
        &|name| std::env::var_os(name),
    );
    gate["changes_rules"] = json!(changes);
    // With --input, what each firing filter's finders flag in it.
    let mut traces = Vec::with_capacity(verdicts.len());
    for v in &verdicts {
        let traced = match (&args.input, v.fires, v.rule.kind) {
            (Some(_), true, RuleKind::Filter) => {
                let from = match &managed_index {
                    Some(managed) if v.layer.kind == LayerKind::Managed => managed,
                    _ => &index,
                };
                let name = v.rule.file_name();
                let tool = &call.tool.name;
                trace(
                    from,
                    v.rule.id,
                    name,
                    tool,
                    &input,
                    &trust,
                    settings.switches(),
                    &settings,
                )
                .map_err(err)?
            }
            _ => None,
        };
        traces.push(traced);
    }

    if json {
        print_json(&json!({
            "fires": verdicts.iter().zip(&traces).filter(|(v, _)| v.fires).map(|(v, t)| {
                let mut fired = json!({"file": v.rule.file, "layer": v.layer.label, "why": v.why});
                if let Some(t) = t {
                    fired["filter"] = trace_json(t);
                }
                if let Ok(Some(e)) = index.enforcement(v.rule.id) {
                    fired["enforcement"] = json!({"id": e.id, "cadence": e.cadence});
                }
                fired
            }).collect::<Vec<_>>(),
            "skipped": verdicts.iter().filter(|v| !v.fires).map(|v| json!({
                "file": v.rule.file, "layer": v.layer.label, "reason": v.why,
            })).collect::<Vec<_>>(),
            "programs": call.programs,
            "dynamic": call.dynamic.iter().map(|d| json!({
                "reason": d.reason.as_str(), "text": d.text,
            })).collect::<Vec<_>>(),
            "shell_strict": settings.shell_strict,
            "tool": call.tool.name.as_str(),
            "step": call.step.as_str(),
            "target": target.as_str(),
            "trust": trust.to_string(),
            "trust_kind": trust.kind(),
            "gate": gate,
            "enforcement": super::enforcement_json(&settings, session),
            "index": {
                "fresh": state.is_fresh(),
                "state": state.describe(),
                "path": file.path(),
                "lookup_ns": lookup_ns,
            },
            "managed_index": managed.as_ref().map(|(file, state)| json!({
                "fresh": state.is_fresh(),
                "state": state.describe(),
                "path": file.path(),
            })),
        }));
        return Ok(0);
    }

    println!(
        "tool      {} -> {} (target {target}, via {})",
        call.raw_tool, call.tool.name, call.tool.via
    );
    if let Some(command) = &call.command {
        println!("command   {command}");
    }
    if let Some(path) = &args.path {
        println!("path      {path}");
    }
    if call.tool.name.is_bash() {
        let programs = if call.programs.is_empty() {
            "(none)".to_string()
        } else {
            call.programs.join(", ")
        };
        println!("programs  {programs}");
        if !call.dynamic.is_empty() {
            let dynamic: Vec<String> = call.dynamic.iter().map(ToString::to_string).collect();
            let strict = if settings.shell_strict {
                "every bash.<cli> rule matches (HOOKDEX_SHELL_STRICT)"
            } else {
                "HOOKDEX_SHELL_STRICT=1 would match every bash.<cli> rule"
            };
            println!("dynamic   {} · {strict}", dynamic.join(", "));
        }
    }
    println!(
        "step      {} ({})",
        call.step.as_str(),
        call.step.event().as_str()
    );
    let changes = match gate["changes_rules"].as_str() {
        Some(why) => {
            format!(" · this call changes rule sources ({why}): denied while the gate is closed")
        }
        None => String::new(),
    };
    println!("gate      {}{changes}", super::gate_line(&gate));
    println!(
        "enforce   {}",
        super::enforcement_json(&settings, session)["why"]
            .as_str()
            .unwrap_or_default()
    );
    println!(
        "index     {} · lookup {:.1} µs",
        state.describe(),
        lookup_ns as f64 / 1000.0
    );
    if let Some((file, state)) = &managed {
        println!(
            "managed   {} · {} (the administrator's)",
            file.path().display(),
            state.describe()
        );
    }
    if meta.repo_root.is_some() {
        println!("repo      {} · {trust}", meta.repo_root.unwrap_or_default());
    }
    if index.invalid_count() > 0 {
        println!(
            "invalid   {} file(s) not loaded; `hookdex list` shows why",
            index.invalid_count()
        );
    }
    println!();
    if verdicts.is_empty() {
        println!("no rules in any layer");
    }
    let name_width = verdicts
        .iter()
        .map(|v| v.rule.file_name().len())
        .max()
        .unwrap_or(0);
    let layer_width = verdicts
        .iter()
        .map(|v| v.layer.label.len())
        .max()
        .unwrap_or(0);
    for (v, t) in verdicts.iter().zip(&traces) {
        println!(
            "{}  {:<name_width$}  {:<layer_width$}  {}",
            if v.fires { "FIRES" } else { "skip " },
            v.rule.file_name(),
            v.layer.label,
            v.why,
        );
        if let Some(t) = t {
            print_trace(t);
        }
        if let (true, Ok(Some(e))) = (v.fires, index.enforcement(v.rule.id)) {
            println!(
                "       enforcement {}: context on matching call 1 of a session and on every multiple of {} (the session's count decides)",
                e.id, e.cadence
            );
        }
    }
    Ok(0)
}

/// A traced filter under its verdict line: each finder and its spans,
/// then what the classifier would be asked.
fn print_trace(t: &FilterTrace) {
    const PAD: &str = "       ";
    if t.units == 0 {
        println!("{PAD}reads no text of this input");
        return;
    }
    for finder in &t.finders {
        match (&finder.failed, finder.spans.is_empty()) {
            (Some(why), _) => println!("{PAD}{why}"),
            (None, true) => println!("{PAD}finder `{}` found nothing", finder.name),
            (None, false) => {
                println!("{PAD}finder `{}` found:", finder.name);
                for span in &finder.spans {
                    println!(
                        "{PAD}  {:?} [{}..{}]: {}",
                        span.text, span.start, span.end, span.reason
                    );
                }
            }
        }
    }
    match t.would_ask {
        Some(n) => println!(
            "{PAD}classifier: {n} finding(s) to judge (mode {}); explain does not ask it",
            t.mode.as_str()
        ),
        None => println!("{PAD}mode finders: every finding stands, no classifier"),
    }
}

/// A traced filter as `explain --json` adds it to a firing filter's entry.
fn trace_json(t: &FilterTrace) -> serde_json::Value {
    json!({
        "mode": t.mode.as_str(),
        "texts": t.units,
        "finders": t.finders.iter().map(|f| json!({
            "finder": f.name,
            "failed": f.failed,
            "spans": f.spans.iter().map(|s| json!({
                "path": s.path, "start": s.start, "end": s.end, "text": s.text, "reason": s.reason,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "would_ask": t.would_ask,
    })
}
