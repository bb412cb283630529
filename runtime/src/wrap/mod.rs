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

mod bus;
pub mod guard;
pub mod plan;

use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, IntoRawFd};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};

use crate::exited::{has_exited, ExitWatch, EXIT_CHECK};
use crate::outfilters::{self, Shrunk};
use crate::pipes::{poll, poll_ms};
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
    // Best effort: a pipe that stays at its default size only costs time.
    let _ = widen(&reader);
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
    let Held {
        bytes: held,
        streaming,
    } = read_output(reader, child.id());
    // Seen exited before it is reaped: no signal is passed on to a pid
    // that may be another's.
    let _ = crate::exited::wait_exited(child.id());
    forward.done();
    let code = child.wait().map_or(1, exit_code);
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
    let shrunk = {
        let _held = bus::HeldOutput::new(&held, code);
        outfilters::shrink(
            settings,
            Some(&command),
            output,
            one_program(argv) && code == 0,
            true,
        )
    };
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

/// The command's pid while it runs unreaped (0: none).
static COMMAND: AtomicU32 = AtomicU32::new(0);
/// A pidfd of the command (-1: none), by which a signal reaches it and no
/// other process even after it is reaped. Never closed: a handler on
/// another thread may be about to use it.
static COMMAND_FD: AtomicI32 = AtomicI32::new(-1);
/// A `SIGTERM` or `SIGHUP` that came before the command started (0: none).
static EARLY: AtomicI32 = AtomicI32::new(0);
/// Set once the handlers are in place (they are the process's, for good).
static CAUGHT: OnceLock<()> = OnceLock::new();

/// Passes `SIGTERM` and `SIGHUP` sent to hookdex alone on to the command
/// it runs (a terminal's `^C` and `^\\` reach the command directly: it is in
/// hookdex's process group, and hookdex outlives them). Its handlers are in
/// place before the child starts, and one that comes before the child's pid
/// is known is passed on as soon as it is, so no signal falls between. A
/// handler, not a thread: it only reads and swaps atomics and makes one
/// system call. A signal the caller left ignored stays ignored, for hookdex
/// and the command alike. One command per process is forwarded to.
pub struct Forwarder(());

impl Default for Forwarder {
    fn default() -> Forwarder {
        Forwarder::new()
    }
}

impl Forwarder {
    /// Starts catching the signals.
    #[allow(unsafe_code)]
    pub fn new() -> Forwarder {
        CAUGHT.get_or_init(|| {
            for signal in [SIGINT, SIGQUIT, SIGTERM, SIGHUP] {
                if ignored(signal) {
                    continue;
                }
                // SAFETY: the action is async-signal-safe: it loads, stores
                // and swaps atomics and makes one system call
                // (pidfd_send_signal or kill), nothing else.
                let _ =
                    unsafe { signal_hook::low_level::register(signal, move || forward(signal)) };
            }
        });
        Forwarder(())
    }

    /// The command runs as `pid` (unreaped): signals go to it from now on.
    pub fn start(&self, pid: u32) {
        let fd = crate::exited::pidfd(pid).map_or(-1, IntoRawFd::into_raw_fd);
        COMMAND_FD.store(fd, Ordering::SeqCst);
        COMMAND.store(pid, Ordering::SeqCst);
        match EARLY.swap(0, Ordering::SeqCst) {
            0 => {}
            signal => send(pid, signal),
        }
    }

    /// The command has exited (or was reaped): nothing more goes to it. Its
    /// pidfd stays, for a handler that read its pid a moment before.
    pub fn done(&self) {
        COMMAND.store(0, Ordering::SeqCst);
    }
}

