//! Starting a script as `posix_spawn` starts one, in the directory it runs
//! in: no copy of the hook's page tables, whatever the directory. std's
//! `Command` forks the whole hook as soon as a directory is set, since a
//! static binary gives it no `posix_spawn_file_actions_addchdir_np` to find
//! at run time; linked statically, the function is simply called.
//!
//! The script starts as std would start it: in a process group of its own,
//! no signal blocked, `SIGPIPE` at its default (the hook ignores it), every
//! other descriptor of the hook closed (they are all close-on-exec), the
//! last value of a variable set twice winning, and an executable file with
//! no `#!` line run by `/bin/sh`, as `execvp` runs it. Elsewhere than Linux
//! it is std's `Command`.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
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
    /// The directory it runs in; `None`: the hook's own.
    pub(crate) cwd: Option<&'a Path>,
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
    pub(crate) fn wait(&self) -> io::Result<ExitStatus> {
        hookdex_enforce::reap(self.id())
    }
}

/// A C string of `bytes`.
///
/// # Errors
///
/// When `bytes` hold a NUL.
#[cfg(target_os = "linux")]
fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a program, argument, variable or directory holds a NUL byte",
        )
    })
}

/// The variables `env` sets, each name once, with its last value.
fn last_values(set: &[(String, String)]) -> Vec<&(String, String)> {
    let mut kept: Vec<&(String, String)> = Vec::new();
    for pair in set.iter().rev() {
        if !kept.iter().any(|(name, _)| *name == pair.0) {
            kept.push(pair);
        }
    }
    kept.reverse();
    kept
}

/// The `NAME=value` strings of `env`.
#[cfg(target_os = "linux")]
fn environment(env: &Environment<'_>) -> io::Result<Vec<CString>> {
    let (set, inherited) = match env {
        Environment::Inherited(set) => (last_values(set), true),
        Environment::Only(set) => (last_values(set), false),
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
#[cfg(target_os = "linux")]
fn pointers(strings: &[CString]) -> Vec<*mut libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(std::ptr::null_mut()))
        .collect()
}

/// The file actions and attributes of one `posix_spawn`, initialized in
/// place (boxed, so they never move) and destroyed with it.
#[cfg(target_os = "linux")]
struct Plan {
    actions: libc::posix_spawn_file_actions_t,
    attributes: libc::posix_spawnattr_t,
    /// How many of the two have been initialized, in that order.
    initialized: u8,
}

