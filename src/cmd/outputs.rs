//! The output-filter commands: `hookdex exec -- CMD…` (a command run with
//! its output shrunk, exit code kept), `hookdex expand KEY` (a stashed
//! original, byte for byte) and `hookdex stats [--json]` (what the filters
//! saved, and the outputs no filter claimed).

use std::io::Write;

use hookdex_model::Target;
use hookdex_runtime::state::stash::Stash;
use hookdex_runtime::state::stats::{tokens, Stats, Totals};
use serde_json::json;

use super::{current_settings, print_json, CmdResult};

/// The words of `hookdex exec`.
#[derive(Clone, Debug, Default, PartialEq, Eq, clap::Args)]
pub struct ExecArgs {
    /// Run the command under the kernel's guard instead (Linux): every
    /// program it or anything it starts executes is judged by the
    /// `bash.<cli>` rules that name it, and, while the session's gate is
    /// closed, every write into a rule source is refused; the output is
    /// left as it is.
    #[arg(long)]
    pub guard: bool,
    /// The harness the guarded command runs for (its rules' payloads).
    #[arg(long, requires = "guard")]
    pub target: Option<String>,
    /// The session the guarded command belongs to.
    #[arg(long, requires = "guard")]
    pub session: Option<String>,
    /// The command is one shell command string, run with `bash -c` (the
    /// form of Claude Code's shell prefix).
    #[arg(long, requires = "guard")]
    pub shell: bool,
    /// The command and its arguments (after `--`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub command: Vec<String>,
}

/// Runs the command with its output filtered, or under the guard; the exit
/// code is the command's.
pub fn exec(args: &ExecArgs) -> CmdResult {
    reap_own_children();
    if args.guard {
        return Ok(guarded(args));
    }
    let settings = current_settings(Target::Claude);
    let ran = super::supervised(|| hookdex_runtime::wrap::exec(&settings, &args.command));
    let _ = std::io::stdout().flush();
    Ok(ran.code)
}

/// SIGCHLD at its default: a caller that left it ignored would have the
/// kernel reap the command, and its exit code would be lost.
#[allow(unsafe_code)]
fn reap_own_children() {
    // SAFETY: signal(2) only changes this process's disposition of
    // SIGCHLD; SIG_DFL installs no handler, and no other thread runs yet.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    }
}

/// `exec --guard`: the command's streams are its own; hookdex only judges.
/// Not under [`super::supervised`]: what the command leaves running in the
/// background is its own, as it would be unwrapped.
fn guarded(args: &ExecArgs) -> i32 {
    use hookdex_runtime::wrap::guard::{self, Session};
    let target = args
        .target
        .as_deref()
        .and_then(|t| t.parse::<Target>().ok())
        .unwrap_or(Target::Claude);
    let settings = current_settings(target);
    // Claude Code's shell prefix names no session; its shell's environment does.
    let session = Session {
        target,
        id: args
            .session
            .clone()
            .or_else(|| std::env::var("CLAUDE_CODE_SESSION_ID").ok())
            .filter(|id| !id.is_empty()),
    };
    let forward = hookdex_runtime::wrap::Forwarder::new();
    let var = |name: &str| std::env::var_os(name);
    let command = match args.shell {
        true => vec!["bash".into(), "-c".into(), args.command.join(" ")],
        false => args.command.clone(),
    };
    let code = guard::run(&settings, &session, &command, &var, &|pid| {
        forward.start(pid)
    });
    forward.done();
    code
}

/// Prints the original stashed under `key`; exit 1 when there is none.
pub fn expand(key: &str) -> CmdResult {
    let settings = current_settings(Target::Claude);
    match Stash::new(&settings.view.home).get(key) {
        Some(original) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(&original);
            let _ = out.flush();
            Ok(0)
        }
        None => {
            eprintln!(
                "hookdex expand: no stashed output {key} under {} (it may have been evicted)",
                settings.view.home.join("stash").display()
            );
            Ok(1)
        }
    }
}

/// Prints the counters.
pub fn stats(json: bool) -> CmdResult {
    let settings = current_settings(Target::Claude);
    let report = Stats::new(&settings.view.home).report();
    let totals = |t: &Totals| {
        json!({
            "acts": t.acts,
            "bytes_in": t.bytes_in,
            "bytes_out": t.bytes_out,
            "saved_bytes": t.saved(),
            "saved_tokens": tokens(t.saved()),
            "saved_bytes_unique": t.saved_unique,
            "saved_tokens_unique": tokens(t.saved_unique),
        })
    };
    if json {
        print_json(&json!({
            "filters": report.filters.iter().map(|(k, t)| (k.clone(), totals(t))).collect::<serde_json::Map<_, _>>(),
            "families": report.families.iter().map(|(k, t)| (k.clone(), totals(t))).collect::<serde_json::Map<_, _>>(),
            "misses": report.misses.iter().map(|(s, n)| json!({"selector": s, "count": n})).collect::<Vec<_>>(),
        }));
        return Ok(0);
    }
    if report.filters.is_empty() {
        println!("no output filter has acted yet");
    }
    for (name, t) in &report.filters {
        println!(
            "{name:<24} {:>6} acts  saved {:>10} bytes ({} tokens), {} unique",
            t.acts,
            t.saved(),
            tokens(t.saved()),
            t.saved_unique
        );
    }
    if !report.misses.is_empty() {
        println!("\nclaimed by no filter (most frequent first):");
        for (selector, count) in report.misses.iter().take(20) {
            println!("{count:>6}  {selector}");
        }
    }
    Ok(0)
}
