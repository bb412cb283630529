//! What each tool does (SPEC §13, agentihooks' tools and argument names),
//! as plain functions the server calls: `condition_set`, `condition_clear`,
//! `condition_list`, `condition_show` and `enforcement_set`. The three that
//! change rules refuse unless the gate of the session the call names is
//! open; every body is checked by the compiler's own
//! [`validate_file`](hookdex_compiler::validate_file) before anything is
//! written; writes are atomic, condition scripts executable.

use std::path::{Path, PathBuf};

use hookdex_compiler::sources::{self, RuleDir};
use hookdex_compiler::View;
use hookdex_model::{LayerKind, Step, Target};
use hookdex_runtime::settings::Settings;
use hookdex_runtime::state::gate::{GateState, Gates};
use rmcp::schemars;
use serde::Deserialize;
use serde_json::{json, Value};

/// Why a tool call did nothing, in one line for the agent.
pub type Refusal = String;

/// `condition_set`'s arguments.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct SetArgs {
    /// `pre`, `post` or another step (`prompt` and `stop` take no matcher).
    pub step: String,
    /// The matcher (`bash.kubectl`, `edit+write`, `mcp__github`, `any`).
    #[serde(default)]
    pub matcher: Option<String>,
    /// The name part (use `_`, never `-`).
    pub name: String,
    /// The script, or a filter's or a guard's YAML body.
    pub script: String,
    /// The session asking (its gate must be open).
    #[serde(default)]
    pub session_id: Option<String>,
    /// `bash` (default), `python`, `filter` or `guard`.
    #[serde(default)]
    pub language: Option<String>,
    /// `global` (default: the bundle, or `$HOOKDEX_HOME` without one),
    /// `profile` or `directory`.
    #[serde(default)]
    pub scope: Option<String>,
    /// The profile, for `scope: profile` (default: the chain's first).
    #[serde(default)]
    pub profile: Option<String>,
    /// The session's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Write a `.async` condition.
    #[serde(default)]
    pub run_async: Option<bool>,
    /// Replace a file of the same name.
    #[serde(default)]
    pub replace: Option<bool>,
}

/// `condition_clear`'s arguments.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct ClearArgs {
    /// The condition's file name.
    pub file: String,
    /// The session asking (its gate must be open).
    #[serde(default)]
    pub session_id: Option<String>,
    /// The layer, when the name is in several.
    #[serde(default)]
    pub scope: Option<String>,
    /// The session's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
}

/// `condition_list`'s and `condition_show`'s arguments.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct ListArgs {
    /// The session's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The rule to show (`condition_show`).
    #[serde(default)]
    pub file: Option<String>,
}

/// `enforcement_set`'s arguments.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct EnforcementArgs {
    /// The message added as context.
    pub message: String,
    /// Every how many matching calls (default 1).
    #[serde(default)]
    pub cadence: Option<u32>,
    /// The matcher (the conditions' grammar; none is every tool call).
    #[serde(default)]
    pub matcher: Option<String>,
    /// Write into the repository's `.agentihooks/enforcements.json`.
    #[serde(default)]
    pub local: Option<bool>,
    /// The session's working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The session asking (its gate must be open).
    #[serde(default)]
    pub session_id: Option<String>,
}

/// Where the tools work: the harness, and how to read the environment.
pub struct Place {
    /// The harness whose view the rules are for.
    pub target: Target,
}

impl Place {
    fn settings(&self, cwd: Option<&str>) -> Settings {
        let cwd = cwd
            .map(PathBuf::from)
            .filter(|d| d.is_dir())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        Settings::from_env(self.target, &cwd)
    }
}

/// The refusal when `session`'s gate is closed (checked by the server
/// itself, not only by the hook).
fn gate(settings: &Settings, session: Option<&str>) -> Result<(), Refusal> {
    if !settings.gate_enabled {
        return Ok(());
    }
    let Some(session) = session.filter(|s| !s.is_empty()) else {
        return Err(hookdex_runtime::gate::denial(
            "this tool changes the rules and names no session_id",
        ));
    };
    match Gates::new(&settings.view.home).state(session) {
        GateState::Open { .. } => Ok(()),
        GateState::Closed => Err(hookdex_runtime::gate::denial(&format!(
            "the gate of session {session} is closed"
        ))),
    }
}

