//! Finders: what flags spans of a text. An inline `regex:` searches with
//! the index's DFAs (each non-empty match, reason `matched a finder`); a
//! named finder is a layer's `_finders/<name>` script when a layer that
//! runs has one (the highest such layer wins, a built-in included), else
//! the built-in of that name (`string_literals`, reason `user-facing
//! literal`; `explanation_tail`, reason `explanation tail`). The third
//! finder the package ships, `judge_cues`, is a package `_finders` script,
//! as the seed has it. A finder entry's own `reason:` replaces the reason
//! of each of its findings.
//!
//! A failing finder (a script that crashes, times out or lies about its
//! spans, a DFA that gives up, a name no layer has) yields no findings, and
//! the hook log says why; the others still run.

use std::ops::Range;
use std::path::PathBuf;

use hookdex_index::{Index, Search};
use hookdex_literals::{explanation_tail, string_literals, Language, Literal, LiteralKind};
use hookdex_model::{LayerKind, Runner, Switches, Trust};

use super::script;
use super::text::Unit;
use crate::exec::{self, Deadline, Job, Stdin};
use crate::lookup;
use crate::settings::Settings;

/// The reason of an inline finder's findings when its entry gives none.
pub const REGEX_REASON: &str = "matched a finder";

/// One finder of a filter, resolved.
#[derive(Clone, Debug)]
pub enum Finder {
    /// An inline regex.
    Regex {
        /// The regex as written.
        source: String,
        /// The entry's reason.
        reason: Option<String>,
        /// Its automata.
        search: Search,
    },
    /// A built-in finder.
    Builtin {
        /// Which.
        builtin: Builtin,
        /// The entry's reason.
        reason: Option<String>,
    },
    /// A finder script.
    Script {
        /// The finder's name.
        name: String,
        /// The entry's reason.
        reason: Option<String>,
        /// The script that runs; `None` when no layer that runs has one.
        script: Option<ScriptFile>,
    },
}

/// The built-in finders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `string_literals`: the user-facing literals of the text.
    StringLiterals,
    /// `explanation_tail`: inside a literal, from an explanation cue to its end.
    ExplanationTail,
}

impl Builtin {
    /// The built-in called `name`.
    pub fn named(name: &str) -> Option<Builtin> {
        match name {
            "string_literals" => Some(Builtin::StringLiterals),
            "explanation_tail" => Some(Builtin::ExplanationTail),
            _ => None,
        }
    }

    /// The reason of its findings.
    pub fn reason(self) -> &'static str {
        match self {
            Builtin::StringLiterals => "user-facing literal",
            Builtin::ExplanationTail => "explanation tail",
        }
    }
}

/// A finder script that runs.
#[derive(Clone, Debug)]
pub struct ScriptFile {
    /// Its path.
    pub file: PathBuf,
    /// How it starts.
    pub runner: Runner,
    /// The interpreter its runner needs, as the index recorded it.
    pub interpreter: Option<PathBuf>,
    /// Its layer's kind (which environment it gets).
    pub layer: LayerKind,
}

/// One finding: a span of one unit's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The finder that flagged it, by position in the filter's finders
    /// (`None`: a whole text the classifier judges, in mode `classifier`).
    pub finder: Option<usize>,
    /// The unit, by position in the filter's units.
    pub unit: usize,
    /// The byte range in the unit's text.
    pub range: Range<usize>,
    /// Why it was flagged.
    pub reason: String,
}

impl Finder {
    /// `finder` of an index, resolved against the finder scripts of the
    /// layers that run under `trust` and `switches`.
    ///
    /// # Errors
    ///
    /// When a record it reads is damaged.
    pub fn read(
        index: &Index<'_>,
        finder: &hookdex_index::Finder<'_>,
        trust: &Trust,
        switches: Switches,
    ) -> Result<Finder, hookdex_index::Error> {
        let script = match finder {
            hookdex_index::Finder::Regex { .. } => None,
            hookdex_index::Finder::Script { name, .. } => {
                match lookup::finder_script(index, name, trust, switches)? {
                    Some((s, layer)) => Some(ScriptFile {
                        file: PathBuf::from(s.file),
                        runner: s.runner,
                        interpreter: index.meta()?.interpreters.get(s.runner).map(PathBuf::from),
                        layer,
                    }),
                    None => None,
                }
            }
        };
        Ok(Finder::resolve(finder, script))
    }