#[cfg(target_os = "linux")]
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
#[cfg(target_os = "linux")]
fn checked(rc: libc::c_int) -> io::Result<()> {
    match rc {
        0 => Ok(()),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

#[cfg(target_os = "linux")]
impl Plan {
    /// The standard streams `stdio` (descriptors above 2: see
    /// [`above_stdio`]), the directory `cwd`, a group of its own, no signal
    /// blocked and `SIGPIPE` at its default.
    #[allow(unsafe_code)]
    fn new(stdio: [RawFd; 3], cwd: Option<&CString>) -> io::Result<Box<Plan>> {
        // SAFETY: all-zero is a valid place for the init calls to write;
        // each later call takes a structure its init filled, in the box
        // where it stays; glibc copies the directory's path.
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
            for (target, fd) in stdio.into_iter().enumerate() {
                checked(libc::posix_spawn_file_actions_adddup2(
                    &mut plan.actions,
                    fd,
                    target as libc::c_int,
                ))?;
            }
            if let Some(cwd) = cwd {
                checked(libc::posix_spawn_file_actions_addchdir_np(
                    &mut plan.actions,
                    cwd.as_ptr(),
                ))?;
            }
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

/// `fds` as descriptors above 2: one that is 0, 1 or 2 (the hook was
/// started with a standard stream closed, and a pipe took its number)
/// would be overwritten by the copy onto it before its own copy. Those are
/// copied above 2 (close-on-exec), and the copies returned to be kept
/// until the process has started.
#[cfg(target_os = "linux")]
fn above_stdio(fds: &[BorrowedFd<'_>; 3]) -> io::Result<([RawFd; 3], Vec<std::os::fd::OwnedFd>)> {
    let mut raw = fds.map(|fd| fd.as_raw_fd());
    let mut copies = Vec::new();
    for (at, fd) in fds.iter().enumerate() {
        if raw[at] <= 2 {
            let copy = dup_above_stdio(*fd)?;
            raw[at] = copy.as_raw_fd();
            copies.push(copy);
        }
    }
    Ok((raw, copies))
}

/// A close-on-exec copy of `fd` numbered 3 or above.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn dup_above_stdio(fd: BorrowedFd<'_>) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl(2) F_DUPFD_CLOEXEC on a descriptor we own returns a new
    // one (or -1), touching no memory of ours.
    let copy = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if copy < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `copy` was just returned open and is owned by nobody else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(copy) })
}

/// Starts `launch`.
///
/// # Errors
///
/// Why it did not start: not found, not executable, a NUL in a string, or
/// the directory missing.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(crate) fn launch(launch: &Launch<'_>) -> io::Result<Started> {
    let program = c_string(launch.program.as_bytes())?;
    let mut argv = vec![program.clone()];
    for arg in launch.args {
        argv.push(c_string(arg.as_bytes())?);
    }
    let env = environment(&launch.env)?;
    let cwd = match launch.cwd {
        Some(cwd) => Some(c_string(cwd.as_os_str().as_bytes())?),
        None => None,
    };
    let (stdio, _copies) = above_stdio(&launch.stdio)?;
    let plan = Plan::new(stdio, cwd.as_ref())?;
    let spawn = |program: &CString, argv: &[CString]| -> io::Result<Started> {
        let (argv_ptrs, env_ptrs) = (pointers(argv), pointers(&env));
        let mut pid: libc::pid_t = 0;
        // SAFETY: every pointer is to a NUL-terminated string or a
        // null-terminated array of them, alive until the call returns
        // (glibc returns only once the child has execed or failed to); the
        // plan was initialized by `Plan::new`.
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
        checked(rc).map(|()| Started { pid })
    };
    match spawn(&program, &argv) {
        // A file with no `#!` line: run by `/bin/sh`, as `execvp` runs it
        // (`posix_spawnp` does not).
        Err(err) if err.raw_os_error() == Some(libc::ENOEXEC) => {
            let Some(file) = crate::exec::on_path(
                &launch.program.to_string_lossy(),
                &std::env::var_os("PATH").unwrap_or_default(),
            ) else {
                return Err(err);
            };
            let shell = c_string(b"/bin/sh")?;
            let mut with_shell = vec![shell.clone(), c_string(file.as_os_str().as_bytes())?];
            with_shell.extend(argv.into_iter().skip(1));
            spawn(&shell, &with_shell)
        }
        started => started,
    }
}

/// Starts `launch` with std's `Command` (no `posix_spawn` with a
/// directory to rely on here).
///
/// # Errors
///
/// Why it did not start.
#[cfg(not(target_os = "linux"))]
pub(crate) fn launch(launch: &Launch<'_>) -> io::Result<Started> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(launch.program);
    cmd.args(launch.args).process_group(0);
    let set = match &launch.env {
        Environment::Inherited(set) => set,
        Environment::Only(set) => {
            cmd.env_clear();
            set
        }
    };
    cmd.envs(last_values(set).into_iter().map(|(k, v)| (k, v)));
    if let Some(cwd) = launch.cwd {
        cmd.current_dir(cwd);
    }
    let [stdin, stdout, stderr] = &launch.stdio;
    cmd.stdin(stdin.try_clone_to_owned()?)
        .stdout(stdout.try_clone_to_owned()?)
        .stderr(stderr.try_clone_to_owned()?);
    let child = cmd.spawn()?;
    Ok(Started {
        pid: child.id() as libc::pid_t,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::AsFd;

    fn run(env: Environment<'_>, cwd: &Path, program: &str, args: &[&str]) -> (ExitStatus, String) {
        let (mut out, writer) = std::io::pipe().unwrap();
        let null = std::fs::File::open("/dev/null").unwrap();
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let started = launch(&Launch {
            program: OsStr::new(program),
            args: &args,
            env,
            cwd: Some(cwd),
            stdio: [null.as_fd(), writer.as_fd(), writer.as_fd()],
        })
        .unwrap();
        drop(writer);
        let mut text = String::new();
        out.read_to_string(&mut text).unwrap();
        (started.wait().unwrap(), text)
    }

    fn sh(env: Environment<'_>, cwd: &Path, script: &str) -> (ExitStatus, String) {
        run(env, cwd, "sh", &["-c", script])
    }

    #[test]
    fn it_runs_where_it_is_told_with_the_environment_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let set = [("HOOKDEX_SPAWN_TEST".to_string(), "given".to_string())];
        let (status, text) = sh(
            Environment::Inherited(&set),
            dir.path(),
            "pwd -P; echo $HOOKDEX_SPAWN_TEST; test -n \"$PATH\" && echo path; exit 5",
        );
        assert_eq!(status.code(), Some(5));
        let canonical = dir.path().canonicalize().unwrap();
        assert_eq!(text, format!("{}\ngiven\npath\n", canonical.display()));
        let (status, text) = run(Environment::Only(&set), dir.path(), "/usr/bin/env", &[]);
        assert_eq!(status.code(), Some(0));
        assert_eq!(text, "HOOKDEX_SPAWN_TEST=given\n", "nothing inherited");
    }

    #[test]
    fn a_variable_set_twice_has_its_last_value_once() {
        let dir = tempfile::tempdir().unwrap();
        let set = [
            ("HOOKDEX_SPAWN_TWICE".to_string(), "first".to_string()),
            ("HOOKDEX_SPAWN_OTHER".to_string(), "x".to_string()),
            ("HOOKDEX_SPAWN_TWICE".to_string(), "last".to_string()),
        ];
        for env in [Environment::Only(&set), Environment::Inherited(&set)] {
            let (_, text) = run(env, dir.path(), "/usr/bin/env", &[]);
            let twice: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with("HOOKDEX_SPAWN_TWICE="))
                .collect();
            assert_eq!(twice, ["HOOKDEX_SPAWN_TWICE=last"], "{text}");
        }
    }

    #[test]
    #[allow(unsafe_code)]
    fn it_leads_its_own_group_with_no_signal_blocked_and_sigpipe_at_default() {
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: blocks SIGUSR2 on this test's thread alone, restored below.
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        unsafe {
            let mut usr2: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut usr2);
            libc::sigaddset(&mut usr2, libc::SIGUSR2);
            libc::pthread_sigmask(libc::SIG_BLOCK, &usr2, &mut old);
        }
        let (_, text) = sh(
            Environment::Inherited(&[]),
            dir.path(),
            // Builtins only: a shell waiting for a child of its own blocks every signal for a
            // moment, and a reader in that child could see that mask instead of the one it got.
            "read -r _ _ _ _ group _ < /proc/$$/stat; echo $group; echo $$; \
             while read -r line; do case $line in Sig[BI]*) echo \"$line\";; esac; done < /proc/$$/status",
        );
        // SAFETY: restores the mask saved above.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
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
    fn an_executable_with_no_interpreter_line_is_run_by_sh() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("plain");
        std::fs::write(&script, "echo \"ran with $1\"\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (status, text) = run(
            Environment::Inherited(&[]),
            dir.path(),
            script.to_str().unwrap(),
            &["an argument"],
        );
        assert_eq!(status.code(), Some(0));
        assert_eq!(text, "ran with an argument\n");
    }

    #[test]
    fn standard_streams_given_as_0_to_2_are_moved_above_them() {
        let (reader, writer) = std::io::pipe().unwrap();
        let stdin = std::io::stdin();
        let (raw, copies) = above_stdio(&[stdin.as_fd(), writer.as_fd(), reader.as_fd()]).unwrap();
        assert!(raw[0] > 2, "{raw:?}");
        assert_eq!(raw[1..], [writer.as_raw_fd(), reader.as_raw_fd()]);
        assert_eq!(copies.len(), 1);
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
            cwd: Some(dir.path()),
            stdio: fds,
        });
        assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
        let nowhere = launch(&Launch {
            program: OsStr::new("/bin/sh"),
            args: &[],
            env: Environment::Inherited(&[]),
            cwd: Some(&dir.path().join("gone")),
            stdio: fds,
        });
        assert_eq!(nowhere.unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
