//! Declarative guards (`.guard.yaml`) decided in the hook process: a
//! guard's entries walked over what a call does, through the DFA the index
//! carries ([`hookdex_index::GuardPatterns`]), with no script started.
//!
//! A program guard judges each simple command that runs one of its
//! programs: the words after the options it knows are the subcommand, and
//! each entry is a prefix of them. Where the text leaves a word untold (an
//! expansion, a glob, words `xargs` adds) the judgement runs up to that
//! word: an entry the known words already match or rule out decides, and
//! one the untold words could still complete makes the use one the text
//! cannot tell. An option it does not know may or may not take a value, so
//! both readings are judged and the stricter answer stands. At exec time
//! the kernel's argv is judged the same way, every word known.
//!
//! A path guard judges the file a file tool touches (as given, absolute,
//! relative to the working directory, and its file name); a fields guard
//! the tool input's top-level fields.

use std::path::{Path, PathBuf};

use hookdex_index::{Guard, GuardKind, Prefix, FIELD_END, FIELD_START, FIELD_VALUE, WORD_END};
use hookdex_model::Permission;
use serde_json::Value;

use crate::call::Call;
use crate::gate::sources::resolve_in;

/// What a guard decided for a call, with the reason the agent is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// Deny or ask.
    pub decision: Permission,
    /// What the guard saw, then its reason.
    pub reason: String,
}

/// One simple command as a program guard reads it.
pub struct Use<'a> {
    /// Its program (lowercased basename).
    pub program: &'a str,
    /// The words after it.
    pub args: &'a [String],
    /// Indices of the words the text cannot tell.
    pub unknown: &'a [usize],
    /// Whether words the text does not show may follow.
    pub more: bool,
}

/// One finding: its decision and what it says.
type Finding = (Permission, String);

/// Judges the simple commands `uses` (those running one of the guard's
/// programs count) and, for a line with programs its text cannot name,
/// `dynamic` (their texts).
pub fn judge_uses(guard: &Guard, uses: &[Use<'_>], dynamic: &[String]) -> Option<Judged> {
    let mut findings: Vec<Finding> = uses
        .iter()
        .filter(|u| guard.data.programs.iter().any(|p| p == u.program))
        .filter_map(|u| judge_use(guard, u))
        .collect();
    if !dynamic.is_empty() {
        findings.push((
            guard.data.cannot_tell,
            format!(
                "this line may run a program hookdex cannot read ({})",
                dynamic.join(", ")
            ),
        ));
    }
    conclude(guard, findings)
}

/// Judges the file `path` a call touches, read from `at`.
pub fn judge_path(guard: &Guard, path: &str, at: &Place<'_>) -> Option<Judged> {
    let forms = path_forms(path, at);
    let texts: Vec<&[u8]> = forms.iter().map(|f| f.as_bytes()).collect();
    let finding = judge_texts(guard, &texts).map(|(decision, entry)| {
        let what = match entry {
            Some(entry) => format!("`{path}` matches `{entry}`"),
            None => format!("`{path}` is not among the paths allowed"),
        };
        (decision, what)
    });
    conclude(guard, finding.into_iter().collect())
}

/// Judges the top-level fields of `input`.
pub fn judge_fields(guard: &Guard, input: &Value) -> Option<Judged> {
    let text = fields_text(input);
    let finding = judge_texts(guard, &[text.as_slice()]).map(|(decision, entry)| {
        let what = match entry {
            Some(entry) => format!("the call's fields match `{entry}`"),
            None => "the call's fields are not among those allowed".to_string(),
        };
        (decision, what)
    });
    conclude(guard, finding.into_iter().collect())
}

/// What the guard's kind judges of `call` (its tool input `input`, from
/// `cwd`): its shell line's commands, its file, or its fields.
pub fn judge_call(guard: &Guard, call: &Call, input: &Value, at: &Place<'_>) -> Option<Judged> {
    match guard.data.kind {
        GuardKind::Program => {
            let dynamic: Vec<String> = call.dynamic.iter().map(|d| d.text.clone()).collect();
            let uses: Vec<Use<'_>> = call
                .commands
                .iter()
                .map(|c| Use {
                    program: &c.program,
                    args: &c.args,
                    unknown: &c.unknown,
                    more: c.more,
                })
                .collect();
            judge_uses(guard, &uses, &dynamic)
        }
        GuardKind::Path => judge_path(guard, call.path.as_deref()?, at),
        GuardKind::Fields => judge_fields(guard, input),
    }
}

/// The strictest finding (deny, then ask), every finding of that decision
/// named, then the guard's reason; `None` when nothing objects (an `allow`
/// from `otherwise` or `cannot_tell` is no objection).
fn conclude(guard: &Guard, findings: Vec<Finding>) -> Option<Judged> {
    let worst = findings.iter().map(|(p, _)| *p).max()?;
    if worst == Permission::Allow {
        return None;
    }
    let mut said: Vec<&str> = Vec::new();
    for (_, what) in findings.iter().filter(|(p, _)| *p == worst) {
        if !said.contains(&what.as_str()) {
            said.push(what);
        }
    }
    Some(Judged {
        decision: worst,
        reason: format!("{}: {}", said.join("; "), guard.data.reason),
    })
}

/// Most readings of one use judged: past it, the use is one the text
/// cannot tell (each option the guard does not know doubles them).
const MAX_READINGS: usize = 256;

/// One reading of a use: the subcommand words it finds, and whether it ran
/// into words the text does not tell.
struct Reading<'a> {
    words: Vec<&'a str>,
    untold: bool,
}

