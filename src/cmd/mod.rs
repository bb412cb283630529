//! The subcommands, and what they share: the settings of the current
//! directory, the index for them, and a call described by command-line flags.

pub mod compile;
pub mod explain;
pub mod filter;
pub mod hook;
pub mod init;
pub mod list;
pub mod outputs;
pub mod show;
pub mod test;
pub mod trust;

use hookdex_harness::{McpScope, Payload};
use hookdex_index::IndexFile;
use hookdex_model::{Step, Target};
use hookdex_runtime::call::Call;
use hookdex_runtime::lint::Warning;
use hookdex_runtime::load::{self, IndexState, Verify};
use hookdex_runtime::settings::Settings;
use serde_json::{json, Value};

/// What a subcommand returns: its exit code, or one line for stderr (exit 1).
pub type CmdResult = Result<i32, String>;

/// The settings of the current directory.
pub fn current_settings(target: Target) -> Settings {
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    Settings::from_env(target, &cwd)
}

/// The index for `settings`, fully verified, recompiled when needed.
pub fn open(settings: &Settings) -> (IndexFile, IndexState) {
    load::load(&settings.view, Verify::Full)
}

/// A call described by `--tool`, `--command`, `--path`, `--input` and `--step`.
pub struct CallArgs {
    /// Tool name as the harness spells it.
    pub tool: String,
    /// Shell command.
    pub command: Option<String>,
    /// File path.
    pub path: Option<String>,
    /// Whole tool input (a JSON object).
    pub input: Option<Value>,
    /// Step.
    pub step: Step,
}

impl CallArgs {
    /// The tool input these flags describe.
    pub fn input(&self) -> Result<Value, String> {
        let mut input = self.input.clone().unwrap_or_else(|| json!({}));
        let Some(object) = input.as_object_mut() else {
            return Err("--input: expected a JSON object".into());
        };
        if let Some(command) = &self.command {
            object.insert("command".into(), json!(command));
        }
        if let Some(path) = &self.path {
            object.insert("file_path".into(), json!(path));
        }
        Ok(input)
    }

    /// What the call's hooks match on besides the query: its event (the
    /// step's own), `input` and this process's environment.
    pub fn probe<'a>(
        &self,
        settings: &Settings,
        input: &'a Value,
    ) -> hookdex_runtime::explain::HookProbe<'a> {
        hookdex_runtime::explain::HookProbe {
            event: self.step.event(),
            tool_input: input,
            breakers: hookdex_runtime::state::breaker::Breakers::new(
                &settings.view.home,
                settings.breaker_cooldown,
            ),
            var: &|name| std::env::var_os(name),
        }
    }

    /// Where the call's texts land, as a filter's `paths` see them: each
    /// text's file (a patch's files, each), or the `--path` given when the
    /// input offers no text.
    pub fn landing(&self, call: &Call) -> Result<Vec<Option<String>>, String> {
        let landing = hookdex_runtime::filters::text::landing(&call.tool.name, &self.input()?);
        Ok(if landing.is_empty() {
            vec![call.path.clone()]
        } else {
            landing
        })
    }

    /// The call, normalized for the target of `settings`: a harness's own
    /// spelling of an MCP tool is resolved against its settings as the hook
    /// would.
    pub fn call(&self, settings: &Settings) -> Result<Call, String> {
        let target = settings.view.target;
        let input = self.input()?;
        let event = self.step.event();
        if !event.is_tool_event() {
            return Ok(Call::new(target, self.step, &self.tool, &input));
        }
        let payload =
            json!({"hook_event_name": event.as_str(), "tool_name": self.tool, "tool_input": input});
        let payload = Payload::parse(target, payload.to_string().as_bytes(), None)
            .map_err(|e| e.to_string())?;
        let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
        let trusted = || load::repository_trusted(settings);
        let scope = McpScope {
            cwd: &cwd,
            var: &|name| std::env::var_os(name),
            project_trusted: &trusted,
        };
        Ok(Call::of(target, &payload, &scope))
    }
}

/// An invalid file as `compile --json` and `list --json` print it:
/// `{"file", "reason", "line", "column"}` (the place `null` when unknown).
pub fn invalid_json(file: &str, reason: &str, at: Option<(u32, u32)>) -> Value {
    json!({
        "file": file,
        "reason": reason,
        "line": at.map(|(line, _)| line),
        "column": at.map(|(_, column)| column),
    })
}

/// Lint warnings as `[{"file", "reason"}]` (compile and list).
pub fn warnings_json(warnings: &[Warning<'_>]) -> Value {
    warnings
        .iter()
        .map(|w| json!({"file": w.file, "reason": w.reason}))
        .collect()
}

/// Prints `value` as pretty JSON on stdout.
pub fn print_json(value: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

/// Runs `work` so that nothing a script it starts (a condition, a finder,
/// a ledger or classifier command) leaves behind outlives this process:
/// the process becomes their subreaper and sweeps what is left after.
pub fn supervised<T>(work: impl FnOnce() -> T) -> T {
    hookdex_runtime::procs::enable(|| {
        std::env::current_exe().unwrap_or_else(|_| "/proc/self/exe".into())
    });
    let done = work();
    hookdex_runtime::procs::sweep();
    done
}

/// The gate of `session` as `list` and `explain` show it (SPEC §13): off
/// (`HOOKDEX_GATE=off`), or open until a time, or closed.
pub fn gate_json(settings: &Settings, session: Option<&str>) -> Value {
    use hookdex_runtime::state::gate::{GateState, Gates};
    if !settings.gate_enabled {
        return json!({"enabled": false, "session": session, "state": "off"});
    }
    match session.map(|s| Gates::new(&settings.view.home).state(s)) {
        Some(GateState::Open { until_ms }) => {
            json!({"enabled": true, "session": session, "state": "open", "until_ms": until_ms})
        }
        Some(GateState::Closed) => json!({"enabled": true, "session": session, "state": "closed"}),
        None => json!({"enabled": true, "session": null, "state": null}),
    }
}

/// Whether shell calls of `session` run under the kernel's guard (SPEC
/// §15), as `list` and `explain` show it: `{"mode", "on", "why",
/// "programs", "write_gate", "harness_prefix"}`.
pub fn enforcement_json(settings: &Settings, session: Option<&str>) -> Value {
    let status = hookdex_runtime::wrap::plan::status(settings, session);
    json!({
        "mode": status.mode.as_str(),
        "on": status.on(),
        "why": status.why(),
        "programs": status.watched.programs,
        "write_gate": status.watched.write_gate,
        "harness_prefix": settings.harness_guards,
    })
}

/// [`gate_json`] as one line.
pub fn gate_line(gate: &Value) -> String {
    match (gate["state"].as_str(), gate["session"].as_str()) {
        (Some("off"), _) => {
            "off (HOOKDEX_GATE=off): rule sources can be changed by any call".into()
        }
        (Some("open"), Some(session)) => format!(
            "open for session {session} until the turn ends (at most until {} ms since the epoch)",
            gate["until_ms"]
        ),
        (Some("closed"), Some(session)) => {
            format!("closed for session {session}: rule sources change only when the person asks")
        }
        _ => "on (`--session ID` shows a session's state)".into(),
    }
}
