//! Validation of `.filter.yaml` files against the filter schema: every key
//! optional, unknown keys and bad values rejected with a reason naming them.

use hookdex_runtime::index::{FilterData, FinderData};
use hookdex_runtime::rule::{FilterAction, FilterField, FilterMode};
use serde::Deserialize;

use crate::automata;

/// A filter file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSpec {
    /// Globs matched against the tool's path and its file name.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Input keys whose text is checked.
    #[serde(default)]
    pub fields: Vec<FilterField>,
    /// Finders that flag spans.
    #[serde(default)]
    pub finders: Vec<Finder>,
    /// How findings are judged.
    #[serde(default)]
    pub mode: FilterMode,
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
    pub max_rounds: Option<u32>,
}

/// One finder: an inline regex or a named script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finder {
    /// An inline regular expression.
    pub regex: Option<String>,
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
/// A one-line reason: the YAML error (with its line), an unknown key, a bad
/// value, an invalid glob or regex, or a finder with neither `regex` nor `script`.
pub fn compile(text: &str) -> Result<FilterData, String> {
    let options = serde_saphyr::options! { strict_booleans: true };
    let spec: FilterSpec = if text.trim().is_empty() {
        serde_saphyr::from_str_with_options("{}", options)
    } else {
        serde_saphyr::from_str_with_options(text, options)
    }
    .map_err(|e| one_line(&e.to_string()))?;
    if spec.max_rounds == Some(0) {
        return Err("max_rounds: must be at least 1".into());
    }
    if spec.mode == FilterMode::Finders && spec.finders.is_empty() {
        return Err("mode `finders` needs at least one finder".into());
    }
    let globs = automata::glob_sets(&spec.paths)?;
    let mut finders = Vec::with_capacity(spec.finders.len());
    for finder in spec.finders {
        finders.push(match (finder.regex, finder.script) {
            (Some(source), None) => {
                let (forward, reverse) = automata::finder(&source)?;
                FinderData::Regex {
                    source,
                    reason: finder.reason,
                    forward,
                    reverse,
                }
            }
            (None, Some(name)) => FinderData::Script {
                name,
                reason: finder.reason,
            },
            _ => return Err("finders: each entry needs exactly one of `regex` or `script`".into()),
        });
    }
    Ok(FilterData {
        rule: u32::MAX,
        mode: spec.mode,
        action: spec.action,
        fields: spec.fields.iter().fold(0, |set, f| set | f.bit()),
        max_rounds: spec.max_rounds.unwrap_or(3),
        intent: spec.intent,
        intent_from: spec.intent_from,
        question: spec.question,
        globs,
        finders,
    })
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
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
            let err = compile(text).unwrap_err();
            assert!(err.contains(want), "{text}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }
}