/// Judges one use of a program; `None` when nothing objects.
fn judge_use(guard: &Guard, u: &Use<'_>) -> Option<Finding> {
    let data = &guard.data;
    // Words from the first one the text cannot tell on are unknown.
    let cut = u
        .unknown
        .iter()
        .copied()
        .min()
        .unwrap_or(u.args.len())
        .min(u.args.len());
    let open = cut < u.args.len() || u.more;
    let named = |words: &[&str]| match words.is_empty() {
        true => format!("`{}`", u.program),
        false => format!("`{} {}`", u.program, words.join(" ")),
    };
    let (readings, complete) = readings(guard, &u.args[..cut], open);
    let mut findings = Vec::new();
    if !complete {
        findings.push((
            data.cannot_tell,
            format!(
                "cannot tell what {} does: too many readings of its options",
                named(&[])
            ),
        ));
    }
    let refuses_all =
        data.otherwise.is_some() && data.entries.iter().all(|e| e.decision != Permission::Allow);
    for reading in readings {
        if reading.words.is_empty() && !reading.untold {
            // No subcommand: refused only by `allow: []`, which refuses
            // every use.
            if let (true, Some(otherwise)) = (refuses_all, data.otherwise) {
                findings.push((otherwise, format!("{} is not allowed", named(&[]))));
            }
            continue;
        }
        let mut text = Vec::new();
        for word in &reading.words {
            text.extend_from_slice(word.as_bytes());
            text.push(WORD_END);
        }
        let what = named(&reading.words);
        match judge_text(guard, &text, reading.untold) {
            Judgement::Entry(decision, entry) if decision != Permission::Allow => {
                findings.push((decision, format!("{what} matches `{entry}`")))
            }
            Judgement::Entry(..) | Judgement::Clear => {}
            Judgement::Untold => findings.push((
                data.cannot_tell,
                format!("cannot tell what {what} does: its words are not all in the text"),
            )),
            Judgement::Otherwise(decision) => {
                findings.push((decision, format!("{what} is not an allowed use")))
            }
        }
    }
    strictest(findings)
}

/// The strictest of `findings` (deny, then ask, then allow), the first
/// found of that rank.
fn strictest(findings: Vec<Finding>) -> Option<Finding> {
    findings.into_iter().rev().max_by_key(|(p, _)| *p)
}

