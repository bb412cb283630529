//! The user-notification file descriptor: receive a notification, check it
//! is still pending, answer it. Three ioctls, each on a descriptor this
//! module owns and on structures of the size the kernel asks for.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

/// One system call a supervised process is stopped in.
#[derive(Clone, Copy, Debug)]
pub struct Notification {
    /// The kernel's id of it, for the answer.
    pub id: u64,
    /// The process (thread id in our pid namespace).
    pub pid: u32,
    /// The system call number.
    pub nr: i32,
    /// Its arguments.
    pub args: [u64; 6],
}

/// What waiting for a notification found.
pub enum Next {
    /// A notification.
    Call(Notification),
    /// No process is left under the filter.
    Done,
    /// Nothing within the wait.
    Idle,
}

/// The listener of one filter.
pub struct Listener {
    fd: OwnedFd,
}

impl Listener {
    /// Wraps the listener descriptor the filter's installation returned.
    pub fn new(fd: OwnedFd) -> Listener {
        Listener { fd }
    }

    /// Waits up to `wait` for the next notification.
    pub fn next(&self, wait: Duration) -> io::Result<Next> {
        let mut poll = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = wait.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd, for the length given.
        let ready = unsafe { libc::poll(&mut poll, 1, millis) };
        if ready < 0 {
            let err = io::Error::last_os_error();
            return match err.kind() {
                io::ErrorKind::Interrupted => Ok(Next::Idle),
                _ => Err(err),
            };
        }
        if ready == 0 {
            return Ok(Next::Idle);
        }
        if poll.revents & libc::POLLIN == 0 {
            // POLLHUP: every process of the filter has exited.
            return Ok(Next::Done);
        }
        // SAFETY: all zeroes is a valid seccomp_notif; the kernel requires it.
        let mut request: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: the ioctl writes one seccomp_notif into `request`, whose
        // size is the one this libc declares for the kernel's structure.
        let got = unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_RECV as _,
                &mut request,
            )
        };
        if got < 0 {
            let err = io::Error::last_os_error();
            // ENOENT: the process died (or was signalled) before we read it.
            return match err.raw_os_error() {
                Some(libc::ENOENT) | Some(libc::EINTR) => Ok(Next::Idle),
                _ => Err(err),
            };
        }
        Ok(Next::Call(Notification {
            id: request.id,
            pid: request.pid,
            nr: request.data.nr,
            args: request.data.args,
        }))
    }

    /// Whether no process is left under the filter (without receiving
    /// anything).
    pub fn hung_up(&self) -> bool {
        let mut poll = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: 0,
            revents: 0,
        };
        // SAFETY: one valid pollfd, for the length given.
        let ready = unsafe { libc::poll(&mut poll, 1, 0) };
        ready > 0 && poll.revents & libc::POLLHUP != 0
    }

    /// Whether `id` is still pending: what was read of its process since
    /// it was received describes that very call (the process did not die
    /// and its pid was not reused).
    pub fn valid(&self, id: u64) -> bool {
        // SAFETY: the ioctl reads one u64.
        unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_ID_VALID as _,
                &id,
            ) == 0
        }
    }

    /// Lets the call go on as the process made it.
    pub fn allow(&self, id: u64) {
        self.send(id, 0, libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32);
    }

    /// Fails the call with `errno`.
    pub fn fail(&self, id: u64, errno: i32) {
        self.send(id, -errno, 0);
    }

    fn send(&self, id: u64, error: i32, flags: u32) {
        let mut response = libc::seccomp_notif_resp {
            id,
            val: 0,
            error,
            flags,
        };
        // SAFETY: the ioctl reads one seccomp_notif_resp. An answer to a
        // process that died meanwhile fails with ENOENT, which is fine.
        unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_SEND as _,
                &mut response,
            );
        }
    }
}
