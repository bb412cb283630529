//! `hookdex try --tool N [--command C] [--path P] [--input JSON] [--step S]
//! [--target T] [--session ID] [--json]`, or `--payload FILE` (`-`: stdin):
//! prints [`report::try_call`], what fires for the call run as the hook
//! would run it, rule by rule, then the merged answer and what the harness
//! does with it. A report: it exits 0 whatever the decision.

use std::io::Read;
use std::path::Path;

use hookdex_model::Target;
use hookdex_runtime::hook::MAX_PAYLOAD;
use hookdex_runtime::report::{self, RuleAnswer, TryCall, TryReport};

use super::{context, current_settings, print_json, CmdResult};
use crate::error::CmdError;

/// Reads the payload of `--payload` (`-`: stdin).
///
/// # Errors
///
/// A usage error when it cannot be read.
pub fn read_payload(file: &Path) -> Result<Vec<u8>, CmdError> {
    let fail = |e: std::io::Error| CmdError::Usage(format!("--payload {}: {e}", file.display()));
    let source: Box<dyn Read> = match file.as_os_str() == "-" {
        true => Box::new(std::io::stdin()),
        false => Box::new(std::fs::File::open(file).map_err(fail)?),
    };
    // Bounded as the hook's own read is: a payload past it is no harness's.
    let mut bytes = Vec::new();
    source
        .take(MAX_PAYLOAD as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() > MAX_PAYLOAD {
        return Err(CmdError::Usage(format!(
            "--payload {}: larger than {} MiB, more than a harness sends",
            file.display(),
            MAX_PAYLOAD >> 20
        )));
    }
    Ok(bytes)
}

/// Tries one call and prints the report.
pub fn run(target: Target, session: Option<&str>, call: TryCall, json: bool) -> CmdResult {
    let settings = current_settings(target);
    // Conditions run; nothing they start outlives try.
    let tried = super::supervised(|| report::try_call(&context(&settings, session), &call, None))
        .map_err(|e| match e {
        report::Error::Payload(e) => CmdError::Usage(format!("--payload: {e}")),
        e => CmdError::Report(e),
    })?;
    if json {
        print_json(&tried);
    } else {
        print_text(&tried);
    }
    Ok(0)
}

/// The report as text, top to bottom: the call, each rule, the merge, the
/// harness.
fn print_text(t: &TryReport) {
    println!(
        "tool      {} (target {}, session {})",
        t.tool, t.target, t.session
    );
    println!();
    if t.rules.is_empty() {
        println!("no rule ran for this call");
    }
    let file_width = t.rules.iter().map(|r| r.file.len()).max().unwrap_or(0);
    let layer_width = t.rules.iter().map(|r| r.layer.len()).max().unwrap_or(0);
    for rule in &t.rules {
        print_rule(rule, file_width, layer_width);
    }
    for note in &t.notes {
        println!("note   {note}");
    }
    println!();
    let m = &t.merged;
    match &m.reason {
        Some(reason) => println!("merged    {}: {reason}", m.decision.as_str()),
        None => println!("merged    {}", m.decision.as_str()),
    }
    if let Some(context) = &m.context {
        print_block("context", context);
    }
    if let Some(rewrite) = &m.rewrite {
        println!("rewrite   {rewrite}");
    }
    println!("{}", t.harness);
}

fn print_rule(rule: &RuleAnswer, file_width: usize, layer_width: usize) {
    let (word, why) = match (&rule.error, rule.detached) {
        (Some(error), true) => ("ERROR".to_string(), format!("async, failed: {error}")),
        (Some(error), false) => ("ERROR".to_string(), format!("skipped: {error}")),
        (None, true) => (
            "ASYNC".to_string(),
            "ran to the end; the hook starts it detached and never reads its answer".to_string(),
        ),
        (None, false) => (
            rule.decision.as_str().to_uppercase(),
            rule.reason.clone().unwrap_or_default(),
        ),
    };
    println!(
        "{word:<6} {:<file_width$}  {:<layer_width$}  {why}",
        rule.file, rule.layer
    );
    if let Some(context) = &rule.context {
        println!(
            "       context  {}",
            context.replace('\n', "\n                ")
        );
    }
    if let Some(rewrite) = &rule.rewrite {
        println!("       rewrite  {rewrite}");
    }
}

fn print_block(label: &str, text: &str) {
    let mut lines = text.lines();
    println!("{label:<9} {}", lines.next().unwrap_or_default());
    for line in lines {
        println!("          {line}");
    }
}
