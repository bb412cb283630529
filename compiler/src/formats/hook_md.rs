//! `HOOK.md` folders (**contract**, SPEC §9), moltis' hooks: `<dir>/<name>/HOOK.md`
//! with TOML front matter between `+++` lines (`name`, `description`,
//! `events`, `command`, `timeout`, `env`, `[requires] os / bins / env`).
//! Each moltis event the hook subscribes to that hookdex has becomes one
//! rule of that event's step, keyed by the hook's name, so a project hook
//! replaces a global one of the same name; a moltis event hookdex has no
//! counterpart for is listed as not wired.
//!
//! The folder scan follows moltis': one level deep, the file named exactly
//! `HOOK.md`; a file that does not parse is listed and the others stand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookdex_index::Stamp;
use hookdex_model::{Alternative, Event, HookAction, HookSpec, Requires, RuleKind, Runner};
use serde::Deserialize;

use crate::error::{RuleError, RuleErrorKind};
use crate::formats::filename::RuleName;
use crate::formats::source::read_source;
use crate::formats::{HookRule, NameMatcher, RuleSpec};

/// The file name in each hook's folder.
pub const FILE: &str = "HOOK.md";

/// Default `timeout`, in seconds (moltis').
const TIMEOUT: u64 = 10;

/// What one hooks folder gave.
#[derive(Debug, Default)]
pub struct Scanned {
    /// One rule per wired event of every hook that parsed, in folder order.
    pub rules: Vec<RuleSpec>,
    /// The files that cannot be used, and events not wired.
    pub invalid: Vec<RuleError>,
    /// The folder, each hook's folder and each `HOOK.md`, stamped.
    pub stamps: Vec<(PathBuf, Stamp)>,
}

#[derive(Deserialize)]
struct FrontMatter {
    name: String,
    events: Vec<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default = "default_timeout")]
    timeout: u64,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    requires: RequiresToml,
}

#[derive(Default, Deserialize)]
struct RequiresToml {
    #[serde(default)]
    os: Vec<String>,
    #[serde(default)]
    bins: Vec<String>,
    #[serde(default)]
    env: Vec<String>,
}

fn default_timeout() -> u64 {
    TIMEOUT
}

/// The keys moltis reads at the top of the front matter, and under
/// `[requires]`. Others are ignored, as moltis ignores them.
const KEYS: &[&str] = &[
    "name",
    "events",
    "description",
    "emoji",
    "command",
    "timeout",
    "priority",
    "env",
    "requires",
];
const REQUIRES_KEYS: &[&str] = &["os", "bins", "env", "config"];

/// A key of the front matter a known key is [`nearest`] to: a typo moltis
/// would ignore silently (`timout = 60` leaves the 10 s default).
///
/// [`nearest`]: hookdex_model::text::nearest
struct NearMiss {
    key: String,
    meant: &'static str,
    line: u32,
}

impl NearMiss {
    fn hint(&self) -> String {
        format!(
            "`{}` on line {} is not a key: did you mean `{}`?",
            self.key, self.line, self.meant
        )
    }
}

/// The near misses of the front matter `toml`, whose first line is the
/// file's line `first_line`.
fn near_misses(toml: &str, first_line: u32) -> Vec<NearMiss> {
    let Ok(doc) = toml_edit::Document::parse(toml) else {
        return Vec::new();
    };
    let line_of = |key: &toml_edit::Key| {
        let start = key.span().map_or(0, |s| s.start);
        first_line + toml[..start].matches('\n').count() as u32
    };
    let mut found = Vec::new();
    let mut check = |table: &toml_edit::Table, known: &[&'static str], prefix: &str| {
        for (key, _) in table.iter() {
            if known.contains(&key) {
                continue;
            }
            let meant = hookdex_model::text::nearest(key, known);
            if let (Some(meant), Some((k, _))) = (meant, table.get_key_value(key)) {
                found.push(NearMiss {
                    key: format!("{prefix}{key}"),
                    meant,
                    line: line_of(k),
                });
            }
        }
    };
    let root = doc.as_table();
    check(root, KEYS, "");
    if let Some(requires) = root.get("requires").and_then(toml_edit::Item::as_table) {
        check(requires, REQUIRES_KEYS, "requires.");
    }
    found
}

/// The hookdex events a moltis event answers; `None` for a name moltis
/// has that hookdex does not wire, `Err` for a name moltis does not have.
fn events_of(moltis: &str) -> Result<Option<&'static [Event]>, ()> {
    Ok(Some(match moltis {
        "BeforeToolCall" => &[Event::PreToolUse],
        "AfterToolCall" => &[Event::PostToolUse, Event::PostToolUseFailure],
        "SessionStart" => &[Event::SessionStart],
        "SessionEnd" => &[Event::SessionEnd],
        "BeforeCompaction" => &[Event::PreCompact],
        "AfterCompaction" => &[Event::PostCompact],
        "MessageReceived" | "Command" => &[Event::UserPromptSubmit],
        "AgentEnd" => &[Event::Stop],
        "BeforeAgentStart" | "BeforeLLMCall" | "AfterLLMCall" | "MessageSending"
        | "MessageSent" | "ToolResultPersist" | "GatewayStart" | "GatewayStop" => return Ok(None),
        _ => return Err(()),
    }))
}

