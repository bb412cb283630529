//! `hookdex doctor` as data: for each harness found on the machine (its
//! own directory exists, or its program is on `PATH`), which events its
//! user and project settings wire to `hookdex hook`, the binary they run
//! (does it exist, is it this version), whether the harness trusts the
//! entries (Codex's recorded hashes; Copilot's and Gemini's folder trust
//! of the current directory; Cursor's cannot be read), the environment the hook will see; then the rules (invalid
//! files, missing profiles, rules shadowing a shipped rule), the index's
//! freshness and enforcement on this kernel. Every problem carries the
//! command that fixes it.
//!
//! Exit 1 (a *blocking* problem) exactly when a rule the person wrote
//! would not run: an invalid file in a layer other than the package's and
//! the managed one, a missing profile, a found harness left unwired while
//! hookdex is set up (`state.json` exists), an entry whose binary is
//! missing, Codex entries it does not trust, or a folder Copilot (for the
//! repository's entries) or Gemini does not trust. Everything else (a
//! shadowing rule, another hookdex version, a variable not carried, a
//! stale index) is a problem that leaves the exit code 0.

use std::path::Path;

use hookdex_harness::{
    codex_record_path, codex_untrusted, copilot_folder_verdict, gemini_folder_verdict, harness,
    FolderVerdict, Harness, Wired,
};
use hookdex_index::NO_LAYER;
use hookdex_model::{LayerKind, Target};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Context, EnforcementStatus, Error, InvalidEntry};
use crate::lint;
use crate::load::{self, Verify};

/// What `hookdex doctor` reports.
#[derive(Clone, Debug, Serialize)]
pub struct DoctorReport {
    /// Each harness asked about.
    pub harnesses: Vec<HarnessReport>,
    /// The rules of the current directory's view.
    pub rules: RulesReport,
    /// The index of that view.
    pub index: IndexReport,
    /// Enforcement on this kernel.
    pub enforcement: EnforcementReport,
    /// No blocking problem: the exit code is 0.
    pub ok: bool,
}

/// One problem and the command that fixes it.
#[derive(Clone, Debug, Serialize)]
pub struct Problem {
    /// What is wrong.
    pub what: String,
    /// What fixes it.
    pub fix: String,
    /// Whether a rule the person wrote would not run because of it.
    pub blocking: bool,
}

/// One harness.
#[derive(Clone, Debug, Serialize)]
pub struct HarnessReport {
    /// Its target name.
    pub target: &'static str,
    /// Whether it is on this machine.
    pub found: bool,
    /// Where its hook settings run hookdex.
    pub wired: WiredReport,
    /// Whether the harness runs those entries.
    pub trusted: TrustReport,
    /// The environment the hook will see.
    pub env: EnvReport,
    /// What is fine, one line each.
    pub ok: Vec<String>,
    /// What is wrong.
    pub problems: Vec<Problem>,
}

/// The user and project settings' hookdex entries.
#[derive(Clone, Debug, Serialize)]
pub struct WiredReport {
    /// `~/.claude/settings.json`, …
    pub user: ScopeReport,
    /// `<repo>/.claude/settings.json`, …; `null` outside a repository.
    pub project: Option<ScopeReport>,
}

/// The hookdex entries of one settings file.
#[derive(Clone, Debug, Serialize)]
pub struct ScopeReport {
    /// The file.
    pub file: String,
    /// The events with a hookdex entry, as the harness spells them.
    pub events: Vec<String>,
    /// The binaries those entries run.
    pub binaries: Vec<BinaryReport>,
}

/// A binary an entry runs.
#[derive(Clone, Debug, Serialize)]
pub struct BinaryReport {
    /// Its path as written.
    pub path: String,
    /// Whether it exists.
    pub exists: bool,
    /// Whether it is this binary.
    pub current: bool,
    /// `<bin> --version`'s line (this binary's own when current).
    pub version: Option<String>,
}

/// Whether the harness runs the entries.
#[derive(Clone, Debug, Serialize)]
pub struct TrustReport {
    /// `yes`, `no` or `cannot tell`.
    pub verdict: &'static str,
    /// Why.
    pub why: String,
}

