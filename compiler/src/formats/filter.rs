//! The `.filter.yaml` format: the filter schema (every key optional,
//! unknown keys and bad values rejected with a reason naming them and
//! where they are), compiled to the index's filter record with its automata.

use hookdex_index::{FilterData, FinderData};
use hookdex_model::{FilterAction, FilterField, FilterMode};
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::automata;
use crate::error::RuleErrorKind;

/// A filter file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FilterSpec {
    /// Globs matched against the tool's path and its file name.
    #[serde(default)]
    pub paths: Vec<Spanned<String>>,
    /// Input keys whose text is checked.
    #[serde(default)]
    pub fields: Vec<FilterField>,
    /// Finders that flag spans.
    #[serde(default)]
    pub finders: Vec<Spanned<Finder>>,
    /// How findings are judged (default `both`).
    pub mode: Option<Spanned<FilterMode>>,
    /// What the text must be, in plain words.
    #[serde(default)]
    pub intent: String,
    /// A dotted `tool_input` key whose text replaces `intent`.
    pub intent_from: Option<String>,
    /// The yes/no question asked per finding.
    pub question: Option<String>,
    /// What happens to a confirmed finding.
    #[serde(default)]
    pub action: FilterAction,
    /// Send-backs per target before the text passes flagged.
    pub max_rounds: Option<Spanned<u32>>,
    /// Inline tests of the finders, run by `hookdex test`.
    #[serde(default)]
    pub tests: Vec<Spanned<TestSpec>>,
}

/// One inline test as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TestSpec {
    name: String,
    tool: Option<String>,
    path: Option<String>,
    text: String,
    expect: Vec<String>,
}

/// One inline test of a filter: the spans its finders must flag in `text`
/// offered by `tool` for `path` (none, when `path` is outside the filter's
/// `paths`), the classifier not asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterTest {
    /// Its name, unique in the file.
    pub name: String,
    /// The tool offering the text (default `Write`).
    pub tool: String,
    /// The file the text lands in (`None`: none, as a synthetic tool's).
    pub path: Option<String>,
    /// The text.
    pub text: String,
    /// The flagged spans' texts, in order.
    pub expect: Vec<String>,
    /// Its 1-based line in the file.
    pub line: u32,
}

/// A filter file read whole: the filter and its inline tests.
#[derive(Clone, Debug)]
pub struct FilterFile {
    /// The compiled filter (its `rule` is `u32::MAX`).
    pub filter: FilterData,
    /// Its `tests:`, in order.
    pub tests: Vec<FilterTest>,
}

/// The tool an inline test's text is offered by when it names none.
pub const DEFAULT_TEST_TOOL: &str = "Write";

/// One finder: an inline regex or a named script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Finder {
    /// An inline regular expression.
    pub regex: Option<Spanned<String>>,
    /// A named finder (`string_literals`, or a `_finders/<name>` script).
    pub script: Option<String>,
    /// The reason attached to each finding.
    pub reason: Option<String>,
}

/// Parses and validates a filter file's text and builds its automata. The
/// result's `rule` is `u32::MAX` until ids are assigned after override resolution.
///
/// # Errors
///
/// As [`read`].
pub(crate) fn compile(text: &str) -> Result<FilterData, (RuleErrorKind, Option<(u32, u32)>)> {
    read(text).map(|file| file.filter)
}

