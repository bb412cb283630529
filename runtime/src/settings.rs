//! Settings, read once per process from the environment: where things are
//! (the [`View`]: `HOOKDEX_*`), how conditions run (`CONDITIONS_*`) and
//! which classifier judges filter findings ([`ClassifierSettings`]:
//! `HOOKDEX_CLASSIFIER_*`, and the `AGENTIHOOKS_*` names the seed gives).
//! Everything else in the engine takes them as a value, so tests inject an
//! environment instead of changing the process's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookdex_compiler::View;
use hookdex_harness::ReplyOptions;
use hookdex_index::Meta;
use hookdex_model::{LayerKind, Switches, Target, Trust};

/// The longest `CONDITIONS_TIMEOUT_SEC` or `HOOKDEX_HOOK_TIMEOUT_SEC`
/// honoured: a larger value (or `inf`) means "as long as the harness
/// waits", and a day is longer than any does.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// `CONDITIONS_TIMEOUT_SEC` when unset or unusable; also the least a
/// managed rule gets, whatever the variable says.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// `HOOKDEX_CLASSIFIER_TIMEOUT_SEC` when unset or unusable: how long one
/// classifier question may take.
pub const DEFAULT_CLASSIFIER_TIMEOUT: Duration = Duration::from_secs(5);

/// `AGENTIHOOKS_FILTER_CACHE_TTL_S` when unset or unusable: seven days.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The longest `AGENTIHOOKS_FILTER_CACHE_TTL_S` honoured: ten years.
pub const MAX_CACHE_TTL: Duration = Duration::from_secs(10 * 366 * 24 * 60 * 60);

/// How conditions run for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecConfig {
    /// Working directory.
    pub cwd: PathBuf,
    /// Per-script timeout (`CONDITIONS_TIMEOUT_SEC`, default 10, at most [`MAX_TIMEOUT`]).
    pub timeout: Duration,
    /// The time one hook call gives all its conditions together, from its
    /// start (`HOOKDEX_HOOK_TIMEOUT_SEC`, default `timeout`, at most
    /// [`MAX_TIMEOUT`]): a batch of calls, a rewrite judged again and a
    /// second run after a vanished file share it, so the hook answers
    /// within it however many conditions fire.
    pub hook_timeout: Duration,
    /// Scripts running at once (`CONDITIONS_MAX_PARALLEL`, default 8).
    pub max_parallel: usize,
}

/// A value that must not be printed: its `Debug` says `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// `value`, kept out of `Debug` output.
    pub fn new(value: String) -> Secret {
        Secret(value)
    }

    /// The value itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Which classifier judges filter findings, and how its answers are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassifierSettings {
    /// `HOOKDEX_CLASSIFIER_CMD`: a command line run through `sh -c`, asked
    /// on stdin; when set it is the provider, whatever the URL says.
    pub command: Option<String>,
    /// `HOOKDEX_CLASSIFIER_URL`: an OpenAI-compatible chat-completions
    /// endpoint (the full URL, `…/v1/chat/completions`).
    pub url: Option<String>,
    /// `HOOKDEX_CLASSIFIER_KEY`: sent as `Authorization: Bearer KEY` to the
    /// URL. Read from the environment only: it is not in [`VARIABLES`], so
    /// `hookdex init` never copies it into a harness's settings file.
    pub key: Option<Secret>,
    /// `AGENTIHOOKS_CLASSIFIER_MODELS` (a comma list): asked in order, the
    /// first definite answer stands; empty means the provider's default.
    /// Part of every answer's cache key.
    pub models: Vec<String>,
    /// `AGENTIHOOKS_FILTER_CACHE_TTL_S`: how long a cached answer holds
    /// (default [`DEFAULT_CACHE_TTL`], at most [`MAX_CACHE_TTL`]; `0` caches
    /// nothing).
    pub cache_ttl: Duration,
    /// `HOOKDEX_CLASSIFIER_TIMEOUT_SEC`: how long one question may take
    /// (default [`DEFAULT_CLASSIFIER_TIMEOUT`], at most [`MAX_TIMEOUT`]),
    /// within the hook's deadline.
    pub timeout: Duration,
}

