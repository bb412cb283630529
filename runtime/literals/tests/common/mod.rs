//! The table runner the tests share: each case is a fragment and the texts
//! expected in it, in order.

use hookdex_literals::{string_literals, Language};

/// Checks every case of `cases` against the literals found in `language`.
#[allow(dead_code)] // each test file uses one of the two runners
pub fn literals(language: Language, cases: &[(&str, &[&str])]) {
    table(cases, |text| {
        string_literals(text, language)
            .iter()
            .map(|l| l.text(text))
            .collect()
    });
}

/// Checks every case of `cases` against what `found` finds in its text,
/// and reports all the failures at once.
pub fn table(cases: &[(&str, &[&str])], found: impl for<'t> Fn(&'t str) -> Vec<&'t str>) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|&(text, expected)| {
            let found = found(text);
            (found != expected)
                .then(|| format!("{text:?}\n  expected {expected:?}\n  found    {found:?}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
