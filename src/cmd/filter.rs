//! `hookdex filter check --tool NAME [--session ID]` (**contract**): a
//! synthetic tool's call site checks the tool input it is about to write
//! (stdin) against the filters that fire for the tool, and writes what the
//! verdict says: stdout `{"decision": "allow"|"deny", "reason",
//! "tool_input"}` (the input rewritten by a strip), exit 0 to allow, 2 to
//! deny. Every error inside the check allows, a panic included.

use std::io::{Read, Write};

use hookdex_model::{Permission, Target};
use hookdex_runtime::filters::check::{check, Verdict};

use super::{current_settings, CmdResult};

/// The largest tool input read, as the hook's payload.
const MAX_INPUT: u64 = hookdex_runtime::hook::MAX_PAYLOAD as u64;

/// Reads the tool input on stdin, checks it, prints the verdict.
pub fn check_command(target: Target, tool: &str, session: Option<&str>) -> CmdResult {
    std::panic::set_hook(Box::new(fail_open));
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_INPUT)
        .read_to_end(&mut input);
    let verdict = match read {
        Ok(_) => super::supervised(|| check(&current_settings(target), tool, &input, session)),
        Err(err) => allowed(format!(
            "the tool input could not be read ({err}); no filter ran"
        )),
    };
    print(&verdict);
    Ok(match verdict.decision {
        Permission::Deny => 2,
        _ => 0,
    })
}

/// A `filter …` command line that does not parse (`message` says why):
/// the write is allowed, since exit 2 would read as a deny.
pub fn usage_error(message: &str) -> i32 {
    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    print(&allowed(format!(
        "the filter command is broken ({message}), so no filter ran"
    )));
    0
}

/// An allow verdict for a check that could not run, saying why.
fn allowed(reason: String) -> Verdict {
    Verdict {
        decision: Permission::Allow,
        reason,
        tool_input: serde_json::Value::Null,
        fired: Vec::new(),
        notes: Vec::new(),
    }
}

fn print(verdict: &Verdict) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", verdict.to_json());
    let _ = stdout.flush();
}

/// A bug in hookdex allows the write: an allow verdict naming it, exit 0.
fn fail_open(info: &std::panic::PanicHookInfo<'_>) {
    print(&allowed(format!(
        "hookdex failed inside the check, so the write is allowed: {info}"
    )));
    std::process::exit(0);
}
