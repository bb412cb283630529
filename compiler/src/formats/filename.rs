//! The filename grammar `<step>-<matcher>-<name>[.async].<ext>`: step before
//! the first `-`, name after the last, matcher in between (so MCP names with
//! hyphens work). `prompt-<name>.<ext>` and `stop-<name>.<ext>` have no matcher.

use hookdex_model::{Alternative, RuleKind, Step};

use crate::error::RuleErrorKind;
use crate::formats::matcher::{self, MatcherError};

/// What a file in a conditions directory is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileClass {
    /// Skipped silently: dotfiles, `_`-prefixed names, backups (`~`), `*.md`.
    Ignored,
    /// An output-filter file (`*.outfilter.toml`, rtk's `filters.toml`),
    /// read by [`super::outfilter`], never a rule.
    OutFilters,
    /// A rule's test cases (`<rule>.test.yaml`, [`super::cases`]), read by
    /// `hookdex test`, never a rule.
    Cases,
    /// A rule file whose name parses.
    Rule(RuleName),
    /// A file whose name does not parse, with the reason.
    Invalid(RuleErrorKind),
}

/// The parts of a rule filename.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleName {
    /// The step.
    pub step: Step,
    /// The matcher, lowercased (empty for `prompt` and `stop`).
    pub matcher: String,
    /// The parsed matcher alternatives (empty for `prompt` and `stop`).
    pub alternatives: Vec<Alternative>,
    /// The name part.
    pub name: String,
    /// Whether the file is `.async`.
    pub is_async: bool,
    /// The extension, lowercased (`sh`, `py`, `filter.yaml`).
    pub ext: String,
    /// Condition or filter.
    pub kind: RuleKind,
    /// The override key: `<step>-<matcher>-<name>` lowercased.
    pub key: String,
}

/// Classifies one file name.
pub fn classify(file_name: &str) -> FileClass {
    if file_name.starts_with('.')
        || file_name.starts_with('_')
        || file_name.ends_with('~')
        || file_name.to_ascii_lowercase().ends_with(".md")
    {
        return FileClass::Ignored;
    }
    if super::outfilter::is_outfilter_file(file_name) {
        return FileClass::OutFilters;
    }
    if super::cases::is_cases_file(file_name) {
        return FileClass::Cases;
    }
    match parse(file_name) {
        Ok(name) => FileClass::Rule(name),
        Err(reason) => FileClass::Invalid(RuleErrorKind::Name(reason.to_string())),
    }
}

const GRAMMAR: &str = "expected `<step>-<matcher>-<name>[.async].<ext>`";

/// Why a file name is not a rule's.
#[derive(Debug)]
enum NameError {
    NoDash,
    Step(hookdex_model::Error),
    NoMatcher,
    TakesNoMatcher(Step),
    Matcher(MatcherError),
    EmptyName,
    NoExtension,
    EmptyExtensionPart,
    AsyncFilter,
    FilterNotPre(Step),
    AsyncGuard,
    GuardNotPre(Step),
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameError::NoDash => write!(f, "no `-` in the name: {GRAMMAR}"),
            NameError::Step(e) => write!(f, "{e}"),
            NameError::NoMatcher => write!(f, "no matcher: {GRAMMAR}"),
            NameError::TakesNoMatcher(step) => write!(
                f,
                "`{step}` takes no matcher: expected `{step}-<name>.<ext>`",
                step = step.as_str()
            ),
            NameError::Matcher(e) => write!(f, "{e}"),
            NameError::EmptyName => write!(f, "empty name: {GRAMMAR}"),
            NameError::NoExtension => write!(f, "no extension: {GRAMMAR}"),
            NameError::EmptyExtensionPart => write!(f, "empty extension part: {GRAMMAR}"),
            NameError::AsyncFilter => write!(
                f,
                "a filter cannot be `.async`: its answer is needed before the tool runs"
            ),
            NameError::FilterNotPre(step) => write!(
                f,
                "a filter runs at `pre`, before the text it checks lands, not at `{}`",
                step.as_str()
            ),
            NameError::AsyncGuard => write!(
                f,
                "a guard cannot be `.async`: its answer is needed before the tool runs"
            ),
            NameError::GuardNotPre(step) => write!(
                f,
                "a guard decides at `pre`, before the tool runs, not at `{}`",
                step.as_str()
            ),
        }
    }
}

