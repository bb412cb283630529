//! `hooks.yaml` (**contract**, SPEC §9), BioRouter's and Claude Code's
//! hook groups: a top-level `hooks:` map from an event name to groups
//! `{matcher, input_matcher, hooks: [{type, command | prompt, timeout}]}`
//! (a bare event map is read too). Each hook of a group becomes one rule
//! of its event's step; its group's `matcher` goes into the step tables
//! (literal names as case-sensitive names, anything else as a regex of
//! the step's pattern DFA), its `input_matcher` into a DFA of its own.
//!
//! A group that cannot be read is listed with its line and never runs;
//! the other groups of the file stand. Hooks of every layer add up: a key
//! is the file's own, so no `hooks.yaml` replaces another's hooks.

use std::collections::BTreeMap;
use std::path::Path;

use hookdex_index::Stamp;
use hookdex_model::{Alternative, Event, HookAction, HookSpec, InputPattern, RuleKind, Runner};
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::automata::{self, AutomatonError};
use crate::error::{RuleError, RuleErrorKind};
use crate::formats::filename::RuleName;
use crate::formats::source::read_source;
use crate::formats::{HookRule, NameMatcher, RuleSpec};

/// The file name, in each source's folder.
pub const FILE: &str = "hooks.yaml";

/// Default `timeout` of a `command` hook, in seconds.
const COMMAND_TIMEOUT: u64 = 60;
/// Default `timeout` of a `prompt` hook, in seconds.
const PROMPT_TIMEOUT: u64 = 30;

/// What one `hooks.yaml` gave.
#[derive(Debug, Default)]
pub struct Scanned {
    /// One rule per hook of every valid group, in file order.
    pub rules: Vec<RuleSpec>,
    /// The file or groups that cannot be used.
    pub invalid: Vec<RuleError>,
    /// The file, stamped present or absent.
    pub stamps: Vec<(std::path::PathBuf, Stamp)>,
    /// Whether it says `allow_project_hooks: true` (read from the global
    /// file only).
    pub allow_project_hooks: bool,
}

/// An event map: event name to its groups, each value with its place.
type Events = BTreeMap<String, Spanned<serde_json::Value>>;

/// The file with a top-level `hooks:`; an opt-in that is not a boolean is
/// no opt-in (BioRouter's `as_bool`), and never costs the file its hooks.
#[derive(Deserialize)]
struct Wrapped {
    #[serde(default)]
    allow_project_hooks: Option<serde_json::Value>,
    hooks: Events,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default)]
    input_matcher: Option<InputMatcher>,
    hooks: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum InputMatcher {
    Any(String),
    Fields(BTreeMap<String, String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    provider: Option<String>,
}

/// Reads the `hooks.yaml` at `path` (which must not leave `root`).
pub fn scan(path: &Path, root: &Path) -> Scanned {
    scan_as(path, root, false)
}

/// Reads the top-level `hooks:` of a configuration file that holds other
/// keys too (BioRouter's `config.yaml`); a file without one gives nothing.
pub fn scan_config(path: &Path, root: &Path) -> Scanned {
    scan_as(path, root, true)
}

/// [`scan`], or with `config` [`scan_config`].
fn scan_as(path: &Path, root: &Path, config: bool) -> Scanned {
    let mut scanned = Scanned::default();
    let Some(text) = read_source(path, root, &mut scanned.stamps, &mut scanned.invalid) else {
        return scanned;
    };
    let shown = path.display().to_string();
    let options = || serde_saphyr::options! { strict_booleans: true };
    if text.trim().is_empty() {
        return scanned;
    }
    let read =
        serde_saphyr::from_str_with_options::<Events>(&text, options()).and_then(|top| {
            match (top.contains_key("hooks"), config) {
                (true, _) => serde_saphyr::from_str_with_options::<Wrapped>(&text, options())
                    .map(|w| (w.hooks, w.allow_project_hooks.and_then(|v| v.as_bool()))),
                (false, true) => Ok((Events::new(), None)),
                (false, false) => Ok((top, None)),
            }
        });
    let (mut events, mut allow) = match read {
        Ok(read) => read,
        Err(err) => {
            let (kind, span) = crate::formats::filter::yaml_error(&err);
            scanned.invalid.push(RuleError::new(shown, kind).at(span));
            return scanned;
        }
    };
    // BioRouter keeps the opt-in inside `hooks:`.
    if let Some(flag) = events.remove("allow_project_hooks") {
        allow = allow.or(flag.value.as_bool());
    }
    scanned.allow_project_hooks = allow == Some(true);
    for (name, groups) in events {
        let line = line_of(&groups);
        let key_error = |reason: String| {
            RuleError::new(
                shown.clone(),
                RuleErrorKind::Key {
                    key: name.clone(),
                    reason,
                },
            )
            .at(line.map(|l| (l, 1)))
        };
        let Some(event) = Event::from_name(&name) else {
            scanned.invalid.push(key_error(
                "not an event name (Claude Code's spelling: PreToolUse, Stop, …)".into(),
            ));
            continue;
        };
        let serde_json::Value::Array(groups) = groups.value else {
            scanned
                .invalid
                .push(key_error("expected a list of groups".into()));
            continue;
        };
        for (at, group) in groups.into_iter().enumerate() {
            match rules(&shown, event, at, line.unwrap_or(0), group) {
                Ok(rules) => scanned.rules.extend(rules),
                Err(reason) => scanned.invalid.push(
                    RuleError::new(
                        shown.clone(),
                        RuleErrorKind::Key {
                            key: format!("{name}[{at}]"),
                            reason: reason.to_string(),
                        },
                    )
                    .at(line.map(|l| (l, 1))),
                ),
            }
        }
    }
    scanned
}

fn line_of<T>(value: &Spanned<T>) -> Option<u32> {
    let at = value.referenced;
    (at.line() > 0).then_some(at.line() as u32)
}

/// Why a group is refused (the caller names the group).
#[derive(Debug)]
enum GroupError {
    /// It is not a group's shape (serde's reason).
    Shape(serde_json::Error),
    /// Its tool-name `matcher`, as written, is a regex that does not compile.
    Matcher(String, AutomatonError),
    /// Its `input_matcher` regexes do not compile.
    InputMatcher(AutomatonError),
    /// It has no hooks.
    NoHooks,
    /// Hook `n` is `type: command` without a `command`, or with a `prompt`.
    Command(usize),
    /// Hook `n` is `type: prompt` without a `prompt`, or with a `command`.
    Prompt(usize),
    /// Hook `n` has a `type` other than `command` and `prompt`.
    Type(usize, String),
}

impl std::fmt::Display for GroupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GroupError::Shape(err) => {
                f.write_str(&crate::formats::filter::with_suggestion(err.to_string()))
            }
            GroupError::Matcher(text, err) => write!(f, "matcher `{text}`: {err}"),
            GroupError::InputMatcher(err) => write!(f, "input_matcher: {err}"),
            GroupError::NoHooks => f.write_str("`hooks` is empty"),
            GroupError::Command(h) => write!(
                f,
                "hooks[{h}]: a `command` hook needs `command` and no `prompt`"
            ),
            GroupError::Prompt(h) => write!(
                f,
                "hooks[{h}]: a `prompt` hook needs `prompt` and no `command`"
            ),
            GroupError::Type(h, other) => write!(
                f,
                "hooks[{h}]: `type` is `{other}`: expected `command` or `prompt`"
            ),
        }
    }
}