/// Where a swarm session's comments go, from the environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LedgerSettings {
    /// `AGENTIHOOKS_SWARM`: the swarm's ledger.
    pub swarm: Option<String>,
    /// `AGENTIHOOKS_SWARM_TASK`: the task this session works on.
    pub task: Option<String>,
    /// `AGENTIHOOKS_AGENT_NAME`: who the session is.
    pub agent: Option<String>,
    /// `HOOKDEX_LEDGER_CMD`: the command that writes a comment
    /// ([`crate::filters::ledger`]).
    pub command: Option<String>,
}

/// Everything the engine reads from the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Which rules apply, which index file answers, and the trusted owners
    /// (`CONDITIONS_TRUSTED_OWNERS`, which the compiler reads too).
    pub view: View,
    /// `CONDITIONS_ENABLED` (`false`, `0`, `no`, `off` turn every layer but managed off).
    pub conditions_enabled: bool,
    /// `HOOKDEX_OUTFILTERS` (`false`, `0`, `no`, `off` turn output filters
    /// off at `post`; `hookdex exec` then prints the output as it is).
    pub outfilters_enabled: bool,
    /// The owner of the managed directory when it is another user (the
    /// administrator): then the managed layer runs from the index in that
    /// directory ([`View::managed_only`]), not from the user's cache.
    pub managed_owner: Option<u32>,
    /// How conditions run.
    pub exec: ExecConfig,
    /// How replies are shaped (`HOOKDEX_INTERACTIVE`).
    pub reply: ReplyOptions,
    /// `HOOKDEX_SHELL_STRICT`: a shell command that may run a program its text
    /// cannot name (`$cmd x`, `eval "$x"`, `python -c`) fires every `bash.<cli>` rule.
    pub shell_strict: bool,
    /// The filter classifier.
    pub classifier: ClassifierSettings,
    /// Where a swarm session's round-cap comments go.
    pub ledger: LedgerSettings,
    /// The whole environment of a directory-layer rule: the variables of
    /// [`DIRECTORY_ENV`] and `HOOKDEX_DIRECTORY_ENV` that are set.
    pub directory_env: Vec<(String, String)>,
    /// `HOOKDEX_BREAKER_COOLDOWN_SEC`: how long a `HOOK.md` hook whose
    /// breaker opened stays off (default 60 s).
    pub breaker_cooldown: Duration,
    /// The gate (SPEC §13) is on unless `HOOKDEX_GATE=off` (or `0`,
    /// `false`, `no`): for machines where people edit rules by hand.
    pub gate_enabled: bool,
    /// `HOOKDEX_ENFORCE` (SPEC §15): whether shell calls run under the
    /// kernel's guard.
    pub enforce: Enforce,
    /// The harness runs every shell command behind hookdex's guard itself
    /// (its shell prefix variable, set by `hookdex init`, names
    /// `hookdex exec --guard`): the hook need not rewrite shell calls.
    pub harness_guards: bool,
}

/// `HOOKDEX_ENFORCE` (**contract**).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Enforce {
    /// Enforce where the kernel allows, judge the text elsewhere (default;
    /// also any value not named below).
    #[default]
    Auto,
    /// Never wrap: the text is the only guard.
    Off,
    /// Deny a shell call that cannot be enforced, with the reason.
    Require,
}

impl Enforce {
    /// The mode a `HOOKDEX_ENFORCE` value names.
    pub fn parse(value: Option<&str>) -> Enforce {
        match value.map(str::to_ascii_lowercase).as_deref() {
            Some("off" | "0" | "false" | "no") => Enforce::Off,
            Some("require" | "required") => Enforce::Require,
            _ => Enforce::Auto,
        }
    }

    /// The value as `HOOKDEX_ENFORCE` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Enforce::Auto => "auto",
            Enforce::Off => "off",
            Enforce::Require => "require",
        }
    }
}

