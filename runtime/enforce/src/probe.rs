//! Whether this process could supervise a command: Linux, a kernel with
//! seccomp user notification, and no listener already in this process's
//! filter chain (only one may exist: a harness sandbox that holds one, or
//! an outer wrapper, makes a new one fail with `EBUSY`).

/// Why enforcement is off here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// Not Linux.
    NotLinux,
    /// The kernel lacks what it takes (its words).
    Kernel(String),
    /// A seccomp listener already supervises this process (a harness
    /// sandbox, or an outer wrapper, which then sees every exec itself).
    Busy,
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::NotLinux => f.write_str("not Linux: no seccomp user notification"),
            Unavailable::Kernel(why) => f.write_str(why),
            Unavailable::Busy => f.write_str(
                "a seccomp listener already supervises this process (a sandbox or an outer wrapper)",
            ),
        }
    }
}

impl std::error::Error for Unavailable {}

/// Whether a command could be supervised from this process. Reads two
/// `/proc` files; only when this process already runs under a seccomp
/// filter does it fork a child to try installing a listener.
pub fn available() -> Result<(), Unavailable> {
    #[cfg(not(target_os = "linux"))]
    return Err(Unavailable::NotLinux);
    #[cfg(target_os = "linux")]
    linux::available()
}

/// The Landlock ABI version this kernel offers, or why it has none
/// (reported by `hookdex doctor`; the guard does not depend on it).
pub fn landlock() -> Result<u32, Unavailable> {
    #[cfg(not(target_os = "linux"))]
    return Err(Unavailable::NotLinux);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: LANDLOCK_CREATE_RULESET_VERSION (1) with a null
        // attribute and size 0 only asks for the ABI version; the kernel
        // reads and writes no memory of this process.
        let abi = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                1u32,
            )
        };
        match u32::try_from(abi) {
            Ok(abi) if abi > 0 => Ok(abi),
            _ => Err(Unavailable::Kernel(format!(
                "the kernel offers no Landlock ({})",
                std::io::Error::last_os_error()
            ))),
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::Unavailable;

    pub fn available() -> Result<(), Unavailable> {
        let actions = std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail")
            .map_err(|e| Unavailable::Kernel(format!("no seccomp here ({e})")))?;
        if !actions.split_whitespace().any(|a| a == "user_notif") {
            return Err(Unavailable::Kernel(format!(
                "the kernel has no seccomp user notification (actions: {})",
                actions.trim()
            )));
        }
        // SECCOMP_USER_NOTIF_FLAG_CONTINUE, which lets an exec go on, came
        // in 5.5; before it an answer would leave the process stopped.
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        if !at_least(&release, (5, 5)) {
            return Err(Unavailable::Kernel(format!(
                "kernel {} is older than 5.5 (no SECCOMP_USER_NOTIF_FLAG_CONTINUE)",
                release.trim()
            )));
        }
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let filtered = status
            .lines()
            .find_map(|l| l.strip_prefix("Seccomp:"))
            .is_some_and(|mode| mode.trim() != "0");
        match filtered {
            false => Ok(()),
            true => try_listener(),
        }
    }

    /// Whether a kernel release (`6.18.44-…`) is at least `(major, minor)`.
    pub fn at_least(release: &str, (major, minor): (u32, u32)) -> bool {
        let mut parts = release
            .trim()
            .split(|c: char| !c.is_ascii_digit())
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        found >= (major, minor)
    }

    #[test]
    fn releases_compare_by_major_and_minor() {
        assert!(at_least("6.18.44-fc-v1252\n", (5, 5)));
        assert!(at_least("5.5.0", (5, 5)));
        assert!(!at_least("5.4.280-generic", (5, 5)));
        assert!(!at_least("", (5, 5)));
    }

    /// Installs a filter with a listener in a forked child; its exit code
    /// says whether it could.
    fn try_listener() -> Result<(), Unavailable> {
        let filter = crate::filter::filter_program(crate::filter::Watch {
            execs: true,
            writes: false,
        });
        let program = libc::sock_fprog {
            len: filter.len() as u16,
            filter: filter.as_ptr() as *mut libc::sock_filter,
        };
        // SAFETY: the child makes only raw system calls and leaves with
        // `_exit`; the parent waits for it.
        unsafe {
            let pid = libc::fork();
            if pid == 0 {
                let code = if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    2
                } else {
                    match libc::syscall(
                        libc::SYS_seccomp,
                        libc::SECCOMP_SET_MODE_FILTER,
                        libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        &program as *const libc::sock_fprog,
                    ) {
                        fd if fd >= 0 => 0,
                        _ if *libc::__errno_location() == libc::EBUSY => 1,
                        _ => 2,
                    }
                };
                libc::_exit(code);
            }
            if pid < 0 {
                return Err(Unavailable::Kernel("fork failed".into()));
            }
            let mut status = 0;
            while libc::waitpid(pid, &mut status, 0) < 0 && *libc::__errno_location() == libc::EINTR
            {
            }
            match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
                Some(0) => Ok(()),
                Some(1) => Err(Unavailable::Busy),
                _ => Err(Unavailable::Kernel(
                    "a seccomp filter with a listener could not be installed".into(),
                )),
            }
        }
    }
}
