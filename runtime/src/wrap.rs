//! `hookdex exec -- CMD…` (**contract**): runs a command with its stdout and
//! stderr on one pipe (so they keep their order, and a tool that reports on
//! stderr, as cargo does, is filtered too), prints its output shrunk by the
//! output filter that claims it ([`crate::outfilters`]), and exits with the
//! command's code (128 + the signal when a signal ended it). So a `pre`
//! rewrite can wrap a command where the harness cannot replace a tool's
//! output.
//!
//! Signals: the command runs in hookdex's process group, so a terminal's
//! `^C` or `^\` reaches it directly, and hookdex itself outlives them to
//! report how it ended; `SIGTERM` and `SIGHUP` sent to hookdex alone are
//! passed on to the command. Past [`MAX_CAPTURE`] bytes the output is
//! printed as it comes, unfiltered, since holding more costs more than
//! shrinking it saves.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus};
use std::sync::{Arc, Mutex};

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::outfilters::{self, Shrunk};
use crate::settings::Settings;

/// The most output held to be filtered.
pub const MAX_CAPTURE: usize = 64 << 20;

/// What an `exec` did.
#[derive(Debug)]
pub struct Ran {
    /// The exit code to exit with.
    pub code: i32,
    /// What became of the output (`None` when it was too large to filter
    /// or the command could not start).
    pub shrunk: Option<Shrunk>,
}

/// The command line as output filters' `match_command` reads it: the
/// program's base name, then the arguments, joined by spaces (rtk's form).
pub fn command_line(argv: &[String]) -> String {
    let mut words = argv.iter();
    let program = words
        .next()
        .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
    std::iter::once(program)
        .chain(words.map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `argv`, writes its (filtered) output to `out`, and returns how it
/// ended. A command that cannot start exits 127 (not found) or 126, with a
/// line on stderr, as a shell's would.
pub fn exec(settings: &Settings, argv: &[String], out: &mut dyn Write) -> Ran {
    let Some((program, args)) = argv.split_first() else {
        return Ran {
            code: 2,
            shrunk: None,
        };
    };
    let (mut reader, writer) = match std::io::pipe() {
        Ok(pair) => pair,
        Err(err) => return not_started(program, &err),
    };
    let stderr = match writer.try_clone() {
        Ok(w) => w,
        Err(err) => return not_started(program, &err),
    };
    // Taken before the child starts, so no signal falls between.
    let signals = Signals::new([SIGINT, SIGQUIT, SIGTERM, SIGHUP]).ok();
    let mut child = match Command::new(program)
        .args(args)
        .stdout(writer)
        .stderr(stderr)
        .spawn()
    {
        Ok(child) => child,
        Err(err) => return not_started(program, &err),
    };
    // The child's pid while it is unreaped: the forwarder signals it only
    // under this lock, and it is cleared as soon as the wait returns.
    let running = Arc::new(Mutex::new(Some(child.id())));
    if let Some(mut signals) = signals {
        let running = Arc::clone(&running);
        std::thread::spawn(move || {
            for signal in signals.forever() {
                let pid = running.lock().map(|pid| *pid).unwrap_or(None);
                match pid {
                    Some(pid) if matches!(signal, SIGTERM | SIGHUP) => {
                        crate::procs::signal(pid, signal)
                    }
                    _ => {}
                }
            }
        });
    }
    let mut held = Vec::new();
    let _ = (&mut reader)
        .take(MAX_CAPTURE as u64 + 1)
        .read_to_end(&mut held);
    let streaming = held.len() > MAX_CAPTURE;
    if streaming {
        let _ = out.write_all(&held);
        let _ = std::io::copy(&mut reader, out);
    }
    let code = child.wait().map_or(1, exit_code);
    if let Ok(mut pid) = running.lock() {
        *pid = None;
    }
    if streaming {
        return Ran { code, shrunk: None };
    }
    // Filters read text: output that is not UTF-8 is printed as it came.
    let Ok(output) = std::str::from_utf8(&held) else {
        let _ = out.write_all(&held);
        let _ = out.flush();
        return Ran { code, shrunk: None };
    };
    let command = command_line(argv);
    let shrunk = outfilters::shrink(settings, Some(&command), output);
    if shrunk.changed {
        let _ = out.write_all(shrunk.text.as_bytes());
        if !shrunk.text.ends_with('\n') {
            let _ = out.write_all(b"\n");
        }
    } else {
        let _ = out.write_all(&held);
    }
    let _ = out.flush();
    Ran {
        code,
        shrunk: Some(shrunk),
    }
}

/// The code a shell reports for `status`.
fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1)
}

fn not_started(program: &str, err: &std::io::Error) -> Ran {
    eprintln!("hookdex exec: {program}: {err}");
    let code = match err.kind() {
        std::io::ErrorKind::NotFound => 127,
        _ => 126,
    };
    Ran { code, shrunk: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_the_base_name_and_the_arguments() {
        let argv = ["/usr/bin/make", "-j4", "all"].map(String::from);
        assert_eq!(command_line(&argv), "make -j4 all");
        assert_eq!(command_line(&["cargo".to_string()]), "cargo");
    }
}
