//! Starting a command under the filter. The child, between fork and exec,
//! asks to die with the wrapper (`PR_SET_PDEATHSIG`), sets
//! `no_new_privs`, installs the filter with a new listener and sends the
//! listener to the wrapper over a socket pair (`SCM_RIGHTS`); its own exec
//! of the command is then the first notification, so the wrapper must be
//! receiving before `spawn` returns ([`receive_listener`] runs on another
//! thread).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

/// A connected pair of sockets: the wrapper's end and the child's.
pub fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors socketpair writes.
    let done = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if done < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Starts `command` under `filter`, its child end of the socket pair being
/// `child_end`.
///
/// # Safety
///
/// `filter` must be a valid BPF program; it stays borrowed until the child
/// has execed (`spawn` returns only then).
pub unsafe fn spawn(
    command: &mut Command,
    filter: &[libc::sock_filter],
    child_end: &OwnedFd,
) -> io::Result<Child> {
    // As an address: the closure must be Send, and the slice outlives it.
    let (at, len) = (filter.as_ptr() as usize, filter.len() as u16);
    let socket = child_end.as_raw_fd();
    // SAFETY: getpid has no preconditions.
    let wrapper = unsafe { libc::getpid() };
    // SAFETY (of the closure): it runs in the forked child and calls only
    // async-signal-safe system calls on values prepared before the fork;
    // the program points into `filter`, which outlives the spawn.
    unsafe {
        command.pre_exec(move || {
            let program = libc::sock_fprog {
                len,
                filter: at as *mut libc::sock_filter,
            };
            install(&program, socket, wrapper)
        });
    }
    command.spawn()
}

/// In the child: die with the wrapper, install the filter, send the
/// listener. Only raw system calls (async-signal-safe).
fn install(program: &libc::sock_fprog, socket: RawFd, wrapper: libc::pid_t) -> io::Result<()> {
    // SAFETY: plain prctl/syscall calls with valid arguments; `program`
    // points to a live sock_fprog.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != wrapper {
            // The wrapper died before the signal was armed.
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        let listener = libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            program as *const libc::sock_fprog,
        );
        if listener < 0 {
            return Err(io::Error::last_os_error());
        }
        let sent = send_fd(socket, listener as RawFd);
        libc::close(listener as RawFd);
        sent
    }
}

/// Room for one descriptor's control message (CMSG_SPACE(4) is 24 on every
/// 64-bit Linux).
const CONTROL: usize = 64;

#[repr(C, align(8))]
struct Control([u8; CONTROL]);

/// A one-byte message with room for one descriptor, in buffers the
/// caller owns (so it is async-signal-safe: nothing is allocated).
struct Message {
    byte: [u8; 1],
    iov: libc::iovec,
    control: Control,
    header: libc::msghdr,
}

impl Message {
    /// Points the header at the buffers, which must not move afterwards
    /// (the message lives on the caller's stack until it is sent or
    /// received); `controllen` is how much of the control buffer counts.
    ///
    /// # Safety
    ///
    /// `self` must not move between this call and the system call that
    /// uses `self.header`.
    unsafe fn ready(&mut self, controllen: usize) -> &mut libc::msghdr {
        self.iov = libc::iovec {
            iov_base: self.byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        // SAFETY: all zeroes is a valid msghdr; the fields set point into
        // `self`, which the caller keeps in place.
        self.header = unsafe { std::mem::zeroed() };
        self.header.msg_iov = &mut self.iov;
        self.header.msg_iovlen = 1;
        self.header.msg_control = self.control.0.as_mut_ptr().cast();
        self.header.msg_controllen = controllen;
        &mut self.header
    }

    fn new() -> Message {
        Message {
            byte: [0],
            iov: libc::iovec {
                iov_base: std::ptr::null_mut(),
                iov_len: 0,
            },
            control: Control([0; CONTROL]),
            // SAFETY: all zeroes is a valid msghdr.
            header: unsafe { std::mem::zeroed() },
        }
    }
}

/// Sends `fd` over `socket`; async-signal-safe.
fn send_fd(socket: RawFd, fd: RawFd) -> io::Result<()> {
    let mut message = Message::new();
    // SAFETY: `message` stays in place until sendmsg returns; CMSG_* stay
    // inside its control buffer, large and aligned enough for one
    // descriptor.
    unsafe {
        let header = message.ready(libc::CMSG_SPACE(4) as usize);
        let control = libc::CMSG_FIRSTHDR(header);
        (*control).cmsg_level = libc::SOL_SOCKET;
        (*control).cmsg_type = libc::SCM_RIGHTS;
        (*control).cmsg_len = libc::CMSG_LEN(4) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(control).cast::<RawFd>(), fd);
        if libc::sendmsg(socket, header, 0) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Receives the listener the child sends; `Err` when the child ended (or
/// closed its end) without sending one.
pub fn receive_listener(socket: &OwnedFd) -> io::Result<OwnedFd> {
    let mut message = Message::new();
    // SAFETY: as in `send_fd`; the received descriptor is checked to be a
    // SCM_RIGHTS one before it is owned.
    unsafe {
        let message = message.ready(CONTROL);
        let got = loop {
            let got = libc::recvmsg(socket.as_raw_fd(), message, libc::MSG_CMSG_CLOEXEC);
            if got >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break got;
            }
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        let header = libc::CMSG_FIRSTHDR(message);
        if got == 0
            || header.is_null()
            || (*header).cmsg_level != libc::SOL_SOCKET
            || (*header).cmsg_type != libc::SCM_RIGHTS
        {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the command ended before its filter was in place",
            ));
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<RawFd>());
        Ok(OwnedFd::from_raw_fd(fd))
    }
}
