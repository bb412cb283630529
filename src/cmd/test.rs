//! `hookdex test [FILE…] [--json]` (**contract**): runs the inline tests of
//! rule files — text filters' `tests:` and output filters'
//! `[[tests.<name>]]`, as rtk runs its own — of the files named, or of
//! every filter the package ships when none is; prints each failing test
//! with what differs, and exits 1 on any failure or unreadable file, 0
//! when every test passed.

use std::path::PathBuf;

use hookdex_model::Target;
use hookdex_outfilter::TestOutcome;
use hookdex_runtime::filters::inline::{suites, Suite, TestRun};
use hookdex_runtime::outfilters::{is_outfilter_path, out_suites, OutSuite};
use serde_json::json;

use super::{current_settings, print_json, CmdResult};
use crate::paint::{self, Tone};

/// Runs the tests of `files` and prints the result.
pub fn run(files: &[PathBuf], json: bool) -> CmdResult {
    let (outfilter_files, filter_files): (Vec<PathBuf>, Vec<PathBuf>) =
        files.iter().cloned().partition(|f| is_outfilter_path(f));
    let every = files.is_empty();
    let suites = if every || !filter_files.is_empty() {
        super::supervised(|| suites(&current_settings(Target::Claude), &filter_files))
    } else {
        Vec::new()
    };
    let out = if every || !outfilter_files.is_empty() {
        out_suites(&outfilter_files)
    } else {
        Vec::new()
    };
    let tests: Vec<&TestRun> = suites
        .iter()
        .filter_map(|s| s.runs.as_ref().ok())
        .flatten()
        .collect();
    let out_tests = out.iter().flat_map(|s| &s.results);
    let total = tests.len() + out_tests.clone().count();
    let failed =
        tests.iter().filter(|t| !t.passed()).count() + out_tests.filter(|t| !t.passed()).count();
    let broken = suites.iter().filter(|s| s.runs.is_err()).count()
        + out.iter().filter(|s| !s.errors.is_empty()).count();
    if json {
        print_json(&json!({
            "files": suites.iter().map(suite_json).chain(out.iter().map(out_json)).collect::<Vec<_>>(),
            "passed": total - failed,
            "failed": failed,
            "broken": broken,
        }));
    } else {
        for suite in &suites {
            print_suite(suite);
        }
        for suite in &out {
            print_out_suite(suite);
        }
        println!(
            "{total} tests in {} files: {} passed, {failed} failed{}",
            suites.len() + out.len(),
            total - failed,
            match broken {
                0 => String::new(),
                n => format!(", {n} files could not be read whole"),
            }
        );
    }
    Ok(if failed > 0 || broken > 0 { 1 } else { 0 })
}

/// The status words of a test line, eight columns wide.
fn ok() -> String {
    paint::status("ok", 8, Tone::Good)
}

fn fail() -> String {
    paint::status("FAIL", 8, Tone::Bad)
}

fn broken() -> String {
    paint::status("BROKEN", 8, Tone::Bad)
}

fn print_out_suite(suite: &OutSuite) {
    println!("{}", suite.file);
    for error in &suite.errors {
        println!("  {}{error}", broken());
    }
    for test in &suite.results {
        match &test.outcome {
            TestOutcome::Passed => println!("  {}{}: {}", ok(), test.filter, test.name),
            TestOutcome::NoSuchFilter => println!(
                "  {}{}: {} (line {}): no filter `{}` loaded",
                fail(),
                test.filter,
                test.name,
                test.line,
                test.filter
            ),
            TestOutcome::Failed { diff, .. } => {
                println!(
                    "  {}{}: {} (line {})",
                    fail(),
                    test.filter,
                    test.name,
                    test.line
                );
                for line in diff.lines() {
                    println!("          {line}");
                }
            }
        }
    }
}

fn out_json(suite: &OutSuite) -> serde_json::Value {
    json!({
        "file": suite.file,
        "errors": suite.errors,
        "tests": suite.results.iter().map(|t| {
            let mut test = json!({"filter": t.filter, "name": t.name, "line": t.line, "passed": t.passed()});
            if let TestOutcome::Failed { expected, actual, diff } = &t.outcome {
                test["expected"] = json!(expected);
                test["actual"] = json!(actual);
                test["diff"] = json!(diff);
            }
            test
        }).collect::<Vec<_>>(),
    })
}

fn print_suite(suite: &Suite) {
    println!("{}", suite.file);
    let runs = match &suite.runs {
        Ok(runs) => runs,
        Err(why) => {
            println!("  {}{why}", broken());
            return;
        }
    };
    if runs.is_empty() {
        println!("  (no tests)");
    }
    for test in runs {
        if test.passed() {
            println!("  {}{}", ok(), test.name);
            continue;
        }
        println!("  {}{} (line {})", fail(), test.name, test.line);
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
        Err(why) => json!({"file": suite.file, "error": why.to_string(), "tests": []}),
    }
}
