//! `hookdex hook --target T [--event E]`: the command every harness runs on
//! every tool call. It reads the payload, hands it to the engine's hook
//! pipeline and prints the reply. Nothing here may stop the call, since
//! harnesses read a non-zero exit as a deny (Copilot CLI any, Codex and
//! Gemini CLI exit 2): a usage error and a panic are logged and exit 0 with
//! a note for the person, and a reply that cannot be written (the harness
//! closed the pipe) is lost with exit 0, not a death by SIGPIPE. Before
//! it exits, every process its conditions started is killed and reaped.

use std::io::{Read, Write};
use std::sync::OnceLock;

use hookdex_harness::{notice, Reply};
use hookdex_model::Target;

use super::CmdResult;

/// The target of this hook call, for the panic hook's note.
static TARGET: OnceLock<Target> = OnceLock::new();

/// Reads the payload, runs what fires, and prints the harness's reply.
pub fn run(target: Target, event: Option<&str>) -> CmdResult {
    let _ = TARGET.set(target);
    std::panic::set_hook(Box::new(fail_open));
    set_signal_dispositions();
    // One byte past the cap is enough to know the payload is over it; the
    // rest is drained so the harness never sees a broken pipe.
    let mut bytes = Vec::new();
    let mut stdin = std::io::stdin().lock();
    let cap = hookdex_runtime::hook::MAX_PAYLOAD as u64 + 1;
    if (&mut stdin).take(cap).read_to_end(&mut bytes).is_err() {
        return Ok(0);
    }
    // Under the cap, `read_to_end` stopped at the end: nothing to drain.
    if bytes.len() as u64 == cap {
        let _ = std::io::copy(&mut stdin, &mut std::io::sink());
    }
    // Fault injection for the panic hook's own test (tests/hook_panics.rs);
    // release builds do not have it.
    #[cfg(debug_assertions)]
    if std::env::var_os("HOOKDEX_DEBUG_PANIC").is_some() {
        panic!("HOOKDEX_DEBUG_PANIC is set");
    }
    // Nothing a condition starts outlives this process (runtime `procs`).
    let reply = super::supervised(|| {
        hookdex_runtime::hook::hook(target, event, &bytes, &|name| std::env::var_os(name))
    });
    Ok(print(&reply))
}

/// `hookdex supervise-async --timeout-ms N -- PROGRAM ARGS…` (hidden): the
/// process an `.async` condition runs under, so it has a deadline after
/// the hook has exited.
pub fn supervise_async(timeout_ms: u64, command: &[std::ffi::OsString]) -> CmdResult {
    let Some((program, args)) = command.split_first() else {
        return Ok(2);
    };
    Ok(hookdex_runtime::exec::supervise(
        std::time::Duration::from_millis(timeout_ms),
        program,
        args,
    ))
}

/// Prints `reply`; a harness that closed our stdout gets nothing, and that
/// is not a failure.
fn print(reply: &Reply) -> i32 {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(reply.stdout.as_bytes());
    let _ = stdout.flush();
    reply.exit
}

/// A `hookdex hook` command line that does not parse (`message` says why):
/// a line in the hook log, a note for the person where the target can be
/// read from the line, and exit 0, so a typo in the hook command never
/// blocks a tool call.
pub fn usage_error(message: &str) -> i32 {
    set_signal_dispositions();
    // The harness is writing the payload; take it so it sees no EPIPE.
    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    // Lossy: a non-UTF-8 argument is what clap refused.
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let target = args.iter().enumerate().find_map(|(i, arg)| {
        let value = match arg.strip_prefix("--target=") {
            Some(value) => value,
            None if arg == "--target" => args.get(i + 1)?,
            None => return None,
        };
        value.parse::<Target>().ok()
    });
    let command: Vec<String> = args.iter().map(|a| hookdex_shell::quote(a)).collect();
    let command = command.join(" ");
    log_note(format!(
        "hookdex {command}: {message}; the call was let through and no rule ran"
    ));
    match target {
        Some(target) => print(&notice(
            target,
            &format!("hookdex: the hook command is broken ({message}), so no guardrail ran for this call; `hookdex init` rewrites it"),
        )),
        None => 0,
    }
}

/// One line in the hook log, outside any call.
fn log_note(note: String) {
    // The view's own rule for `$HOOKDEX_HOME`; "/" keeps it from searching for a repository.
    let view = hookdex_compiler::View::from_vars(Target::Claude, std::path::Path::new("/"), |n| {
        std::env::var_os(n)
    });
    let entry = serde_json::json!({
        "ts_ms": hookdex_runtime::log::now_ms(),
        "notes": [note],
    });
    hookdex_runtime::log::append(&view.home, &entry);
}

/// SIGPIPE ignored: a write to a closed pipe fails with EPIPE instead of
/// killing the process (conditions are unaffected: each starts with
/// SIGPIPE at its default, see `hookdex_runtime`'s process start). SIGCHLD at its default: a harness
/// that left it ignored would have the kernel reap our conditions, and the
/// hook must see a condition exit, unreaped, before it kills its group.
#[allow(unsafe_code)]
fn set_signal_dispositions() {
    // SAFETY: signal(2) only changes this process's dispositions; SIG_IGN
    // and SIG_DFL install no handler, so no code runs in signal context,
    // and the process has no other thread yet that could race on them.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    }
}

/// The panic hook of `hookdex hook`: one line in the hook log and a note for
/// the person, then exit 0, so a bug in hookdex never blocks a tool call.
fn fail_open(info: &std::panic::PanicHookInfo<'_>) {
    log_note(format!(
        "hookdex panicked; the call was let through: {info}"
    ));
    if let Some(target) = TARGET.get() {
        print(&notice(
            *target,
            "hookdex failed on this call (see its hook log), so no guardrail ran for it",
        ));
    }
    std::process::exit(0);
}