/// The environment the hook will see.
#[derive(Clone, Debug, Serialize)]
pub struct EnvReport {
    /// Whether the user's entries carry hookdex's variables as set here.
    pub carried: bool,
    /// hookdex's variables set here.
    pub here: Map<String, Value>,
    /// Those a user entry lacks or holds otherwise.
    pub missing: Vec<String>,
}

/// The rules' problems.
#[derive(Clone, Debug, Serialize)]
pub struct RulesReport {
    /// Files that did not parse (missing profiles apart).
    pub invalid: Vec<InvalidEntry>,
    /// Rules shadowing a shipped rule.
    pub shadowed: Vec<ShadowEntry>,
    /// Profiles named in `state.json` (or `HOOKDEX_PROFILES`) not found.
    pub missing_profiles: Vec<String>,
    /// Each with its fix.
    pub problems: Vec<Problem>,
}

/// A rule that shadows a shipped rule.
#[derive(Clone, Debug, Serialize)]
pub struct ShadowEntry {
    /// The rule that runs.
    pub file: String,
    /// Its layer.
    pub layer: String,
    /// The shipped rule that does not.
    pub shadows: String,
    /// Its layer.
    pub shadowed_layer: String,
}

/// The index of the view.
#[derive(Clone, Debug, Serialize)]
pub struct IndexReport {
    /// Its file.
    pub path: String,
    /// Whether it was fresh (else doctor compiled it again).
    pub fresh: bool,
    /// One line.
    pub state: String,
}

/// Enforcement here.
#[derive(Clone, Debug, Serialize)]
pub struct EnforcementReport {
    /// `HOOKDEX_ENFORCE` and whether the guard is on, and why.
    #[serde(flatten)]
    pub status: EnforcementStatus,
    /// Seccomp user notification: `null` when available, else why not.
    pub seccomp_unavailable: Option<String>,
    /// The Landlock ABI, when the kernel offers it.
    pub landlock_abi: Option<u32>,
}

/// What doctor is asked: the context, one target or every one, this
/// binary and its version.
pub struct DoctorRequest<'a> {
    /// The settings of the current directory and the environment.
    pub cx: &'a Context<'a>,
    /// `--target`.
    pub target: Option<Target>,
    /// This binary, canonical.
    pub exe: &'a Path,
    /// This binary's `--version` line (`hookdex 0.1.0`).
    pub version: &'a str,
}

/// The doctor's report for `request`.
///
/// # Errors
///
/// When the index is damaged beyond recompiling.
pub fn doctor(request: &DoctorRequest<'_>) -> Result<DoctorReport, Error> {
    let cx = request.cx;
    let view = &cx.settings.view;
    let (file, state) = load::load(view, Verify::Full);
    let index = file.index()?;
    let rules = rules(&index)?;
    let set_up = view.state_path().exists();
    let targets = match request.target {
        Some(target) => vec![target],
        None => Target::ALL.to_vec(),
    };
    let harnesses: Vec<HarnessReport> = targets
        .into_iter()
        .map(|target| harness_report(request, harness(target), set_up))
        .filter(|h| h.found || request.target.is_some())
        .collect();
    let ok = !harnesses
        .iter()
        .flat_map(|h| &h.problems)
        .chain(&rules.problems)
        .any(|p| p.blocking);
    Ok(DoctorReport {
        harnesses,
        rules,
        index: IndexReport {
            path: view.index_path().display().to_string(),
            fresh: state.is_fresh(),
            state: state.describe(),
        },
        enforcement: EnforcementReport {
            status: EnforcementStatus::of(cx.settings, None),
            seccomp_unavailable: hookdex_enforce::available().err().map(|e| e.to_string()),
            landlock_abi: hookdex_enforce::landlock().ok(),
        },
        ok,
    })
}

