//! `hookdex init --target T [--scope user|project] [--bundle DIR] [--profile a,b] [--no-trust]
//! [--dry-run] [--remove]`: wires a harness to run `hookdex hook` on its
//! tool events, and links a bundle and profile chain in `state.json`; every
//! file is merged, never replaced. `--remove` takes out again what it wrote
//! (hookdex's handlers, its MCP server, Codex's trust records, the
//! Copilot folder trust it added), and
//! `--dry-run` prints each change as a diff instead of writing it. It
//! creates the runtime layer's `conditions/` folder and says what to do
//! next. What a harness needs beyond its hook list to really run the hooks
//! (Codex's `config.toml`, Copilot's trusted folders, the notes on folder
//! trust) its own module
//! answers behind the `Harness` trait; this file loads, saves and prints.
//! Members keep their document order (serde_json's `preserve_order`). The
//! repository's files are not followed out of the repository, two files
//! that are one are edited as one, and `state.json` is edited under a lock.

mod settings_file;

use std::path::{Path, PathBuf};

use hookdex_compiler::sources::{confine, find_repo_root, state};
use hookdex_harness::{
    foreign_server_note, harness, init_notes, real_path, registered_note, Harness, HookSettings,
    InitRequest, McpFormat, McpRemoval,
};
use hookdex_model::{Event, Step, Target};
use hookdex_runtime::settings::Settings;
use hookdex_runtime::state::Store;

use self::settings_file::{diff, save, Doc, Edited, Saved, TomlDoc};
use super::CmdResult;
use crate::error::CmdError;

/// Where harness settings are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// The user's own settings (`~/.claude/settings.json`, …).
    User,
    /// The repository's settings (`<repo>/.claude/settings.json`, …).
    Project,
}

/// The settings file `settings` names for `scope`, seen from `cwd`.
fn settings_path(settings: &HookSettings, scope: Scope, cwd: &Path) -> Result<PathBuf, String> {
    Ok(match scope {
        Scope::Project => in_project(cwd, settings.project)?,
        Scope::User => {
            let path = settings
                .user_path(|name| std::env::var_os(name))
                .ok_or("HOME is not set")?;
            std::path::absolute(path).map_err(|e| e.to_string())?
        }
    })
}

/// The file `rel` of the project seen from `cwd` (the repository root, or
/// the current directory outside a repository).
///
/// # Errors
///
/// When a symlink on its way (the file itself included) leads out of the
/// project: a cloned repository's links must not make `init` write the
/// person's other files.
fn in_project(cwd: &Path, rel: &str) -> Result<PathBuf, String> {
    let root = project_root(cwd);
    let path = root.join(rel);
    match confine::leaving_link(&path, &root) {
        None => Ok(path),
        Some(leaving) => Err(format!(
            "{}: {} leads out of the repository (to {}); nothing written",
            path.display(),
            leaving.link.display(),
            leaving.to
        )),
    }
}

/// The project seen from `cwd`: the repository root, or the current
/// directory outside a repository.
fn project_root(cwd: &Path) -> PathBuf {
    find_repo_root(cwd).unwrap_or_else(|| cwd.to_path_buf())
}

/// Whether `a` and `b` name the same file, through symlinks and `..`
/// (two of `init`'s documents linked to one file are edited as one).
fn same_file(a: &Path, b: &Path) -> bool {
    a == b || real_path(a) == real_path(b)
}

/// The bundle directory `dir` as the absolute, canonical path `state.json` holds.
fn bundle_path(dir: &Path) -> Result<String, String> {
    let abs = std::fs::canonicalize(dir).map_err(|e| format!("--bundle {}: {e}", dir.display()))?;
    if !abs.is_dir() {
        return Err(format!("--bundle {}: not a directory", dir.display()));
    }
    Ok(utf8(&abs)?.to_string())
}

/// A `--profile` entry as `state.json` holds it: a name as given, a path
/// (one holding `/`) absolute and canonical, since the hook runs from
/// whatever project the agent is in.
fn profile_arg(profile: &str) -> Result<String, String> {
    if !profile.contains('/') {
        return Ok(profile.to_string());
    }
    let abs = std::fs::canonicalize(profile).map_err(|e| format!("--profile {profile}: {e}"))?;
    Ok(utf8(&abs)?.to_string())
}

/// `path` as text, since JSON holds nothing else.
fn utf8(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{}: path is not UTF-8", path.display()))
}

