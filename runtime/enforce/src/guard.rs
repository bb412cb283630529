//! [`Guard`]: one command run under the filter, supervised until nothing
//! under the filter is left. The command keeps the wrapper's process group
//! and standard streams (so it behaves as it would unwrapped), and dies
//! with the wrapper. When the command ends and something it started is
//! still running (`server &`), the wrapper returns at once and a forked
//! copy of it, detached from the terminal and the harness's pipes, keeps
//! answering for what is left: a background job's execs are judged too,
//! and never left hanging.

use std::ffi::OsString;
use std::io;
use std::process::ExitStatus;

use crate::program::Identities;
#[cfg(target_os = "linux")]
use crate::Verdict;
use crate::{Judge, Unavailable};

/// Builds a [`Guard`].
#[derive(Debug, Default)]
pub struct GuardBuilder {
    programs: Vec<String>,
    search_path: Option<OsString>,
    remembered: Option<String>,
    writes: bool,
}

impl GuardBuilder {
    /// The programs whose execs the judge is asked about (as `bash.<cli>`
    /// names them); every other exec continues at once.
    pub fn programs<I, S>(mut self, names: I) -> GuardBuilder
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.programs
            .extend(names.into_iter().map(|n| n.as_ref().to_string()));
        self
    }

    /// The search path the guarded programs' files are found on, so a
    /// renamed copy or a hard link of one is known (default: `PATH`).
    pub fn search_path(mut self, path: impl Into<OsString>) -> GuardBuilder {
        self.search_path = Some(path.into());
        self
    }

    /// Which guarded names each search-path folder held on an earlier run
    /// ([`Guard::listing`]), so a long list of names does not list every
    /// folder each time. Whoever can change it can hide a hard link or copy
    /// of a guarded program from the guard: pass one kept no less safe than
    /// the rules (none for a managed rule).
    pub fn remembered_listing(mut self, text: impl Into<String>) -> GuardBuilder {
        self.remembered = Some(text.into());
        self
    }

    /// Whether writes are judged too (the write gate).
    pub fn write_gate(mut self, on: bool) -> GuardBuilder {
        self.writes = on;
        self
    }

    /// The guard.
    pub fn build(self) -> Guard {
        let search = self.search_path.or_else(|| std::env::var_os("PATH"));
        Guard {
            identities: std::sync::Arc::new(Identities::new(
                &self.programs,
                search.as_deref(),
                self.remembered.as_deref(),
            )),
            writes: self.writes,
        }
    }
}

/// A command runner that supervises every exec (and, with the write gate,
/// every write) of the command and its descendants.
#[derive(Debug)]
pub struct Guard {
    identities: std::sync::Arc<Identities>,
    writes: bool,
}