/// Every reading of `known` (the words up to the first one the text cannot
/// tell; `open` when untold words follow): the options the guard knows
/// skipped with their values, one it does not know read both with a value
/// and without, the subcommand's words collected up to the guard's depth.
/// Past a leading `--` no word is an option; after a subcommand word, `--`
/// starts its arguments. `false` with them when there were more than
/// [`MAX_READINGS`].
fn readings<'a>(guard: &Guard, known: &'a [String], open: bool) -> (Vec<Reading<'a>>, bool) {
    let data = &guard.data;
    let depth = data.depth.max(1) as usize;
    let has = |list: &[String], word: &str| list.binary_search_by(|o| o.as_str().cmp(word)).is_ok();
    // (next word, words so far, past a leading `--`)
    let mut todo: Vec<(usize, Vec<&'a str>, bool)> = vec![(0, Vec::new(), false)];
    let mut out = Vec::new();
    while let Some((at, mut words, plain)) = todo.pop() {
        if out.len() >= MAX_READINGS {
            return (out, false);
        }
        if words.len() == depth {
            out.push(Reading {
                words,
                untold: false,
            });
            continue;
        }
        let Some(word) = known.get(at) else {
            // Out of known words: untold ones may follow (a valued
            // option's value can be among them too).
            out.push(Reading {
                words,
                untold: open,
            });
            continue;
        };
        if plain || !word.starts_with('-') || word.len() < 2 {
            words.push(word);
            todo.push((at + 1, words, plain));
            continue;
        }
        if word == "--" {
            match words.is_empty() {
                true => todo.push((at + 1, words, true)),
                false => out.push(Reading {
                    words,
                    untold: false,
                }),
            }
            continue;
        }
        let name = word.split_once('=').map_or(word.as_str(), |(n, _)| n);
        let attached = word.contains('=')
            || (!word.starts_with("--") && word.len() > 2 && has(&data.valued, &word[..2]));
        if attached || has(&data.flags, name) {
            todo.push((at + 1, words, plain));
        } else if has(&data.valued, name) {
            todo.push((at + 2, words, plain));
        } else {
            // Not an option it knows: with a value, or without.
            todo.push((at + 2, words.clone(), plain));
            todo.push((at + 1, words, plain));
        }
    }
    (out, true)
}

/// What a guard's entries say of one candidate's text.
enum Judgement {
    /// An entry matched: the strictest one's decision and text.
    Entry(Permission, String),
    /// Untold words could still complete a `deny` or `ask` entry, or the
    /// only `allow` entries that could pass it.
    Untold,
    /// No `allow` entry matches: the guard's `otherwise`.
    Otherwise(Permission),
    /// Nothing objects.
    Clear,
}

/// Walks `text` through every entry; `truncated` when words the text does
/// not tell follow it.
fn judge_text(guard: &Guard, text: &[u8], truncated: bool) -> Judgement {
    let data = &guard.data;
    let mut matched: Option<(Permission, &str)> = None;
    let (mut could_object, mut could_allow, mut allowed) = (false, false, false);
    for (i, entry) in data.entries.iter().enumerate() {
        // A damaged pattern counts as no match: the index was validated,
        // and a guard fails open as a script does.
        let prefix = guard.patterns.prefix(i, text).unwrap_or(Prefix::Closed);
        match (prefix, entry.decision) {
            (Prefix::Matched, Permission::Allow) => allowed = true,
            (Prefix::Matched, decision) if matched.is_none_or(|(d, _)| decision > d) => {
                matched = Some((decision, &entry.text));
            }
            (Prefix::Matched, _) => {}
            (Prefix::Open, Permission::Allow) if truncated => could_allow = true,
            (Prefix::Open, _) if truncated => could_object = true,
            _ => {}
        }
    }
    // A deny that matched stands; an ask waits on what untold words could add.
    match matched {
        Some((Permission::Deny, text)) => return Judgement::Entry(Permission::Deny, text.into()),
        _ if could_object => return Judgement::Untold,
        Some((d, text)) => return Judgement::Entry(d, text.into()),
        None => {}
    }
    match data.otherwise {
        Some(_) if allowed => Judgement::Clear,
        Some(_) if could_allow => Judgement::Untold,
        Some(otherwise) => Judgement::Otherwise(otherwise),
        None => Judgement::Clear,
    }
}

/// Matches whole texts (a path's forms, a call's fields) against the
/// entries: the strictest matching `deny` or `ask` entry, else the
/// guard's `otherwise` when no `allow` entry matches any text.
fn judge_texts(guard: &Guard, texts: &[&[u8]]) -> Option<(Permission, Option<String>)> {
    let data = &guard.data;
    let matches = |i: usize| {
        texts.iter().any(|t| {
            guard
                .patterns
                .prefix(i, t)
                .is_ok_and(|p| p == Prefix::Matched)
        })
    };
    let mut found: Option<(Permission, &str)> = None;
    let mut allowed = false;
    for (i, entry) in data.entries.iter().enumerate() {
        if !matches(i) {
            continue;
        }
        match entry.decision {
            Permission::Allow => allowed = true,
            decision if found.is_none_or(|(d, _)| decision > d) => {
                found = Some((decision, &entry.text));
            }
            _ => {}
        }
    }
    match (found, data.otherwise) {
        (Some((d, text)), _) => Some((d, Some(text.to_string()))),
        (None, Some(otherwise)) if !allowed => Some((otherwise, None)),
        _ => None,
    }
}

/// Where a call's paths are read from: the session's working directory,
/// the repository's root, and the person's home (for `~/`).
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    /// The working directory relative paths start from.
    pub cwd: &'a Path,
    /// The repository's root, when the call is in one.
    pub root: Option<&'a Path>,
    /// `$HOME`.
    pub home: Option<&'a Path>,
}