/// The hook's configuration in force (the set values of
/// [`VARIABLES`](hookdex_runtime::settings::VARIABLES)), carried into every
/// entry of the user's files so the hook reads the same `$HOOKDEX_HOME`
/// whatever environment the harness starts from.
fn configuration_in_force() -> Vec<(String, String)> {
    hookdex_runtime::settings::VARIABLES
        .iter()
        .filter_map(|name| {
            let value = std::env::var_os(name)?.into_string().ok()?;
            (!value.is_empty()).then(|| (name.to_string(), value))
        })
        .collect()
}

/// The events `init` wires for `target`: its tool events, UserPromptSubmit
/// and Stop always (the gate reads the person's prompt and closes at Stop),
/// and every other event the harness sends that a rule of the view's
/// layers is written for (as the view stands before this `init` links a
/// bundle or profiles: rerun it after adding rules for a new event).
fn wired_events(target: Target, cwd: &std::path::Path) -> Vec<Event> {
    let harness = harness(target);
    // Compiled in memory: `init` writes settings, not the hook's index.
    let view = Settings::from_env(target, cwd).view;
    let steps: Vec<Step> = hookdex_compiler::compile(&view)
        .data
        .rules
        .iter()
        .map(|rule| rule.step)
        .collect();
    harness
        .sends()
        .iter()
        .copied()
        .filter(|event| {
            harness.settings().events.contains(event)
                || matches!(event, Event::UserPromptSubmit | Event::Stop)
                || steps.contains(&event.step())
        })
        .collect()
}

/// The harness's own config file (Codex's `config.toml`), loaded and
/// edited for `request`, or its init entries taken out when `removing`;
/// with the notes the change gives. `None` for a harness with none.
fn change_config_file(
    harness: &dyn Harness,
    request: &InitRequest<'_>,
    removing: bool,
) -> Result<(Option<TomlDoc>, Vec<String>), String> {
    let Some(file) = harness.config_file() else {
        return Ok((None, Vec::new()));
    };
    let path = file.path(request).ok_or("HOME is not set".to_string())?;
    let mut doc = TomlDoc::load(path)?;
    doc.gone_when_empty = removing;
    let changed = match removing {
        true => file.remove(request, &mut doc.doc),
        false => file.edit(request, &mut doc.doc),
    };
    let notes = changed.map_err(|e| format!("{}: {e}", doc.path.display()))?;
    Ok((Some(doc), notes))
}

/// What `hookdex init` was asked.
pub struct Options {
    /// The harness to wire.
    pub target: Target,
    /// The user's files or the repository's.
    pub scope: Scope,
    /// The bundle to link.
    pub bundle: Option<PathBuf>,
    /// The profile chain to link (`''` clears it).
    pub profiles: Vec<String>,
    /// Whether to record the hooks as trusted where the harness keeps such
    /// records (Codex).
    pub trust: bool,
    /// Show the changes as diffs and write nothing.
    pub dry_run: bool,
    /// Undo what `init` wrote instead.
    pub remove: bool,
    /// Print what was done as JSON.
    pub json: bool,
}

/// The files one `init` edits, in the order they are reported.
struct Edits {
    settings: Doc,
    mcp: Option<Doc>,
    state: Option<Doc>,
    config: Option<TomlDoc>,
    /// The harness's trusted-folder list (Copilot's `config.json`).
    trust: Option<Doc>,
    notes: Vec<String>,
    /// The lock on `state.json`'s read-modify-write, held until the files
    /// are saved (a dry run takes none).
    _state_lock: Option<std::fs::File>,
}