    /// `finder` with `script`, the file its name runs when it is named and
    /// a layer that runs has one: else the built-in of that name, if any.
    pub fn resolve(finder: &hookdex_index::Finder<'_>, script: Option<ScriptFile>) -> Finder {
        match finder {
            hookdex_index::Finder::Regex {
                source,
                reason,
                search,
            } => Finder::Regex {
                source: source.to_string(),
                reason: reason.map(String::from),
                search: search.clone(),
            },
            hookdex_index::Finder::Script { name, reason } => {
                let reason = reason.map(String::from);
                match (script, Builtin::named(name)) {
                    (None, Some(builtin)) => Finder::Builtin { builtin, reason },
                    (script, _) => Finder::Script {
                        name: name.to_string(),
                        reason,
                        script,
                    },
                }
            }
        }
    }

    /// The finder as the hook log names it: `` `string_literals` ``,
    /// ``regex `x+` ``.
    pub fn name(&self) -> String {
        match self {
            Finder::Regex { source, .. } => format!("regex `{source}`"),
            _ => format!("`{}`", self.label()),
        }
    }

    /// The finder as its filter names it: its name, or for an inline regex
    /// `regex:` and the regex.
    pub fn label(&self) -> String {
        match self {
            Finder::Regex { source, .. } => format!("regex:{source}"),
            Finder::Builtin { builtin, .. } => match builtin {
                Builtin::StringLiterals => "string_literals".into(),
                Builtin::ExplanationTail => "explanation_tail".into(),
            },
            Finder::Script { name, .. } => name.clone(),
        }
    }
}

/// What the finders of one call share.
pub struct Run<'a> {
    /// How scripts run (timeout, parallelism, environment).
    pub settings: &'a Settings,
    /// When the filter's time is up.
    pub deadline: Deadline,
    /// The normalized tool name, for scripts.
    pub tool: &'a str,
}

/// A finder that yielded nothing on one text, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The finder, by position in the filter's finders.
    pub finder: usize,
    /// The line for the hook log: `finder <name> yielded nothing: <why>`.
    pub note: String,
}

impl Failure {
    fn new(position: usize, finder: &Finder, why: String) -> Failure {
        Failure {
            finder: position,
            note: format!("finder {} yielded nothing: {why}", finder.name()),
        }
    }
}

/// The findings of `finders` in each of `units`, in unit order, and each
/// finder's failure on a unit (its line for the hook log is prefixed by
/// the caller).
pub fn find(finders: &[Finder], units: &[Unit], run: &Run<'_>) -> (Vec<Finding>, Vec<Failure>) {
    let mut found = Vec::new();
    let mut notes = Vec::new();
    for (at, unit) in units.iter().enumerate() {
        let mut flag = |finder: usize, spans: Vec<Range<usize>>, reason: &str| {
            found.extend(
                spans
                    .into_iter()
                    .filter(|r| !r.is_empty())
                    .map(|range| Finding {
                        finder: Some(finder),
                        unit: at,
                        range,
                        reason: reason.to_string(),
                    }),
            );
        };
        let mut scripts = Vec::new();
        for (position, finder) in finders.iter().enumerate() {
            match finder {
                Finder::Regex { search, reason, .. } => match search.find_all(&unit.text) {
                    Ok(spans) => flag(
                        position,
                        spans.into_iter().map(|(s, e)| s..e).collect(),
                        reason.as_deref().unwrap_or(REGEX_REASON),
                    ),
                    Err(err) => notes.push(Failure::new(position, finder, err.to_string())),
                },
                Finder::Builtin { builtin, reason } => {
                    let reason = reason.as_deref().unwrap_or(builtin.reason());
                    flag(position, builtin_spans(*builtin, unit), reason);
                }
                Finder::Script { script: None, .. } => notes.push(Failure::new(
                    position,
                    finder,
                    "no layer that runs has it in its _finders folder".into(),
                )),
                Finder::Script {
                    script: Some(file),
                    reason,
                    ..
                } => scripts.push((position, finder, file, reason)),
            }
        }
        if scripts.is_empty() {
            continue;
        }
        let stdin = Stdin::new(script::stdin(&unit.text, unit.path.as_deref(), run.tool));
        let jobs: Vec<Job> = scripts
            .iter()
            .map(|(_, _, file, _)| {
                let env = run.settings.script_env(file.layer);
                Job {
                    file: file.file.clone(),
                    runner: file.runner,
                    interpreter: file.interpreter.clone(),
                    clear_env: env.is_some(),
                    env: env.unwrap_or_default(),
                    mandatory: file.layer == LayerKind::Managed,
                    cwd: None,
                    timeout: None,
                }
            })
            .collect();
        let runs = exec::run_all(&jobs, &run.settings.exec, run.deadline, &stdin);
        for ((position, finder, _, reason), execution) in scripts.iter().zip(&runs) {
            match script::spans(execution, &unit.text) {
                Ok(spans) => {
                    for span in spans {
                        let reason = reason
                            .as_deref()
                            .or(span.reason.as_deref())
                            .unwrap_or(REGEX_REASON);
                        flag(*position, vec![span.range], reason);
                    }
                }
                Err(why) => notes.push(Failure::new(*position, finder, why.to_string())),
            }
        }
    }
    (found, notes)
}