/// Every variable that configures the hook (read here and by the
/// [`View`]): what `hookdex init` carries into a harness that strips a
/// hook's environment, and nothing else, so no unrelated value (a token)
/// is copied into a settings file.
pub const VARIABLES: &[&str] = &[
    "HOOKDEX_HOME",
    "HOOKDEX_CACHE_DIR",
    "HOOKDEX_MANAGED_DIR",
    "HOOKDEX_BUNDLE",
    "HOOKDEX_PROFILES",
    "HOOKDEX_INTERACTIVE",
    "HOOKDEX_SHELL_STRICT",
    "CONDITIONS_ENABLED",
    "CONDITIONS_TIMEOUT_SEC",
    "HOOKDEX_HOOK_TIMEOUT_SEC",
    "CONDITIONS_MAX_PARALLEL",
    "CONDITIONS_TRUSTED_OWNERS",
    "HOOKDEX_DIRECTORY_ENV",
    "HOOKDEX_CLASSIFIER_CMD",
    "HOOKDEX_CLASSIFIER_URL",
    "HOOKDEX_CLASSIFIER_TIMEOUT_SEC",
    "AGENTIHOOKS_CLASSIFIER_MODELS",
    "AGENTIHOOKS_FILTER_CACHE_TTL_S",
    "HOOKDEX_LEDGER_CMD",
    "HOOKDEX_OUTFILTERS",
    "HOOKDEX_ALLOW_PROJECT_HOOKS",
    "HOOKDEX_BIOROUTER",
    "HOOKDEX_CLAUDE_PERMISSIONS",
    "HOOKDEX_BREAKER_COOLDOWN_SEC",
    "HOOKDEX_GATE",
    "HOOKDEX_ENFORCE",
];

/// Variables the hook reads that are secrets: never in [`VARIABLES`], so
/// never written into a settings file. A harness that strips the hook's
/// environment does not pass them; the classifier command can read a key
/// from wherever its author keeps it.
pub const SECRETS: &[&str] = &["HOOKDEX_CLASSIFIER_KEY"];

/// Variables the hook reads that a launcher sets per session (a swarm's
/// identity): never in [`VARIABLES`], so `hookdex init` never pins one
/// session's values into a settings file every session reads.
pub const SESSION: &[&str] = &[
    "AGENTIHOOKS_SWARM",
    "AGENTIHOOKS_SWARM_TASK",
    "AGENTIHOOKS_AGENT_NAME",
];

/// The `PATH` managed rules run with: the system's directories, which only
/// the administrator can write.
pub const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// What a repository's own rules see of the environment: enough to run
/// programs and read files, and no API keys or tokens.
/// `HOOKDEX_DIRECTORY_ENV` (a comma list of names) passes more.
pub const DIRECTORY_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TMPDIR",
    "TZ",
];