fn parse(file_name: &str) -> Result<RuleName, NameError> {
    let Some((step_token, rest)) = file_name.split_once('-') else {
        return Err(NameError::NoDash);
    };
    let step: Step = step_token.parse().map_err(NameError::Step)?;
    let (matcher, tail) = if step.has_matcher() {
        let Some((matcher, tail)) = rest.rsplit_once('-') else {
            return Err(NameError::NoMatcher);
        };
        (matcher.to_ascii_lowercase(), tail)
    } else {
        if rest.contains('-') {
            return Err(NameError::TakesNoMatcher(step));
        }
        (String::new(), rest)
    };
    let alternatives = if step.has_matcher() {
        matcher::parse(&matcher).map_err(NameError::Matcher)?
    } else {
        Vec::new()
    };
    let mut parts = tail.split('.');
    let name = parts.next().unwrap_or_default();
    if name.is_empty() {
        return Err(NameError::EmptyName);
    }
    let rest: Vec<&str> = parts.collect();
    let (is_async, ext_parts) = match rest.split_first() {
        None => return Err(NameError::NoExtension),
        Some((first, more)) if first.eq_ignore_ascii_case("async") && !more.is_empty() => {
            (true, more)
        }
        Some(_) => (false, rest.as_slice()),
    };
    if ext_parts.iter().any(|p| p.is_empty()) {
        return Err(NameError::EmptyExtensionPart);
    }
    let ext = ext_parts.join(".").to_ascii_lowercase();
    let kind = match ext.as_str() {
        "filter.yaml" | "filter.yml" => RuleKind::Filter,
        "guard.yaml" | "guard.yml" => RuleKind::Guard,
        _ => RuleKind::Condition,
    };
    match kind {
        RuleKind::Filter if is_async => return Err(NameError::AsyncFilter),
        RuleKind::Filter if step != Step::Pre => return Err(NameError::FilterNotPre(step)),
        RuleKind::Guard if is_async => return Err(NameError::AsyncGuard),
        RuleKind::Guard if step != Step::Pre => return Err(NameError::GuardNotPre(step)),
        _ => {}
    }
    let key = if step.has_matcher() {
        format!("{}-{matcher}-{}", step.as_str(), name.to_ascii_lowercase())
    } else {
        format!("{}-{}", step.as_str(), name.to_ascii_lowercase())
    };
    Ok(RuleName {
        step,
        matcher,
        alternatives,
        name: name.to_string(),
        is_async,
        ext,
        kind,
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (file name, step, matcher, name, async, ext, key)
    const RULES: &[(&str, Step, &str, &str, bool, &str, &str)] = &[
        (
            "pre-bash.git-guard.sh",
            Step::Pre,
            "bash.git",
            "guard",
            false,
            "sh",
            "pre-bash.git-guard",
        ),
        (
            "post-bash.pytest-trim.py",
            Step::Post,
            "bash.pytest",
            "trim",
            false,
            "py",
            "post-bash.pytest-trim",
        ),
        (
            "pre-edit+write-migrations.sh",
            Step::Pre,
            "edit+write",
            "migrations",
            false,
            "sh",
            "pre-edit+write-migrations",
        ),
        (
            "post-mcp__gateway-tools-audit.async.sh",
            Step::Post,
            "mcp__gateway-tools",
            "audit",
            true,
            "sh",
            "post-mcp__gateway-tools-audit",
        ),
        (
            "pre-mcp__gateway-tools__github-create_pull_request-audit.py",
            Step::Pre,
            "mcp__gateway-tools__github-create_pull_request",
            "audit",
            false,
            "py",
            "pre-mcp__gateway-tools__github-create_pull_request-audit",
        ),
        (
            "pre-bash-x.async.py",
            Step::Pre,
            "bash",
            "x",
            true,
            "py",
            "pre-bash-x",
        ),
        (
            "PRE-Bash-Loud.SH",
            Step::Pre,
            "bash",
            "Loud",
            false,
            "sh",
            "pre-bash-loud",
        ),
        (
            "pre-edit+write+multiedit-ui_slop.filter.yaml",
            Step::Pre,
            "edit+write+multiedit",
            "ui_slop",
            false,
            "filter.yaml",
            "pre-edit+write+multiedit-ui_slop",
        ),
        (
            "prompt-remind.sh",
            Step::Prompt,
            "",
            "remind",
            false,
            "sh",
            "prompt-remind",
        ),
        (
            "stop-summary.py",
            Step::Stop,
            "",
            "summary",
            false,
            "py",
            "stop-summary",
        ),
        (
            "start-startup-banner.sh",
            Step::Start,
            "startup",
            "banner",
            false,
            "sh",
            "start-startup-banner",
        ),
        ("pre-any-audit", Step::Pre, "any", "audit", false, "", ""),
        (
            "pre-any-run.rb",
            Step::Pre,
            "any",
            "run",
            false,
            "rb",
            "pre-any-run",
        ),
    ];

    #[test]
    fn rule_names_parse() {
        for (file, step, matcher, name, is_async, ext, key) in RULES {
            match classify(file) {
                FileClass::Rule(r) => {
                    assert_eq!(
                        (
                            r.step,
                            r.matcher.as_str(),
                            r.name.as_str(),
                            r.is_async,
                            r.ext.as_str(),
                            r.key.as_str()
                        ),
                        (*step, *matcher, *name, *is_async, *ext, *key),
                        "{file}"
                    );
                }
                FileClass::Invalid(reason) if ext.is_empty() => {
                    let reason = reason.to_string();
                    assert!(reason.contains("no extension"), "{file}: {reason}")
                }
                other => panic!("{file}: {other:?}"),
            }
        }
    }

    #[test]
    fn ignored_names() {
        for file in [
            ".hidden.sh",
            "_finders",
            "_helper.py",
            "pre-bash-x.sh~",
            "README.md",
            "notes.MD",
        ] {
            assert_eq!(classify(file), FileClass::Ignored, "{file}");
        }
    }

    #[test]
    fn case_files_are_not_rules() {
        for file in [
            "pre-bash.kubectl-guard.test.yaml",
            "pre-bash-x.test.yml",
            "pre-bash-x.TEST.YAML",
        ] {
            assert_eq!(classify(file), FileClass::Cases, "{file}");
        }
        assert!(matches!(classify("pre-bash-x.test.sh"), FileClass::Rule(_)));
    }

    #[test]
    fn invalid_names_say_why() {
        let cases = [
            ("guard.sh", "no `-`"),
            ("during-bash-x.sh", "unknown step `during`"),
            ("pre-x.sh", "no matcher"),
            ("pre-bash-.sh", "empty name"),
            ("pre-bash-x.", "empty extension"),
            ("pre-mcp__-x.sh", "names no server"),
            ("pre-mcp__s__-x.sh", "names no tool"),
            ("pre-bash.-x.sh", "names no program"),
            ("pre-edit++write-x.sh", "empty alternative"),
            ("pre-bash*-x.sh", "character `*`"),
            ("pre-edit-x.async.filter.yaml", "cannot be `.async`"),
            ("post-edit-x.filter.yaml", "a filter runs at `pre`"),
            ("prompt-a-b.sh", "takes no matcher"),
        ];
        for (file, want) in cases {
            match classify(file) {
                FileClass::Invalid(reason) => {
                    let reason = reason.to_string();
                    assert!(reason.contains(want), "{file}: {reason}")
                }
                other => panic!("{file}: {other:?}"),
            }
        }
    }
}
