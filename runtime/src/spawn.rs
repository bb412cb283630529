//! Starting a script as `posix_spawn` starts one, in the directory it runs
//! in: no copy of the hook's page tables, whatever the directory. std's
//! `Command` forks the whole hook as soon as a directory is set, since a
//! static binary gives it no `posix_spawn_file_actions_addchdir_np` to find
//! at run time; linked statically, the function is simply called.
//!
//! The script starts as std would start it: in a process group of its own,
//! no signal blocked, `SIGPIPE` at its default (the hook ignores it), every
//! other descriptor of the hook closed (they are all close-on-exec).

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;

/// What a script inherits of the hook's environment.
pub(crate) enum Environment<'a> {
    /// The hook's, with these variables set over it.
    Inherited(&'a [(String, String)]),
    /// Only these variables.
    Only(&'a [(String, String)]),
}

/// One process to start.
pub(crate) struct Launch<'a> {
    /// The program: a path, or a name looked up on the hook's `PATH`.
    pub(crate) program: &'a OsStr,
    /// Its arguments, after the program.
    pub(crate) args: &'a [OsString],
    /// Its environment.
    pub(crate) env: Environment<'a>,
    /// The directory it runs in.
    pub(crate) cwd: &'a Path,
    /// Its standard input, output and error.
    pub(crate) stdio: [BorrowedFd<'a>; 3],
}

/// A started process, until it is waited for.
#[derive(Debug)]
pub(crate) struct Started {
    pid: libc::pid_t,
}

impl Started {
    /// Its process id (which is its process group's).
    pub(crate) fn id(&self) -> u32 {
        self.pid.unsigned_abs()
    }

    /// Waits for it to end, and reaps it.
    #[allow(unsafe_code)]
    pub(crate) fn wait(&self) -> io::Result<ExitStatus> {
        loop {
            let mut status = 0;
            // SAFETY: waits for our own child, writing its status to a local.
            let got = unsafe { libc::waitpid(self.pid, &mut status, 0) };
            if got == self.pid {
                return Ok(ExitStatus::from_raw(status));
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}

/// A C string of `bytes`.
///
/// # Errors
///
/// When `bytes` hold a NUL.
fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a program, argument, variable or directory holds a NUL byte",
        )
    })
}

/// The `NAME=value` strings of `env`.
fn environment(env: &Environment<'_>) -> io::Result<Vec<CString>> {
    let (set, inherited) = match env {
        Environment::Inherited(set) => (*set, true),
        Environment::Only(set) => (*set, false),
    };
    let mut all = Vec::new();
    if inherited {
        for (name, value) in std::env::vars_os() {
            if set.iter().any(|(k, _)| OsStr::new(k) == name) {
                continue;
            }
            let mut pair = name.into_vec();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            all.push(c_string(&pair)?);
        }
    }
    for (name, value) in set {
        all.push(c_string(format!("{name}={value}").as_bytes())?);
    }
    Ok(all)
}

/// A null-terminated array of pointers to `strings`, which must outlive it.
fn pointers(strings: &[CString]) -> Vec<*mut libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(std::ptr::null_mut()))
        .collect()
}

/// The file actions and attributes of one `posix_spawn`, initialized in
/// place (boxed, so they never move) and destroyed with it.
struct Plan {
    actions: libc::posix_spawn_file_actions_t,
    attributes: libc::posix_spawnattr_t,
    /// How many of the two have been initialized, in that order.
    initialized: u8,
}

impl Drop for Plan {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: each is destroyed once, and only if its init succeeded.
        unsafe {
            if self.initialized >= 1 {
                libc::posix_spawn_file_actions_destroy(&mut self.actions);
            }
            if self.initialized >= 2 {
                libc::posix_spawnattr_destroy(&mut self.attributes);
            }
        }
    }
}