impl Settings {
    /// Where a call's paths are read from: the working directory, the
    /// repository's root and the home ([`crate::guards::Place`]).
    pub fn place(&self) -> crate::guards::Place<'_> {
        crate::guards::Place {
            cwd: &self.exec.cwd,
            root: self.view.repo_root.as_deref(),
            home: self.view.git_user.home.as_deref(),
        }
    }

    /// The settings for a call made in `cwd`, reading variables through `var`.
    pub fn from_vars(
        target: Target,
        cwd: &Path,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Settings {
        let text = |name: &str| var(name).map(|v| v.to_string_lossy().trim().to_string());
        let off = |name: &str| {
            matches!(
                text(name).map(|v| v.to_ascii_lowercase()).as_deref(),
                Some("false" | "0" | "no" | "off")
            )
        };
        let conditions_enabled = !off("CONDITIONS_ENABLED");
        let seconds = |name: &str| {
            text(name)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|s| *s > 0.0)
                .map(|s| Duration::try_from_secs_f64(s).map_or(MAX_TIMEOUT, |d| d.min(MAX_TIMEOUT)))
        };
        let timeout = seconds("CONDITIONS_TIMEOUT_SEC").unwrap_or(DEFAULT_TIMEOUT);
        let hook_timeout = seconds("HOOKDEX_HOOK_TIMEOUT_SEC").unwrap_or(timeout);
        let max_parallel = text("CONDITIONS_MAX_PARALLEL")
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(8);
        let on = |name: &str| {
            text(name).is_some_and(|v| {
                matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on")
            })
        };
        let view = View::from_vars(target, cwd, &var);
        let nonempty = |name: &str| text(name).filter(|v| !v.is_empty());
        let classifier = ClassifierSettings {
            command: nonempty("HOOKDEX_CLASSIFIER_CMD"),
            url: nonempty("HOOKDEX_CLASSIFIER_URL"),
            key: nonempty("HOOKDEX_CLASSIFIER_KEY").map(Secret::new),
            models: text("AGENTIHOOKS_CLASSIFIER_MODELS")
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(str::to_string)
                .collect(),
            cache_ttl: cache_ttl(text("AGENTIHOOKS_FILTER_CACHE_TTL_S").as_deref()),
            timeout: seconds("HOOKDEX_CLASSIFIER_TIMEOUT_SEC")
                .unwrap_or(DEFAULT_CLASSIFIER_TIMEOUT),
        };
        let ledger = LedgerSettings {
            swarm: nonempty("AGENTIHOOKS_SWARM"),
            task: nonempty("AGENTIHOOKS_SWARM_TASK"),
            agent: nonempty("AGENTIHOOKS_AGENT_NAME"),
            command: nonempty("HOOKDEX_LEDGER_CMD"),
        };
        Settings {
            directory_env: Settings::read_directory_env(&var),
            classifier,
            ledger,
            gate_enabled: !off("HOOKDEX_GATE"),
            enforce: Enforce::parse(text("HOOKDEX_ENFORCE").as_deref()),
            harness_guards: hookdex_harness::harness(target)
                .settings()
                .shell_prefix
                .and_then(text)
                .is_some_and(|prefix| hookdex_harness::is_guard_prefix(&prefix)),
            breaker_cooldown: seconds("HOOKDEX_BREAKER_COOLDOWN_SEC")
                .unwrap_or(crate::state::breaker::DEFAULT_COOLDOWN),
            managed_owner: view.managed_owner(),
            view,
            reply: ReplyOptions {
                interactive: on("HOOKDEX_INTERACTIVE"),
            },
            shell_strict: on("HOOKDEX_SHELL_STRICT"),
            conditions_enabled,
            outfilters_enabled: !off("HOOKDEX_OUTFILTERS"),
            exec: ExecConfig {
                cwd: cwd.to_path_buf(),
                timeout,
                hook_timeout,
                max_parallel,
            },
        }
    }

    /// The settings from the process environment for a call made in `cwd`.
    pub fn from_env(target: Target, cwd: &Path) -> Settings {
        Settings::from_vars(target, cwd, |name| std::env::var_os(name))
    }

    /// What decides, besides trust, whether a rule of the user's index runs.
    pub fn switches(&self) -> Switches {
        Switches {
            enabled: self.conditions_enabled,
            managed_apart: self.managed_owner.is_some(),
        }
    }

    /// The view of the administrator's managed layer, when it runs apart
    /// from the user's index ([`Settings::managed_owner`]).
    pub fn managed_view(&self) -> Option<View> {
        self.managed_owner.map(|_| self.view.managed_only())
    }

    /// The whole environment of a managed rule: the variables of
    /// [`DIRECTORY_ENV`] that are set, with `PATH` replaced by [`SYSTEM_PATH`]
    /// and Python's user site switched off (`PYTHONNOUSERSITE`), so nothing
    /// the user's account can set or write chooses what it runs.
    pub fn managed_env(&self) -> Vec<(String, String)> {
        self.directory_env
            .iter()
            .filter(|(name, _)| name != "PATH" && DIRECTORY_ENV.contains(&name.as_str()))
            .cloned()
            .chain([
                ("PATH".to_string(), SYSTEM_PATH.to_string()),
                ("PYTHONNOUSERSITE".to_string(), "1".to_string()),
            ])
            .collect()
    }

    /// The whole environment of a directory-layer rule, reading variables
    /// through `var`: the variables of [`DIRECTORY_ENV`] and
    /// `HOOKDEX_DIRECTORY_ENV` that are set.
    fn read_directory_env(var: impl Fn(&str) -> Option<OsString>) -> Vec<(String, String)> {
        let passed = var("HOOKDEX_DIRECTORY_ENV")
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_default();
        DIRECTORY_ENV
            .iter()
            .copied()
            .chain(passed.split(',').map(str::trim).filter(|n| !n.is_empty()))
            .filter_map(|name| {
                let value = var(name)?.into_string().ok()?;
                Some((name.to_string(), value))
            })
            .collect()
    }

    /// The environment a script of a `layer` rule runs with, when it does
    /// not inherit the hook's: a repository's own scripts get the
    /// allow-listed [`Settings::directory_env`] (no API keys or tokens of
    /// the user's unless a setting passes them), the administrator's the
    /// system's programs ([`Settings::managed_env`]); `None` for the
    /// others, which inherit.
    pub fn script_env(&self, layer: LayerKind) -> Option<Vec<(String, String)>> {
        match layer {
            LayerKind::Directory => Some(self.directory_env.clone()),
            LayerKind::Managed => Some(self.managed_env()),
            _ => None,
        }
    }

    /// `HOOKDEX_HOME` and `HOOKDEX_CACHE_DIR` as this view resolved them,
    /// set for the scripts that inherit the hook's environment: the same
    /// values in the hook, and the scratch copy under `hookdex test`, whose
    /// view is not the process's.
    pub fn script_vars(&self) -> impl Iterator<Item = (String, String)> + '_ {
        [
            ("HOOKDEX_HOME", &self.view.home),
            ("HOOKDEX_CACHE_DIR", &self.view.cache_dir),
        ]
        .into_iter()
        .filter_map(|(name, path)| Some((name.to_string(), path.to_str()?.to_string())))
    }

    /// The directory layer's trust verdict for the index's recorded owners.
    pub fn trust(&self, meta: &Meta<'_>) -> Trust {
        self.view.trust(meta.trust_record, meta.bundle_owner)
    }
}