/// The rules of group `at` of `event`, or why it is refused.
fn rules(
    file: &str,
    event: Event,
    at: usize,
    line: u32,
    group: serde_json::Value,
) -> Result<Vec<RuleSpec>, GroupError> {
    let group: Group = serde_json::from_value(group).map_err(GroupError::Shape)?;
    let written = group.matcher.as_deref().map(str::trim).unwrap_or("");
    // UserPromptSubmit and Stop have nothing to match: every group runs.
    let names = match written {
        "" | "*" => NameMatcher::Any,
        _ if !event.step().has_matcher() => NameMatcher::Any,
        text => name_matcher(text)?,
    };
    let input = match group.input_matcher {
        None => Vec::new(),
        Some(InputMatcher::Any(regex)) => vec![InputPattern {
            field: None,
            regex: no_constraint(&regex),
        }],
        Some(InputMatcher::Fields(fields)) => fields
            .into_iter()
            .map(|(field, regex)| InputPattern {
                field: Some(field),
                regex: no_constraint(&regex),
            })
            .collect(),
    };
    let input_dfa = match input.is_empty() {
        true => Vec::new(),
        false => {
            let regexes: Vec<String> = input.iter().map(|p| p.regex.clone()).collect();
            automata::input_patterns(&regexes).map_err(GroupError::InputMatcher)?
        }
    };
    if group.hooks.is_empty() {
        return Err(GroupError::NoHooks);
    }
    let mut rules = Vec::with_capacity(group.hooks.len());
    for (h, entry) in group.hooks.into_iter().enumerate() {
        let label = format!("{}[{at}].hooks[{h}]", event.as_str());
        let (action, runner, default_timeout) = match entry.kind.as_str() {
            "command" => match (entry.command, entry.prompt) {
                (Some(command), None) if !command.trim().is_empty() => (
                    HookAction::Command { command },
                    Runner::Shell,
                    COMMAND_TIMEOUT,
                ),
                _ => return Err(GroupError::Command(h)),
            },
            "prompt" => match (entry.prompt, entry.command) {
                (Some(prompt), None) if !prompt.trim().is_empty() => (
                    HookAction::Prompt {
                        prompt,
                        model: entry.model.or(entry.provider),
                    },
                    Runner::None,
                    PROMPT_TIMEOUT,
                ),
                _ => return Err(GroupError::Prompt(h)),
            },
            other => return Err(GroupError::Type(h, other.to_string())),
        };
        let spec = HookSpec {
            label: label.clone(),
            line,
            events: vec![event.as_str().to_string()],
            source_event: event.as_str().to_string(),
            action,
            // BioRouter's `.max(1)`: `timeout: 0` is one second.
            timeout_ms: entry.timeout.unwrap_or(default_timeout).max(1) * 1000,
            cwd: None,
            env: Vec::new(),
            matcher: group.matcher.clone(),
            input: input.clone(),
            requires: Default::default(),
        };
        rules.push(RuleSpec {
            file: file.to_string(),
            file_name: FILE.to_string(),
            dir_index: 0,
            name: RuleName {
                step: event.step(),
                matcher: written.to_string(),
                alternatives: vec![Alternative::Any],
                name: label.clone(),
                is_async: false,
                ext: "yaml".into(),
                kind: RuleKind::HooksYaml,
                key: format!("hooks.yaml:{file}:{label}"),
            },
            runner,
            filter: None,
            enforcement: None,
            hook: Some(Box::new(HookRule {
                spec,
                names: names.clone(),
                input_dfa: input_dfa.clone(),
            })),
            guard: None,
        });
    }
    Ok(rules)
}

