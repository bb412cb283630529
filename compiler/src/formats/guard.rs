//! The `.guard.yaml` format: a declarative guard, decided inside the hook
//! process with no script started. What it judges follows from its file
//! name's matcher and its entries:
//!
//! - `pre-bash.<cli>-<name>.guard.yaml` (every alternative a program): the
//!   subcommand words of each simple command running `<cli>`, as the
//!   splitter (and, at exec time, the kernel) sees them, past the options
//!   the guard lists (`-n ns delete`, `--namespace=ns delete`). Entries are
//!   word patterns (`delete`, `rollout restart`, `config set-*`), each a
//!   prefix of the subcommand words.
//! - Any other matcher with string entries: path globs matched against the
//!   file a file tool touches (as given, absolute, and its file name).
//! - Any other matcher with map entries: field matchers (`{repo: prod/*}`)
//!   on the tool input's top-level fields, every field of an entry at once.
//!
//! ```yaml
//! reason: kubectl writes go through GitOps
//! options: {valued: [-n, --namespace, --context], flags: [--insecure-skip-tls-verify]}
//! allow: [get, describe, logs, auth can-i]   # anything else: `otherwise` (deny)
//! ask: [port-forward]
//! deny: [delete]
//! cannot_tell: deny                          # a verb the text cannot tell
//! ```
//!
//! Each entry becomes one anchored pattern of one DFA
//! (`crate::automata::guard_patterns`); the hook walks words through it
//! ([`hookdex_index::GuardPatterns::prefix`]).

use std::collections::BTreeMap;

use hookdex_index::{
    GuardData, GuardEntry, GuardKind, FIELD_END, FIELD_START, FIELD_VALUE, WORD_END,
};
use hookdex_model::{Alternative, Permission};
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::automata;
use crate::error::RuleErrorKind;
use crate::formats::filename::RuleName;
use crate::formats::filter::yaml_error;

/// A guard file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardSpec {
    /// Why, as the agent and the person are told.
    reason: Option<Spanned<String>>,
    /// Uses that are denied.
    deny: Option<Vec<Spanned<EntrySpec>>>,
    /// Uses the person is asked about.
    ask: Option<Vec<Spanned<EntrySpec>>>,
    /// The only uses that pass; present (even empty), every other use
    /// gets `otherwise`.
    allow: Option<Vec<Spanned<EntrySpec>>>,
    /// What a use no `allow` entry matches gets (default `deny`).
    otherwise: Option<Spanned<Answer>>,
    /// What a use the text cannot tell gets (default `deny`).
    cannot_tell: Option<Answer>,
    /// A program guard's options.
    options: Option<Spanned<OptionsSpec>>,
}

/// A program's options: which take a value and which take none.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionsSpec {
    #[serde(default)]
    valued: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Answer {
    Deny,
    Ask,
    Allow,
}

impl Answer {
    fn permission(self) -> Permission {
        match self {
            Answer::Deny => Permission::Deny,
            Answer::Ask => Permission::Ask,
            Answer::Allow => Permission::Allow,
        }
    }
}

/// One entry: words or a glob, or a map of fields.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum EntrySpec {
    Text(String),
    Fields(BTreeMap<String, Scalar>),
}

/// A field's expected value: a glob, or a number or boolean compared as
/// its JSON text.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Text(s) => s.clone(),
            Scalar::Integer(n) => n.to_string(),
            Scalar::Float(x) => x.to_string(),
            Scalar::Bool(b) => b.to_string(),
        }
    }
}

/// A problem and where it is (1-based line and column).
pub type Problem = (RuleErrorKind, Option<(u32, u32)>);

fn place(at: &Location) -> Option<(u32, u32)> {
    (at.line() > 0).then(|| (at.line() as u32, at.column() as u32))
}

fn key_error(key: &str, reason: impl Into<String>, at: Option<&Location>) -> Problem {
    (
        RuleErrorKind::Key {
            key: key.into(),
            reason: reason.into(),
        },
        at.and_then(place),
    )
}

