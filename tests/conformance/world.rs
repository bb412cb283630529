//! One scratch world per harness run: a HOME the client and `hookdex init`
//! write into, a `$HOOKDEX_HOME` holding the scenario's rules, a cache, a
//! working directory the model's command runs in, and the `hookdex` the
//! hooks run (a link to the built binary, or a control standing in for it).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::harnesses::Client;

/// The built binary.
const BIN: &str = env!("CARGO_BIN_EXE_hookdex");

/// What answers the harness's hook calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookUnderTest {
    /// hookdex itself.
    Hookdex,
    /// A control that reads the payload and does nothing.
    DoesNothing,
    /// A control that denies everything (stderr + exit 2).
    DeniesEverything,
}

/// One scratch world.
pub struct World {
    dir: Option<tempfile::TempDir>,
    /// The root of the world.
    pub root: PathBuf,
    /// The client's `$HOME`.
    pub home: PathBuf,
    /// `$HOOKDEX_HOME`.
    pub hdx_home: PathBuf,
    /// The working directory of the client and of the model's command.
    pub work: PathBuf,
    /// The program the hook settings name (`<root>/bin/hookdex`).
    pub hook_bin: PathBuf,
    /// Variables beyond the client's own.
    pub extra_env: Vec<(String, String)>,
}

impl World {
    /// A fresh world.
    pub fn new(client: Client, scenario: &str) -> World {
        let dir = tempfile::Builder::new()
            .prefix(&format!("conf-{}-{scenario}-", client.target()))
            .tempdir()
            .expect("tempdir");
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let hdx_home = root.join("hdx-home");
        let work = root.join("work");
        for d in [
            &home,
            &work,
            &hdx_home.join("conditions"),
            &root.join("bin"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let hook_bin = root.join("bin/hookdex");
        if std::fs::hard_link(BIN, &hook_bin).is_err() {
            std::fs::copy(BIN, &hook_bin).unwrap();
        }
        World {
            dir: Some(dir),
            root,
            home,
            hdx_home,
            work,
            hook_bin,
            extra_env: Vec::new(),
        }
    }

    /// The whole environment of the client (and of `hookdex init`).
    pub fn env(&self, client: Client, port: u16) -> Vec<(String, String)> {
        let node_dir = which("node").and_then(|n| n.parent().map(Path::to_path_buf));
        // The world's `bin` first: a repository's settings run `hookdex`
        // from PATH.
        let system = node_dir
            .map(|d| format!("{}:/usr/local/bin:/usr/bin:/bin", d.display()))
            .unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
        let path = format!("{}:{system}", self.root.join("bin").display());
        let mut env = vec![
            ("PATH".to_string(), path),
            ("HOME".into(), self.home.display().to_string()),
            ("TERM".into(), "dumb".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("HOOKDEX_HOME".into(), self.hdx_home.display().to_string()),
            (
                "HOOKDEX_CACHE_DIR".into(),
                self.root.join("cache").display().to_string(),
            ),
            (
                "HOOKDEX_MANAGED_DIR".into(),
                self.root.join("managed").display().to_string(),
            ),
            // The scenarios of the hook's replies leave shell calls
            // unwrapped; the guard's own scenario turns it on.
            ("HOOKDEX_ENFORCE".into(), "off".into()),
        ];
        env.extend(client.env(self, port));
        for (k, v) in &self.extra_env {
            env.retain(|(key, _)| key != k);
            env.push((k.clone(), v.clone()));
        }
        env
    }

    /// Writes an executable rule into the runtime layer.
    pub fn rule(&self, name: &str, body: &str) {
        let path = self.hdx_home.join("conditions").join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Wires the client with `hookdex init --target T` and `args` (none:
    /// user scope, as a new user would), run by the hook program itself.
    pub fn init(&self, client: Client, port: u16, args: &[&str]) -> Result<String, String> {
        let out = Command::new(&self.hook_bin)
            .args(["init", "--target", client.target()])
            .args(args)
            .current_dir(&self.work)
            .env_clear()
            .envs(self.env(client, port))
            .output()
            .map_err(|e| format!("hookdex init: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            Ok(text)
        } else {
            Err(format!("hookdex init failed: {text}"))
        }
    }

    /// Puts `hook` behind the program the settings name; `wrap` (a shell
    /// snippet ending in a pipe or prefix, given `$HOOKDEX`) stands between
    /// the harness and hookdex when set.
    pub fn install_hook(&self, hook: HookUnderTest, wrap: Option<&str>) {
        let body = match (hook, wrap) {
            (HookUnderTest::Hookdex, None) => return,
            // `init` registers `hookdex mcp` with the harness too: the MCP
            // server is the real one, never the hook under test (a control
            // that read stdin would hold the harness at its MCP start-up).
            (HookUnderTest::Hookdex, Some(wrap)) => {
                let real = self.root.join("bin/hookdex-real");
                std::fs::rename(&self.hook_bin, &real).unwrap();
                format!(
                    "#!/bin/sh\nHOOKDEX='{}'\n[ \"$1\" = mcp ] && exec \"$HOOKDEX\" \"$@\"\ncase \"$1\" in exec|--guard-shell=*) exec \"$HOOKDEX\" \"$@\";; esac\n{wrap}\n",
                    real.display()
                )
            }
            // A control is only ever the hook: the shell prefix `init`
            // gives Claude Code (`<hookdex> exec --guard … -- bash -c`)
            // runs the command as it is.
            (HookUnderTest::DoesNothing, _) => {
                format!("#!/bin/sh\n[ \"$1\" = mcp ] && exit 0\n{RUN_EXEC}cat >/dev/null\nexit 0\n")
            }
            (HookUnderTest::DeniesEverything, _) => {
                format!("#!/bin/sh\n[ \"$1\" = mcp ] && exit 0\n{RUN_EXEC}cat >/dev/null\necho 'control hook: everything is denied' >&2\nexit 2\n")
            }
        };
        let _ = std::fs::remove_file(&self.hook_bin);
        std::fs::write(&self.hook_bin, body).unwrap();
        std::fs::set_permissions(&self.hook_bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Keeps the world on disk after the test, with `requests` (one JSON
    /// line each) beside it, and says where.
    pub fn keep(&mut self, requests: &[Value]) {
        let lines: Vec<String> = requests.iter().map(Value::to_string).collect();
        let _ = std::fs::write(self.root.join("requests.jsonl"), lines.join("\n"));
        if let Some(dir) = self.dir.take() {
            eprintln!("kept {}", dir.keep().display());
        }
    }

    /// Whether the model's command (or its rewrite) wrote `marker`.
    pub fn ran(&self, marker: &str) -> bool {
        self.work.join(marker).exists()
    }

    /// The lines of hookdex's hook log.
    pub fn hook_log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.hdx_home.join("logs/hook.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Whether the hook built an index (proof it ran and looked).
    pub fn index_built(&self) -> bool {
        std::fs::read_dir(self.root.join("cache")).is_ok_and(|d| {
            d.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("index-") && name.ends_with(".hdx")
            })
        })
    }
}

/// A control's `exec … -- CMD…`, or Claude Code's shell prefix
/// (`--guard-shell=T STRING`): runs the command unguarded.
const RUN_EXEC: &str = "case \"$1\" in --guard-shell=*) shift; exec bash -c \"$*\";; exec) while [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\";; esac\n";

/// The executable `name` on this process's PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}
