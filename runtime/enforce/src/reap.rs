//! Waiting for a child started without std's `Command` (the guarded
//! command here, a condition in the engine) and reaping it.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// Waits for the child `pid` to end and reaps it, retrying when a signal
/// interrupts the wait.
///
/// # Errors
///
/// When `pid` is no child of this process to wait for (or was reaped
/// already).
pub fn reap(pid: u32) -> io::Result<ExitStatus> {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    };
    loop {
        let mut status = 0;
        // SAFETY: waits for one child of ours, writing its status to a local.
        let got = unsafe { libc::waitpid(pid, &mut status, 0) };
        if got == pid {
            return Ok(ExitStatus::from_raw(status));
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}
