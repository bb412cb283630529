//! Nothing a condition starts outlives the hook. The hook process becomes a
//! child subreaper (Linux), so a process that leaves its condition's group
//! (`setsid`, `setpgid`, a double fork) is reparented to the hook instead of
//! init; [`sweep`] kills and reaps every descendant before the hook exits,
//! and a watcher thread does the same on SIGTERM, SIGINT or SIGHUP.
//!
//! Reaping is serialized by one lock (`LIVE`): whoever holds it is the only
//! thread that reaps, so a pid read from `/proc` while holding it names our
//! own unreaped child and cannot have been reused. Where the subreaper is
//! not available (other systems), orphans that escaped their group go to
//! init and only the hook's direct children are swept.
//!
//! This is opt-in ([`enable`]): only the `hookdex hook` process arms it, on
//! its first condition, so a call where nothing fires pays nothing.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Leaders of the condition groups running now (their pids, which are their
/// group ids). The lock also serializes reaping (module doc).
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());
/// Set by [`enable`]: finds the binary that supervises `.async` conditions.
static ENABLED: OnceLock<fn() -> PathBuf> = OnceLock::new();
/// That binary, found when the first `.async` condition starts.
static SUPERVISOR: OnceLock<PathBuf> = OnceLock::new();
/// Set once this process is a subreaper (and, in the hook, once the signal
/// watcher is in place).
static ARMED: OnceLock<()> = OnceLock::new();
/// `.async` supervisors this process started: children that are meant to
/// outlive it, which [`sweep`] leaves alone (and never reaps).
static DETACHED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// How long [`sweep`] keeps going while children remain: each round kills
/// the children seen and reaps those that died, and a killed child's own
/// children reach us only once it has exited, which a loaded machine can
/// take a while to schedule; a count of rounds would give up too early.
const SWEEP_LIMIT: Duration = Duration::from_secs(2);
/// Pause between sweep rounds, for the killed to exit and reparenting to happen.
const SWEEP_PAUSE: Duration = Duration::from_millis(2);

/// Turns process supervision on for this process: `supervisor` finds the
/// `hookdex` binary, started as `hookdex supervise-async` to keep a
/// deadline on `.async` conditions (see [`crate::exec::spawn_detached`]).
/// It is called only when one starts, so a call where nothing fires does
/// not look up its own executable.
pub fn enable(supervisor: fn() -> PathBuf) {
    let _ = ENABLED.set(supervisor);
}

/// The supervisor binary, when supervision is enabled.
pub(crate) fn supervisor() -> Option<&'static PathBuf> {
    let find = ENABLED.get()?;
    Some(SUPERVISOR.get_or_init(find))
}

/// Before the first condition starts: become a subreaper and start the
/// signal watcher, when [`enable`]d.
pub(crate) fn arm() {
    if ENABLED.get().is_none() {
        return;
    }
    ARMED.get_or_init(|| {
        become_subreaper();
        watch_termination();
    });
}

/// Makes this process (an `.async` supervisor) a subreaper whose [`sweep`]
/// works, with no signal watcher.
pub(crate) fn arm_supervisor() {
    ARMED.get_or_init(become_subreaper);
}

/// Records an `.async` supervisor, which [`sweep`] must leave running.
pub(crate) fn detach(pid: i32) {
    DETACHED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(pid);
}

/// Takes the reaping lock (a poisoned lock still serializes).
pub(crate) fn lock() -> MutexGuard<'static, Vec<i32>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Records a running condition group, led by `pid`.
pub(crate) fn register(pid: i32) {
    lock().push(pid);
}

/// Kills and reaps every remaining descendant of this process, for at most
/// `SWEEP_LIMIT` (each round bounded by the children it finds), so it
/// cannot hang. Call it when no condition is running any more (their
/// leaders reaped), before the process exits.
pub fn sweep() {
    if ARMED.get().is_none() {
        return;
    }
    let live = lock();
    sweep_locked(&live);
}

/// [`sweep`] with the reaping lock held by the caller (`_held` proves it).
/// Only pids it killed are reaped, one by one, so an `.async` supervisor
/// stays an unreaped child and its pid is never reused under us.
fn sweep_locked(_held: &MutexGuard<'static, Vec<i32>>) {
    let detached = DETACHED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone();
    let until = std::time::Instant::now() + SWEEP_LIMIT;
    while std::time::Instant::now() < until {
        let mut children = children();
        children.retain(|pid| !detached.contains(pid));
        if children.is_empty() {
            break;
        }
        for &pid in &children {
            kill(pid);
        }
        std::thread::sleep(SWEEP_PAUSE);
        for pid in children {
            reap(pid);
        }
    }
}

