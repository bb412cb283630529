//! `hookdex hook --target T [--event E]`: the command every harness runs on
//! every tool call. It reads the payload, hands it to the engine's hook
//! pipeline and prints the reply. Nothing here may stop the call: a panic
//! is logged and exits 0, and a reply that cannot be written (the harness
//! closed the pipe) is lost with exit 0, not a death by SIGPIPE, which some
//! harnesses read as a deny.

use std::io::{Read, Write};

use hookdex_model::Target;

use super::CmdResult;

/// Reads the payload, runs what fires, and prints the harness's reply.
pub fn run(target: Target, event: Option<&str>) -> CmdResult {
    std::panic::set_hook(Box::new(fail_open));
    set_signal_dispositions();
    let mut bytes = Vec::new();
    if std::io::stdin().read_to_end(&mut bytes).is_err() {
        return Ok(0);
    }
    // Fault injection for the panic hook's own test (tests/hook_panics.rs);
    // release builds do not have it.
    #[cfg(debug_assertions)]
    if std::env::var_os("HOOKDEX_DEBUG_PANIC").is_some() {
        panic!("HOOKDEX_DEBUG_PANIC is set");
    }
    let reply = hookdex_runtime::hook::hook(target, event, &bytes, &|name| std::env::var_os(name));
    // A harness that closed our stdout gets nothing; that is not a failure.
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(reply.stdout.as_bytes());
    let _ = stdout.flush();
    Ok(reply.exit)
}

/// SIGPIPE ignored: a write to a closed pipe fails with EPIPE instead of
/// killing the process (conditions are unaffected: std resets SIGPIPE to
/// its default in every child it spawns). SIGCHLD at its default: a harness
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

/// The panic hook of `hookdex hook`: one line in the hook log, then exit 0,
/// so a bug in hookdex never blocks a tool call.
fn fail_open(info: &std::panic::PanicHookInfo<'_>) {
    // The view's own rule for `$HOOKDEX_HOME`; "/" keeps it from searching for a repository.
    let view = hookdex_compiler::View::from_vars(Target::Claude, std::path::Path::new("/"), |n| {
        std::env::var_os(n)
    });
    let entry = serde_json::json!({
        "ts_ms": hookdex_runtime::log::now_ms(),
        "notes": [format!("hookdex panicked; the call was let through: {info}")],
    });
    hookdex_runtime::log::append(&view.home, &entry);
    std::process::exit(0);
}
