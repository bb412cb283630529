//! Learning that a child has exited without reaping it: a look with
//! `WNOWAIT` ([`has_exited`]), and a pidfd to wait on ([`ExitWatch`]).
//! Until a child is reaped its pid, and so its process group id, names no
//! other process, so its group can still be killed and a signal still be
//! passed on to it safely.

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
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    pub(crate) fn new(pid: u32) -> ExitWatch {
        use std::os::fd::FromRawFd;
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return ExitWatch(None);
        };
        // SAFETY: pidfd_open(2) takes a pid and flags and touches no memory
        // of ours; the pid is our own unreaped child. The pidfd is made
        // close-on-exec, so no process started meanwhile inherits it.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = libc::c_int::try_from(fd).ok().filter(|&fd| fd >= 0);
        // SAFETY: a descriptor pidfd_open just returned open, owned by no one
        // else: the `OwnedFd` becomes its only owner.
        ExitWatch(fd.map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// No pidfds here: every wait is a sleep.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn new(_pid: u32) -> ExitWatch {
        ExitWatch(None)
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