/// Writes the harness's hook settings, its MCP entry, `state.json` and the
/// harness's further configuration file (or, with `--remove`, takes out
/// what an earlier run wrote there), then prints what was written and what
/// the person must know; a refusal in any file writes none, and
/// `--dry-run` writes none but prints each change as a diff.
pub fn run(options: Options) -> CmdResult {
    let target = options.target;
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate the hookdex binary: {e}"))?;
    let exe = utf8(&exe)?;
    let view = Settings::from_env(target, &cwd).view;
    let in_force = configuration_in_force();
    let edits = match options.remove {
        true => remove(&options, &cwd, exe, &in_force, &view)?,
        false => install(&options, &cwd, exe, &in_force, &view)?,
    };

    let conditions = view.home.join("conditions");
    let create_conditions = !options.remove && !conditions.is_dir();
    let files: Vec<&dyn Edited> = [
        Some(&edits.settings),
        edits.state.as_ref(),
        edits.mcp.as_ref(),
        edits.trust.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|doc| doc as &dyn Edited)
    .chain(edits.config.as_ref().map(|doc| doc as &dyn Edited))
    .collect();
    let mut done = Done::default();
    for file in files {
        let path = file.path().to_path_buf();
        done.files.push(match options.dry_run {
            true => match diff(file)? {
                Some(diff) => FileDone {
                    path,
                    action: "would change",
                    diff: Some(diff),
                },
                None => FileDone {
                    path,
                    action: "unchanged",
                    diff: None,
                },
            },
            false => FileDone {
                path,
                action: action(save(file)?),
                diff: None,
            },
        });
    }
    if create_conditions {
        if !options.dry_run {
            std::fs::create_dir_all(&conditions)
                .map_err(|e| format!("{}: {e}", conditions.display()))?;
        }
        done.created = Some(conditions.clone());
    }
    done.notes = edits.notes;
    done.dry_run = options.dry_run;
    if !options.dry_run && !options.remove {
        done.next_steps = vec![
            format!(
                "write a guard in {}, e.g. pre-bash.kubectl-writes.guard.yaml (see the README's quick start)",
                conditions.display()
            ),
            "hookdex try --tool Bash --command 'kubectl delete pod x'".into(),
            "hookdex doctor".into(),
        ];
    }
    match options.json {
        true => super::print_json(&done),
        false => done.print(),
    }
    Ok(0)
}

/// The edits that wire `options.target`, made in memory.
fn install(
    options: &Options,
    cwd: &Path,
    exe: &str,
    in_force: &[(String, String)],
    view: &hookdex_compiler::sources::View,
) -> Result<Edits, CmdError> {
    let target = options.target;
    let harness = harness(target);
    let hooks = harness.settings();
    let project = options.scope == Scope::Project;
    let bundle = options.bundle.as_deref().map(bundle_path).transpose()?;
    let profiles = options
        .profiles
        .iter()
        .map(|p| profile_arg(p))
        .collect::<Result<Vec<_>, _>>()?;
    hookdex_compiler::sources::check_profiles(view, bundle.as_deref().map(Path::new), &profiles)
        .map_err(|e| CmdError::Usage(format!("--profile: {e}")))?;
    // The repository's files are shared: they name `hookdex` on PATH and no
    // machine's variables; the user's name this binary and carry them.
    let (hook_exe, env) = files_exe(project, exe, in_force);
    let command = hooks.command(hook_exe, target, env);

    // Every file is edited in memory first, so a refusal writes none.
    let mut settings = Doc::load(settings_path(hooks, options.scope, cwd)?)?;
    hooks
        .install(
            &mut settings.root,
            target,
            hook_exe,
            &command,
            env,
            &wired_events(target, cwd),
        )
        .map_err(|e| format!("{}: {e}", settings.path.display()))?;
    // `hookdex mcp`, registered where the harness takes its MCP servers
    // (Gemini keeps them in the hooks' file, Codex in config.toml).
    let (mcp_path, mcp_in_project) = mcp_path(hooks, options.scope, cwd)?;
    let mut mcp = None;
    let mut notes = Vec::new();
    if let McpFormat::Json { .. } = hooks.mcp.format {
        let doc = match same_file(&mcp_path, &settings.path) {
            true => &mut settings,
            false => mcp.insert(Doc::load(mcp_path)?),
        };
        let (mcp_exe, mcp_env) = files_exe(mcp_in_project, exe, in_force);
        let before = doc
            .root
            .get("mcpServers")
            .and_then(|s| s.get("hookdex"))
            .cloned();
        hooks
            .mcp
            .install_json(&mut doc.root, mcp_exe, target, mcp_env)
            .map_err(|e| format!("{}: {e}", doc.path.display()))?;
        let changed = doc.root.get("mcpServers").and_then(|s| s.get("hookdex")) != before.as_ref();
        notes.push(registered_note(
            changed,
            &doc.path,
            &format!("mcpServers.hookdex: {mcp_exe} mcp --target {target}"),
        ));
    }
    let state_path = view.state_path();
    let state_lock = match options.dry_run {
        true => None,
        false => Some(lock_state(&state_path)?),
    };
    let mut state = None;
    let state_doc = if same_file(&state_path, &settings.path) {
        &mut settings
    } else {
        match mcp.as_mut().filter(|doc| same_file(&state_path, &doc.path)) {
            Some(doc) => doc,
            None => state.insert(Doc::load(state_path)?),
        }
    };
    state::link(&mut state_doc.root, target, bundle.as_deref(), &profiles)
        .map_err(|e| format!("{}: {e}", state_doc.path.display()))?;
    let var = |name: &str| std::env::var_os(name);
    // The repository's hooks run only in a folder the harness trusts; the
    // user asked for them, so `init` records the trust (and remembers in
    // `state.json` that it did, for `--remove`) unless `--no-trust`.
    let mut trust = None;
    if let Some(list) = harness.folder_trust().filter(|_| project && options.trust) {
        let folder = project_root(cwd);
        let folder_name = utf8(&folder)?;
        let path = list.path(&var).ok_or("HOME is not set".to_string())?;
        let mut doc = Doc::load(std::path::absolute(&path).unwrap_or(path))?;
        let added = list
            .record(&mut doc.root, &folder)
            .map_err(|e| format!("{}: {e}", doc.path.display()))?;
        let path = doc.path.clone();
        // A file with nothing to add is not rewritten, not even reformatted.
        if added {
            state::remember_trust(&mut state_doc.root, target, folder_name)
                .map_err(|e| format!("{}: {e}", state_doc.path.display()))?;
            trust = Some(doc);
        }
        notes.push(match added {
            true => format!(
                "trusted {folder_name} in {}: {target} runs the repository's hooks only in a \
                 folder it trusts (--no-trust leaves that to {target}'s own question)",
                path.display()
            ),
            false => format!("{} already trusts {folder_name}", path.display()),
        });
    }
    let request = InitRequest {
        project,
        settings_path: &settings.path,
        settings: &settings.root,
        exe,
        command: &command,
        env: in_force,
        trust: options.trust,
        var: &var,
    };
    let (config, said) = change_config_file(harness, &request, false)?;
    notes.extend(said);
    notes.extend(init_notes(harness, &request));
    if project && !in_force.is_empty() {
        let names: Vec<&str> = in_force.iter().map(|(k, _)| k.as_str()).collect();
        notes.push(format!(
            "note: the repository's files name no machine's paths, so {} are not written \
             there: set them where {target} starts, or use --scope user",
            names.join(", ")
        ));
    }
    Ok(Edits {
        settings,
        mcp,
        state,
        config,
        trust,
        notes,
        _state_lock: state_lock,
    })
}

