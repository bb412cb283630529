//! `hookdex doctor [--target T] [--json]`: prints [`report::doctor`], one
//! section per harness, then the rules, the index and enforcement, each
//! line `ok` or `problem` (with its `fix:` line); exit 1 when a rule the
//! person wrote would not run.

use hookdex_model::Target;
use hookdex_runtime::report::{self, DoctorReport, DoctorRequest, Problem};

use super::{context, current_settings, print_json, CmdResult};

/// Checks the set-up and prints what is wrong with the command that fixes it.
pub fn run(target: Option<Target>, json: bool) -> CmdResult {
    let settings = current_settings(crate::default_target(target));
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate the hookdex binary: {e}"))?;
    let version = format!("hookdex {}", env!("CARGO_PKG_VERSION"));
    let cx = context(&settings, None);
    let report = report::doctor(&DoctorRequest {
        cx: &cx,
        target,
        exe: &exe,
        version: &version,
    })?;
    if json {
        print_json(&report);
    } else {
        print_text(&report);
    }
    Ok(if report.ok { 0 } else { 1 })
}

/// The report as text.
fn print_text(report: &DoctorReport) {
    if report.harnesses.is_empty() {
        println!("no harness found (none of ~/.claude, ~/.codex, ~/.gemini, ~/.copilot, ~/.cursor, nor its program on PATH)");
    }
    for harness in &report.harnesses {
        println!("{}", harness.target);
        if !harness.found {
            println!("  problem  not found on this machine");
        }
        for line in &harness.ok {
            println!("  ok       {line}");
        }
        println!(
            "  {}  trusted: {}: {}",
            if harness.trusted.verdict == "no" {
                "problem"
            } else {
                "ok     "
            },
            harness.trusted.verdict,
            harness.trusted.why
        );
        print_problems(&harness.problems);
    }
    println!("rules");
    if report.rules.problems.is_empty() {
        println!("  ok       no invalid file, missing profile or shadowing rule");
    }
    print_problems(&report.rules.problems);
    println!("index");
    // A stale index is compiled again by any reader, this one included.
    println!("  ok       {} {}", report.index.path, report.index.state);
    let e = &report.enforcement;
    println!("enforcement");
    match &e.seccomp_unavailable {
        None => println!("  ok       seccomp user notification: available"),
        Some(why) => println!("  problem  seccomp user notification: {why}"),
    }
    match e.landlock_abi {
        Some(abi) => println!("  ok       Landlock: ABI {abi}"),
        None => {
            println!("  ok       Landlock: not offered by this kernel (hookdex does not need it)")
        }
    }
    println!(
        "  ok       HOOKDEX_ENFORCE={}: {}",
        e.status.mode, e.status.why
    );
}

/// Each problem with its fix line.
fn print_problems(problems: &[Problem]) {
    for problem in problems {
        println!("  problem  {}", problem.what);
        println!("           fix: {}", problem.fix);
    }
}
