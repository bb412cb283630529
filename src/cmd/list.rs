//! `hookdex list [--step S] [--tool N] [--command C] [--path P] [--all] [--json]`:
//! prints [`report::list`].

use hookdex_model::{LayerKind, RunVerdict, Step, Target};
use hookdex_runtime::report::{self, ActiveRule, CallSpec, ListReport};

use super::{context, current_settings, print_json, CmdResult};

/// Lists layers, active rules, invalid files and warnings; with a call,
/// what fires; with `all`, the overridden rules.
pub fn run(
    target: Target,
    session: Option<&str>,
    step: Option<Step>,
    call: Option<CallSpec>,
    all: bool,
    json: bool,
) -> CmdResult {
    let settings = current_settings(target);
    let listed = report::list(&context(&settings, session), step, call.as_ref(), all)?;
    if json {
        print_json(&listed);
    } else {
        print_text(&listed, call.as_ref());
    }
    Ok(0)
}

/// The listing as text.
fn print_text(listed: &ListReport, call: Option<&CallSpec>) {
    let width = listed
        .layers
        .iter()
        .map(|l| l.label.len())
        .max()
        .unwrap_or(0);
    println!("layers");
    for layer in &listed.layers {
        let note = if layer.kind == LayerKind::Directory {
            format!("  {}", listed.trust)
        } else {
            String::new()
        };
        println!(
            "  {:<width$} {:>4}  {}{note}",
            layer.label, layer.count, layer.dir
        );
    }
    println!("\ngate: {}", listed.gate.line());
    println!("enforcement: {}", listed.enforcement.why);
    println!("\nactive rules, in execution order");
    if listed.active.is_empty() {
        println!("  (none)");
    }
    for rule in &listed.active {
        println!(
            "  {:<width$} {}{}{}",
            rule.layer,
            rule.file,
            what_runs(rule),
            held(rule.verdict)
        );
    }
    if let Some(overridden) = &listed.overridden {
        println!("\noverridden rules");
        if overridden.is_empty() {
            println!("  (none)");
        }
        for rule in overridden {
            println!(
                "  {:<width$} {}  (overridden by {})",
                rule.layer, rule.file, rule.overridden_by
            );
        }
    }
    if !listed.output_filters.is_empty() {
        let standing = listed.output_filters.iter().filter(|f| f.stands).count();
        println!(
            "\noutput filters: {standing} stand ({} in all; `hookdex list --json` lists them)",
            listed.output_filters.len()
        );
    }
    if !listed.finders.is_empty() {
        println!("\nfinder scripts");
        for script in &listed.finders {
            let held = if script.runs {
                ""
            } else {
                "  (not run: another layer's runs, or this layer does not)"
            };
            println!(
                "  {:<width$} {:<20} {}{held}",
                script.layer, script.name, script.file
            );
        }
    }
    if !listed.invalid.is_empty() {
        println!("\ninvalid files");
        for bad in &listed.invalid {
            println!("  {}", bad.message);
        }
    }
    if !listed.warnings.is_empty() {
        println!("\nwarnings");
        for warning in &listed.warnings {
            println!("  {}: {}", warning.file, warning.reason);
        }
    }
    if let (Some(args), Some(fires)) = (call, &listed.fires) {
        println!("\nfires for {}", args.tool);
        if fires.is_empty() {
            println!("  (nothing)");
        }
        for fire in fires {
            println!("  {:<10} {}  ({})", fire.layer, fire.file, fire.why);
        }
    }
}

/// What an active rule runs, after its file: a filter's settings, an
/// enforcement's cadence, or a hook's line, event and why it is held back.
fn what_runs(rule: &ActiveRule) -> String {
    if let Some(f) = &rule.filter {
        return format!(
            "  (filter: mode {}, action {}, max_rounds {})",
            f.mode, f.action, f.max_rounds
        );
    }
    if let Some(e) = &rule.enforcement {
        return format!("  (enforcement {}: cadence {})", e.id, e.cadence);
    }
    if let Some(g) = &rule.guard {
        let mut parts = Vec::new();
        for (word, entries) in [("deny", &g.deny), ("ask", &g.ask)] {
            if !entries.is_empty() {
                parts.push(format!("{word} {}", entries.join(", ")));
            }
        }
        if let (Some(allow), Some(otherwise)) = (&g.allow, g.otherwise) {
            parts.push(format!(
                "allow only {} (else {otherwise})",
                match allow.is_empty() {
                    true => "nothing".to_string(),
                    false => allow.join(", "),
                }
            ));
        }
        return format!("  (guard on {}: {})", g.judges, parts.join("; "));
    }
    let Some(hook) = &rule.hook else {
        return String::new();
    };
    let held = hook
        .held
        .as_ref()
        .map(|why| format!("; not run now: {why}"))
        .unwrap_or_default();
    format!(
        ":{}  ({} {}: {}, {}{held})",
        hook.line, rule.format, hook.label, hook.action, hook.event
    )
}

/// Why a listed rule does not run here, if it does not.
fn held(verdict: RunVerdict) -> &'static str {
    match verdict {
        RunVerdict::Untrusted => "  (not run: untrusted)",
        RunVerdict::Disabled => "  (not run: CONDITIONS_ENABLED=false)",
        RunVerdict::ManagedApart => "  (runs from the administrator's managed index)",
        RunVerdict::Runs | RunVerdict::Overridden { .. } => "",
    }
}
