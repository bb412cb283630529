//! Learning that a child has exited without reaping it: a look with
//! `WNOWAIT` ([`has_exited`], [`wait_exited`]), and a pidfd to wait on
//! ([`ExitWatch`]) or to signal it by ([`pidfd`], [`signal_by_pidfd`]).
//! Until a child is reaped its pid, and so its process group id, names no
//! other process, so its group can still be killed and a signal still be
//! passed on to it safely; a pidfd names it even after.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

/// How long a wait for an exit lasts, at most, where nothing else bounds
/// it: a child whose output is still open is looked at this often.
pub(crate) const EXIT_CHECK: Duration = Duration::from_millis(20);

/// What wakes a wait for a child's exit: a pidfd, readable once the child
/// has exited (Linux 5.3), or nothing (a millisecond's sleep).
pub(crate) struct ExitWatch(Option<OwnedFd>);

impl ExitWatch {
    /// A watch on the child `pid`, which must be unreaped (a reaped child's
    /// pid may name another process).
    pub(crate) fn new(pid: u32) -> ExitWatch {
        ExitWatch(pidfd(pid))
    }

    /// The pidfd, to poll beside other descriptors: readable once the
    /// child has exited. `None` where there is none.
    pub(crate) fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.0.as_ref().map(AsFd::as_fd)
    }

    /// Waits until the child has exited or `deadline` passes (with no
    /// deadline, [`EXIT_CHECK`] at most); without a pidfd, a millisecond.
    /// It may return early (a signal).
    pub(crate) fn wait(&self, deadline: Option<Instant>) {
        let Some(fd) = &self.0 else {
            std::thread::sleep(Duration::from_millis(1));
            return;
        };
        let left = deadline.map_or(EXIT_CHECK, |d| d.saturating_duration_since(Instant::now()));
        crate::pipes::wait_readable(fd.as_fd(), left);
    }
}

/// A pidfd of the child `pid`, which must be unreaped (a reaped child's
/// pid may name another process); `None` where the kernel has none (before
/// Linux 5.3, other systems). It is close-on-exec, so no process started
/// meanwhile inherits it.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(crate) fn pidfd(pid: u32) -> Option<OwnedFd> {
    use std::os::fd::FromRawFd;
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: pidfd_open(2) takes a pid and flags and touches no memory of
    // ours; the pid is our own unreaped child.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = libc::c_int::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: a descriptor pidfd_open just returned open, owned by no one
    // else: the `OwnedFd` becomes its only owner.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// No pidfds here.
#[cfg(not(target_os = "linux"))]
pub(crate) fn pidfd(_pid: u32) -> Option<OwnedFd> {
    None
}

/// Sends `signal` to the process the pidfd `fd` names, whether or not it
/// has been reaped (then the call fails: no other process is reached).
/// Async-signal-safe: one system call.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(crate) fn signal_by_pidfd(fd: std::os::fd::RawFd, signal: i32) {
    // SAFETY: pidfd_send_signal(2) with a null siginfo reads no memory of
    // ours; a descriptor that is not a pidfd makes it fail with EBADF.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            fd,
            signal,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        );
    }
}

/// No pidfds here: nothing is sent (callers hold no pidfd).
#[cfg(not(target_os = "linux"))]
pub(crate) fn signal_by_pidfd(_fd: std::os::fd::RawFd, _signal: i32) {}

/// Waits, blocking, until the child `pid` has exited, leaving it unreaped
/// (`WNOWAIT`).
///
/// # Errors
///
/// When waiting fails (no such child: a caller that ignores `SIGCHLD`
/// has its children reaped by the kernel).
#[allow(unsafe_code)]
pub(crate) fn wait_exited(pid: u32) -> std::io::Result<()> {
    loop {
        // SAFETY: `siginfo_t` is plain data, valid when zeroed.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid(2) writes only into `info`, which lives for the
        // call; `pid` is our own unreaped child, and WNOWAIT leaves it so.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                libc::id_t::from(pid),
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Whether the child `pid` has exited, leaving it a zombie (`WNOWAIT`):
/// until it is reaped its pid, and so its process group id, cannot be
/// given to another process, which makes killing the group afterwards safe.
#[allow(unsafe_code)]
pub(crate) fn has_exited(pid: u32) -> std::io::Result<bool> {
    let pid = libc::id_t::from(pid);
    // SAFETY: `siginfo_t` is plain data, valid when zeroed.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid(2) writes only into `info`, which lives for the call;
    // `pid` is our own unreaped child, and WNOWAIT leaves it unreaped.
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            pid,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: after a successful waitid the kernel filled `info`; with
    // WNOHANG and no state change it left `si_pid` zero.
    Ok(unsafe { info.si_pid() } != 0)
}