/// Whether `signal` is ignored (`SIG_IGN`), as the caller may have left it.
#[allow(unsafe_code)]
fn ignored(signal: i32) -> bool {
    // SAFETY: `sigaction` is plain data, valid when zeroed; sigaction(2)
    // with a null new action only writes the current one into it.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

/// The handler: a `SIGTERM` or `SIGHUP` goes to the command, or waits for
/// it to start; `SIGINT` and `SIGQUIT` are only caught (the command has
/// them from the terminal).
fn forward(signal: i32) {
    if !matches!(signal, SIGTERM | SIGHUP) {
        return;
    }
    match COMMAND.load(Ordering::SeqCst) {
        0 => {
            EARLY.store(signal, Ordering::SeqCst);
            // The command may have started meanwhile (on another thread),
            // its `start` finding no early signal yet: whoever swaps it out
            // sends it.
            let pid = COMMAND.load(Ordering::SeqCst);
            if pid != 0 {
                match EARLY.swap(0, Ordering::SeqCst) {
                    0 => {}
                    early => send(pid, early),
                }
            }
        }
        pid => send(pid, signal),
    }
}

/// Sends `signal` to the command: by its pidfd when there is one (it
/// cannot reach another process), else by its pid. Async-signal-safe.
fn send(pid: u32, signal: i32) {
    match COMMAND_FD.load(Ordering::SeqCst) {
        -1 => crate::procs::signal(pid, signal),
        fd => crate::exited::signal_by_pidfd(fd, signal),
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

/// Reads the output of the command `pid` on this thread until the pipe's
/// end, or until [`DRAIN`] after the command exited: something it left
/// running in the background (`server &`) may hold the pipe open for as
/// long as it runs, and the command is done. Past [`MAX_CAPTURE`] bytes it
/// is printed as it comes.
fn read_output(reader: std::io::PipeReader, pid: u32) -> Held {
    let exit = ExitWatch::new(pid);
    let mut held = Held::default();
    // Without blocking, each readable moment is read to its end straight
    // into what is held: no piece is copied twice.
    let nonblocking = set_nonblocking(&reader).is_ok();
    let mut drain_until: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if drain_until.is_some_and(|until| now >= until) {
            break;
        }
        let pidfd = exit.fd().filter(|_| drain_until.is_none());
        let mut polled: Vec<libc::pollfd> = std::iter::once(reader.as_raw_fd())
            .chain(pidfd.map(|fd| fd.as_raw_fd()))
            .map(|fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let timeout = match (drain_until, pidfd) {
            (Some(until), _) => poll_ms(until - now),
            (None, Some(_)) => -1,
            (None, None) => poll_ms(EXIT_CHECK),
        };
        poll(&mut polled, timeout);
        if polled[0].revents != 0 && held.read(&reader, nonblocking) == Pipe::Ended {
            break;
        }
        let exited = match polled.get(1) {
            Some(pidfd) => pidfd.revents != 0,
            None => drain_until.is_none() && has_exited(pid).unwrap_or(true),
        };
        if exited {
            drain_until = Some(Instant::now() + DRAIN);
        }
    }
    held
}

/// Where the pipe is after a read.
#[derive(Debug, PartialEq, Eq)]
enum Pipe {
    /// At its end (or broken).
    Ended,
    /// Open, with nothing more to read for now.
    Open,
}

impl Held {
    /// Reads what the pipe has now: everything there is, straight into what
    /// is held, when it does not block; else one read. Past [`MAX_CAPTURE`]
    /// what was held is printed, and so is everything after it, as it comes.
    fn read(&mut self, mut pipe: &std::io::PipeReader, nonblocking: bool) -> Pipe {
        let ended = if self.streaming || !nonblocking {
            let mut piece = vec![0u8; 64 << 10];
            match pipe.read(&mut piece) {
                Ok(0) => true,
                Ok(n) => {
                    self.take(&piece[..n]);
                    false
                }
                Err(err) => !open_after(&err),
            }
        } else {
            // One byte past the cap says the output is too large to hold.
            let room = (MAX_CAPTURE + 1 - self.bytes.len()) as u64;
            let read = pipe.take(room).read_to_end(&mut self.bytes);
            let full = self.spill();
            match read {
                Ok(_) => !full,
                Err(err) => !open_after(&err),
            }
        };
        match ended {
            true => Pipe::Ended,
            false => Pipe::Open,
        }
    }

    /// Holds `bytes`, or prints them once the output is past
    /// [`MAX_CAPTURE`].
    fn take(&mut self, bytes: &[u8]) {
        if self.streaming {
            let _ = std::io::stdout().write_all(bytes);
            return;
        }
        self.bytes.extend_from_slice(bytes);
        self.spill();
    }

    /// Past [`MAX_CAPTURE`], prints what is held and holds nothing more;
    /// says whether it did.
    fn spill(&mut self) -> bool {
        if self.bytes.len() <= MAX_CAPTURE {
            return false;
        }
        let _ = std::io::stdout().write_all(&self.bytes);
        self.bytes = Vec::new();
        self.streaming = true;
        true
    }
}

/// Whether a read that failed with `err` leaves the pipe open: it had
/// nothing more for now, or a signal came.
fn open_after(err: &std::io::Error) -> bool {
    matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

/// Makes reads of `pipe` return at once when it holds nothing (the read
/// end is this process's alone).
#[allow(unsafe_code)]
fn set_nonblocking(pipe: &std::io::PipeReader) -> std::io::Result<()> {
    let fd = pipe.as_raw_fd();
    // SAFETY: fcntl(2) with F_GETFL/F_SETFL on a descriptor we own reads
    // and sets its status flags; no memory is passed.
    let done = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
    };
    match done {
        true => Ok(()),
        false => Err(std::io::Error::last_os_error()),
    }
}

/// The room [`widen`] asks for in the output pipe: four times the default.
/// A large output then reaches the wrapper in a few wide reads while the
/// command keeps writing, instead of the two taking turns every 64 KiB (10 MB
/// through `make`'s filter: 237 context switches to 8, 32.4 to 28.6 ms). It
/// stays far below what a user may hold in pipes before the kernel shrinks
/// the new pipes of every program they run (64 MiB by default).
const PIPE_ROOM: libc::c_int = 256 << 10;

/// Gives `pipe` [`PIPE_ROOM`] bytes of buffer, as far as the kernel allows.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn widen(pipe: &std::io::PipeReader) -> std::io::Result<()> {
    // SAFETY: fcntl(2) with F_SETPIPE_SZ on a pipe we own changes the size
    // of its buffer; no memory is passed.
    let done = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_ROOM) };
    match done {
        -1 => Err(std::io::Error::last_os_error()),
        _ => Ok(()),
    }
}

/// Pipes keep their size where it cannot be set.
#[cfg(not(target_os = "linux"))]
fn widen(_: &std::io::PipeReader) -> std::io::Result<()> {
    Ok(())
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