/// The rules' problems in `index`.
fn rules(index: &hookdex_index::Index<'_>) -> Result<RulesReport, Error> {
    let mut report = RulesReport {
        invalid: Vec::new(),
        shadowed: Vec::new(),
        missing_profiles: Vec::new(),
        problems: Vec::new(),
    };
    for i in 0..index.invalid_count() {
        let bad = index.invalid(i)?;
        // The compile files a missing profile under where the chain was set
        // (`state.json` or `HOOKDEX_PROFILES`), its reason naming it first.
        let missing = bad
            .reason
            .strip_prefix("unknown profile `")
            .and_then(|rest| rest.split('`').next())
            .filter(|_| bad.layer == NO_LAYER);
        if let Some(name) = missing {
            report.missing_profiles.push(name.to_string());
            report.problems.push(Problem {
                what: format!("missing profile: {}", bad.reason),
                fix: format!(
                    "hookdex init --target {} --profile <the chain without {name}>, or create the profile",
                    index.meta()?.target
                ),
                blocking: true,
            });
            continue;
        }
        let kind = match bad.layer {
            NO_LAYER => None,
            layer => Some(index.layer(usize::from(layer))?.kind),
        };
        let entry = InvalidEntry::from(&bad);
        report.problems.push(Problem {
            what: format!("invalid rule file: {}", entry.message),
            fix: match entry.line {
                Some(line) => format!("edit {} line {line}", entry.file),
                None => format!("edit or rename {}", entry.file),
            },
            blocking: kind.is_none_or(LayerKind::is_persons),
        });
        report.invalid.push(entry);
    }
    for shadow in lint::shadowing(index)? {
        report.problems.push(Problem {
            what: format!(
                "{} ({}) shadows {} ({}): that rule does not run",
                shadow.file, shadow.layer, shadow.shadows, shadow.shadowed_layer
            ),
            fix: format!(
                "rename {} to run both, or delete it to run the {} rule",
                shadow.file, shadow.shadowed_layer
            ),
            blocking: false,
        });
        report.shadowed.push(ShadowEntry {
            file: shadow.file.into(),
            layer: shadow.layer.into(),
            shadows: shadow.shadows.into(),
            shadowed_layer: shadow.shadowed_layer.into(),
        });
    }
    Ok(report)
}