/// Compiles a guard file's text for the rule `name` names.
///
/// # Errors
///
/// What is wrong and where: the YAML error, an unknown key, no `reason`,
/// no entries, an entry of the wrong form for the matcher, an option that
/// is not one, a glob that does not compile.
pub fn compile(name: &RuleName, text: &str) -> Result<GuardData, Problem> {
    let options = serde_saphyr::options! { strict_booleans: true };
    let spec: GuardSpec =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| yaml_error(&e))?;
    let reason = match &spec.reason {
        Some(r) if !r.value.trim().is_empty() => r.value.trim().to_string(),
        Some(r) => return Err(key_error("reason", "is empty", Some(&r.referenced))),
        None => {
            return Err(key_error(
                "reason",
                "is missing: the agent is told why it was stopped",
                None,
            ))
        }
    };
    if spec.deny.is_none() && spec.ask.is_none() && spec.allow.is_none() {
        return Err(key_error(
            "deny",
            "a guard needs `deny`, `ask` or `allow` entries (`allow: []` refuses every use)",
            None,
        ));
    }
    let programs: Vec<String> = name
        .alternatives
        .iter()
        .filter_map(|a| match a {
            Alternative::Program(cli) => Some(cli.clone()),
            _ => None,
        })
        .collect();
    let lists = [
        (Permission::Deny, "deny", &spec.deny),
        (Permission::Ask, "ask", &spec.ask),
        (Permission::Allow, "allow", &spec.allow),
    ];
    let written = lists
        .iter()
        .flat_map(|(d, key, list)| list.iter().flatten().map(move |e| (*d, *key, e)));
    let kind = match (programs.len(), name.alternatives.len()) {
        (0, _) => None,
        (p, all) if p == all => Some(GuardKind::Program),
        _ => {
            return Err((
                RuleErrorKind::Syntax(
                    "a guard's matcher names programs (`bash.<cli>`) or tools, not both".into(),
                ),
                None,
            ))
        }
    };
    let mut entries = Vec::new();
    let mut regexes = Vec::new();
    let mut kind = kind;
    let mut depth = 0;
    for (decision, key, entry) in written {
        let at = Some(&entry.referenced);
        let (text, regex) = match (&entry.value, kind) {
            (EntrySpec::Text(words), Some(GuardKind::Program)) => {
                let words: Vec<&str> = words.split_whitespace().collect();
                if words.is_empty() {
                    return Err(key_error(key, "an entry has no words", at));
                }
                // Options are skipped before the words are judged, so an
                // entry that holds one would never match.
                if let Some(option) = words.iter().find(|w| w.starts_with('-') && w.len() > 1) {
                    return Err(key_error(
                        key,
                        format!(
                            "`{option}` is an option: a guard skips options and judges the \
                             subcommand words (list it under `options` if it takes a value)"
                        ),
                        at,
                    ));
                }
                depth = depth.max(words.len() as u32);
                (words.join(" "), words_regex(&words))
            }
            (EntrySpec::Text(glob), None | Some(GuardKind::Path)) => {
                if name
                    .alternatives
                    .iter()
                    .any(|a| matches!(a, Alternative::Name(n) if n == "bash"))
                {
                    return Err(key_error(
                        key,
                        "a guard on shell commands names its programs: \
                         `pre-bash.<cli>-<name>.guard.yaml`",
                        at,
                    ));
                }
                kind = Some(GuardKind::Path);
                let compiled = globset::GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| key_error(key, format!("`{glob}`: {}", e.kind()), at))?;
                (glob.clone(), compiled.regex().to_string())
            }
            (EntrySpec::Fields(fields), None | Some(GuardKind::Fields)) => {
                if fields.is_empty() {
                    return Err(key_error(key, "an entry names no field", at));
                }
                kind = Some(GuardKind::Fields);
                let shown: Vec<String> = fields
                    .iter()
                    .map(|(k, v)| format!("{k}={}", v.text()))
                    .collect();
                (shown.join(" "), fields_regex(fields))
            }
            (EntrySpec::Text(_), Some(GuardKind::Fields)) => {
                return Err(key_error(
                    key,
                    "entries are all field maps (`{field: glob}`) or all globs, not both",
                    at,
                ))
            }
            (EntrySpec::Fields(_), Some(GuardKind::Path)) => {
                return Err(key_error(
                    key,
                    "entries are all globs or all field maps (`{field: glob}`), not both",
                    at,
                ))
            }
            (EntrySpec::Fields(_), Some(GuardKind::Program)) => {
                return Err(key_error(
                    key,
                    "a program guard's entries are its subcommand words (`rollout restart`)",
                    at,
                ))
            }
        };
        entries.push(GuardEntry { decision, text });
        regexes.push(regex);
    }
    // `allow: []` alone: a program guard refuses every use; another is a
    // path guard until an entry says otherwise.
    let kind = kind.unwrap_or(GuardKind::Path);
    let (valued, flags) = match (&spec.options, kind) {
        (None, _) => (Vec::new(), Vec::new()),
        (Some(options), GuardKind::Program) => {
            let sorted = |list: &[String]| -> Result<Vec<String>, Problem> {
                let mut out = Vec::with_capacity(list.len());
                for option in list {
                    if !option.starts_with('-') || option.len() < 2 || option.contains('=') {
                        return Err(key_error(
                            "options",
                            format!("`{option}` is not an option (`-n`, `--namespace`)"),
                            Some(&options.referenced),
                        ));
                    }
                    out.push(option.clone());
                }
                out.sort();
                out.dedup();
                Ok(out)
            };
            (
                sorted(&options.value.valued)?,
                sorted(&options.value.flags)?,
            )
        }
        (Some(options), _) => {
            return Err(key_error(
                "options",
                "only a program guard (`pre-bash.<cli>-…`) has options",
                Some(&options.referenced),
            ))
        }
    };
    let otherwise = match (&spec.allow, &spec.otherwise) {
        (Some(_), written) => Some(
            written
                .as_ref()
                .map_or(Permission::Deny, |o| o.value.permission()),
        ),
        (None, Some(written)) => {
            return Err(key_error(
                "otherwise",
                "is what a use no `allow` entry matches gets: it needs `allow`",
                Some(&written.referenced),
            ))
        }
        (None, None) => None,
    };
    let dfa = automata::guard_patterns(&regexes).map_err(|e| {
        let reason = format!("the entries do not make an automaton: {e}");
        (RuleErrorKind::Syntax(reason), None)
    })?;
    Ok(GuardData {
        rule: 0,
        kind,
        reason,
        otherwise,
        cannot_tell: spec
            .cannot_tell
            .map_or(Permission::Deny, Answer::permission),
        programs,
        valued,
        flags,
        depth,
        entries,
        dfa,
    })
}

