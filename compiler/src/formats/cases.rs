//! A rule's test cases: `<rule name without extension>.test.yaml` beside
//! the rule (`pre-bash.kubectl-guard.test.yaml` beside
//! `pre-bash.kubectl-guard.sh`), a YAML list of calls and what the rule
//! must answer to each. `hookdex test` runs them through the hook's own
//! pipeline (`hookdex try`), the rule alone; the compiler only reads them,
//! and never lists them as rules ([`super::filename::FileClass::Cases`]).
//!
//! ```yaml
//! - name: a write is denied
//!   command: kubectl delete pod x        # tool defaults to Bash, step to pre
//!   expect: {decision: deny, reason: GitOps}
//! - name: a read passes
//!   command: kubectl get pods
//!   expect: {decision: none}
//! ```

use serde::Deserialize;
use serde_json::{Map, Value};
use serde_saphyr::Spanned;

use super::filter::yaml_error;
use crate::error::RuleErrorKind;

/// The endings of a case file's name.
const ENDINGS: &[&str] = &[".test.yaml", ".test.yml"];

/// Whether `file_name` names a case file (`*.test.yaml`, `*.test.yml`).
pub fn is_cases_file(file_name: &str) -> bool {
    let lower = file_name.to_ascii_lowercase();
    ENDINGS.iter().any(|end| lower.ends_with(end))
}

/// The rule name a case file's name tests: its name without `.test.yaml`
/// (`pre-bash.x.test.yaml` → `pre-bash.x`); `None` for another file.
pub fn rule_stem(file_name: &str) -> Option<&str> {
    let lower = file_name.to_ascii_lowercase();
    let end = ENDINGS.iter().find(|end| lower.ends_with(*end))?;
    Some(&file_name[..file_name.len() - end.len()])
}

/// The case file of the rule file `rule_file_name` (`pre-bash.x.sh` →
/// `pre-bash.x.test.yaml`; an `.async` rule's too).
pub fn cases_file_of(rule_file_name: &str) -> String {
    // The name runs to the first `.` after the last `-` (a `bash.<cli>`
    // matcher has a dot of its own).
    let from = rule_file_name.rfind('-').unwrap_or(0);
    let end = rule_file_name[from..]
        .find('.')
        .map_or(rule_file_name.len(), |dot| from + dot);
    format!("{}.test.yaml", &rule_file_name[..end])
}

/// One case as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseSpec {
    name: String,
    tool: Option<String>,
    command: Option<String>,
    path: Option<String>,
    input: Option<Map<String, Value>>,
    step: Option<String>,
    expect: ExpectSpec,
}

/// What a case expects, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectSpec {
    decision: Option<String>,
    reason: Option<String>,
    rewrite: Option<Value>,
}

/// The decision a case expects of the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// `allow`.
    Allow,
    /// `ask`.
    Ask,
    /// `deny` (at `post`: the rule blocks).
    Deny,
    /// `none`: the rule says nothing about permission.
    None,
}

impl Decision {
    /// Its spelling in a case file and in `hookdex try`'s report.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
            Decision::None => "none",
        }
    }

    fn parse(text: &str) -> Option<Decision> {
        Some(match text {
            "allow" => Decision::Allow,
            "ask" => Decision::Ask,
            "deny" => Decision::Deny,
            "none" => Decision::None,
            _ => return None,
        })
    }
}

/// What a case expects.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    /// The decision (`None`: not checked).
    pub decision: Option<Decision>,
    /// A substring of the reason (`None`: not checked).
    pub reason: Option<String>,
    /// The rewritten input: a map of the keys it must have, or a string,
    /// the rewritten `command` (`None`: not checked).
    pub rewrite: Option<Value>,
}

/// One case: a call, and what the rule must answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Its name.
    pub name: String,
    /// Its 1-based line in the file.
    pub line: u32,
    /// The tool, as a harness spells it (default `Bash`).
    pub tool: String,
    /// The shell command (the input's `command`).
    pub command: Option<String>,
    /// The file path (the input's `file_path`).
    pub path: Option<String>,
    /// The rest of the tool input.
    pub input: Option<Value>,
    /// The step, `pre` or `post` (default `pre`).
    pub step: hookdex_model::Step,
    /// What the rule must answer.
    pub expect: Expect,
}

/// Why a case file could not be read, and where (1-based line and
/// column) when known.
pub type CasesError = (RuleErrorKind, Option<(u32, u32)>);

