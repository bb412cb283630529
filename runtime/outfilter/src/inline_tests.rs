//! Running a file's `[[tests.<filter>]]` entries as rtk's `rtk verify` runs
//! them: each input through [`apply`] alone (no size floor, no marker), the
//! result and `expected` compared with trailing `\n`s trimmed (only `\n`:
//! not `\r`, not spaces), each failure with a line diff.

use crate::filter::FilterFile;
use crate::stages::apply;

/// The result of one inline test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    /// The filter tested.
    pub filter: String,
    /// The test's name.
    pub name: String,
    /// The 1-based line of the test entry.
    pub line: usize,
    /// What happened.
    pub outcome: TestOutcome,
}

/// What happened to one inline test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestOutcome {
    /// The output was the expected one.
    Passed,
    /// The output differed; both sides are trimmed of trailing newlines.
    Failed {
        /// The expected text.
        expected: String,
        /// The text produced.
        actual: String,
        /// A line diff, `-` for expected lines missing, `+` for lines
        /// produced, a space for lines in both.
        diff: String,
    },
    /// The file has no (loaded) filter of that name.
    NoSuchFilter,
}

impl TestResult {
    /// Whether the test passed.
    pub fn passed(&self) -> bool {
        self.outcome == TestOutcome::Passed
    }
}

/// Runs every inline test of `file`, in file order.
///
/// ```
/// let src = r#"
/// schema_version = 1
/// [filters.f]
/// match_command = "^f"
/// strip_lines_matching = ["^noise"]
///
/// [[tests.f]]
/// name = "drops noise"
/// input = "noise\nkept\n"
/// expected = "kept\n"
///
/// [[tests.g]]
/// name = "no such filter"
/// input = ""
/// expected = ""
/// "#;
/// let file = hookdex_outfilter::parse(src).into_result().unwrap();
/// let results = hookdex_outfilter::run_tests(&file);
/// assert!(results[0].passed());
/// assert_eq!(results[1].outcome, hookdex_outfilter::TestOutcome::NoSuchFilter);
/// ```
pub fn run_tests(file: &FilterFile) -> Vec<TestResult> {
    file.tests
        .iter()
        .map(|test| {
            let outcome = match file.filter(&test.filter) {
                None => TestOutcome::NoSuchFilter,
                Some(filter) => {
                    let out = apply(filter, &test.input);
                    let actual = out.text.trim_end_matches('\n');
                    let expected = test.expected.trim_end_matches('\n');
                    if actual == expected {
                        TestOutcome::Passed
                    } else {
                        TestOutcome::Failed {
                            diff: line_diff(expected, actual),
                            expected: expected.to_string(),
                            actual: actual.to_string(),
                        }
                    }
                }
            };
            TestResult {
                filter: test.filter.clone(),
                name: test.name.clone(),
                line: test.line,
                outcome,
            }
        })
        .collect()
}

/// Above this many cells the diff lists every line of both sides instead of
/// aligning them (a quadratic table for test-sized texts only).
const DIFF_CELLS: usize = 1 << 22;

/// A line diff of `expected` against `actual` by longest common subsequence.
fn line_diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.split('\n').collect();
    let b: Vec<&str> = actual.split('\n').collect();
    let mut out = String::new();
    let mut push = |sign: char, line: &str| {
        out.push(sign);
        out.push_str(line);
        out.push('\n');
    };
    if a.len().saturating_mul(b.len()) > DIFF_CELLS {
        a.iter().for_each(|l| push('-', l));
        b.iter().for_each(|l| push('+', l));
        return out;
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let width = b.len() + 1;
    let mut lcs = vec![0usize; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * width + j] = if a[i] == b[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            push(' ', a[i]);
            i += 1;
            j += 1;
        } else if j == b.len()
            || (i < a.len() && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])
        {
            push('-', a[i]);
            i += 1;
        } else {
            push('+', b[j]);
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn diffs() {
        let cases = [
            ("a\nb\nc", "a\nc", " a\n-b\n c\n"),
            ("a", "b", "-a\n+b\n"),
            ("a\nb", "a\nb\nc", " a\n b\n+c\n"),
            ("", "x", "-\n+x\n"),
        ];
        for (expected, actual, diff) in cases {
            assert_eq!(line_diff(expected, actual), diff, "{expected:?} {actual:?}");
        }
    }

    #[test]
    fn comparison_trims_only_newlines() {
        let src = r#"
schema_version = 1
[filters.f]
match_command = "^f"
[[tests.f]]
name = "newlines trimmed"
input = "a\n\n\n"
expected = "a\n"
[[tests.f]]
name = "spaces kept"
input = "a  "
expected = "a"
[[tests.f]]
name = "inner blank lines kept"
input = "a\n\nb"
expected = "a\nb"
"#;
        let file = parse(src).into_result().unwrap();
        let passed: Vec<bool> = run_tests(&file).iter().map(TestResult::passed).collect();
        assert_eq!(passed, [true, false, false]);
        let TestOutcome::Failed { diff, .. } = &run_tests(&file)[2].outcome else {
            panic!()
        };
        assert_eq!(diff, " a\n+\n b\n");
    }
}
