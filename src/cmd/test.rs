//! `hookdex test [FILE…] [--json]` (**contract**): runs the inline tests of
//! rule files — text filters' `tests:` and output filters'
//! `[[tests.<name>]]`, as rtk runs its own — and rules' case files
//! (`<rule>.test.yaml`, each case through `hookdex try`'s pipeline with the
//! rule alone), of the files named ([`report::sort_files`]: a `.toml` is an
//! output-filter file, a YAML file a case file or a filter file by its
//! content, any other file a rule tested by the case file beside it), or
//! of every shipped filter and every case file of the person's layers and
//! the package when none is; prints each failing test with what differs,
//! and exits 1 on any failure or unreadable file, 0 when every test
//! passed.

use std::path::PathBuf;

use hookdex_model::Target;
use hookdex_outfilter::TestOutcome;
use hookdex_runtime::filters::inline::{suites, Suite, TestRun};
use hookdex_runtime::outfilters::{out_suites, OutSuite};
use hookdex_runtime::report::{self, CaseSuite};
use serde_json::json;

use super::{current_settings, print_json, CmdResult};
use crate::paint::{self, Tone};

/// Runs the tests of `files` and prints the result.
pub fn run(files: &[PathBuf], json: bool) -> CmdResult {
    let sorted = report::sort_files(files);
    let every = files.is_empty();
    let settings = current_settings(Target::Claude);
    let suites = if every || !sorted.filters.is_empty() {
        super::supervised(|| suites(&settings, &sorted.filters))
    } else {
        Vec::new()
    };
    let out = if every || !sorted.outfilters.is_empty() {
        out_suites(&sorted.outfilters)
    } else {
        Vec::new()
    };
    let cases = if every || !sorted.cases.is_empty() {
        super::supervised(|| report::case_suites(&settings, &sorted.cases, every))
    } else {
        Vec::new()
    };
    let tests: Vec<&TestRun> = suites
        .iter()
        .filter_map(|s| s.runs.as_ref().ok())
        .flatten()
        .collect();
    let out_tests = out.iter().flat_map(|s| &s.results);
    let case_runs = cases.iter().filter_map(|s| s.runs.as_ref().ok()).flatten();
    let total = tests.len() + out_tests.clone().count() + case_runs.clone().count();
    let failed = tests.iter().filter(|t| !t.passed()).count()
        + out_tests.filter(|t| !t.passed()).count()
        + case_runs.filter(|t| !t.passed()).count();
    let broken = suites.iter().filter(|s| s.runs.is_err()).count()
        + out.iter().filter(|s| !s.errors.is_empty()).count()
        + cases.iter().filter(|s| s.runs.is_err()).count();
    if json {
        print_json(&json!({
            "files": suites.iter().map(suite_json).chain(out.iter().map(out_json)).chain(cases.iter().map(cases_json)).collect::<Vec<_>>(),
            "untested": sorted.untested.iter().map(|(file, write)| json!({"file": file, "write": write})).collect::<Vec<_>>(),
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
        for suite in &cases {
            print_case_suite(suite);
        }
        for (file, write) in &sorted.untested {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            println!("{name}: no tests (write {write} beside it)");
        }
        println!(
            "{total} tests in {} files: {} passed, {failed} failed{}",
            suites.len() + out.len() + cases.len(),
            total - failed,
            match broken {
                0 => String::new(),
                n => format!(", {n} files could not be read whole"),
            }
        );
    }
    Ok(if failed > 0 || broken > 0 { 1 } else { 0 })
}

fn print_case_suite(suite: &CaseSuite) {
    match &suite.rule {
        Some(rule) => println!("{} (rule {rule})", suite.file),
        None => println!("{}", suite.file),
    }
    let runs = match &suite.runs {
        Ok(runs) => runs,
        Err(why) => {
            println!("  {}{why}", broken());
            return;
        }
    };
    for case in runs {
        if case.passed() {
            println!("  {}{}", ok(), case.name);
            continue;
        }
        println!("  {}{} (line {})", fail(), case.name, case.line);
        for failure in &case.failures {
            println!("          {failure}");
        }
    }
}

fn cases_json(suite: &CaseSuite) -> serde_json::Value {
    match &suite.runs {
        Ok(runs) => json!({
            "file": suite.file,
            "rule": suite.rule,
            "tests": runs.iter().map(|c| json!({
                "name": c.name,
                "line": c.line,
                "passed": c.passed(),
                "failures": c.failures,
                "got": c.got,
            })).collect::<Vec<_>>(),
        }),
        Err(why) => {
            json!({"file": suite.file, "rule": suite.rule, "error": why.to_string(), "tests": []})
        }
    }
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