/// Parses and validates a filter file's text, builds its automata and
/// reads its inline tests.
///
/// # Errors
///
/// What is wrong and, for YAML errors, where (1-based line and column): the
/// YAML error, an unknown key, a bad value, an invalid glob or regex, a
/// finder with neither `regex` nor `script`, or two tests of one name.
pub fn read(text: &str) -> Result<FilterFile, (RuleErrorKind, Option<(u32, u32)>)> {
    let options = serde_saphyr::options! { strict_booleans: true };
    let spec: FilterSpec = if text.trim().is_empty() {
        serde_saphyr::from_str_with_options("{}", options)
    } else {
        serde_saphyr::from_str_with_options(text, options)
    }
    .map_err(|e| with_key(text, yaml_error(&e)))?;
    let key = |key: &str, reason: &str, at: &Location| {
        (
            RuleErrorKind::Key {
                key: key.into(),
                reason: reason.into(),
            },
            place(at),
        )
    };
    if let Some(rounds) = spec.max_rounds.as_ref().filter(|r| r.value == 0) {
        return Err(key("max_rounds", "must be at least 1", &rounds.referenced));
    }
    let mode = spec
        .mode
        .as_ref()
        .map_or(FilterMode::default(), |m| m.value);
    if let (Some(written), true) = (&spec.mode, mode == FilterMode::Finders) {
        if spec.finders.is_empty() {
            return Err(key(
                "mode",
                "`finders` needs at least one finder",
                &written.referenced,
            ));
        }
    }
    let paths: Vec<String> = spec.paths.iter().map(|p| p.value.clone()).collect();
    let globs = automata::glob_sets(&paths)
        .map_err(|(at, kind)| (kind, place(&spec.paths[at].referenced)))?;
    let mut finders = Vec::with_capacity(spec.finders.len());
    for entry in spec.finders {
        let finder = entry.value;
        finders.push(match (finder.regex, finder.script) {
            (Some(source), None) => {
                let (forward, reverse) =
                    automata::finder(&source.value).map_err(|e| (e, place(&source.referenced)))?;
                FinderData::Regex {
                    source: source.value,
                    reason: finder.reason,
                    forward,
                    reverse,
                }
            }
            (None, Some(name)) => FinderData::Script {
                name,
                reason: finder.reason,
            },
            _ => {
                return Err(key(
                    "finders",
                    "each entry needs exactly one of `regex` or `script`",
                    &entry.referenced,
                ))
            }
        });
    }
    let mut tests: Vec<FilterTest> = Vec::with_capacity(spec.tests.len());
    for entry in spec.tests {
        let test = entry.value;
        if tests.iter().any(|t| t.name == test.name) {
            let reason = format!("two tests are called `{}`", test.name);
            return Err(key("tests", &reason, &entry.referenced));
        }
        tests.push(FilterTest {
            name: test.name,
            tool: test.tool.unwrap_or_else(|| DEFAULT_TEST_TOOL.into()),
            path: test.path,
            text: test.text,
            expect: test.expect,
            line: place(&entry.referenced).map_or(0, |(line, _)| line),
        });
    }
    let filter = FilterData {
        rule: u32::MAX,
        mode,
        action: spec.action,
        fields: spec.fields.iter().fold(0, |set, f| set | f.bit()),
        max_rounds: spec.max_rounds.map_or(3, |r| r.value),
        intent: spec.intent,
        intent_from: spec.intent_from,
        question: spec.question,
        globs,
        finders,
    };
    Ok(FilterFile { filter, tests })
}

/// A known location as 1-based `(line, column)`.
fn place(at: &Location) -> Option<(u32, u32)> {
    (at.line() > 0).then(|| (at.line() as u32, at.column() as u32))
}

/// A YAML error as one line without its position, and the position apart.
pub(crate) fn yaml_error(err: &serde_saphyr::Error) -> (RuleErrorKind, Option<(u32, u32)>) {
    let span = err.location().as_ref().and_then(place);
    let text = err.without_snippet().to_string();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let message = match text.rfind(" at line ") {
        Some(at) if span.is_some() => text[..at].to_string(),
        _ => text,
    };
    (RuleErrorKind::Syntax(with_suggestion(message)), span)
}

