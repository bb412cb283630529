//! `hookdex explain --tool N [--command C] [--path P] [--input JSON] [--step S] [--json]`:
//! prints [`report::explain`], read top to bottom by someone asking "why
//! didn't my hook fire?".

use hookdex_model::Target;
use hookdex_runtime::filters::trace::FilterTrace;
use hookdex_runtime::report::{self, CallSpec, ExplainReport};

use super::{context, current_settings, print_json, CmdResult};
use crate::paint::{self, Tone};

/// Explains every rule's verdict for one call.
pub fn run(target: Target, session: Option<&str>, args: CallSpec, json: bool) -> CmdResult {
    let settings = current_settings(target);
    // Finder scripts run for --input; nothing they start outlives explain.
    let explained = super::supervised(|| report::explain(&context(&settings, session), &args))?;
    if json {
        print_json(&explained);
    } else {
        print_text(&explained, settings.shell_strict);
    }
    Ok(0)
}

/// The verdicts as text: the call, the gate, the guard and the indexes,
/// then one line per rule.
fn print_text(e: &ExplainReport, shell_strict: bool) {
    let head = &e.header;
    println!(
        "tool      {} -> {} (target {}, via {})",
        head.raw_tool, e.tool, e.target, head.via
    );
    if let Some(command) = &head.command {
        println!("command   {command}");
    }
    if let Some(path) = &head.path {
        println!("path      {path}");
    }
    if head.is_bash {
        let programs = if e.programs.is_empty() {
            "(none)".to_string()
        } else {
            e.programs.join(", ")
        };
        println!("programs  {programs}");
        if !head.dynamic.is_empty() {
            let strict = if shell_strict {
                "every bash.<cli> rule matches (HOOKDEX_SHELL_STRICT)"
            } else {
                "HOOKDEX_SHELL_STRICT=1 would match every bash.<cli> rule"
            };
            println!("dynamic   {} · {strict}", head.dynamic.join(", "));
        }
    }
    println!("step      {} ({})", e.step, head.event);
    let changes = match &e.gate.changes_rules {
        Some(why) => {
            format!(" · this call changes rule sources ({why}): denied while the gate is closed")
        }
        None => String::new(),
    };
    println!("gate      {}{changes}", e.gate.status.line());
    println!("enforce   {}", e.enforcement.why);
    println!(
        "index     {} · lookup {:.1} µs",
        e.index.state,
        e.index.lookup_ns as f64 / 1000.0
    );
    if let Some(managed) = &e.managed_index {
        println!(
            "managed   {} · {} (the administrator's)",
            managed.path.display(),
            managed.state
        );
    }
    if let Some(repo) = &head.repo_root {
        println!("repo      {repo} · {}", e.trust);
    }
    if head.invalid_count > 0 {
        println!(
            "invalid   {} file(s) not loaded; `hookdex list` shows why",
            head.invalid_count
        );
    }
    println!();
    if e.fires.is_empty() && e.skipped.is_empty() {
        println!("no rules in any layer");
    }
    let names = e.fires.iter().map(|f| (&f.name, &f.layer));
    let names = names.chain(e.skipped.iter().map(|s| (&s.name, &s.layer)));
    let name_width = names.clone().map(|(n, _)| n.len()).max().unwrap_or(0);
    let layer_width = names.map(|(_, l)| l.len()).max().unwrap_or(0);
    for fired in &e.fires {
        println!(
            "{} {:<name_width$}  {:<layer_width$}  {}",
            paint::status("FIRES", 6, Tone::Good),
            fired.name,
            fired.layer,
            fired.why,
        );
        if let Some(t) = &fired.trace {
            print_trace(t);
        }
        if let Some(guard) = &fired.guard {
            match &guard.reason {
                Some(reason) => println!("       guard decides {}: {reason}", guard.decision),
                None => println!("       guard decides none: no objection to this call"),
            }
        }
        if let Some(enforcement) = &fired.enforcement {
            println!(
                "       enforcement {}: context on matching call 1 of a session and on every multiple of {} (the session's count decides)",
                enforcement.id, enforcement.cadence
            );
        }
    }
    for skipped in &e.skipped {
        println!(
            "{} {:<name_width$}  {:<layer_width$}  {}",
            paint::status("skip", 6, Tone::Quiet),
            skipped.name,
            skipped.layer,
            skipped.reason,
        );
    }
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
