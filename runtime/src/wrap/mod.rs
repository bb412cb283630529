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
//! shrinking it saves. The output is what the pipe held when the command
//! ended, and at most [`DRAIN`] after: something it left running in the
//! background (`server &`) may hold the pipe open for as long as it runs,
//! and the command is done.
//!
//! With `--guard`, the command runs under the kernel's guard instead
//! ([`guard`]), its output untouched (the harness's `post` step shrinks it).

pub mod guard;
pub mod plan;

use std::io::{Read, Write};
use std::process::{Command, ExitStatus};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::Duration;

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::outfilters::{self, Shrunk};
use crate::settings::Settings;

/// The most output held to be filtered.
pub const MAX_CAPTURE: usize = 64 << 20;

/// How long the pipe is read after the command ended.
pub const DRAIN: Duration = Duration::from_millis(200);

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

/// Runs `argv`, prints its (filtered) output on stdout, and returns how it
/// ended. A command that cannot start exits 127 (not found) or 126, with a
/// line on stderr, as a shell's would.
pub fn exec(settings: &Settings, argv: &[String]) -> Ran {
    let Some((program, args)) = argv.split_first() else {
        return Ran {
            code: 2,
            shrunk: None,
        };
    };
    let (reader, writer) = match std::io::pipe() {
        Ok(pair) => pair,
        Err(err) => return not_started(program, &err),
    };
    let stderr = match writer.try_clone() {
        Ok(w) => w,
        Err(err) => return not_started(program, &err),
    };
    let forward = Forwarder::new();
    let mut child = match Command::new(program)
        .args(args)
        .stdout(writer)
        .stderr(stderr)
        .spawn()
    {
        Ok(child) => child,
        Err(err) => return not_started(program, &err),
    };
    forward.start(child.id());
    let held = Arc::new(Mutex::new(Held::default()));
    let (done, ended) = mpsc::channel();
    read_output(reader, Arc::clone(&held), done);
    let code = child.wait().map_or(1, exit_code);
    forward.done();
    let _ = ended.recv_timeout(DRAIN);
    let Held {
        bytes: held,
        streaming,
    } = std::mem::take(&mut *lock(&held));
    if streaming {
        return Ran { code, shrunk: None };
    }
    let mut out = std::io::stdout().lock();
    // Filters read text: output that is not UTF-8 is printed as it came.
    let Ok(output) = std::str::from_utf8(&held) else {
        let _ = out.write_all(&held);
        let _ = out.flush();
        return Ran { code, shrunk: None };
    };
    let command = command_line(argv);
    let shrunk = outfilters::shrink(
        settings,
        Some(&command),
        output,
        one_program(argv) && code == 0,
        true,
    );
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

/// Passes `SIGTERM` and `SIGHUP` sent to hookdex alone on to the command
/// it runs (a terminal's `^C` and `^\\` reach the command directly: it is in
/// hookdex's process group). Taken before the child starts, so no signal
/// falls between.
pub struct Forwarder {
    /// The child's pid while it is unreaped: signalled only under this
    /// lock, cleared as soon as its wait returns.
    running: Arc<Mutex<Option<u32>>>,
    signals: Mutex<Option<Signals>>,
}

impl Default for Forwarder {
    fn default() -> Forwarder {
        Forwarder::new()
    }
}

impl Forwarder {
    /// Starts catching the signals.
    pub fn new() -> Forwarder {
        Forwarder {
            running: Arc::new(Mutex::new(None)),
            signals: Mutex::new(Signals::new([SIGINT, SIGQUIT, SIGTERM, SIGHUP]).ok()),
        }
    }

    /// The command runs as `pid`: signals go to it from now on.
    pub fn start(&self, pid: u32) {
        if let Ok(mut running) = self.running.lock() {
            *running = Some(pid);
        }
        let taken = self.signals.lock().ok().and_then(|mut s| s.take());
        let Some(mut signals) = taken else {
            return;
        };
        let running = Arc::clone(&self.running);
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

    /// The command was reaped: its pid may be another's now.
    pub fn done(&self) {
        if let Ok(mut pid) = self.running.lock() {
            *pid = None;
        }
    }
}

/// What the reader has taken off the pipe.
#[derive(Default)]
struct Held {
    /// The output so far.
    bytes: Vec<u8>,
    /// Past [`MAX_CAPTURE`]: printed as it comes, nothing held.
    streaming: bool,
}

fn lock(held: &Mutex<Held>) -> MutexGuard<'_, Held> {
    held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reads the pipe to its end on a detached thread into `held` (printing it
/// once it is past [`MAX_CAPTURE`]), and says so on `done`. Detached, so a
/// pipe held open by a command's background process never holds `exec`.
fn read_output(mut reader: std::io::PipeReader, held: Arc<Mutex<Held>>, done: mpsc::Sender<()>) {
    std::thread::spawn(move || {
        let mut chunk = vec![0u8; 256 << 10];
        loop {
            let n = match reader.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let mut held = lock(&held);
            if held.streaming {
                let _ = std::io::stdout().write_all(&chunk[..n]);
                continue;
            }
            held.bytes.extend_from_slice(&chunk[..n]);
            if held.bytes.len() > MAX_CAPTURE {
                let _ = std::io::stdout().write_all(&held.bytes);
                held.bytes = Vec::new();
                held.streaming = true;
            }
        }
        let _ = done.send(());
    });
}

/// Whether `argv` runs one program: anything but a shell given a line
/// (`bash -c 'a && b'`) that runs several.
fn one_program(argv: &[String]) -> bool {
    let shell = argv.first().map(|p| p.rsplit('/').next().unwrap_or(p));
    match (shell, argv.get(1).map(String::as_str), argv.get(2)) {
        (Some("sh" | "bash" | "zsh" | "dash" | "ksh"), Some("-c"), Some(line)) => {
            outfilters::runs_one_program(line)
        }
        _ => true,
    }
}

/// The code a shell reports for `status`.
pub(crate) fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1)
}

pub(crate) fn not_started(program: &str, err: &std::io::Error) -> Ran {
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