/// `AGENTIHOOKS_FILTER_CACHE_TTL_S` as a duration: whole or fractional
/// seconds, `0` for none, [`DEFAULT_CACHE_TTL`] when unset or unusable.
fn cache_ttl(value: Option<&str>) -> Duration {
    value
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| *s >= 0.0)
        .map_or(DEFAULT_CACHE_TTL, |s| {
            Duration::try_from_secs_f64(s).map_or(MAX_CACHE_TTL, |d| d.min(MAX_CACHE_TTL))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variable_read_is_listed() {
        let sources = [
            include_str!("settings.rs"),
            include_str!("../../compiler/src/sources/view.rs"),
        ];
        for source in sources {
            for (at, _) in source.match_indices("(\"") {
                let name: String = source[at + 2..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                    .collect();
                let ours = ["HOOKDEX_", "CONDITIONS_", "AGENTIHOOKS_"]
                    .iter()
                    .any(|prefix| name.starts_with(prefix));
                if ours && !name.ends_with('_') {
                    assert!(
                        [VARIABLES, SECRETS, SESSION]
                            .iter()
                            .any(|list| list.contains(&name.as_str())),
                        "{name} is read but not in VARIABLES, SECRETS or SESSION"
                    );
                }
            }
        }
    }

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        Settings::from_vars(Target::Claude, Path::new("/"), |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn timeouts_never_overflow() {
        let timeout = |v: &str| settings(&[("CONDITIONS_TIMEOUT_SEC", v)]).exec.timeout;
        assert_eq!(timeout("2.5"), Duration::from_millis(2500));
        assert_eq!(timeout("1e30"), MAX_TIMEOUT);
        assert_eq!(timeout("inf"), MAX_TIMEOUT);
        assert_eq!(timeout("NaN"), Duration::from_secs(10));
        assert_eq!(timeout("-3"), Duration::from_secs(10));
        assert_eq!(timeout("soon"), Duration::from_secs(10));
    }

    #[test]
    fn the_hook_timeout_defaults_to_the_condition_timeout() {
        let hook_timeout = |pairs: &[(&str, &str)]| settings(pairs).exec.hook_timeout;
        assert_eq!(hook_timeout(&[]), Duration::from_secs(10));
        assert_eq!(
            hook_timeout(&[("CONDITIONS_TIMEOUT_SEC", "3")]),
            Duration::from_secs(3)
        );
        assert_eq!(
            hook_timeout(&[
                ("CONDITIONS_TIMEOUT_SEC", "3"),
                ("HOOKDEX_HOOK_TIMEOUT_SEC", "20")
            ]),
            Duration::from_secs(20)
        );
        assert_eq!(
            hook_timeout(&[("HOOKDEX_HOOK_TIMEOUT_SEC", "inf")]),
            MAX_TIMEOUT
        );
        assert_eq!(
            hook_timeout(&[("HOOKDEX_HOOK_TIMEOUT_SEC", "0")]),
            Duration::from_secs(10)
        );
    }

    #[test]
    fn switches_and_lists() {
        assert!(settings(&[]).conditions_enabled);
        for off in ["false", "0", "No", " off "] {
            assert!(
                !settings(&[("CONDITIONS_ENABLED", off)]).conditions_enabled,
                "{off}"
            );
        }
        assert_eq!(
            settings(&[("CONDITIONS_MAX_PARALLEL", "0")])
                .exec
                .max_parallel,
            8
        );
        assert_eq!(
            settings(&[("CONDITIONS_TRUSTED_OWNERS", " acme ")])
                .view
                .trusted_owners,
            "acme"
        );
        assert!(!settings(&[]).shell_strict);
        assert!(settings(&[("HOOKDEX_SHELL_STRICT", "1")]).shell_strict);
    }

    #[test]
    fn the_classifier_settings() {
        let unset = settings(&[]).classifier;
        assert_eq!(unset.command, None);
        assert_eq!(unset.url, None);
        assert_eq!(unset.key, None);
        assert!(unset.models.is_empty());
        assert_eq!(unset.cache_ttl, DEFAULT_CACHE_TTL);
        assert_eq!(unset.timeout, DEFAULT_CLASSIFIER_TIMEOUT);
        let set = settings(&[
            ("HOOKDEX_CLASSIFIER_CMD", " judge --fast "),
            ("HOOKDEX_CLASSIFIER_URL", ""),
            ("HOOKDEX_CLASSIFIER_KEY", "sk-1"),
            ("AGENTIHOOKS_CLASSIFIER_MODELS", " small, ,large "),
            ("HOOKDEX_CLASSIFIER_TIMEOUT_SEC", "0.5"),
        ])
        .classifier;
        assert_eq!(set.command.as_deref(), Some("judge --fast"));
        assert_eq!(set.url, None);
        assert_eq!(set.key.as_ref().map(Secret::expose), Some("sk-1"));
        assert!(!format!("{set:?}").contains("sk-1"));
        assert_eq!(set.models, ["small", "large"]);
        assert_eq!(set.timeout, Duration::from_millis(500));
    }

    #[test]
    fn the_cache_ttl() {
        let table = [
            (None, DEFAULT_CACHE_TTL),
            (Some("60"), Duration::from_secs(60)),
            (Some("0"), Duration::ZERO),
            (Some("1.5"), Duration::from_millis(1500)),
            (Some("1e300"), MAX_CACHE_TTL),
            (Some("-1"), DEFAULT_CACHE_TTL),
            (Some("week"), DEFAULT_CACHE_TTL),
        ];
        for (value, ttl) in table {
            assert_eq!(cache_ttl(value), ttl, "{value:?}");
        }
    }
}
