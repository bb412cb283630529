//! Starting a command under the filter. The child, between clone and exec,
//! asks to die with the wrapper (`PR_SET_PDEATHSIG`), sets
//! `no_new_privs`, installs the filter with a new listener and sends the
//! listener to the wrapper over a socket pair (`SCM_RIGHTS`); its own exec
//! of the command is then the first notification, so the wrapper must be
//! receiving before `spawn` returns ([`receive_listener`] runs on another
//! thread).
//!
//! The child is started as `posix_spawn` starts one (`CLONE_VM |
//! CLONE_VFORK`): it runs in the wrapper's memory on a stack of its own
//! until its exec, so no page table is copied and the wrapper takes no
//! copy-on-write fault afterwards (a `fork` of the 21 MB static binary
//! cost both). The calling thread waits meanwhile; the supervisor's thread,
//! which answers the exec, does not.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicI32, Ordering};

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

/// The command started under the filter, until it is waited for.
#[derive(Debug)]
pub struct Started {
    pid: libc::pid_t,
}

impl Started {
    /// Its process id.
    pub fn id(&self) -> u32 {
        self.pid.unsigned_abs()
    }

    /// Waits for it to end.
    pub fn wait(&self) -> io::Result<ExitStatus> {
        crate::reap(self.id())
    }
}

/// The child's stack, besides what `execvp` puts on it per argument (a
/// script without `#!` is run by `/bin/sh` with an array of every argument
/// on the stack, as `posix_spawn` sizes its own for).
const STACK: usize = 64 << 10;

/// The child's stack: mapped apart, with an inaccessible page below it,
/// so an overflow faults instead of writing into the wrapper's memory.
struct Stack {
    base: *mut libc::c_void,
    len: usize,
}

impl Stack {
    /// A stack for a child given `args` arguments.
    fn new(args: usize) -> io::Result<Stack> {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let len = (STACK + (args + 3) * std::mem::size_of::<usize>()).next_multiple_of(page) + page;
        // SAFETY: a fresh private anonymous mapping, ours alone.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = Stack { base, len };
        // SAFETY: the lowest page of the mapping just made.
        if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// Where the child's stack starts: its top (stacks grow down on every
    /// Linux target this builds for), page-aligned.
    fn top(&self) -> *mut libc::c_void {
        self.base.cast::<u8>().wrapping_add(self.len).cast()
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping `new` made, once the child is done
        // with it (dropped only after the clone returned).
        unsafe { libc::munmap(self.base, self.len) };
    }
}

/// Everything the child reads, prepared before the clone (it allocates
/// nothing); `error` is where it leaves why it did not exec.
struct ChildPlan<'a> {
    program: &'a CStr,
    argv: &'a [*const libc::c_char],
    filter: libc::sock_fprog,
    socket: RawFd,
    wrapper: libc::pid_t,
    error: AtomicI32,
}

/// Starts `program` with `args` under `filter`, its child end of the
/// socket pair being `child_end`. The command inherits the wrapper's
/// environment, standard streams and working directory, and is found on
/// `PATH` as `execvp` finds it.
///
/// # Errors
///
/// Why it did not start: the filter could not be installed, or the exec
/// failed (not found, not executable, refused by the supervisor).
///
/// # Safety
///
/// `filter` must be a valid BPF program; it stays borrowed until the child
/// has execed (`spawn` returns only then).
pub unsafe fn spawn(
    program: &str,
    args: &[String],
    filter: &[libc::sock_filter],
    child_end: &OwnedFd,
) -> io::Result<Started> {
    let invalid = |_| io::Error::from(io::ErrorKind::InvalidInput);
    let program = CString::new(program).map_err(invalid)?;
    let args = args
        .iter()
        .map(|a| CString::new(a.as_str()).map_err(invalid))
        .collect::<io::Result<Vec<_>>>()?;
    let mut argv: Vec<*const libc::c_char> = std::iter::once(program.as_ptr())
        .chain(args.iter().map(|a| a.as_ptr()))
        .collect();
    argv.push(std::ptr::null());
    let stack = Stack::new(argv.len())?;
    // SAFETY: all-zero is a valid sigset_t, filled by sigfillset.
    let mut all: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let mut mask: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `all` and `mask` are valid sigsets. Every signal is held
    // while the child shares our memory, so no handler of ours runs in it.
    unsafe {
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut mask);
    }
    let plan = ChildPlan {
        program: &program,
        argv: &argv,
        filter: libc::sock_fprog {
            len: filter.len() as u16,
            filter: filter.as_ptr().cast_mut(),
        },
        socket: child_end.as_raw_fd(),
        // SAFETY: getpid has no preconditions.
        wrapper: unsafe { libc::getpid() },
        error: AtomicI32::new(0),
    };
    // SAFETY: `child` reads only `plan`, which lives until the clone
    // returns, and runs on `stack`, unmapped only after it; with
    // CLONE_VFORK the clone returns only once the child has execed or
    // exited: until then nothing of ours moves or is freed. The child's
    // `execvp` reads the environment: nothing in hookdex sets a variable
    // while a guarded command starts.
    let pid = unsafe {
        libc::clone(
            child,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_ref(&plan).cast_mut().cast(),
        )
    };
    let cloned = io::Error::last_os_error();
    // SAFETY: restores the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &mask, std::ptr::null_mut()) };
    drop(stack);
    if pid < 0 {
        return Err(cloned);
    }
    let started = Started { pid };
    match plan.error.load(Ordering::Acquire) {
        0 => Ok(started),
        errno => {
            let _ = started.wait();
            Err(io::Error::from_raw_os_error(errno))
        }
    }
}

/// The child, in the wrapper's memory until its exec: it resets every
/// caught signal and `SIGPIPE` to its default and starts with no signal
/// blocked (as std's `Command` starts a child), installs the filter and
/// execs, or leaves the errno in the plan and exits. Only raw system calls
/// and `execvp`, which `posix_spawnp` runs in the same place.
extern "C" fn child(plan: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `plan` is the `ChildPlan` `spawn` passed, alive until we
    // exec or exit.
    let plan = unsafe { &*plan.cast::<ChildPlan<'_>>() };
    let failed = |err: io::Error| -> libc::c_int {
        plan.error.store(
            err.raw_os_error().unwrap_or(libc::EINVAL),
            Ordering::Release,
        );
        // SAFETY: ends the child without running anything of the wrapper's.
        unsafe { libc::_exit(127) }
    };
    // SAFETY: sigaction on each signal number with valid structures; a
    // number that is not a signal, or cannot be caught, fails harmlessly.
    unsafe {
        for signal in 1..=libc::SIGRTMAX() {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction != libc::SIG_DFL
                && (old.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
            {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
    if let Err(err) = install(&plan.filter, plan.socket, plan.wrapper) {
        return failed(err);
    }
    // SAFETY: a NUL-terminated program name and a null-terminated argv
    // whose strings `spawn` keeps alive.
    unsafe { libc::execvp(plan.program.as_ptr(), plan.argv.as_ptr()) };
    failed(io::Error::last_os_error())
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