/// The forms of `path` a glob is matched against: as given; where it
/// names, as the gate resolves a path ([`resolve_in`]: absolute, `.` and
/// `..` taken in the text, and through its links when it has any, so
/// `/proc/self/cwd/…` too), a leading `~/` read from the home; each of
/// those relative to the working directory and to the repository's root
/// (and to where their own links lead) when under them; and the file
/// name. A glob written for the repository (`secrets/**`) so holds
/// wherever the session has `cd`'d.
fn path_forms(path: &str, at: &Place<'_>) -> Vec<String> {
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let named = match (path.strip_prefix("~/"), at.home) {
        (Some(rest), Some(home)) => resolve_in(home, rest),
        _ => resolve_in(at.cwd, path),
    };
    let bases: Vec<PathBuf> = [Some(at.cwd), at.root]
        .into_iter()
        .flatten()
        .flat_map(|base| {
            let base = resolve_in(Path::new("/"), &text(base));
            std::iter::once(base.lexical).chain(base.real)
        })
        .collect();
    let mut forms = vec![path.to_string()];
    for full in std::iter::once(named.lexical).chain(named.real) {
        for base in &bases {
            if let Ok(rel) = full.strip_prefix(base) {
                forms.push(text(rel));
            }
        }
        if let Some(name) = full.file_name() {
            forms.push(name.to_string_lossy().into_owned());
        }
        forms.push(text(&full));
    }
    forms.sort();
    forms.dedup();
    forms
}

