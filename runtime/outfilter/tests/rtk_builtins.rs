//! rtk's own builtin filter files, read by this crate's parser and their
//! inline tests run by this crate's engine. rtk's files are not ours, so they
//! are not in the tree: point `RTK_FILTERS_DIR` at rtk's `src/filters/` and
//! run `cargo test -p hookdex-outfilter --test rtk_builtins -- --ignored --nocapture`.
//!
//! rtk concatenates those files after one `schema_version = 1` line
//! (`build.rs`); each file here gets that line in front of it.

use hookdex_outfilter::{parse, run_tests, TestOutcome};

#[test]
#[ignore = "needs RTK_FILTERS_DIR, rtk's src/filters/"]
fn rtk_builtin_inline_tests_pass() {
    let Some(dir) = std::env::var_os("RTK_FILTERS_DIR") else {
        println!("SKIPPED: RTK_FILTERS_DIR is not set");
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let (mut filters, mut passed, mut failed) = (0, 0, Vec::new());
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let parsed = parse(&format!("schema_version = 1\n\n{text}"));
        for error in &parsed.errors {
            failed.push(format!("{}: {error}", path.display()));
        }
        filters += parsed.file.filters.len();
        for result in run_tests(&parsed.file) {
            match result.outcome {
                TestOutcome::Passed => passed += 1,
                TestOutcome::Failed { diff, .. } => {
                    failed.push(format!("{} / {}:\n{diff}", result.filter, result.name))
                }
                TestOutcome::NoSuchFilter => failed.push(format!(
                    "{} / {}: no such filter",
                    result.filter, result.name
                )),
            }
        }
    }
    println!(
        "{} files, {filters} filters, {passed}/{} inline tests pass",
        paths.len(),
        passed + failed.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