/// Why a guarded command did not run.
#[derive(Debug)]
pub enum Error {
    /// The kernel would not supervise it (nothing ran).
    Unavailable(Unavailable),
    /// The filter was in place but the command could not start (not found,
    /// not executable, refused by the judge).
    Start(io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Unavailable(why) => write!(f, "enforcement unavailable: {why}"),
            Error::Start(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for Error {}

/// What [`Guard::run`] returns.
pub type Ran = Result<ExitStatus, Error>;

impl Guard {
    /// A builder.
    pub fn builder() -> GuardBuilder {
        GuardBuilder::default()
    }

    /// The guarded program names.
    pub fn programs(&self) -> &[String] {
        self.identities.names()
    }

    /// Which guarded names each search-path folder holds, to keep for
    /// [`GuardBuilder::remembered_listing`] next time, when it differs from
    /// what was given this time.
    pub fn listing(&self) -> Option<&str> {
        self.identities.listing()
    }

    /// Runs `argv` under the guard, asking `judge`; `started` is told the
    /// command's pid once it runs (to pass signals on). Returns how the
    /// command ended.
    #[cfg(target_os = "linux")]
    pub fn run(&self, argv: &[String], judge: &dyn Judge, started: &dyn Fn(u32)) -> Ran {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;

        use crate::filter::{filter_program, Watch};
        use crate::listener::Listener;
        use crate::spawn;
        use crate::supervisor::Supervisor;

        let Some((program, args)) = argv.split_first() else {
            return Err(Error::Start(io::Error::from(io::ErrorKind::InvalidInput)));
        };
        let filter = filter_program(Watch {
            execs: true,
            writes: self.writes,
        });
        let unavailable = |err: io::Error| Error::Unavailable(Unavailable::Kernel(err.to_string()));
        // The supervisor reads each stopped process's folder and arguments
        // in /proc; without it no exec could be judged.
        if let Err(err) = std::fs::read_link("/proc/self/cwd") {
            return Err(Error::Unavailable(Unavailable::Kernel(format!(
                "/proc cannot be read ({err}), so no program run could be judged"
            ))));
        }
        let (ours, theirs) = spawn::socket_pair().map_err(unavailable)?;
        let stop = AtomicBool::new(false);
        let report = |line: &str| eprintln!("{line}");
        std::thread::scope(|scope| {
            let supervising = scope.spawn(|| -> io::Result<(Arc<Listener>, bool)> {
                let listener = Arc::new(Listener::new(spawn::receive_listener(&ours)?));
                let supervisor = Supervisor {
                    listener: Arc::clone(&listener),
                    identities: Arc::clone(&self.identities),
                    judge,
                    report: &report,
                };
                let done = supervisor.run(&stop);
                Ok((listener, done))
            });
            // SAFETY: `filter` is the program just built and lives until
            // the end of this function, past the spawn.
            let spawned = unsafe { spawn::spawn(program, args, &filter, &theirs) };
            drop(theirs);
            let child = match spawned {
                Ok(child) => child,
                Err(err) => {
                    stop.store(true, Ordering::Relaxed);
                    return match supervising.join() {
                        Ok(Ok(_)) => Err(Error::Start(err)),
                        _ => Err(unavailable(err)),
                    };
                }
            };
            started(child.id());
            let status = child.wait().map_err(Error::Start)?;
            stop.store(true, Ordering::Relaxed);
            if let Ok(Ok((listener, false))) = supervising.join() {
                self.linger(&listener, judge);
            }
            Ok(status)
        })
    }

    /// Not Linux: nothing can be supervised.
    #[cfg(not(target_os = "linux"))]
    pub fn run(&self, _: &[String], _: &dyn Judge, _: &dyn Fn(u32)) -> Ran {
        Err(Error::Unavailable(Unavailable::NotLinux))
    }

    /// The command ended but processes it started are still under the
    /// filter: a forked copy of this process answers for them until none is
    /// left, telling each denial to the denied process's own standard error.
    #[cfg(target_os = "linux")]
    fn linger(&self, listener: &std::sync::Arc<crate::listener::Listener>, judge: &dyn Judge) {
        use crate::supervisor::Supervisor;
        use std::sync::atomic::AtomicBool;

        if listener.hung_up() {
            return;
        }
        // SAFETY: every other thread of this process has been joined (the
        // supervisor's scope), so the child is a copy of one thread holding
        // no lock; it ends with `_exit`, running no destructor of the copy.
        let pid = unsafe { libc::fork() };
        if pid != 0 {
            // The parent returns the command's status (a failed fork leaves
            // the rest to fail their execs with ENOSYS once we exit).
            return;
        }
        // SAFETY: setsid and dup2 onto the standard descriptors, in the
        // single-threaded child.
        unsafe {
            libc::setsid();
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            if null >= 0 {
                for fd in 0..3 {
                    libc::dup2(null, fd);
                }
            }
        }
        let report = |_: &str| {};
        let supervisor = Supervisor {
            listener: std::sync::Arc::clone(listener),
            identities: std::sync::Arc::clone(&self.identities),
            judge: &Told(judge),
            report: &report,
        };
        supervisor.run(&AtomicBool::new(false));
        // SAFETY: ends the copy without running its inherited destructors.
        unsafe { libc::_exit(0) }
    }
}

/// A judge whose denials are written to the denied process's own standard
/// error, for when the wrapper's is gone.
#[cfg(target_os = "linux")]
struct Told<'j>(&'j dyn Judge);

#[cfg(target_os = "linux")]
impl Told<'_> {
    fn tell(pid: u32, verdict: Verdict) -> Verdict {
        if let Verdict::Deny { message } = &verdict {
            use std::io::Write;
            let stderr = std::fs::OpenOptions::new()
                .append(true)
                .open(format!("/proc/{pid}/fd/2"));
            if let Ok(mut stderr) = stderr {
                let _ = writeln!(stderr, "{message}");
            }
        }
        verdict
    }
}

#[cfg(target_os = "linux")]
impl Judge for Told<'_> {
    fn exec(&self, call: &crate::ExecCall<'_>) -> Verdict {
        Told::tell(call.pid, self.0.exec(call))
    }

    fn write(&self, call: &crate::WriteCall<'_>) -> Verdict {
        Told::tell(call.pid, self.0.write(call))
    }

    fn unjudged(&self, why: &str) -> Verdict {
        self.0.unjudged(why)
    }
}