/// `rc` of a `posix_spawn*` call (an error number, 0 for none) as a result.
fn checked(rc: libc::c_int) -> io::Result<()> {
    match rc {
        0 => Ok(()),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

impl Plan {
    /// The standard streams `stdio`, the directory `cwd`, a group of its
    /// own, no signal blocked and `SIGPIPE` at its default.
    #[allow(unsafe_code)]
    fn new(stdio: &[BorrowedFd<'_>; 3], cwd: &CString) -> io::Result<Box<Plan>> {
        // SAFETY: all-zero is a valid place for the init calls to write;
        // each later call takes a structure its init filled, in the box
        // where it stays.
        unsafe {
            let mut plan = Box::new(Plan {
                actions: std::mem::zeroed(),
                attributes: std::mem::zeroed(),
                initialized: 0,
            });
            checked(libc::posix_spawn_file_actions_init(&mut plan.actions))?;
            plan.initialized = 1;
            checked(libc::posix_spawnattr_init(&mut plan.attributes))?;
            plan.initialized = 2;
            for (target, fd) in stdio.iter().enumerate() {
                // A descriptor onto itself has its close-on-exec flag
                // cleared (glibc), as any other dup2 target does.
                checked(libc::posix_spawn_file_actions_adddup2(
                    &mut plan.actions,
                    fd.as_raw_fd(),
                    target as libc::c_int,
                ))?;
            }
            checked(libc::posix_spawn_file_actions_addchdir_np(
                &mut plan.actions,
                cwd.as_ptr(),
            ))?;
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            checked(libc::posix_spawnattr_setsigmask(
                &mut plan.attributes,
                &none,
            ))?;
            let mut pipe: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut pipe);
            libc::sigaddset(&mut pipe, libc::SIGPIPE);
            checked(libc::posix_spawnattr_setsigdefault(
                &mut plan.attributes,
                &pipe,
            ))?;
            checked(libc::posix_spawnattr_setpgroup(&mut plan.attributes, 0))?;
            let flags = libc::POSIX_SPAWN_SETPGROUP
                | libc::POSIX_SPAWN_SETSIGMASK
                | libc::POSIX_SPAWN_SETSIGDEF;
            checked(libc::posix_spawnattr_setflags(
                &mut plan.attributes,
                flags as libc::c_short,
            ))?;
            Ok(plan)
        }
    }
}

/// Starts `launch`.
///
/// # Errors
///
/// Why it did not start: not found, not executable, a NUL in a string, or
/// the directory missing.
#[allow(unsafe_code)]
pub(crate) fn launch(launch: &Launch<'_>) -> io::Result<Started> {
    let program = c_string(launch.program.as_bytes())?;
    let mut argv = vec![program.clone()];
    for arg in launch.args {
        argv.push(c_string(arg.as_bytes())?);
    }
    let env = environment(&launch.env)?;
    let cwd = c_string(launch.cwd.as_os_str().as_bytes())?;
    let plan = Plan::new(&launch.stdio, &cwd)?;
    let (argv_ptrs, env_ptrs) = (pointers(&argv), pointers(&env));
    let mut pid: libc::pid_t = 0;
    // SAFETY: every pointer is to a NUL-terminated string or a
    // null-terminated array of them, alive until the call returns (glibc
    // returns only once the child has execed or failed to); the plan was
    // initialized by `Plan::new`.
    let rc = unsafe {
        libc::posix_spawnp(
            &mut pid,
            program.as_ptr(),
            &plan.actions,
            &plan.attributes,
            argv_ptrs.as_ptr(),
            env_ptrs.as_ptr(),
        )
    };
    checked(rc)?;
    Ok(Started { pid })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::AsFd;

    fn run(env: Environment<'_>, cwd: &Path, script: &str) -> (ExitStatus, String) {
        let (mut out, writer) = std::io::pipe().unwrap();
        let null = std::fs::File::open("/dev/null").unwrap();
        let args = [OsString::from("-c"), OsString::from(script)];
        let started = launch(&Launch {
            program: OsStr::new("sh"),
            args: &args,
            env,
            cwd,
            stdio: [null.as_fd(), writer.as_fd(), writer.as_fd()],
        })
        .unwrap();
        drop(writer);
        let mut text = String::new();
        out.read_to_string(&mut text).unwrap();
        (started.wait().unwrap(), text)
    }

    #[test]
    fn it_runs_where_it_is_told_with_the_environment_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let set = [("HOOKDEX_SPAWN_TEST".to_string(), "given".to_string())];
        let (status, text) = run(
            Environment::Inherited(&set),
            dir.path(),
            "pwd -P; echo $HOOKDEX_SPAWN_TEST; test -n \"$PATH\" && echo path; exit 5",
        );
        assert_eq!(status.code(), Some(5));
        let canonical = dir.path().canonicalize().unwrap();
        assert_eq!(text, format!("{}\ngiven\npath\n", canonical.display()));
        let (_, text) = run(Environment::Only(&set), dir.path(), "env | sort");
        assert!(text.contains("HOOKDEX_SPAWN_TEST=given"), "{text}");
        assert!(!text.contains("\nHOME="), "nothing inherited: {text}");
    }

    #[test]
    fn it_leads_its_own_group_with_no_signal_blocked_and_sigpipe_at_default() {
        let dir = tempfile::tempdir().unwrap();
        let (_, text) = run(
            Environment::Inherited(&[]),
            dir.path(),
            "cut -d' ' -f5 /proc/$$/stat; echo $$; grep -E '^Sig(Blk|Ign):' /proc/$$/status",
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], lines[1], "its own group: {text}");
        let mask = |name: &str| {
            let line = lines.iter().find(|l| l.starts_with(name)).unwrap();
            u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
        };
        assert_eq!(mask("SigBlk:"), 0, "{text}");
        assert_eq!(mask("SigIgn:") & (1 << (libc::SIGPIPE - 1)), 0, "{text}");
    }

    #[test]
    fn a_missing_program_or_directory_does_not_start() {
        let dir = tempfile::tempdir().unwrap();
        let null = std::fs::File::open("/dev/null").unwrap();
        let fds = [null.as_fd(), null.as_fd(), null.as_fd()];
        let missing = launch(&Launch {
            program: OsStr::new("/nonexistent/program"),
            args: &[],
            env: Environment::Inherited(&[]),
            cwd: dir.path(),
            stdio: fds,
        });
        assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
        let nowhere = launch(&Launch {
            program: OsStr::new("true"),
            args: &[],
            env: Environment::Inherited(&[]),
            cwd: &dir.path().join("gone"),
            stdio: fds,
        });
        assert_eq!(nowhere.unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