/// Reads every `<dir>/<name>/HOOK.md` (none of which may leave `root`);
/// `dir_index` orders folders of one layer (a later one wins a name).
pub fn scan(dir: &Path, root: &Path, dir_index: usize) -> Scanned {
    let mut scanned = Scanned::default();
    scanned.stamps.push((dir.to_path_buf(), Stamp::of(dir)));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return scanned;
    };
    let mut folders: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    folders.sort();
    for folder in folders.into_iter().filter(|f| f.is_dir()) {
        scanned.stamps.push((folder.clone(), Stamp::of(&folder)));
        let file = folder.join(FILE);
        let Some(text) = read_source(&file, root, &mut scanned.stamps, &mut scanned.invalid) else {
            continue;
        };
        let shown = file.display().to_string();
        match read(&text, &shown, &folder, dir_index) {
            Ok((rules, not_wired)) => {
                scanned.rules.extend(rules);
                scanned.invalid.extend(not_wired);
            }
            Err((kind, line)) => scanned
                .invalid
                .push(RuleError::new(shown, kind).at(line.map(|l| (l, 1)))),
        }
    }
    scanned
}

/// The front matter of a `HOOK.md`: the text after a `+++` line (leading
/// whitespace of the file aside) up to the next line starting `+++`, and
/// the line it starts on.
fn front_matter(text: &str) -> Result<(&str, u32), RuleErrorKind> {
    let trimmed = text.trim_start();
    let skipped = &text[..text.len() - trimmed.len()];
    let line = skipped.matches('\n').count() as u32 + 1;
    let Some(rest) = trimmed.strip_prefix("+++") else {
        return Err(RuleErrorKind::Syntax(
            "must start with `+++` TOML front matter".into(),
        ));
    };
    match rest.find("\n+++") {
        Some(end) => Ok((&rest[..end], line)),
        None => Err(RuleErrorKind::Syntax(
            "the front matter has no closing `+++` line".into(),
        )),
    }
}

type Read = (Vec<RuleSpec>, Vec<RuleError>);