/// An input pattern as searched: trimmed, and `*` (no constraint) as the
/// empty regex, which matches every text.
fn no_constraint(regex: &str) -> String {
    match regex.trim() {
        "*" => String::new(),
        trimmed => trimmed.to_string(),
    }
}

/// A tool-name matcher: an alternation of plain names is a set of exact,
/// case-sensitive names; anything else an anchored regex, which must parse.
fn name_matcher(text: &str) -> Result<NameMatcher, GroupError> {
    let plain = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if text.split('|').all(plain) {
        return Ok(NameMatcher::Names(
            text.split('|').map(String::from).collect(),
        ));
    }
    automata::name_patterns(&[text.to_string()])
        .map_err(|e| GroupError::Matcher(text.to_string(), e))?;
    Ok(NameMatcher::Pattern(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str) -> Scanned {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, text).unwrap();
        scan(&path, dir.path())
    }

    #[test]
    fn groups_become_rules_and_bad_groups_are_named_alone() {
        let scanned = scan_text(
            r#"
hooks:
  allow_project_hooks: true
  PreToolUse:
    - matcher: "developer__shell|Bash"
      input_matcher: "rm\\s+-rf"
      hooks:
        - type: command
          command: "$HOME/hooks/confirm-destructive.sh"
    - matcher: "mcp__.*"
      hooks:
        - {type: command, command: "exit 0", timeout: 0}
        - {type: prompt, prompt: "no deletes"}
    - matcher: "("
      hooks: [{type: command, command: "x"}]
    - hooks: [{type: script, command: "x"}]
  Stop:
    - matcher: "ignored"
      hooks: [{type: command, command: "cargo test", timeout: 300}]
  Nope:
    - hooks: [{type: command, command: "x"}]
"#,
        );
        assert!(scanned.allow_project_hooks);
        let labels: Vec<&str> = scanned.rules.iter().map(|r| r.name.name.as_str()).collect();
        assert_eq!(
            labels,
            [
                "PreToolUse[0].hooks[0]",
                "PreToolUse[1].hooks[0]",
                "PreToolUse[1].hooks[1]",
                "Stop[0].hooks[0]"
            ]
        );
        let hook = |i: usize| scanned.rules[i].hook.as_ref().unwrap();
        assert_eq!(
            hook(0).names,
            NameMatcher::Names(vec!["developer__shell".into(), "Bash".into()])
        );
        assert!(!hook(0).input_dfa.is_empty());
        assert_eq!(hook(1).names, NameMatcher::Pattern("mcp__.*".into()));
        assert_eq!(hook(1).spec.timeout_ms, 1000);
        assert_eq!(hook(2).spec.timeout_ms, 30_000);
        assert_eq!(hook(3).names, NameMatcher::Any);
        assert_eq!(hook(3).spec.timeout_ms, 300_000);
        let reasons: Vec<String> = scanned.invalid.iter().map(|e| e.to_string()).collect();
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        assert!(reasons.iter().any(|r| r.contains("Nope")), "{reasons:?}");
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("PreToolUse[2]") && r.contains("matcher `(`")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("PreToolUse[3]") && r.contains("`script`")),
            "{reasons:?}"
        );
    }

    #[test]
    fn a_bare_event_map_and_a_field_map_read() {
        let scanned = scan_text(
            "PreToolUse:\n  - matcher: developer__text_editor\n    input_matcher:\n      command: \"^(write|str_replace)$\"\n      path: \"^/etc/\"\n    hooks:\n      - type: command\n        command: \"echo 'no edits under /etc' >&2; exit 2\"\n",
        );
        assert!(scanned.invalid.is_empty(), "{:?}", scanned.invalid);
        let hook = scanned.rules[0].hook.as_ref().unwrap();
        let fields: Vec<Option<&str>> =
            hook.spec.input.iter().map(|p| p.field.as_deref()).collect();
        assert_eq!(fields, [Some("command"), Some("path")]);
        assert!(!scanned.allow_project_hooks);
        let numbers = scan_text("PreToolUse:\n  - input_matcher: {depth: 3}\n    hooks: [{type: command, command: x}]\n");
        assert!(numbers.rules.is_empty() && numbers.invalid.len() == 1);
    }
}
