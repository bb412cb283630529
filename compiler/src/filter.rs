//! Validation of `.filter.yaml` files against the filter schema: every key
//! optional, unknown keys and bad values rejected with a reason naming them.

use serde::Deserialize;

/// A filter file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSpec {
    /// Globs matched against the tool's path and its file name.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Input keys whose text is checked.
    #[serde(default)]
    pub fields: Vec<Field>,
    /// Finders that flag spans.
    #[serde(default)]
    pub finders: Vec<Finder>,
    /// How findings are judged.
    #[serde(default)]
    pub mode: Mode,
    /// What the text must be, in plain words.
    #[serde(default)]
    pub intent: String,
    /// A dotted `tool_input` key whose text replaces `intent`.
    pub intent_from: Option<String>,
    /// The yes/no question asked per finding.
    pub question: Option<String>,
    /// What happens to a confirmed finding.
    #[serde(default)]
    pub action: Action,
    /// Send-backs per target before the text passes flagged.
    pub max_rounds: Option<u32>,
}

/// An input key a filter may read.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    /// `text`.
    Text,
    /// `evidence`.
    Evidence,
    /// `case`.
    Case,
    /// `content`.
    Content,
    /// `new_string`.
    NewString,
    /// `new_source`.
    NewSource,
    /// `edits`.
    Edits,
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

/// `mode`.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Findings stand without the classifier.
    Finders,
    /// Each whole text unit is one finding.
    Classifier,
    /// Finders flag, the classifier confirms.
    #[default]
    Both,
}

/// `action`.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Deny with the findings listed.
    #[default]
    SendBack,
    /// Remove the spans.
    Strip,
    /// Allow, noting the findings.
    Flag,
}

/// Parses and validates a filter file's text.
///
/// # Errors
///
/// A one-line reason: the YAML error (with its line), an unknown key, a bad
/// value, an invalid glob or regex, or a finder with neither `regex` nor `script`.
pub fn validate(text: &str) -> Result<FilterSpec, String> {
    let options = serde_saphyr::options! { strict_booleans: true };
    let spec: FilterSpec = if text.trim().is_empty() {
        serde_saphyr::from_str_with_options("{}", options)
    } else {
        serde_saphyr::from_str_with_options(text, options)
    }
    .map_err(|e| one_line(&e.to_string()))?;
    for glob in &spec.paths {
        globset::Glob::new(glob).map_err(|e| format!("paths: `{glob}`: {}", e.kind()))?;
    }
    for finder in &spec.finders {
        match (&finder.regex, &finder.script) {
            (Some(regex), None) => {
                regex_automata::meta::Regex::new(regex).map_err(|e| {
                    format!("finders: regex `{regex}`: {}", one_line(&e.to_string()))
                })?;
            }
            (None, Some(_)) => {}
            _ => return Err("finders: each entry needs exactly one of `regex` or `script`".into()),
        }
    }
    if spec.max_rounds == Some(0) {
        return Err("max_rounds: must be at least 1".into());
    }
    if spec.mode == Mode::Finders && spec.finders.is_empty() {
        return Err("mode `finders` needs at least one finder".into());
    }
    Ok(spec)
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
            assert!(validate(text).is_ok(), "{text}: {:?}", validate(text).err());
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
            let err = validate(text).unwrap_err();
            assert!(err.contains(want), "{text}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }
}