/// The conditions folder of `scope` (`global`, `profile`, `directory`).
fn scope_dir(view: &View, scope: Option<&str>, profile: Option<&str>) -> Result<PathBuf, Refusal> {
    let layers = sources::resolve(view).layers;
    let disk = |kind: LayerKind, label: Option<&str>| {
        layers
            .iter()
            .filter(|l| l.kind == kind && label.is_none_or(|want| l.label == want))
            .find_map(|l| match l.dirs.first() {
                Some(RuleDir::Disk { dir, .. }) => Some(dir.clone()),
                _ => None,
            })
    };
    match scope.unwrap_or("global") {
        "global" => {
            Ok(disk(LayerKind::Bundle, None).unwrap_or_else(|| view.home.join("conditions")))
        }
        "profile" => {
            let label = profile.map(|p| format!("profile:{p}"));
            disk(LayerKind::Profile, label.as_deref())
                .ok_or_else(|| format!("no profile {} in the chain", profile.unwrap_or("at all")))
        }
        "directory" => view
            .repo_root
            .as_ref()
            .map(|repo| repo.join(".agentihooks").join("conditions"))
            .ok_or_else(|| "scope directory: the working directory is in no git repository".into()),
        other => Err(format!(
            "scope `{other}`: expected global, profile or directory"
        )),
    }
}