/// The pattern of a program entry: each word a glob (`*`, `?`) within one
/// word, each followed by [`WORD_END`], so it matches a prefix of the
/// subcommand words.
fn words_regex(words: &[&str]) -> String {
    let end = format!("\\x{WORD_END:02x}");
    words
        .iter()
        .map(|word| format!("{}{end}", glob_regex(word, WORD_END)))
        .collect()
}

/// The pattern of a fields entry: each field (sorted by name, as the text
/// the hook builds is) somewhere in the text.
fn fields_regex(fields: &BTreeMap<String, Scalar>) -> String {
    fields
        .iter()
        .map(|(name, value)| {
            format!(
                "(?s:.)*?\\x{FIELD_START:02x}{}\\x{FIELD_VALUE:02x}{}\\x{FIELD_END:02x}",
                regex_syntax::escape(name),
                glob_regex(&value.text(), FIELD_END)
            )
        })
        .collect()
}

/// `glob` (`*` any run, `?` one character, never `stop`) as a regex.
fn glob_regex(glob: &str, stop: u8) -> String {
    let mut out = String::new();
    for c in glob.chars() {
        match c {
            '*' => out.push_str(&format!("[^\\x{stop:02x}]*")),
            '?' => out.push_str(&format!("[^\\x{stop:02x}]")),
            c => out.push_str(&regex_syntax::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::filename::{classify, FileClass};

    fn name(file: &str) -> RuleName {
        match classify(file) {
            FileClass::Rule(name) => name,
            other => panic!("{file}: {other:?}"),
        }
    }

    #[test]
    fn a_program_guard_compiles_its_words_and_options() {
        let guard = compile(
            &name("pre-bash.kubectl-readonly.guard.yaml"),
            "reason: GitOps\noptions: {valued: [--namespace, -n], flags: [--insecure-skip-tls-verify]}\nallow: [get, auth can-i]\ndeny: [delete]\n",
        )
        .unwrap();
        assert_eq!(guard.kind, GuardKind::Program);
        assert_eq!(guard.programs, ["kubectl"]);
        assert_eq!(guard.valued, ["--namespace", "-n"]);
        assert_eq!(guard.depth, 2);
        assert_eq!(guard.otherwise, Some(Permission::Deny));
        let texts: Vec<(&str, Permission)> = guard
            .entries
            .iter()
            .map(|e| (e.text.as_str(), e.decision))
            .collect();
        assert_eq!(
            texts,
            [
                ("delete", Permission::Deny),
                ("get", Permission::Allow),
                ("auth can-i", Permission::Allow)
            ]
        );
    }

    #[test]
    fn mistakes_name_their_key() {
        let cases = [
            (
                "pre-bash.kubectl-x.guard.yaml",
                "deny: [delete]\n",
                "reason: is missing",
            ),
            (
                "pre-bash.kubectl-x.guard.yaml",
                "reason: r\n",
                "a guard needs `deny`",
            ),
            (
                "pre-bash.kubectl-x.guard.yaml",
                "reason: r\ndeny: [{a: b}]\n",
                "subcommand words",
            ),
            (
                "pre-bash.kubectl-x.guard.yaml",
                "reason: r\ndeny: [x]\noptions: {valued: [n]}\n",
                "`n` is not an option",
            ),
            (
                "pre-edit-x.guard.yaml",
                "reason: r\ndeny: ['[']\n",
                "deny: `[`",
            ),
            (
                "pre-edit-x.guard.yaml",
                "reason: r\ndeny: [a, {b: c}]\n",
                "not both",
            ),
            (
                "pre-edit-x.guard.yaml",
                "reason: r\ndeny: [a]\noptions: {}\n",
                "only a program guard",
            ),
            (
                "pre-edit-x.guard.yaml",
                "reason: r\ndeny: [a]\notherwise: ask\n",
                "it needs `allow`",
            ),
            (
                "pre-bash-x.guard.yaml",
                "reason: r\ndeny: [a]\n",
                "names its programs",
            ),
            (
                "pre-bash.git+edit-x.guard.yaml",
                "reason: r\ndeny: [a]\n",
                "not both",
            ),
            (
                "pre-bash.git-x.guard.yaml",
                "reason: r\ndeny: [a]\nresaon: x\n",
                "unknown key `resaon` (did you mean `reason`?)",
            ),
            (
                "pre-bash.rm-x.guard.yaml",
                "reason: r\ndeny: ['-rf']\n",
                "`-rf` is an option",
            ),
        ];
        for (file, text, want) in cases {
            let (kind, _) = compile(&name(file), text).unwrap_err();
            let shown = kind.to_string();
            assert!(shown.contains(want), "{file}: {text:?}: {shown}");
        }
    }

    #[test]
    fn path_and_field_guards() {
        let path = compile(
            &name("pre-edit+write-env.guard.yaml"),
            "reason: r\ndeny: ['**/.env']\n",
        )
        .unwrap();
        assert_eq!(path.kind, GuardKind::Path);
        let fields = compile(
            &name("pre-mcp__github-prod.guard.yaml"),
            "reason: r\nask: [{repo: 'prod/*', draft: false}]\n",
        )
        .unwrap();
        assert_eq!(fields.kind, GuardKind::Fields);
        assert_eq!(fields.entries[0].text, "draft=false repo=prod/*");
    }
}