/// One harness's report; `set_up` says hookdex was set up here at all.
fn harness_report(
    request: &DoctorRequest<'_>,
    harness: &dyn Harness,
    set_up: bool,
) -> HarnessReport {
    let var = request.cx.var;
    let target = harness.target();
    let settings = harness.settings();
    let exe = request.exe.to_str().unwrap_or_default();
    let home = settings.user_home(var);
    let on_path = on_path(harness.program(), var);
    let dir_found = home.as_ref().is_some_and(|h| h.is_dir());
    let mut ok = Vec::new();
    let mut problems = Vec::new();
    if dir_found {
        ok.push(format!(
            "found: {}",
            home.as_ref()
                .map(|h| h.display().to_string())
                .unwrap_or_default()
        ));
    } else if let Some(program) = &on_path {
        ok.push(format!("found: {program} on PATH"));
    }
    let read = |path: &Path| -> (Map<String, Value>, Vec<Wired>) {
        let root: Map<String, Value> = std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let wired = settings.wired(&root, target, exe);
        (root, wired)
    };
    let user_path = settings.user_path(var).unwrap_or_default();
    let (user_root, user_wired) = read(&user_path);
    let project_path = request
        .cx
        .settings
        .view
        .repo_root
        .as_ref()
        .map(|root| settings.project_path(root));
    let (project_root, project_wired) = project_path.as_deref().map(read).unwrap_or_default();
    let scope = |path: &Path,
                 wired: &[Wired],
                 project: bool,
                 problems: &mut Vec<Problem>,
                 ok: &mut Vec<String>| {
        let mut events: Vec<String> = wired.iter().map(|w| w.event.clone()).collect();
        events.dedup();
        let mut programs: Vec<&str> = wired.iter().map(|w| w.program.as_str()).collect();
        programs.sort_unstable();
        programs.dedup();
        let fix = format!(
            "hookdex init --target {target}{}",
            if project { " --scope project" } else { "" }
        );
        let binaries = programs
            .into_iter()
            .map(|program| binary(program, request, &fix, problems))
            .collect();
        if !events.is_empty() {
            ok.push(format!(
                "wired in {}: {}",
                path.display(),
                events.join(", ")
            ));
        }
        ScopeReport {
            file: path.display().to_string(),
            events,
            binaries,
        }
    };
    let user = scope(&user_path, &user_wired, false, &mut problems, &mut ok);
    let project = project_path
        .as_deref()
        .map(|path| scope(path, &project_wired, true, &mut problems, &mut ok));
    let found = dir_found || on_path.is_some();
    let wired_any = !user_wired.is_empty() || !project_wired.is_empty();
    if found && !wired_any {
        problems.push(Problem {
            what: format!(
                "{target} is on this machine but no settings run `hookdex hook --target {target}` ({} has none)",
                user_path.display()
            ),
            fix: format!("hookdex init --target {target}"),
            blocking: set_up,
        });
    }
    let trusted = trust(
        harness,
        &user_path,
        &user_root,
        &user_wired,
        project_path.as_deref(),
        &project_root,
        &project_wired,
        &request.cx.settings.exec.cwd,
        var,
        &mut problems,
    );
    let here: Map<String, Value> = crate::settings::VARIABLES
        .iter()
        .filter_map(|name| {
            let value = var(name)?.into_string().ok()?;
            (!value.is_empty()).then(|| (name.to_string(), Value::String(value)))
        })
        .collect();
    let mut missing = Vec::new();
    for (name, value) in &here {
        // The repository's entries carry none by design: they are shared.
        let lacking = user_wired.iter().any(|w| {
            !w.env
                .iter()
                .any(|(k, v)| k == name && Some(v.as_str()) == value.as_str())
        });
        if lacking {
            missing.push(name.clone());
        }
    }
    let carried = missing.is_empty();
    if !carried {
        problems.push(Problem {
            what: format!(
                "{target}'s hook entries do not carry {} as set here, so the hook may read other folders",
                missing.join(", ")
            ),
            fix: format!("hookdex init --target {target}"),
            blocking: false,
        });
    } else if wired_any {
        ok.push(match here.is_empty() {
            false => "env: the entries carry hookdex's variables as set here".into(),
            true => {
                "env: no hookdex variable is set here; the hook reads the default folders".into()
            }
        });
    }
    HarnessReport {
        target: target.as_str(),
        found,
        wired: WiredReport { user, project },
        trusted,
        env: EnvReport {
            carried,
            here,
            missing,
        },
        ok,
        problems,
    }
}

/// The binary `program` an entry runs: whether it exists, and its version
/// (asked with `--version` only when it is not this binary).
fn binary(
    program: &str,
    request: &DoctorRequest<'_>,
    fix: &str,
    problems: &mut Vec<Problem>,
) -> BinaryReport {
    // A repository's entries name `hookdex` on PATH, as the harness finds it.
    let found = match program.contains('/') {
        true => Some(program.to_string()),
        false => on_path(program, request.cx.var),
    };
    let path = Path::new(found.as_deref().unwrap_or(program));
    let current = std::fs::canonicalize(path).is_ok_and(|p| p == request.exe);
    let exists = found.is_some() && path.is_file();
    let version = match (exists, current) {
        (_, true) => Some(request.version.to_string()),
        (false, _) => None,
        (true, false) => std::process::Command::new(path)
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .output()
            .ok()
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string()),
    };
    if !exists {
        problems.push(Problem {
            what: format!("the hook entry runs {program}, which does not exist: no rule runs"),
            fix: fix.to_string(),
            blocking: true,
        });
    } else if !current && version.as_deref() != Some(request.version) {
        problems.push(Problem {
            what: format!(
                "the hook entry runs {program} ({}), not this hookdex ({})",
                version.as_deref().unwrap_or("version unknown"),
                request.version
            ),
            fix: fix.to_string(),
            blocking: false,
        });
    }
    BinaryReport {
        path: program.to_string(),
        exists,
        current,
        version,
    }
}