fn read(
    text: &str,
    shown: &str,
    folder: &Path,
    dir_index: usize,
) -> Result<Read, (RuleErrorKind, Option<u32>)> {
    let (toml, line) = front_matter(text).map_err(|kind| (kind, Some(1)))?;
    let misses = near_misses(toml, line);
    // A required key a typo left out names the typo.
    let hint_for = |key: &str| {
        misses
            .iter()
            .find(|m| m.meant == key)
            .map_or(String::new(), |m| format!(" ({})", m.hint()))
    };
    let front: FrontMatter = toml_edit::de::from_str(toml).map_err(|e| {
        let mut message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(key) = message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            message.push_str(&hint_for(key));
        }
        let at = e
            .span()
            .map(|s| line + toml[..s.start].matches('\n').count() as u32);
        (RuleErrorKind::Syntax(message), at)
    })?;
    let key_error = |key: &str, reason: String| {
        (
            RuleErrorKind::Key {
                key: key.into(),
                reason,
            },
            Some(line),
        )
    };
    if front.name.trim().is_empty() {
        return Err(key_error("name", "is empty".into()));
    }
    let mut wired: Vec<(&str, &'static [Event])> = Vec::new();
    let mut not_wired = Vec::new();
    for event in &front.events {
        match events_of(event) {
            Err(()) => {
                return Err(key_error(
                    "events",
                    format!("`{event}` is not a moltis event (names are exact: BeforeToolCall, AfterToolCall, …)"),
                ))
            }
            Ok(None) => not_wired.push(
                RuleError::new(
                    shown,
                    RuleErrorKind::Key {
                        key: "events".into(),
                        reason: format!("`{event}` is not wired: hookdex has no such event"),
                    },
                )
                .at(Some((line, 1))),
            ),
            Ok(Some(events)) if !wired.iter().any(|(e, _)| e == event) => {
                wired.push((event, events))
            }
            Ok(Some(_)) => {}
        }
    }
    let Some(command) = front.command.filter(|c| !c.trim().is_empty()) else {
        return Err(key_error(
            "command",
            format!(
                "is missing: the hook has nothing to run{}",
                hint_for("command")
            ),
        ));
    };
    // The hook stands; each typo is listed beside it.
    not_wired.extend(misses.iter().map(|m| {
        RuleError::new(
            shown,
            RuleErrorKind::Key {
                key: m.key.clone(),
                reason: format!(
                    "is not a HOOK.md key and is ignored: did you mean `{}`?",
                    m.meant
                ),
            },
        )
        .at(Some((m.line, 1)))
    }));
    let requires = Requires {
        os: front.requires.os,
        bins: front.requires.bins,
        env: front.requires.env,
    };
    let rules = wired
        .into_iter()
        .map(|(moltis, events)| {
            let step = events[0].step();
            let spec = HookSpec {
                label: front.name.clone(),
                line,
                events: events.iter().map(|e| e.as_str().to_string()).collect(),
                source_event: moltis.to_string(),
                action: HookAction::Command {
                    command: command.clone(),
                },
                timeout_ms: front.timeout.max(1) * 1000,
                cwd: Some(folder.display().to_string()),
                env: front.env.clone().into_iter().collect(),
                matcher: None,
                input: Vec::new(),
                requires: requires.clone(),
            };
            RuleSpec {
                file: shown.to_string(),
                file_name: FILE.to_string(),
                dir_index,
                name: RuleName {
                    step,
                    matcher: String::new(),
                    alternatives: vec![Alternative::Any],
                    name: format!("{} ({moltis})", front.name),
                    is_async: false,
                    ext: "md".into(),
                    kind: RuleKind::HookMd,
                    key: format!("hook.md:{}:{moltis}", front.name),
                },
                runner: Runner::Shell,
                filter: None,
                enforcement: None,
                hook: Some(Box::new(HookRule {
                    spec,
                    names: NameMatcher::Any,
                    input_dfa: Vec::new(),
                })),
                guard: None,
            }
        })
        .collect();
    Ok((rules, not_wired))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(dir: &Path, folder: &str, text: &str) {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::write(dir.join(folder).join(FILE), text).unwrap();
    }

    #[test]
    fn hooks_read_and_bad_ones_are_listed() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("hooks");
        hook(
            &dir,
            "logger",
            "+++\nname = \"command-logger\"\nevents = [\"BeforeToolCall\", \"AfterToolCall\", \"BeforeLLMCall\"]\ncommand = \"./handler.sh\"\ntimeout = 5\n[requires]\nos = [\"darwin\", \"linux\"]\nbins = [\"jq\"]\n+++\n# Logger\n",
        );
        hook(&dir, "yaml", "---\nname: x\n---\n");
        hook(
            &dir,
            "typo",
            "+++\nname = \"t\"\nevents = [\"beforetoolcall\"]\ncommand = \"x\"\n+++\n",
        );
        hook(&dir, "open", "+++\nname = \"o\"\n");
        let scanned = scan(&dir, root.path(), 0);
        let keys: Vec<&str> = scanned.rules.iter().map(|r| r.name.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "hook.md:command-logger:BeforeToolCall",
                "hook.md:command-logger:AfterToolCall"
            ]
        );
        let after = &scanned.rules[1].hook.as_ref().unwrap().spec;
        assert_eq!(after.events, ["PostToolUse", "PostToolUseFailure"]);
        assert_eq!(after.timeout_ms, 5000);
        assert_eq!(after.requires.bins, ["jq"]);
        let reasons: Vec<String> = scanned.invalid.iter().map(|e| e.to_string()).collect();
        assert_eq!(reasons.len(), 4, "{reasons:?}");
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("`BeforeLLMCall` is not wired")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("`beforetoolcall` is not a moltis event")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("must start with `+++`")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("no closing `+++`")),
            "{reasons:?}"
        );
    }

    #[test]
    fn key_typos_name_the_key_meant_and_the_hook_stands() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("hooks");
        hook(
            &dir,
            "slow",
            "+++\nname = \"slow\"\nevents = [\"BeforeToolCall\"]\ncommand = \"./h.sh\"\ntimout = 60\nauthor = \"kept, as moltis keeps it\"\n[requires]\nbin = [\"jq\"]\n+++\n",
        );
        hook(
            &dir,
            "nocmd",
            "+++\nname = \"n\"\nevents = [\"BeforeToolCall\"]\ncomand = \"./h.sh\"\n+++\n",
        );
        hook(
            &dir,
            "noevents",
            "+++\nname = \"e\"\nevent = [\"BeforeToolCall\"]\ncommand = \"./h.sh\"\n+++\n",
        );
        let scanned = scan(&dir, root.path(), 0);
        let keys: Vec<&str> = scanned.rules.iter().map(|r| r.name.key.as_str()).collect();
        assert_eq!(keys, ["hook.md:slow:BeforeToolCall"]);
        assert_eq!(
            scanned.rules[0].hook.as_ref().unwrap().spec.timeout_ms,
            10_000
        );
        let reasons: Vec<String> = scanned.invalid.iter().map(|e| e.to_string()).collect();
        assert_eq!(reasons.len(), 4, "{reasons:?}");
        let has = |needle: &str| reasons.iter().any(|r| r.contains(needle));
        assert!(has("slow/HOOK.md:5:1: timout: is not a HOOK.md key and is ignored: did you mean `timeout`?"), "{reasons:?}");
        assert!(
            has("requires.bin: is not a HOOK.md key and is ignored: did you mean `bins`?"),
            "{reasons:?}"
        );
        assert!(has("the hook has nothing to run (`comand` on line 4 is not a key: did you mean `command`?)"), "{reasons:?}");
        assert!(
            has("missing field `events` (`event` on line 3 is not a key: did you mean `events`?)"),
            "{reasons:?}"
        );
    }
}