/// Reads a case file's text.
///
/// # Errors
///
/// What is wrong and, where known, its 1-based line and column: the YAML
/// error, an unknown key, a step or decision not known, an empty list.
pub fn read(text: &str) -> Result<Vec<Case>, CasesError> {
    let specs: Vec<Spanned<CaseSpec>> = serde_saphyr::from_str(text).map_err(|e| yaml_error(&e))?;
    let key = |key: &str, reason: String, line: u32| {
        (
            RuleErrorKind::Key {
                key: key.into(),
                reason,
            },
            Some((line, 1)),
        )
    };
    if specs.is_empty() {
        return Err(key("cases", "the file lists no case".into(), 1));
    }
    specs
        .into_iter()
        .map(|spanned| {
            let line = spanned.referenced.line() as u32;
            let spec = spanned.value;
            let step = match spec.step.as_deref().unwrap_or("pre") {
                "pre" => hookdex_model::Step::Pre,
                "post" => hookdex_model::Step::Post,
                other => {
                    return Err(key(
                        "step",
                        format!("`{other}` (expected pre or post)"),
                        line,
                    ))
                }
            };
            let decision = match spec.expect.decision.as_deref() {
                None => None,
                Some(text) => Some(Decision::parse(text).ok_or_else(|| {
                    key(
                        "expect.decision",
                        format!("`{text}` (expected deny, allow, ask or none)"),
                        line,
                    )
                })?),
            };
            if let Some(rewrite) = spec
                .expect
                .rewrite
                .as_ref()
                .filter(|r| !r.is_object() && !r.is_string())
            {
                return Err(key(
                    "expect.rewrite",
                    format!("{rewrite} (expected a map of input keys or a command string)"),
                    line,
                ));
            }
            Ok(Case {
                name: spec.name,
                line,
                tool: spec.tool.unwrap_or_else(|| "Bash".into()),
                command: spec.command,
                path: spec.path,
                input: spec.input.map(Value::Object),
                step,
                expect: Expect {
                    decision,
                    reason: spec.expect.reason,
                    rewrite: spec.expect.rewrite,
                },
            })
        })
        .collect()
}

/// Whether YAML `text` reads as a case file rather than a filter file: a
/// list at the top, where a filter file is a map.
pub fn looks_like_cases(text: &str) -> bool {
    serde_saphyr::from_str::<Vec<Value>>(text).is_ok_and(|list| !list.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_cases_file("pre-bash.x.test.yaml"));
        assert!(!is_cases_file("pre-bash.x.filter.yaml"));
        assert_eq!(rule_stem("pre-bash.x.test.yaml"), Some("pre-bash.x"));
        assert_eq!(rule_stem("pre-bash.x.sh"), None);
        for (rule, cases) in [
            (
                "pre-bash.kubectl-guard.sh",
                "pre-bash.kubectl-guard.test.yaml",
            ),
            ("pre-bash-x.async.py", "pre-bash-x.test.yaml"),
            ("pre-edit-slop.filter.yaml", "pre-edit-slop.test.yaml"),
            ("stop-check.sh", "stop-check.test.yaml"),
        ] {
            assert_eq!(cases_file_of(rule), cases, "{rule}");
        }
    }

    #[test]
    fn reads_cases_with_defaults() {
        let cases = read(
            "- name: denied\n  command: kubectl delete pod x\n  expect: {decision: deny, reason: GitOps}\n\
             - name: rewritten\n  tool: Edit\n  path: a.rs\n  input: {old_string: a}\n  step: pre\n  expect: {rewrite: {file_path: b.rs}}\n",
        )
        .unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].tool, "Bash");
        assert_eq!(cases[0].step, hookdex_model::Step::Pre);
        assert_eq!(cases[0].expect.decision, Some(Decision::Deny));
        assert_eq!(cases[0].line, 1);
        assert_eq!(cases[1].line, 4);
        assert_eq!(cases[1].input, Some(serde_json::json!({"old_string": "a"})));
        assert_eq!(
            cases[1].expect.rewrite,
            Some(serde_json::json!({"file_path": "b.rs"}))
        );
    }

    #[test]
    fn refuses_what_it_does_not_know() {
        for (text, says) in [
            ("- name: x\n  expect: {decision: maybe}\n", "maybe"),
            (
                "- name: x\n  step: stop\n  expect: {}\n",
                "expected pre or post",
            ),
            ("- name: x\n  expect: {}\n  when: now\n", "when"),
            ("- name: x\n  expect: {rewrite: 3}\n", "expected a map"),
            ("[]\n", "no case"),
            ("name: x\n", ""),
        ] {
            let (kind, _) = read(text).unwrap_err();
            assert!(kind.to_string().contains(says), "{text}: {kind}");
        }
    }

    #[test]
    fn a_list_is_cases_and_a_map_is_not() {
        assert!(looks_like_cases("- name: x\n  expect: {}\n"));
        assert!(!looks_like_cases("mode: finders\nfinders: []\n"));
        assert!(!looks_like_cases("[]"));
    }
}
