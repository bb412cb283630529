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
}

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
/// What is wrong and, for YAML errors, where (1-based line and column): the
/// YAML error, an unknown key, a bad value, an invalid glob or regex, or a
/// finder with neither `regex` nor `script`.
pub(crate) fn compile(text: &str) -> Result<FilterData, (RuleErrorKind, Option<(u32, u32)>)> {
    let options = serde_saphyr::options! { strict_booleans: true };
    let spec: FilterSpec = if text.trim().is_empty() {
        serde_saphyr::from_str_with_options("{}", options)
    } else {
        serde_saphyr::from_str_with_options(text, options)
    }
    .map_err(|e| yaml_error(&e))?;
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
    Ok(FilterData {
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
    })
}

/// A known location as 1-based `(line, column)`.
fn place(at: &Location) -> Option<(u32, u32)> {
    (at.line() > 0).then(|| (at.line() as u32, at.column() as u32))
}

/// A YAML error as one line without its position, and the position apart.
fn yaml_error(err: &serde_saphyr::Error) -> (RuleErrorKind, Option<(u32, u32)>) {
    let span = err.location().as_ref().and_then(place);
    let text = err.without_snippet().to_string();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let message = match text.rfind(" at line ") {
        Some(at) if span.is_some() => text[..at].to_string(),
        _ => text,
    };
    (RuleErrorKind::Syntax(message), span)
}

#[cfg(test)]
mod tests {
    use super::*;

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
