//! Driving each real client headless: its package and pinned version, the
//! configuration that points it at the scripted model server and keeps it
//! off the network (hookdex's own wiring is left to `hookdex init`), its
//! environment and command line. Facts are from the versions pinned here;
//! `tests/conformance/HARNESSES.md` has how they were found.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::install::Package;
use crate::world::World;

/// A harness under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// `@anthropic-ai/claude-code`.
    Claude,
    /// `@openai/codex`.
    Codex,
    /// `@google/gemini-cli`.
    Gemini,
    /// `@github/copilot`, offline with its own model provider.
    Copilot,
}

/// What a harness run left behind.
pub struct Run {
    /// Exit status (`None`: killed by the deadline).
    pub exit: Option<i32>,
    /// Stdout and stderr of the client.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
}

impl Client {
    /// The `--target` hookdex knows it by.
    pub fn target(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::Copilot => "copilot",
        }
    }

    /// The npm package at the version proven (or the one asked for in
    /// `HOOKDEX_CONFORMANCE_<TARGET>`, e.g. `HOOKDEX_CONFORMANCE_CODEX=0.172.0`).
    pub fn package(self) -> Package {
        let (name, version, bin) = match self {
            Client::Claude => ("@anthropic-ai/claude-code", "2.1.332", "claude"),
            Client::Codex => ("@openai/codex", "0.171.0", "codex"),
            Client::Gemini => ("@google/gemini-cli", "0.61.0", "gemini"),
            Client::Copilot => ("@github/copilot", "1.0.102", "copilot"),
        };
        let var = format!("HOOKDEX_CONFORMANCE_{}", self.target().to_uppercase());
        let version = std::env::var(var)
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| version.to_string());
        Package { name, version, bin }
    }

    /// The client's own configuration for a world whose server is on `port`,
    /// written before `hookdex init` merges hookdex's hooks into it.
    pub fn configure(self, world: &World, port: u16) {
        let home = &world.home;
        match self {
            Client::Claude => {}
            Client::Codex => write(
                &home.join(".codex/config.toml"),
                &format!(
                    r#"model = "test-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

# Keeps Codex from syncing plugins from github.com and chatgpt.com.
[features]
plugins = false
remote_plugin = false
apps = false

[analytics]
enabled = false

[otel]
exporter = "none"
"#
                ),
            ),
            Client::Gemini => write(
                &home.join(".gemini/settings.json"),
                &json!({
                    "security": {"auth": {"selectedType": "gemini-api-key"},
                                 "folderTrust": {"enabled": false}},
                    "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false}
                })
                .to_string(),
            ),
            Client::Copilot => {}
        }
    }

    /// The environment of the client (and of `hookdex init`, so the
    /// variables in force are the ones the hooks see).
    pub fn env(self, world: &World, port: u16) -> Vec<(String, String)> {
        let base = format!("http://127.0.0.1:{port}");
        let home = world.home.display().to_string();
        let pairs: Vec<(&str, String)> = match self {
            Client::Claude => vec![
                ("ANTHROPIC_BASE_URL", base),
                ("ANTHROPIC_API_KEY", "sk-conformance".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
                ("DISABLE_AUTOUPDATER", "1".into()),
                ("DISABLE_TELEMETRY", "1".into()),
                ("DISABLE_ERROR_REPORTING", "1".into()),
            ],
            Client::Codex => vec![
                ("CODEX_HOME", format!("{home}/.codex")),
                ("MOCK_API_KEY", "sk-conformance".into()),
                ("RUST_LOG", "warn".into()),
            ],
            Client::Gemini => vec![
                ("GEMINI_API_KEY", "conformance-key".into()),
                ("GOOGLE_GEMINI_BASE_URL", base),
                // As in CI: Gemini then strips the hook's environment of
                // everything it does not know, `HOOKDEX_*` included.
                (
                    "GITHUB_SHA",
                    "0000000000000000000000000000000000000000".into(),
                ),
            ],
            Client::Copilot => vec![
                ("COPILOT_OFFLINE", "true".into()),
                ("COPILOT_PROVIDER_TYPE", "openai".into()),
                ("COPILOT_PROVIDER_BASE_URL", format!("{base}/v1")),
                ("COPILOT_PROVIDER_API_KEY", "sk-conformance".into()),
                ("COPILOT_MODEL", "gpt-4.1".into()),
                ("COPILOT_AUTO_UPDATE", "false".into()),
                ("COPILOT_HOME", format!("{home}/.copilot")),
            ],
        };
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// Runs the client headless once in `world` (stdin from /dev/null: Codex
    /// waits for more input on an open pipe), killed after `deadline_sec`.
    pub fn run(self, bin: &Path, world: &World, port: u16, deadline_sec: u32) -> Run {
        let prompt = "run the scenario command";
        let args: Vec<String> = match self {
            Client::Claude => vec![
                "-p".into(),
                prompt.into(),
                "--output-format".into(),
                "stream-json".into(),
                "--verbose".into(),
                "--allowedTools".into(),
                "Bash".into(),
                "--model".into(),
                "claude-sonnet-4-5".into(),
            ],
            Client::Codex => vec![
                "exec".into(),
                "--skip-git-repo-check".into(),
                "--json".into(),
                prompt.into(),
            ],
            Client::Gemini => vec![
                "-p".into(),
                prompt.into(),
                "--output-format".into(),
                "json".into(),
                "--yolo".into(),
                "-m".into(),
                "gemini-2.5-flash".into(),
            ],
            Client::Copilot => vec![
                "-p".into(),
                prompt.into(),
                "--allow-all-tools".into(),
                "--no-auto-update".into(),
                "--output-format".into(),
                "json".into(),
                "--log-dir".into(),
                world.root.join("copilot-logs").display().to_string(),
            ],
        };
        // `timeout` runs the client in its own process group and kills the
        // whole group at the deadline.
        let out = Command::new("timeout")
            .args(["-k", "5", &deadline_sec.to_string()])
            .arg(bin)
            .args(&args)
            .current_dir(&world.work)
            .env_clear()
            .envs(world.env(self, port))
            .stdin(Stdio::null())
            .output()
            .expect("run the harness under timeout(1)");
        let exit = out.status.code().filter(|c| *c != 124 && *c != 137);
        Run {
            exit,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