/// This process's children, from `/proc/self/task/*/children` (Linux;
/// elsewhere none are known).
fn children() -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return found;
    };
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            found.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// SIGKILL to `pid`, one of our unreaped children (the reaping lock is
/// held, so nobody else can reap it between `/proc` and here).
#[allow(unsafe_code)]
fn kill(pid: i32) {
    if pid <= 0 {
        return;
    }
    // SAFETY: kill(2) has no memory effects; `pid` is positive, so it names
    // one process: a child of ours read from /proc while the reaping lock is
    // held, and reaped only below, so still unreaped (at worst a zombie)
    // and not reused.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

/// Sends `signal` to `pid`, a child of this process the caller has not
/// reaped (the wrapper passes a signal on only until it has seen its
/// command exit, before reaping it: see [`crate::wrap`]). Async-signal-safe.
#[allow(unsafe_code)]
pub(crate) fn signal(pid: u32, signal: i32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    if pid <= 0 {
        return;
    }
    // SAFETY: kill(2) has no memory effects; `pid` is positive, so it names
    // one process, a child of ours not yet reaped (at worst a zombie), so
    // not reused by another process.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Reaps `pid` if it has exited, without blocking (a process that SIGKILL
/// has not ended yet is seen again in the next round).
#[allow(unsafe_code)]
fn reap(pid: i32) {
    let mut status = 0;
    // SAFETY: waitpid(2) writes only `status`, which lives for the call;
    // `pid` is positive, so it waits for that one child only.
    unsafe {
        libc::waitpid(pid, &mut status, libc::WNOHANG);
    }
}

/// Makes this process the subreaper of its descendants (Linux).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn become_subreaper() {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes an integer and
    // changes only this process's attribute; no memory is passed.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// No subreaper here: orphans that leave their group are not followed.
#[cfg(not(target_os = "linux"))]
fn become_subreaper() {}

/// The termination signals a harness sends a hook it gives up on.
const TERMINATION: [i32; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

/// Write end of the pipe the signal handler writes to (-1 until set).
static SIGNAL_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The handler of the termination signals: writes the signal's number to
/// the watcher's pipe, which is all it does (write(2) is async-signal-safe).
extern "C" fn on_termination(signal: libc::c_int) {
    let fd = SIGNAL_PIPE.load(std::sync::atomic::Ordering::Relaxed);
    let byte = signal as u8;
    // SAFETY: write(2) reads one byte from `byte`, which lives for the call;
    // `fd` is the pipe's write end, never closed while the process lives.
    #[allow(unsafe_code)]
    unsafe {
        libc::write(fd, (&byte as *const u8).cast(), 1);
    }
}

/// Starts a thread that waits for the termination signals, caught by a
/// handler that writes to a pipe (self-pipe; no signal mask is changed, so
/// conditions start with the mask and default dispositions they expect:
/// exec resets a caught signal to its default). On one, the thread kills
/// every condition group and sweeps, then lets the signal end the process.
#[allow(unsafe_code)]
fn watch_termination() {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2(2) writes two descriptors into `fds`, which lives for
    // the call.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    let [read_end, write_end] = fds;
    SIGNAL_PIPE.store(write_end, std::sync::atomic::Ordering::Relaxed);
    let spawned = std::thread::Builder::new()
        .name("hookdex-signals".into())
        .spawn(move || {
            let mut byte = 0u8;
            // SAFETY: read(2) writes at most one byte into `byte`, which
            // lives for the call; `read_end` is ours and open.
            let n = unsafe { libc::read(read_end, (&mut byte as *mut u8).cast(), 1) };
            if n != 1 {
                return;
            }
            let signal = libc::c_int::from(byte);
            // Keep the lock to the end: no worker reaps a leader after this.
            let live = lock();
            for &pgid in live.iter() {
                // SAFETY: kill(2) has no memory effects; each registered
                // leader is unreaped (it is removed under this lock before
                // it is reaped), so `-pgid` names its own group.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
            sweep_locked(&live);
            // SAFETY: restores the default action of `signal`, so raising
            // it ends the process as the sender meant; _exit is the
            // fallback if it does not.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
                libc::_exit(128 + signal);
            }
        });
    if spawned.is_err() {
        return;
    }
    for signal in TERMINATION {
        // SAFETY: `action` is plain data, zeroed then filled; sigaction(2)
        // reads it. The handler only writes to a pipe (async-signal-safe);
        // SA_RESTART keeps other threads' system calls from failing.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_termination as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}