/// The edits that undo what `init` wrote for `options.target` at its
/// scope, made in memory. `state.json` keeps its bundle and profiles, which
/// serve every harness; it loses only the record of a folder trust `init`
/// added, which is undone with it.
fn remove(
    options: &Options,
    cwd: &Path,
    exe: &str,
    in_force: &[(String, String)],
    view: &hookdex_compiler::sources::View,
) -> Result<Edits, CmdError> {
    let target = options.target;
    let harness = harness(target);
    let hooks = harness.settings();
    let project = options.scope == Scope::Project;
    let (hook_exe, env) = files_exe(project, exe, in_force);
    let mut settings = Doc::load(settings_path(hooks, options.scope, cwd)?)?;
    settings.gone_when_empty = true;
    let before = settings.root.clone();
    hooks.uninstall(&mut settings.root, target, hook_exe, env);
    // The user's MCP server serves every scope: a project's removal
    // leaves it to the user's.
    let (mcp_path, mcp_in_project) = mcp_path(hooks, options.scope, cwd)?;
    let mut mcp = None;
    let mut foreign = None;
    if matches!(hooks.mcp.format, McpFormat::Json { .. }) && mcp_in_project == project {
        let doc = match same_file(&mcp_path, &settings.path) {
            true => &mut settings,
            false => mcp.insert(Doc::load(mcp_path)?),
        };
        doc.gone_when_empty = true;
        if hooks.mcp.uninstall_json(&mut doc.root, exe) == McpRemoval::Foreign {
            foreign = Some(foreign_server_note(&doc.path, "mcpServers.hookdex"));
        }
    }
    let var = |name: &str| std::env::var_os(name);
    let command = hooks.command(hook_exe, target, env);
    let request = InitRequest {
        project,
        settings_path: &settings.path,
        settings: &before,
        exe,
        command: &command,
        env: in_force,
        trust: options.trust,
        var: &var,
    };
    let mut notes: Vec<String> = foreign.into_iter().collect();
    let (config, said) = change_config_file(harness, &request, true)?;
    notes.extend(said);
    // Only a trust `init` recorded goes: the person's own stays.
    let (mut state, mut trust, mut state_lock) = (None, None, None);
    if let Some(list) = harness.folder_trust().filter(|_| project) {
        let folder = project_root(cwd);
        let folder_name = utf8(&folder)?;
        let state_path = view.state_path();
        if !options.dry_run {
            state_lock = Some(lock_state(&state_path)?);
        }
        let mut state_doc = Doc::load(state_path)?;
        if state::forget_trust(&mut state_doc.root, target, folder_name) {
            state = Some(state_doc);
            let path = list.path(&var).ok_or("HOME is not set".to_string())?;
            let doc = trust.insert(Doc::load(std::path::absolute(&path).unwrap_or(path))?);
            doc.gone_when_empty = true;
            if list.forget(&mut doc.root, &folder) {
                notes.push(format!(
                    "took {folder_name}, which init had trusted, out of {}",
                    doc.path.display()
                ));
            }
        }
    }
    Ok(Edits {
        settings,
        mcp,
        state,
        config,
        trust,
        notes,
        _state_lock: state_lock,
    })
}