/// Whether the harness runs the wired entries.
#[allow(clippy::too_many_arguments)]
fn trust(
    harness: &dyn Harness,
    user_path: &Path,
    user_root: &Map<String, Value>,
    user_wired: &[Wired],
    project_path: Option<&Path>,
    project_root: &Map<String, Value>,
    project_wired: &[Wired],
    cwd: &Path,
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    problems: &mut Vec<Problem>,
) -> TrustReport {
    let target = harness.target();
    if user_wired.is_empty() && project_wired.is_empty() {
        return TrustReport {
            verdict: "cannot tell",
            why: "no hookdex entry to trust".into(),
        };
    }
    match target {
        Target::Codex => {
            let config_path = user_path.with_file_name("config.toml");
            let config = std::fs::read_to_string(&config_path).unwrap_or_default();
            let mut untrusted = Vec::new();
            let scopes = [(Some(user_path), user_root, user_wired, false), (project_path, project_root, project_wired, true)];
            for (path, root, wired, project) in scopes {
                let Some(path) = path else { continue };
                let named = codex_record_path(path, project, var);
                let mut commands: Vec<&str> = wired.iter().map(|w| w.command.as_str()).collect();
                commands.dedup();
                for command in commands {
                    untrusted.extend(codex_untrusted(&named, root, command, &config));
                }
            }
            if untrusted.is_empty() {
                return TrustReport {
                    verdict: "yes",
                    why: format!("{} records the current hash of every hookdex entry", config_path.display()),
                };
            }
            problems.push(Problem {
                what: format!(
                    "Codex skips {} hookdex entries silently: {} holds no trusted hash, or an old one, for {}",
                    untrusted.len(),
                    config_path.display(),
                    untrusted.join(", ")
                ),
                fix: "hookdex init --target codex".into(),
                blocking: true,
            });
            TrustReport {
                verdict: "no",
                why: format!("{} entries not trusted with their current hash", untrusted.len()),
            }
        }
        Target::Copilot if project_wired.is_empty() => TrustReport {
            verdict: "yes",
            why: "Copilot CLI always loads its user hooks".into(),
        },
        // The repository's hooks load only in a folder Copilot trusts.
        Target::Copilot => folder_trust(
            copilot_folder_verdict(cwd, var),
            "Copilot CLI skips the repository's hooks here silently",
            "hookdex init --target copilot --scope project",
            problems,
        ),
        // Untrusted, `gemini -p` refuses to run at all and the interactive
        // one runs no hooks: every entry depends on it.
        Target::Gemini => folder_trust(
            gemini_folder_verdict(cwd, var),
            "Gemini CLI runs no hook here",
            "start gemini here and trust the folder, or set GEMINI_CLI_TRUST_WORKSPACE=true where it starts",
            problems,
        ),
        Target::Cursor if !project_wired.is_empty() => TrustReport {
            verdict: "cannot tell",
            why: "Cursor runs project hooks only in a trusted workspace".into(),
        },
        Target::Claude | Target::Cursor => TrustReport {
            verdict: "yes",
            why: format!("{target} asks no trust of its user hooks"),
        },
    }
}

/// The report of a harness's folder trust `verdict`; an untrusted folder
/// is a blocking problem (`what` says what it costs), fixed by `fix`.
fn folder_trust(
    verdict: FolderVerdict,
    what: &str,
    fix: &str,
    problems: &mut Vec<Problem>,
) -> TrustReport {
    if !verdict.trusted {
        problems.push(Problem {
            what: format!("{what}: {}", verdict.why),
            fix: fix.into(),
            blocking: true,
        });
    }
    TrustReport {
        verdict: if verdict.trusted { "yes" } else { "no" },
        why: verdict.why,
    }
}

/// The harness's `program` on `PATH`, if it is there.
fn on_path(program: &str, var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<String> {
    crate::exec::on_path(program, &var("PATH")?).map(|found| found.display().to_string())
}
