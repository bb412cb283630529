//! `hookdex list [--step S] [--tool N] [--command C] [--path P] [--json]`.

use hookdex_runtime::explain::explain;
use hookdex_runtime::index::Index;
use hookdex_runtime::rule::{LayerKind, Step};
use hookdex_runtime::tool::Target;
use serde_json::{json, Value};

use super::{current_view, open, parse, print_json, CallArgs, CmdResult};

/// Lists layers, active rules and invalid files; with a call, what fires.
pub fn run(target: Target, step: Option<Step>, call: Option<CallArgs>, json: bool) -> CmdResult {
    let view = current_view(target);
    let (file, _state) = open(&view)?;
    let index = parse(&file)?;
    let err = |e: hookdex_runtime::Error| e.to_string();
    let trust = index.meta().map_err(err)?.trust();

    let mut layers = Vec::new();
    for i in 0..index.layer_count() {
        let layer = index.layer(i).map_err(err)?;
        let trusted = layer.kind != LayerKind::Directory || trust.is_trusted();
        layers.push((layer, trusted));
    }
    let mut active = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let rule = index.rule(id).map_err(err)?;
        if rule.is_active(&trust) && step.is_none_or(|s| s == rule.step) {
            active.push(rule);
        }
    }
    let mut invalid = Vec::new();
    for i in 0..index.invalid_count() {
        invalid.push(index.invalid(i).map_err(err)?);
    }
    let fires = match &call {
        None => None,
        Some(args) => Some(fires(&index, args, target, &trust)?),
    };

    if json {
        let mut out = json!({
            "layers": layers.iter().map(|(l, trusted)| json!({
                "label": l.label, "dir": l.dir, "count": l.count, "trusted": trusted,
            })).collect::<Vec<_>>(),
            "active": active.iter().map(|r| json!({
                "file": r.file,
                "layer": layers[usize::from(r.layer)].0.label,
                "step": r.step.as_str(),
                "matcher": r.matcher,
                "name": r.name,
                "kind": r.kind.as_str(),
            })).collect::<Vec<_>>(),
            "invalid": invalid.iter().map(|i| json!({"file": i.file, "reason": i.reason})).collect::<Vec<_>>(),
        });
        if let Some(fires) = fires {
            out["fires"] = Value::Array(fires);
        }
        print_json(&out);
        return Ok(0);
    }

    let width = layers.iter().map(|(l, _)| l.label.len()).max().unwrap_or(0);
    println!("layers");
    for (layer, _) in &layers {
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
    println!("\nactive rules, in execution order");
    if active.is_empty() {
        println!("  (none)");
    }
    for rule in &active {
        let layer = &layers[usize::from(rule.layer)].0;
        let held = if layer.kind == LayerKind::Directory && !trust.is_trusted() {
            "  (not run: untrusted)"
        } else {
            ""
        };
        println!("  {:<width$} {}{held}", layer.label, rule.file);
    }
    if !invalid.is_empty() {
        println!("\ninvalid files");
        for bad in &invalid {
            println!("  {}: {}", bad.file, bad.reason);
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
pub fn fires(
    index: &Index<'_>,
    args: &CallArgs,
    target: Target,
    trust: &hookdex_runtime::trust::Trust,
) -> Result<Vec<Value>, String> {
    let call = args.call(target)?;
    let (verdicts, _) =
        explain(index, &call.query(), call.path.as_deref(), trust).map_err(|e| e.to_string())?;
    Ok(verdicts
        .iter()
        .filter(|v| v.fires)
        .map(|v| json!({"file": v.rule.file, "layer": v.layer.label, "why": v.why}))
        .collect())
}
