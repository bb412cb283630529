//! `hookdex test [FILE…] [--json]` (**contract**): runs the inline tests of
//! filter files (every filter the package ships when no file is named),
//! prints each failing test's name with what differs, and exits 1 on any
//! failure, 0 when every test passed.

use std::path::PathBuf;

use hookdex_model::Target;
use hookdex_runtime::filters::inline::{suites, Suite, TestRun};
use serde_json::json;

use super::{current_settings, print_json, CmdResult};

/// Runs the tests of `files` and prints the result.
pub fn run(files: &[PathBuf], json: bool) -> CmdResult {
    let suites = super::supervised(|| suites(&current_settings(Target::Claude), files));
    let tests: Vec<&TestRun> = suites
        .iter()
        .filter_map(|s| s.runs.as_ref().ok())
        .flatten()
        .collect();
    let failed = tests.iter().filter(|t| !t.passed()).count();
    let broken = suites.iter().filter(|s| s.runs.is_err()).count();
    if json {
        print_json(&json!({
            "files": suites.iter().map(suite_json).collect::<Vec<_>>(),
            "passed": tests.len() - failed,
            "failed": failed,
            "broken": broken,
        }));
    } else {
        for suite in &suites {
            print_suite(suite);
        }
        println!(
            "{} tests in {} files: {} passed, {failed} failed{}",
            tests.len(),
            suites.len(),
            tests.len() - failed,
            match broken {
                0 => String::new(),
                n => format!(", {n} files could not be read"),
            }
        );
    }
    Ok(if failed > 0 || broken > 0 { 1 } else { 0 })
}

fn print_suite(suite: &Suite) {
    println!("{}", suite.file);
    let runs = match &suite.runs {
        Ok(runs) => runs,
        Err(why) => {
            println!("  BROKEN  {why}");
            return;
        }
    };
    if runs.is_empty() {
        println!("  (no tests)");
    }
    for test in runs {
        if test.passed() {
            println!("  ok      {}", test.name);
            continue;
        }
        println!("  FAIL    {} (line {})", test.name, test.line);
        for span in test.expect.iter().filter(|s| !test.found.contains(s)) {
            println!("          - expected, not flagged: {span:?}");
        }
        for span in test.found.iter().filter(|s| !test.expect.contains(s)) {
            println!("          + flagged, not expected: {span:?}");
        }
        if test.expect.iter().all(|s| test.found.contains(s))
            && test.found.iter().all(|s| test.expect.contains(s))
        {
            println!("          expected {:?}", test.expect);
            println!("          flagged  {:?}", test.found);
        }
        for failed in &test.failed_finders {
            println!("          {failed}");
        }
        for note in &test.notes {
            println!("          note: {note}");
        }
    }
}

fn suite_json(suite: &Suite) -> serde_json::Value {
    match &suite.runs {
        Ok(runs) => json!({
            "file": suite.file,
            "tests": runs.iter().map(|t| json!({
                "name": t.name,
                "line": t.line,
                "passed": t.passed(),
                "expect": t.expect,
                "found": t.found,
                "notes": t.notes,
                "failed_finders": t.failed_finders,
            })).collect::<Vec<_>>(),
        }),
        Err(why) => json!({"file": suite.file, "error": why, "tests": []}),
    }
}
