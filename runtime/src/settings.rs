//! Settings, read once per process from the environment: where things are
//! (the [`View`]: `HOOKDEX_*`), and how conditions run (`CONDITIONS_*`).
//! Everything else in the engine takes them as a value, so tests inject an
//! environment instead of changing the process's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookdex_compiler::View;
use hookdex_harness::ReplyOptions;
use hookdex_index::Meta;
use hookdex_model::{Switches, Target, Trust};

/// The longest `CONDITIONS_TIMEOUT_SEC` honoured: a larger value (or `inf`)
/// means "as long as the harness waits", and a day is longer than any does.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// How conditions run for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecConfig {
    /// Working directory.
    pub cwd: PathBuf,
    /// Per-script timeout (`CONDITIONS_TIMEOUT_SEC`, default 10, at most [`MAX_TIMEOUT`]).
    pub timeout: Duration,
    /// Scripts running at once (`CONDITIONS_MAX_PARALLEL`, default 8).
    pub max_parallel: usize,
}

/// Everything the engine reads from the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Which rules apply, and which index file answers.
    pub view: View,
    /// `CONDITIONS_ENABLED` (`false`, `0`, `no`, `off` turn every layer but managed off).
    pub conditions_enabled: bool,
    /// The owner of the managed directory when it is another user (the
    /// administrator): then the managed layer runs from the index in that
    /// directory ([`View::managed_only`]), not from the user's cache.
    pub managed_owner: Option<u32>,
    /// `CONDITIONS_TRUSTED_OWNERS`, as given.
    pub trusted_owners: String,
    /// How conditions run.
    pub exec: ExecConfig,
    /// How replies are shaped (`HOOKDEX_INTERACTIVE`).
    pub reply: ReplyOptions,
    /// `HOOKDEX_SHELL_STRICT`: a shell command that may run a program its text
    /// cannot name (`$cmd x`, `eval "$x"`, `python -c`) fires every `bash.<cli>` rule.
    pub shell_strict: bool,
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
    "CONDITIONS_MAX_PARALLEL",
    "CONDITIONS_TRUSTED_OWNERS",
    "HOOKDEX_DIRECTORY_ENV",
];

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
    /// The settings for a call made in `cwd`, reading variables through `var`.
    pub fn from_vars(
        target: Target,
        cwd: &Path,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Settings {
        let text = |name: &str| var(name).map(|v| v.to_string_lossy().trim().to_string());
        let conditions_enabled = !matches!(
            text("CONDITIONS_ENABLED")
                .map(|v| v.to_ascii_lowercase())
                .as_deref(),
            Some("false" | "0" | "no" | "off")
        );
        let timeout = text("CONDITIONS_TIMEOUT_SEC")
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .map_or(Duration::from_secs(10), |s| {
                Duration::try_from_secs_f64(s).map_or(MAX_TIMEOUT, |d| d.min(MAX_TIMEOUT))
            });
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
        Settings {
            managed_owner: view.managed_owner(),
            view,
            reply: ReplyOptions {
                interactive: on("HOOKDEX_INTERACTIVE"),
            },
            shell_strict: on("HOOKDEX_SHELL_STRICT"),
            conditions_enabled,
            trusted_owners: text("CONDITIONS_TRUSTED_OWNERS").unwrap_or_default(),
            exec: ExecConfig {
                cwd: cwd.to_path_buf(),
                timeout,
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

    /// The whole environment of a directory-layer rule, reading variables
    /// through `var`: the variables of [`DIRECTORY_ENV`] and
    /// `HOOKDEX_DIRECTORY_ENV` that are set. Read when such a rule is about
    /// to run, not with the other settings: a call where nothing fires
    /// should not pay a dozen environment look-ups for it.
    pub fn directory_env(var: impl Fn(&str) -> Option<OsString>) -> Vec<(String, String)> {
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

    /// The directory layer's trust verdict for the index's recorded owners.
    pub fn trust(&self, meta: &Meta<'_>) -> Trust {
        Trust::decide(
            meta.directory_owner,
            meta.bundle_owner,
            &self.trusted_owners,
        )
    }
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
                let ours = name.starts_with("HOOKDEX_") || name.starts_with("CONDITIONS_");
                if ours && !name.ends_with('_') {
                    assert!(
                        VARIABLES.contains(&name.as_str()),
                        "{name} is read but not in VARIABLES"
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
            settings(&[("CONDITIONS_TRUSTED_OWNERS", "acme")]).trusted_owners,
            "acme"
        );
        assert!(!settings(&[]).shell_strict);
        assert!(settings(&[("HOOKDEX_SHELL_STRICT", "1")]).shell_strict);
    }
}
