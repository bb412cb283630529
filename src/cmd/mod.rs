//! The subcommands, and what they share: the settings of the current
//! directory, the index for them, and a call described by command-line flags.

pub mod compile;
pub mod doctor;
pub mod explain;
pub mod filter;
pub mod hook;
pub mod init;
pub mod list;
pub mod outputs;
pub mod show;
pub mod test;
pub mod trust;
pub mod try_call;

use hookdex_model::Target;
use hookdex_runtime::report::Context;
use hookdex_runtime::settings::Settings;
use serde::Serialize;

/// What a subcommand returns: its exit code, or why it failed.
pub type CmdResult = Result<i32, crate::error::CmdError>;

/// The settings of the current directory.
pub fn current_settings(target: Target) -> Settings {
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    Settings::from_env(target, &cwd)
}

/// What `list`, `explain` and `show` are asked under: `settings`,
/// `session`, and this process's environment.
pub fn context<'a>(settings: &'a Settings, session: Option<&'a str>) -> Context<'a> {
    Context {
        settings,
        session,
        var: &|name| std::env::var_os(name),
    }
}

/// Prints `value` as pretty JSON on stdout.
pub fn print_json<T: Serialize + ?Sized>(value: &T) {
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