/// The text a fields guard's entries are walked through: each top-level
/// field of `input`, sorted by name, framed as the compiler's patterns
/// expect (a string as it is, anything else as its JSON text).
fn fields_text(input: &Value) -> Vec<u8> {
    let Some(object) = input.as_object() else {
        return Vec::new();
    };
    let mut fields: Vec<(&String, &Value)> = object.iter().collect();
    fields.sort_by(|a, b| a.0.cmp(b.0));
    let mut text = Vec::new();
    let framing = [FIELD_START, FIELD_VALUE, FIELD_END].map(char::from);
    let clean = |s: &str| s.replace(framing, "\u{fffd}");
    for (name, value) in fields {
        let value = match value {
            Value::String(s) => clean(s),
            other => clean(&other.to_string()),
        };
        text.push(FIELD_START);
        text.extend_from_slice(clean(name).as_bytes());
        text.push(FIELD_VALUE);
        text.extend_from_slice(value.as_bytes());
        text.push(FIELD_END);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookdex_compiler::formats::filename::{classify, FileClass};
    use hookdex_index::GuardPatterns;

    fn guard(file: &str, text: &str) -> Guard {
        let FileClass::Rule(name) = classify(file) else {
            panic!("{file}");
        };
        let data = hookdex_compiler::formats::guard::compile(&name, text).unwrap();
        let patterns = GuardPatterns::from_compiled(&data.dfa).unwrap();
        Guard { data, patterns }
    }

    fn kubectl(text: &str) -> Guard {
        guard(
            "pre-bash.kubectl-x.guard.yaml",
            &format!("reason: r\noptions: {{valued: [-n, --namespace], flags: [--debug]}}\n{text}"),
        )
    }

    /// The decision for `kubectl ARGS`, with the words at `unknown` untold
    /// and `more` words maybe after them.
    fn decide(g: &Guard, args: &str, unknown: &[usize], more: bool) -> &'static str {
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        let u = Use {
            program: "kubectl",
            args: &args,
            unknown,
            more,
        };
        judge_uses(g, &[u], &[]).map_or("none", |j| j.decision.as_str())
    }

    #[test]
    fn options_are_skipped_and_an_unknown_one_is_read_both_ways() {
        let g = kubectl("deny: [delete, rollout restart]\n");
        for (args, want) in [
            ("delete pod x", "deny"),
            ("-n prod delete pod", "deny"),
            ("-nprod delete", "deny"),
            ("--namespace=prod --debug delete", "deny"),
            ("--odd x delete", "deny"),
            ("--odd delete", "deny"),
            ("-- delete", "deny"),
            ("rollout -n x restart deploy/a", "deny"),
            ("rollout status", "none"),
            ("get pods delete", "none"),
            ("-n delete get", "none"),
            ("get -- delete", "none"),
            ("", "none"),
        ] {
            assert_eq!(decide(&g, args, &[], false), want, "kubectl {args}");
        }
    }

    #[test]
    fn untold_words_stop_the_reading_where_they_start() {
        let g = kubectl("deny: [rollout restart]\n");
        assert_eq!(decide(&g, "get $x", &[1], false), "none");
        assert_eq!(decide(&g, "rollout $x", &[1], false), "deny");
        assert_eq!(decide(&g, "$verb pod", &[0], false), "deny");
        assert_eq!(decide(&g, "-n $ns", &[1], false), "deny");
        assert_eq!(decide(&g, "rollout", &[], true), "deny");
        assert_eq!(decide(&g, "rollout status", &[], true), "none");
        let lenient = kubectl("deny: [delete]\ncannot_tell: allow\n");
        assert_eq!(decide(&lenient, "$verb pod", &[0], false), "none");
    }

    #[test]
    fn an_allow_list_refuses_the_rest() {
        let g = kubectl("allow: [get, auth can-i]\nask: [scale]\n");
        assert_eq!(decide(&g, "get pods", &[], false), "none");
        assert_eq!(decide(&g, "auth can-i list pods", &[], false), "none");
        assert_eq!(decide(&g, "auth reconcile", &[], false), "deny");
        assert_eq!(decide(&g, "auth", &[], false), "deny");
        assert_eq!(decide(&g, "scale x", &[], false), "ask");
        assert_eq!(decide(&g, "--odd get pods", &[], false), "deny");
        assert_eq!(decide(&g, "", &[], false), "none");
        assert_eq!(decide(&g, "auth $x", &[1], false), "deny");
        let none = kubectl("allow: []\n");
        assert_eq!(decide(&none, "", &[], false), "deny");
        assert_eq!(decide(&none, "get", &[], false), "deny");
    }

    #[test]
    fn too_many_readings_are_a_use_the_text_cannot_tell() {
        let g = kubectl("deny: [delete]\ncannot_tell: ask\n");
        let args = ["--odd"; 12].join(" ") + " get";
        assert_eq!(decide(&g, &args, &[], false), "ask");
    }

    #[test]
    fn paths_are_judged_in_every_form() {
        let g = guard(
            "pre-edit-secrets.guard.yaml",
            "reason: r\ndeny: [.env, 'secrets/**']\n",
        );
        let at = Place {
            cwd: Path::new("/repo/sub"),
            root: Some(Path::new("/repo")),
            home: Some(Path::new("/home/me")),
        };
        let decide = |path: &str| judge_path(&g, path, &at).map_or("none", |j| j.decision.as_str());
        assert_eq!(decide(".env"), "deny");
        assert_eq!(decide("/elsewhere/.env"), "deny");
        assert_eq!(decide("./a/../secrets/k"), "deny");
        assert_eq!(decide("/repo/secrets/k"), "deny");
        assert_eq!(decide("src/secrets.rs"), "none");
        // From a subfolder the repository's `secrets/` is still its own.
        assert_eq!(decide("../secrets/k"), "deny");
        assert_eq!(decide("~/.env"), "deny");
        assert_eq!(decide("/elsewhere/secrets/k"), "none");
    }
}