/// Takes `flock` on `state.json.lock` beside `state` (created when
/// missing), so that of two `init` runs each reads the other's `state.json`
/// edits rather than writing over them; the kernel drops it with the process.
fn lock_state(state: &Path) -> Result<std::fs::File, String> {
    let dir = state.parent().unwrap_or(Path::new("."));
    let name = format!(
        "{}.lock",
        state.file_name().unwrap_or_default().to_string_lossy()
    );
    let failed = |e: std::io::Error| format!("{}: {e}", dir.join(&name).display());
    let file = Store::new(dir.to_path_buf())
        .lock_file(&name)
        .map_err(failed)?;
    file.lock().map_err(failed)?;
    Ok(file)
}

/// The binary and variables a file names: `hookdex` (found on PATH) and
/// none in the repository's files, which other machines read; this binary
/// and the variables in force in the user's own.
fn files_exe<'a>(
    in_project: bool,
    exe: &'a str,
    in_force: &'a [(String, String)],
) -> (&'a str, &'a [(String, String)]) {
    match in_project {
        true => ("hookdex", &[]),
        false => (exe, in_force),
    }
}

/// Where `init` registers `hookdex mcp` for the harness of `settings`:
/// the project's file in project scope when the harness reads one (and
/// `true`), else the user's.
fn mcp_path(settings: &HookSettings, scope: Scope, cwd: &Path) -> Result<(PathBuf, bool), String> {
    let mcp = &settings.mcp;
    match (scope, mcp.project) {
        (Scope::Project, Some(project)) => Ok((in_project(cwd, project)?, true)),
        _ => {
            let moved = mcp.user_dir_var.and_then(|(var, file)| {
                let dir = std::env::var_os(var).filter(|d| !d.is_empty())?;
                Some(Path::new(&dir).join(file))
            });
            let path = match moved {
                Some(path) => path,
                None => {
                    let home = std::env::var_os("HOME")
                        .filter(|h| !h.is_empty())
                        .ok_or("HOME is not set")?;
                    Path::new(&home).join(mcp.user)
                }
            };
            Ok((std::path::absolute(path).map_err(|e| e.to_string())?, false))
        }
    }
}

fn action(saved: Saved) -> &'static str {
    match saved {
        Saved::Wrote => "wrote",
        Saved::Unchanged => "unchanged",
        Saved::Removed => "removed",
    }
}

/// What one `init` did, as it prints it (`--json`: this, key for key).
#[derive(Default, serde::Serialize)]
struct Done {
    /// Each file, in the order edited.
    files: Vec<FileDone>,
    /// The runtime conditions folder, when it was (or would be) created.
    created: Option<PathBuf>,
    /// What the person must know.
    notes: Vec<String>,
    /// Whether nothing was written.
    dry_run: bool,
    /// What to do next, after a first install.
    next_steps: Vec<String>,
}

/// One file `init` edited.
#[derive(serde::Serialize)]
struct FileDone {
    path: PathBuf,
    /// `wrote`, `unchanged`, `removed` or, in a dry run, `would change`.
    action: &'static str,
    /// The change as a unified diff, in a dry run.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

impl Done {
    fn print(&self) {
        for file in &self.files {
            match &file.diff {
                Some(diff) => print!("{diff}"),
                None => println!("{} {}", file.action, file.path.display()),
            }
        }
        if let Some(dir) = &self.created {
            let verb = if self.dry_run {
                "would create"
            } else {
                "created"
            };
            println!("{verb} {}", dir.display());
        }
        self.notes.iter().for_each(|note| println!("{note}"));
        if self.dry_run {
            println!("dry run: nothing written");
        }
        if !self.next_steps.is_empty() {
            println!("next steps:");
            self.next_steps.iter().for_each(|step| println!("  {step}"));
        }
    }
}
