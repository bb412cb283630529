//! The table runner the language tests share: each case is a fragment and
//! the texts of the literals expected in it, in order.

use hookdex_literals::{string_literals, Language};

/// Checks every case of `cases` and reports all the failures at once.
pub fn literals(language: Language, cases: &[(&str, &[&str])]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|&(text, expected)| {
            let found: Vec<&str> = string_literals(text, language)
                .iter()
                .map(|l| l.text(text))
                .collect();
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