/// Writes `text` to `path` atomically, with `mode`.
fn write_atomic(path: &Path, text: &str, mode: u32) -> Result<(), Refusal> {
    hookdex_index::AtomicWrite::new()
        .mode(mode)
        .write(path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// `condition_set`: writes `<step>-<matcher>-<name>[.async].<ext>`.
pub fn condition_set(place: &Place, args: &SetArgs) -> Result<Value, Refusal> {
    let settings = place.settings(args.cwd.as_deref());
    gate(&settings, args.session_id.as_deref())?;
    let step: Step = args
        .step
        .parse()
        .map_err(|e: hookdex_model::Error| e.to_string())?;
    let language = args.language.as_deref().unwrap_or("bash");
    let ext = match language {
        "bash" => "sh",
        "python" => "py",
        "filter" => "filter.yaml",
        "guard" => "guard.yaml",
        other => {
            return Err(format!(
                "language `{other}`: expected bash, python, filter or guard"
            ))
        }
    };
    let in_process = matches!(language, "filter" | "guard");
    let asynchronous = args.run_async.unwrap_or(false);
    if asynchronous && in_process {
        return Err(format!("a {language} cannot run async"));
    }
    let mut file_name = step.as_str().to_string();
    if step.has_matcher() {
        file_name.push('-');
        file_name.push_str(args.matcher.as_deref().unwrap_or("any"));
    }
    file_name.push('-');
    file_name.push_str(&args.name);
    if asynchronous {
        file_name.push_str(".async");
    }
    file_name.push('.');
    file_name.push_str(ext);
    if file_name.contains('/') || file_name.contains('\0') {
        return Err(format!("`{file_name}`: a name cannot hold `/`"));
    }
    hookdex_compiler::validate_file(&file_name, &args.script).map_err(|e| e.to_string())?;
    let dir = scope_dir(
        &settings.view,
        args.scope.as_deref(),
        args.profile.as_deref(),
    )?;
    let path = dir.join(&file_name);
    if path.exists() && !args.replace.unwrap_or(false) {
        return Err(format!(
            "{} exists: pass replace: true to replace it",
            path.display()
        ));
    }
    let mode = if in_process { 0o644 } else { 0o755 };
    write_atomic(&path, &args.script, mode)?;
    Ok(json!({"written": path, "file": file_name}))
}

/// `condition_clear`: removes a condition file of a writable layer.
pub fn condition_clear(place: &Place, args: &ClearArgs) -> Result<Value, Refusal> {
    let settings = place.settings(args.cwd.as_deref());
    gate(&settings, args.session_id.as_deref())?;
    if args.file.contains('/') || args.file.is_empty() {
        return Err(format!("`{}`: give the condition's file name", args.file));
    }
    let scopes: Vec<&str> = match args.scope.as_deref() {
        Some(scope) => vec![scope],
        None => vec!["global", "profile", "directory"],
    };
    let found: Vec<PathBuf> = scopes
        .iter()
        .filter_map(|scope| scope_dir(&settings.view, Some(scope), None).ok())
        .map(|dir| dir.join(&args.file))
        .filter(|path| path.is_file())
        .collect();
    match found.as_slice() {
        [] => Err(format!(
            "no condition {} in {}",
            args.file,
            scopes.join(", ")
        )),
        [path] => {
            std::fs::remove_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(json!({"removed": path}))
        }
        several => Err(format!(
            "{} is in several layers ({}): pass scope",
            args.file,
            several
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `condition_list`: what `hookdex list --json` says in the session's
/// directory; `condition_show`: what `hookdex show FILE` prints.
pub fn hookdex(place: &Place, args: &[&str], cwd: Option<&str>) -> Result<String, Refusal> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let settings = place.settings(cwd);
    let out = std::process::Command::new(exe)
        .args(args)
        .args(["--target", place.target.as_str()])
        .current_dir(&settings.exec.cwd)
        .output()
        .map_err(|e| e.to_string())?;
    match out.status.success() {
        true => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        false => Err(String::from_utf8_lossy(&out.stderr).trim().to_string()),
    }
}

/// `enforcement_set`: adds (or replaces, by its id) an entry of an
/// `enforcements.json`: the repository's with `local`, else the bundle's,
/// or `$HOOKDEX_HOME`'s without one.
pub fn enforcement_set(place: &Place, args: &EnforcementArgs) -> Result<Value, Refusal> {
    let settings = place.settings(args.cwd.as_deref());
    gate(&settings, args.session_id.as_deref())?;
    let view = &settings.view;
    let file = match args.local.unwrap_or(false) {
        true => view
            .repo_root
            .as_ref()
            .map(|r| r.join(".agentihooks").join("enforcements.json"))
            .ok_or("local: the working directory is in no git repository")?,
        false => {
            let conditions = scope_dir(view, Some("global"), None)?;
            let root = match conditions.parent().and_then(|p| p.file_name()) {
                Some(name) if name == ".claude" => conditions.parent().and_then(Path::parent),
                _ => conditions.parent(),
            };
            root.ok_or("no folder for enforcements.json")?
                .join("enforcements.json")
        }
    };
    let matcher = args.matcher.clone().unwrap_or_default();
    let id = format!(
        "session-{:08x}",
        xxhash_rust::xxh3::xxh3_64(format!("{matcher}\n{}", args.message).as_bytes()) as u32
    );
    let mut entries: Vec<Value> = match std::fs::read_to_string(&file) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(list)) => list,
            Ok(Value::Object(mut o)) => match o.remove("enforcements") {
                Some(Value::Array(list)) => list,
                _ => return Err(format!("{}: not a list of enforcements", file.display())),
            },
            _ => {
                return Err(format!(
                    "{}: not JSON; fix it by hand first",
                    file.display()
                ))
            }
        },
        Err(_) => Vec::new(),
    };
    entries.retain(|e| e.get("id").and_then(Value::as_str) != Some(&id));
    let mut entry =
        json!({"id": id, "message": args.message, "cadence": args.cadence.unwrap_or(1)});
    if !matcher.is_empty() {
        entry["matcher"] = json!(matcher);
    }
    entries.push(entry);
    let text = serde_json::to_string_pretty(&entries).map_err(|e| e.to_string())?;
    hookdex_compiler::validate_file("enforcements.json", &text).map_err(|e| e.to_string())?;
    write_atomic(&file, &format!("{text}\n"), 0o644)?;
    Ok(json!({"written": file, "id": id}))
}