/// A YAML error at a line that sets a key (`mode: sometimes`, `- regex:
/// …`) as an error of that key, when the message does not name it already:
/// serde names a bad value (`unknown variant `sometimes``) but not its key.
fn with_key(
    text: &str,
    (kind, span): (RuleErrorKind, Option<(u32, u32)>),
) -> (RuleErrorKind, Option<(u32, u32)>) {
    let RuleErrorKind::Syntax(reason) = &kind else {
        return (kind, span);
    };
    let key = span
        .and_then(|(line, _)| text.lines().nth(line.checked_sub(1)? as usize))
        .and_then(|line| line.trim_start().trim_start_matches("- ").split_once(':'))
        .map(|(key, _)| key.trim())
        .filter(|key| {
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
        .filter(|key| !reason.contains(&format!("`{key}`")));
    match key {
        Some(key) => (
            RuleErrorKind::Key {
                key: key.to_string(),
                reason: reason.clone(),
            },
            span,
        ),
        None => (kind, span),
    }
}

/// serde's `unknown field `x`, expected one of …` (the key files of
/// filters, `hooks.yaml` and their nested tables) as `unknown key `x`
/// (did you mean `y`?); expected one of …` when a known key is
/// [`nearest`](hookdex_model::text::nearest) to it; any other message as it is.
pub(crate) fn with_suggestion(message: String) -> String {
    let Some(rest) = message.strip_prefix("unknown field ") else {
        return message;
    };
    let Some((key, expected)) = rest.split_once(", expected ") else {
        return message;
    };
    let known: Vec<&str> = expected
        .trim_start_matches("one of ")
        .split(", ")
        .flat_map(|k| k.split(" or "))
        .map(|k| k.trim_matches('`'))
        .collect();
    let key = key.trim_matches('`');
    match hookdex_model::text::nearest(key, &known) {
        Some(near) => format!("unknown key `{key}` (did you mean `{near}`?); expected {expected}"),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_typo_names_the_nearest_key() {
        let Err((kind, _)) = compile("finders:\n  - regex: x\n    reasn: r\n") else {
            panic!("reasn parsed");
        };
        let text = kind.to_string();
        assert!(
            text.contains("unknown key `reasn` (did you mean `reason`?)"),
            "{text}"
        );
        let Err((kind, at)) = compile("finders:\n  - regex: x\nmode: sometimes\n") else {
            panic!("sometimes parsed");
        };
        assert!(
            kind.to_string()
                .starts_with("mode: unknown variant `sometimes`"),
            "{kind}"
        );
        assert_eq!(at.map(|(line, _)| line), Some(3));
        let Err((kind, _)) = compile("colour: red\n") else {
            panic!("colour parsed");
        };
        assert!(!kind.to_string().contains("did you mean"), "{kind}");
    }

    #[test]
    fn valid_filters() {
        let ok = [
            "",
            "paths: ['**/*.tsx']\nfinders:\n  - script: string_literals\nmode: both\naction: send-back\nintent: plain\n",
            "finders:\n  - regex: '(?i)because'\n    reason: explanation\nmode: finders\naction: strip\nmax_rounds: 2\n",
            "fields: [new_string, content]\nmode: classifier\n",
        ];
        for text in ok {
            assert!(compile(text).is_ok(), "{text}: {:?}", compile(text).err());
        }
    }

    #[test]
    fn invalid_filters_say_why() {
        let bad = [
            ("colour: red\n", "colour"),
            ("mode: loud\n", "loud"),
            ("action: shout\n", "shout"),
            ("max_rounds: 0\n", "max_rounds"),
            ("paths: ['a[']\n", "paths"),
            ("finders:\n  - regex: '('\n", "regex"),
            ("finders:\n  - reason: x\n", "exactly one"),
            ("fields: [body]\n", "body"),
            ("mode: finders\n", "needs at least one finder"),
            ("paths: [\n", ""),
        ];
        for (text, want) in bad {
            let err = compile(text).unwrap_err().0.to_string();
            assert!(err.contains(want), "{text}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn checks_after_parsing_point_at_their_value() {
        let cases = [
            ("intent: x\nmax_rounds: 0\n", "max_rounds", 2),
            ("intent: x\n\nmode: finders\n", "mode", 3),
            ("paths:\n  - '*.rs'\n  - 'a['\n", "paths", 3),
            ("finders:\n  - script: x\n  - regex: '('\n", "finders", 3),
            ("finders:\n  - script: x\n  - reason: y\n", "finders", 3),
        ];
        for (text, key, line) in cases {
            let (kind, span) = compile(text).unwrap_err();
            assert!(kind.to_string().starts_with(key), "{text}: {kind}");
            assert_eq!(span.map(|(l, _)| l), Some(line), "{text}: {kind}");
        }
    }

    #[test]
    fn inline_tests_are_read_with_their_line() {
        let text = "finders:\n  - regex: 'x+'\ntests:\n  - name: one\n    text: axxb\n    expect: [xx]\n  - name: two\n    tool: ledger_write\n    path: /a.py\n    text: b\n    expect: []\n";
        let file = read(text).unwrap();
        assert_eq!(file.tests.len(), 2);
        assert_eq!(
            (
                file.tests[0].tool.as_str(),
                file.tests[0].line,
                &file.tests[0].expect[..]
            ),
            ("Write", 4, &["xx".to_string()][..])
        );
        assert_eq!(
            (
                file.tests[1].tool.as_str(),
                file.tests[1].path.as_deref(),
                file.tests[1].line
            ),
            ("ledger_write", Some("/a.py"), 7)
        );
        let bad = [
            ("tests:\n  - name: a\n    text: b\n", "expect"),
            (
                "tests:\n  - name: a\n    text: b\n    expect: []\n    colour: red\n",
                "colour",
            ),
            (
                "tests:\n  - {name: a, text: b, expect: []}\n  - {name: a, text: c, expect: []}\n",
                "two tests are called `a`",
            ),
        ];
        for (text, want) in bad {
            let err = read(text).unwrap_err().0.to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn yaml_errors_keep_their_line_and_column() {
        let (kind, span) = compile("intent: plain\nmode: loud\n").unwrap_err();
        assert_eq!(span, Some((2, 7)), "{kind}");
        let message = kind.to_string();
        assert!(message.contains("loud"), "{message}");
        assert!(
            !message.contains("line 2"),
            "the place is in the span: {message}"
        );
    }
}