/// The spans a built-in finds in `unit`, in the language its path names.
/// A text that lands in no file (a synthetic tool's) is prose, one literal
/// whole; a file of a language the lexers do not read has none.
fn builtin_spans(builtin: Builtin, unit: &Unit) -> Vec<Range<usize>> {
    let text = unit.text.as_str();
    let literals = match unit.path.as_deref() {
        Some(path) => match Language::of_path(path) {
            Some(language) => string_literals(text, language),
            None => Vec::new(),
        },
        None => whole(text).into_iter().collect(),
    };
    match builtin {
        Builtin::StringLiterals => literals.iter().map(|l| l.start..l.end).collect(),
        Builtin::ExplanationTail => explanation_tail(text, &literals)
            .into_iter()
            .map(|(start, end)| start..end)
            .collect(),
    }
}

/// `text` trimmed, as one literal; `None` when it is blank.
fn whole(text: &str) -> Option<Literal> {
    let start = text.len() - text.trim_start().len();
    let end = text.trim_end().len();
    (start < end).then_some(Literal {
        start,
        end,
        kind: LiteralKind::TextNode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::text::Place;
    use hookdex_model::FilterField;

    fn unit(text: &str, path: Option<&str>) -> Unit {
        Unit {
            field: FilterField::NewString,
            pointer: "/new_string".into(),
            place: Place::Whole,
            text: text.into(),
            path: path.map(String::from),
        }
    }

    fn spans(builtin: Builtin, text: &str, path: Option<&str>) -> Vec<String> {
        builtin_spans(builtin, &unit(text, path))
            .into_iter()
            .map(|r| text[r].to_string())
            .collect()
    }

    #[test]
    fn the_builtins_read_the_language_of_the_path() {
        let line = r#"reason += f"; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats""#;
        let py = Some("/r/scripts/swarm/capacity.py");
        assert_eq!(
            spans(Builtin::StringLiterals, line, py),
            [&line[12..line.len() - 1]]
        );
        assert_eq!(
            spans(Builtin::ExplanationTail, line, py),
            ["; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats"]
        );
        assert!(spans(Builtin::ExplanationTail, r#"label = "changed 9m ago""#, py).is_empty());
        assert!(spans(Builtin::StringLiterals, "fn x() { \"a\" }", Some("/r/x.rs")).is_empty());
        // Prose with no file is one literal.
        assert_eq!(
            spans(
                Builtin::ExplanationTail,
                "  Done, since the queue drained.\n",
                None
            ),
            ["since the queue drained."]
        );
        assert!(spans(Builtin::StringLiterals, "  \n", None).is_empty());
    }
}
