//! Running condition scripts: each in its own process group, synchronous ones
//! in parallel up to a limit and killed as a whole group at the timeout,
//! `.async` ones detached with no pipe back to the harness.
//!
//! Every child reads the payload from an anonymous file of its own (a memfd
//! on Linux), not a pipe, so a script that never reads stdin cannot block
//! the hook, and not a named file, so a full or missing `TMPDIR` skips
//! nothing and a killed hook leaves nothing behind. One [`Deadline`] bounds
//! every script of a hook call. A script's answer is what it printed by the
//! time it exited: a helper it left holding its stdout open delays the
//! answer by `PIPE_GRACE` at most. What outlives a group (`setsid`, double
//! forks) is [`crate::procs`]'s to end.

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hookdex_model::Runner;

use crate::exited::{has_exited, ExitWatch, EXIT_CHECK};
use crate::pipes::{Pipes, Pumped};
pub use crate::settings::ExecConfig;
use crate::settings::DEFAULT_TIMEOUT;
use crate::spawn::{Environment, Launch, Started};

/// Largest stdout or stderr kept from one condition; the rest is read and dropped.
const OUTPUT_CAP: usize = 16 << 20;
/// How long the output of a script that has exited (its group killed) may
/// stay open, held by a process that left the group, before what was read
/// is taken as its answer.
const PIPE_GRACE: Duration = Duration::from_millis(100);

/// One script to run.
#[derive(Clone, Debug)]
pub struct Job {
    /// The script (for [`Runner::Shell`], the command line).
    pub file: PathBuf,
    /// How to start it.
    pub runner: Runner,
    /// The absolute path of the runner's interpreter, as the index
    /// recorded it (never looked up in `PATH`); a runner that needs one
    /// does not start without it.
    pub interpreter: Option<PathBuf>,
    /// Variables added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// Inherit nothing: `env` is the whole environment (a repository's
    /// own rules, and the administrator's).
    pub clear_env: bool,
    /// The administrator's rule: the user's settings cannot cut it short.
    /// It starts before the others, the hook's deadline does not skip or
    /// stop it, and a `CONDITIONS_TIMEOUT_SEC` below the default does not
    /// shorten it.
    pub mandatory: bool,
    /// Where it runs, when not the call's directory (a `HOOK.md` hook's
    /// own folder).
    pub cwd: Option<PathBuf>,
    /// Its own timeout (a `hooks.yaml` or `HOOK.md` hook's `timeout`), in
    /// place of `CONDITIONS_TIMEOUT_SEC`. The hook's deadline still ends
    /// it: past that the harness would stop waiting, and the answers of
    /// every other rule of the call would be lost with it.
    pub timeout: Option<Duration>,
}

/// Why a script was not started: the hook call's [`Deadline`] had passed.
pub const DEADLINE_PASSED: &str = "the hook's deadline (HOOKDEX_HOOK_TIMEOUT_SEC) had passed";

/// The end of the time one hook call gives its scripts, all of them
/// together: none runs past it, and one not started by then is not started.
/// It makes a batch of calls, a rewrite judged again and a second run after
/// a vanished file cost the hook one timeout, not one each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// `length` after `start`; one too far to represent is no deadline.
    pub fn after(start: Instant, length: Duration) -> Deadline {
        Deadline(start.checked_add(length))
    }

    /// Whether it has passed.
    pub fn passed(&self) -> bool {
        self.0.is_some_and(|end| Instant::now() >= end)
    }

    /// The time left before it passes (zero once it has); `None` when there
    /// is no deadline.
    pub fn remaining(&self) -> Option<Duration> {
        self.0
            .map(|end| end.saturating_duration_since(Instant::now()))
    }

    /// The earlier of this deadline and `length` from now: what one part of
    /// a call (a filter) may take of the call's time.
    pub fn within(&self, length: Duration) -> Deadline {
        Deadline(self.cap(Instant::now(), length))
    }

    /// The earlier of this deadline and `timeout` after `start` (`None`:
    /// neither can be represented, so there is none).
    fn cap(&self, start: Instant, timeout: Duration) -> Option<Instant> {
        match (start.checked_add(timeout), self.0) {
            (Some(own), Some(end)) => Some(own.min(end)),
            (own, end) => own.or(end),
        }
    }
}

/// How a script ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finish {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it.
    Signaled(i32),
    /// It ran past the timeout and its group was killed.
    TimedOut,
    /// It could not be started.
    NotStarted(String),
    /// It was not started: the hook call's [`Deadline`] had passed.
    PastDeadline,
}

/// What one synchronous script did.
#[derive(Clone, Debug)]
pub struct Execution {
    /// How it ended.
    pub finish: Finish,
    /// Its stdout (capped).
    pub stdout: Vec<u8>,
    /// Its stderr (capped).
    pub stderr: Vec<u8>,
    /// Wall time.
    pub elapsed: Duration,
}

/// The payload the scripts of one call read on stdin.
pub struct Stdin {
    payload: Vec<u8>,
}

impl Stdin {
    /// The payload `payload`, for every script of one call.
    pub fn new(payload: Vec<u8>) -> Stdin {
        Stdin { payload }
    }

    /// A handle on a copy of the payload of its own, at its start.
    ///
    /// A copy per script rather than handles on one shared file: handles
    /// duplicated from one open file share its offset, so one reader would
    /// take the bytes of the next, and opening the file afresh needs a path:
    /// a named file in `TMPDIR` (left behind when the hook is killed, and
    /// impossible when `TMPDIR` is full or missing) or `/proc/self/fd/N`
    /// (absent where procfs is not mounted). A copy costs one write of at
    /// most 16 MiB to memory, small next to starting a process, and lives as
    /// long as its reader holds it: an `.async` script that reads after the
    /// hook exited still reads it whole.
    fn handle(&self) -> std::io::Result<File> {
        let file = anonymous_file()?;
        // A positioned write leaves the file's offset at its start.
        file.write_all_at(&self.payload, 0)?;
        Ok(file)
    }
}

/// A file with no name, gone when its last handle closes: a memfd, or an
/// unlinked temporary file where `memfd_create` is refused (a kernel before
/// 3.17, a seccomp filter).
#[cfg(target_os = "linux")]
fn anonymous_file() -> std::io::Result<File> {
    memfd().or_else(|_| tempfile::tempfile())
}

/// A file with no name: an unlinked temporary file.
#[cfg(not(target_os = "linux"))]
fn anonymous_file() -> std::io::Result<File> {
    tempfile::tempfile()
}

/// A new memfd, closed on exec (a script gets it only as its stdin, never
/// another script's copy).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn memfd() -> std::io::Result<File> {
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: memfd_create(2) reads only the name, a NUL-terminated static
    // string, and touches no other memory.
    let fd = unsafe { libc::memfd_create(c"hookdex-payload".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned open by memfd_create and nothing else
    // owns it; the `OwnedFd` becomes its only owner and closes it once.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// The program and arguments that run `job`.
///
/// # Errors
///
/// When its runner needs an interpreter and the job has none.
fn argv(job: &Job) -> std::io::Result<(OsString, Vec<OsString>)> {
    let file = job.file.clone().into_os_string();
    let Some(program) = job.runner.program() else {
        return Ok((file, Vec::new()));
    };
    let Some(interpreter) = &job.interpreter else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no `{program}` in a system location was recorded in the index"),
        ));
    };
    let args = match job.runner {
        Runner::Shell => vec!["-c".into(), file],
        _ => vec![file],
    };
    Ok((interpreter.clone().into_os_string(), args))
}

/// Starts `job`, with `extra` arguments after its own, reading `stdin`
/// and writing to `stdout` and `stderr`; a `detached` one goes under the
/// `.async` supervisor when there is one. It runs in the job's directory
/// (the call's, or its own), in a process group of its own
/// ([`crate::spawn`]: no fork of the hook, whatever the directory).
fn start(
    job: &Job,
    extra: &[OsString],
    config: &ExecConfig,
    stdin: &Stdin,
    detached: bool,
    [stdout, stderr]: [BorrowedFd<'_>; 2],
) -> std::io::Result<Started> {
    let (program, mut args) = argv(job)?;
    args.extend_from_slice(extra);
    let (program, args) = match detached.then(crate::procs::supervisor).flatten() {
        // The supervisor runs the program; its deadline comes first.
        Some(supervisor) => {
            let timeout_ms = config.timeout.as_millis().min(u128::from(u64::MAX));
            let mut all: Vec<OsString> = [
                "supervise-async",
                "--timeout-ms",
                &timeout_ms.to_string(),
                "--",
            ]
            .map(OsString::from)
            .to_vec();
            all.push(program);
            all.extend(args);
            (supervisor.clone().into_os_string(), all)
        }
        None => (program, args),
    };
    let input = stdin.handle()?;
    // The hook's own directory is inherited, not changed to (one call
    // less, and a directory deleted under the hook still runs its rules).
    let cwd = job.cwd.as_deref().unwrap_or(&config.cwd);
    crate::spawn::launch(&Launch {
        program: &program,
        args: &args,
        env: match job.clear_env {
            true => Environment::Only(&job.env),
            false => Environment::Inherited(&job.env),
        },
        cwd: Some(cwd).filter(|cwd| std::env::current_dir().ok().as_deref() != Some(cwd)),
        stdio: [input.as_fd(), stdout, stderr],
    })
}

/// Starts `job` detached: its own process group, stdout and stderr to
/// `/dev/null`, never waited for. When supervision is on
/// ([`crate::procs::enable`]), it runs under `hookdex supervise-async`, a
/// process of its own that gives it `config.timeout` and then kills what it
/// started, since the hook itself exits long before. After `deadline` it is
/// not started: starting it costs the hook little, but a batch of calls
/// may have many.
///
/// # Errors
///
/// When it cannot be started, or `deadline` has passed.
pub fn spawn_detached(
    job: &Job,
    config: &ExecConfig,
    deadline: Deadline,
    stdin: &Stdin,
) -> std::io::Result<()> {
    if deadline.passed() {
        return Err(std::io::Error::other(DEADLINE_PASSED));
    }
    crate::procs::arm();
    let null = File::options().read(true).write(true).open("/dev/null")?;
    let child = start(job, &[], config, stdin, true, [null.as_fd(), null.as_fd()])?;
    if let Ok(pid) = i32::try_from(child.id()) {
        crate::procs::detach(pid);
    }
    Ok(())
}

/// The body of `hookdex supervise-async`: runs `program` with `args` in its
/// own process group, as a subreaper of everything it starts, kills the
/// group at `timeout` and then every remaining descendant. Returns the exit
/// code of the supervisor (0 unless the program could not start).
pub fn supervise(timeout: Duration, program: &OsString, args: &[OsString]) -> i32 {
    crate::procs::arm_supervisor();
    let started = Instant::now();
    let Ok(mut child) = Command::new(program).args(args).process_group(0).spawn() else {
        return 127;
    };
    let ended = wait_until(child.id(), started.checked_add(timeout));
    if !matches!(ended, Ended::Unknown(_)) {
        kill_group(child.id());
    }
    let _ = child.wait();
    crate::procs::sweep();
    0
}

/// Runs every job, at most `config.max_parallel` at once, each for
/// `config.timeout` at most and none past `deadline` (a job not started by
/// then is [`Finish::PastDeadline`]), [`Job::mandatory`] ones first and
/// beyond both limits, and returns their executions in job order.
pub fn run_all(
    jobs: &[Job],
    config: &ExecConfig,
    deadline: Deadline,
    stdin: &Stdin,
) -> Vec<Execution> {
    crate::procs::arm();
    let next = AtomicUsize::new(0);
    let order: Vec<usize> = (0..jobs.len())
        .filter(|&i| jobs[i].mandatory)
        .chain((0..jobs.len()).filter(|&i| !jobs[i].mandatory))
        .collect();
    let workers = config.max_parallel.min(jobs.len());
    if workers <= 1 {
        // One at a time: on this thread, none started for it.
        let mut results: Vec<Option<Execution>> = vec![None; jobs.len()];
        for &i in &order {
            results[i] = Some(run_one(&jobs[i], &[], config, deadline, stdin));
        }
        return results.into_iter().flatten().collect();
    }
    let mut results: Vec<Option<Execution>> = vec![None; jobs.len()];
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, order) = (&next, &order);
            scope.spawn(move || {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let _ = tx.send((i, run_one(&jobs[i], &[], config, deadline, stdin)));
                }
            });
        }
        drop(tx);
        for (i, execution) in rx {
            results[i] = Some(execution);
        }
    });
    results
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Runs `program` (looked up in `PATH`) with `args` and the inherited
/// environment as a condition script runs: in its own process group, killed
/// as a whole at `config.timeout` or `deadline`, whichever comes first
/// (past `deadline` it is not started: [`Finish::PastDeadline`]), reading
/// `stdin`, in `config.cwd`. For a program hookdex runs that is not a rule
/// (the classifier command).
pub fn run_program(
    program: &str,
    args: &[OsString],
    config: &ExecConfig,
    deadline: Deadline,
    stdin: &Stdin,
) -> Execution {
    crate::procs::arm();
    let job = Job {
        file: PathBuf::from(program),
        runner: Runner::Direct,
        interpreter: None,
        env: Vec::new(),
        clear_env: false,
        mandatory: false,
        cwd: None,
        timeout: None,
    };
    run_one(&job, args, config, deadline, stdin)
}

/// Runs one job, with `extra` arguments after its own, to completion, its
/// timeout or `deadline`; its group never outlives this call.
fn run_one(
    job: &Job,
    extra: &[OsString],
    config: &ExecConfig,
    deadline: Deadline,
    stdin: &Stdin,
) -> Execution {
    let started = Instant::now();
    let (deadline, timeout) = match (job.mandatory, job.timeout) {
        (true, own) => (
            Deadline(None),
            own.unwrap_or(config.timeout).max(DEFAULT_TIMEOUT),
        ),
        (false, Some(own)) => (deadline, own),
        (false, None) => (deadline, config.timeout),
    };
    if deadline.passed() {
        return Execution::unstarted(Finish::PastDeadline, started);
    }
    let spawned = std::io::pipe().and_then(|out| Ok((out, std::io::pipe()?)));
    let spawned = spawned.and_then(|((out, out_w), (err, err_w))| {
        let child = start(
            job,
            extra,
            config,
            stdin,
            false,
            [out_w.as_fd(), err_w.as_fd()],
        )?;
        // The write ends are the child's alone now: its exit closes them.
        drop((out_w, err_w));
        Ok((child, out, err))
    });
    let (child, out, err) = match spawned {
        Ok(started) => started,
        Err(err) => return Execution::unstarted(Finish::NotStarted(err.to_string()), started),
    };
    let pid = i32::try_from(child.id()).ok();
    if let Some(pid) = pid {
        crate::procs::register(pid);
    }
    let deadline = deadline.cap(started, timeout);
    let mut pipes = Pipes::new(
        Some(OwnedFd::from(out)),
        Some(OwnedFd::from(err)),
        OUTPUT_CAP,
    );
    let mut ended = None;
    while pipes.pending() {
        let now = Instant::now();
        let check = now + EXIT_CHECK;
        let until = deadline.map_or(check, |d| d.min(check));
        if pipes.pump(until) == Pumped::Closed {
            break;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            ended = Some(Ended::TimedOut);
            break;
        }
        // The script may have exited while something it started in the
        // background still holds its output open: that is its answer.
        match has_exited(child.id()) {
            Ok(true) => {
                ended = Some(Ended::Exited);
                break;
            }
            Ok(false) => {}
            Err(err) => {
                ended = Some(Ended::Unknown(err.to_string()));
                break;
            }
        }
    }
    let ended = ended.unwrap_or_else(|| wait_until(child.id(), deadline));
    let status = {
        // Under the reaping lock (crate::procs): nobody else reaps while it
        // is held, so the leader stays unreaped until `wait` below.
        let mut live = crate::procs::lock();
        // Whatever the script left behind in its group goes with it. The
        // leader has not been reaped yet, so the group id cannot have been
        // reused; when waiting failed, that is not known, and the group is
        // left alone.
        if !matches!(ended, Ended::Unknown(_)) {
            kill_group(child.id());
        }
        live.retain(|&p| Some(p) != pid);
        child.wait()
    };
    let finish = match (ended, status) {
        (Ended::TimedOut, _) => Finish::TimedOut,
        (Ended::Unknown(err), _) => Finish::NotStarted(err),
        (Ended::Exited, Ok(status)) => finish_of(status),
        (Ended::Exited, Err(err)) => Finish::NotStarted(err.to_string()),
    };
    // The group is gone, so the pipes close; a process that escaped the
    // group (setsid) may hold one open: after a short grace, what was read
    // by then is the answer (the escapee is ended by the final sweep).
    pipes.pump(Instant::now() + PIPE_GRACE);
    let [stdout, stderr] = pipes.read;
    Execution {
        finish,
        stdout,
        stderr,
        elapsed: started.elapsed(),
    }
}

impl Execution {
    /// A script that did not start (`finish` says why), at `started`.
    fn unstarted(finish: Finish, started: Instant) -> Execution {
        Execution {
            finish,
            stdout: Vec::new(),
            stderr: Vec::new(),
            elapsed: started.elapsed(),
        }
    }
}

/// How a script's leader ended, learned without reaping it.
#[derive(Debug)]
enum Ended {
    /// It exited (or was signalled); its status is read when it is reaped.
    Exited,
    /// It ran past the deadline.
    TimedOut,
    /// Waiting for it failed.
    Unknown(String),
}

/// Waits for the child after its pipes closed, without reaping it; a child
/// that closed them but keeps running is given until the deadline.
///
/// A script's pipes close as it exits, a moment before it is seen to have
/// exited: the wait for that moment is on a pidfd, woken by the exit
/// itself, where the kernel has them (Linux 5.3); elsewhere it is a sleep
/// of a millisecond between looks.
fn wait_until(pid: u32, deadline: Option<Instant>) -> Ended {
    let exit = ExitWatch::new(pid);
    loop {
        match has_exited(pid) {
            Ok(true) => return Ended::Exited,
            Ok(false) if deadline.is_none_or(|d| Instant::now() < d) => exit.wait(deadline),
            Ok(false) => return Ended::TimedOut,
            Err(err) => return Ended::Unknown(err.to_string()),
        }
    }
}

fn finish_of(status: std::process::ExitStatus) -> Finish {
    match (status.code(), status.signal()) {
        (Some(code), _) => Finish::Exited(code),
        (None, Some(signal)) => Finish::Signaled(signal),
        (None, None) => Finish::Exited(-1),
    }
}

/// SIGKILL to the whole process group the child `leader` leads. Call it
/// only while the child is known to be unreaped: running, or seen
/// exited by [`has_exited`] (which requires SIGCHLD not to be ignored;
/// the hook sets it to its default).
#[allow(unsafe_code)]
fn kill_group(leader: u32) {
    let Ok(pgid) = libc::pid_t::try_from(leader) else {
        return;
    };
    // SAFETY: kill(2) has no memory effects. A negative pid signals the
    // process group `pgid`, which this child leads (it was started with
    // `process_group(0)`); every caller runs before `child.wait()` and only
    // when the leader is known to exist (running, or a zombie that
    // `has_exited` saw), so the id names no other group.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// The executable file `bin` names: at its path when it has a `/`, else
/// the first in the directories of `path` (a `PATH` value).
pub fn on_path(bin: &str, path: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if bin.contains('/') {
        let path = std::path::Path::new(bin);
        return executable(path).then(|| path.to_path_buf());
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(bin))
        .find(|candidate| executable(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(timeout_ms: u64) -> ExecConfig {
        ExecConfig {
            cwd: std::env::temp_dir(),
            timeout: Duration::from_millis(timeout_ms),
            hook_timeout: Duration::from_millis(timeout_ms),
            max_parallel: 4,
        }
    }

    /// A deadline too far to represent: only each script's own timeout counts.
    fn unbounded() -> Deadline {
        Deadline::after(Instant::now(), Duration::MAX)
    }

    fn script(dir: &std::path::Path, name: &str, body: &str) -> Job {
        let file = dir.join(name);
        std::fs::write(&file, body).unwrap();
        Job {
            file,
            runner: Runner::Bash,
            interpreter: Some("/bin/bash".into()),
            env: vec![("AH_TEST".into(), "yes".into())],
            clear_env: false,
            mandatory: false,
            cwd: None,
            timeout: None,
        }
    }

    #[test]
    fn outputs_codes_and_stdin_arrive() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = [
            script(dir.path(), "a.sh", "cat; echo \" $AH_TEST\""),
            script(dir.path(), "b.sh", "echo oops >&2; exit 2"),
            script(dir.path(), "c.sh", "exit 7"),
        ];
        let stdin = Stdin::new(b"{\"x\":1}".to_vec());
        let runs = run_all(&jobs, &config(5000), unbounded(), &stdin);
        assert_eq!(runs[0].finish, Finish::Exited(0));
        assert_eq!(String::from_utf8_lossy(&runs[0].stdout), "{\"x\":1} yes\n");
        assert_eq!(runs[1].finish, Finish::Exited(2));
        assert_eq!(String::from_utf8_lossy(&runs[1].stderr), "oops\n");
        assert_eq!(runs[2].finish, Finish::Exited(7));
    }

    #[test]
    fn a_background_child_holding_stdout_does_not_hide_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let job = script(dir.path(), "bg.sh", "echo answer; sleep 30 & exit 0");
        let stdin = Stdin::new(b"{}".to_vec());
        let started = Instant::now();
        let run = &run_all(&[job], &config(10_000), unbounded(), &stdin)[0];
        assert_eq!(run.finish, Finish::Exited(0));
        assert_eq!(String::from_utf8_lossy(&run.stdout), "answer\n");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn an_exit_is_learned_without_reaping_the_leader() {
        let mut child = Command::new("sh")
            .args(["-c", "exit 3"])
            .process_group(0)
            .spawn()
            .unwrap();
        let ended = wait_until(child.id(), Some(Instant::now() + Duration::from_secs(10)));
        assert!(matches!(ended, Ended::Exited), "{ended:?}");
        // Still a zombie: its pid, and so its group id, is not free for reuse.
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
        let state = stat.rsplit(')').next().unwrap().split_whitespace().next();
        assert_eq!(state, Some("Z"), "{stat}");
        kill_group(child.id());
        assert_eq!(child.wait().unwrap().code(), Some(3));
    }

    #[test]
    fn a_mandatory_job_starts_first_and_outlives_the_deadline_and_a_short_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let slow = script(dir.path(), "slow.sh", "sleep 0.3; echo slow");
        let mut managed = script(dir.path(), "managed.sh", "sleep 0.2; echo managed");
        managed.mandatory = true;
        let stdin = Stdin::new(b"{}".to_vec());
        let mut config = config(50);
        config.max_parallel = 1;
        // Past already: an ordinary job is not started, the mandatory one
        // runs first (one worker) and to its end (its sleep is past 50 ms).
        let deadline = Deadline::after(Instant::now(), Duration::ZERO);
        let runs = run_all(&[slow, managed], &config, deadline, &stdin);
        assert_eq!(runs[0].finish, Finish::PastDeadline);
        assert_eq!(runs[1].finish, Finish::Exited(0));
        assert_eq!(String::from_utf8_lossy(&runs[1].stdout).trim(), "managed");
    }

    #[test]
    fn a_timeout_beyond_any_instant_does_not_panic() {
        let dir = tempfile::tempdir().unwrap();
        let job = script(dir.path(), "quick.sh", "echo done");
        let stdin = Stdin::new(b"{}".to_vec());
        let mut config = config(0);
        config.timeout = Duration::MAX;
        let run = &run_all(&[job], &config, unbounded(), &stdin)[0];
        assert_eq!(run.finish, Finish::Exited(0));
    }

    #[test]
    fn a_runner_without_its_interpreter_does_not_start() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job {
            interpreter: None,
            ..script(dir.path(), "a.sh", "exit 0")
        };
        let stdin = Stdin::new(Vec::new());
        let run = &run_all(&[job], &config(1000), unbounded(), &stdin)[0];
        assert!(
            matches!(&run.finish, Finish::NotStarted(why) if why.contains("`bash`")),
            "{:?}",
            run.finish
        );
    }

    #[test]
    fn a_script_runs_in_the_calls_directory_whether_or_not_it_is_the_hooks() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let own = std::env::current_dir().unwrap();
        let job = script(dir.path(), "pwd.sh", "pwd -P");
        for cwd in [own, elsewhere.path().to_path_buf()] {
            let config = ExecConfig {
                cwd: cwd.clone(),
                ..config(5000)
            };
            let run = &run_all(
                std::slice::from_ref(&job),
                &config,
                unbounded(),
                &Stdin::new(Vec::new()),
            )[0];
            assert_eq!(run.finish, Finish::Exited(0));
            let printed = String::from_utf8_lossy(&run.stdout);
            assert_eq!(
                printed.trim(),
                cwd.canonicalize().unwrap().to_str().unwrap()
            );
        }
    }

    #[test]
    fn a_missing_script_does_not_start() {
        let stdin = Stdin::new(b"{}".to_vec());
        let job = Job {
            file: "/nonexistent/hookdex/x".into(),
            runner: Runner::Direct,
            interpreter: None,
            env: Vec::new(),
            clear_env: false,
            mandatory: false,
            cwd: None,
            timeout: None,
        };
        assert!(matches!(
            run_all(&[job], &config(1000), unbounded(), &stdin)[0].finish,
            Finish::NotStarted(_)
        ));
    }

    #[test]
    fn every_parallel_reader_gets_all_of_a_16_mib_payload() {
        let dir = tempfile::tempdir().unwrap();
        let jobs: Vec<Job> = (0..4)
            .map(|i| script(dir.path(), &format!("r{i}.sh"), "cat | wc -c"))
            .collect();
        let stdin = Stdin::new(vec![b'x'; 16 << 20]);
        for run in run_all(&jobs, &config(30_000), unbounded(), &stdin) {
            assert_eq!(run.finish, Finish::Exited(0));
            assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "16777216");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn stdin_is_a_memfd_with_no_name_in_any_directory() {
        let dir = tempfile::tempdir().unwrap();
        let job = script(dir.path(), "link.sh", "readlink /proc/self/fd/0");
        let stdin = Stdin::new(b"{}".to_vec());
        let run = &run_all(&[job], &config(5000), unbounded(), &stdin)[0];
        assert_eq!(
            String::from_utf8_lossy(&run.stdout),
            "/memfd:hookdex-payload (deleted)\n"
        );
    }

    #[test]
    fn the_deadline_cuts_a_script_short_and_what_is_not_started_by_then_never_starts() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("started");
        let jobs = [
            script(dir.path(), "slow.sh", "sleep 30"),
            script(
                dir.path(),
                "next.sh",
                &format!("touch {}", marker.display()),
            ),
        ];
        let mut config = config(30_000);
        config.max_parallel = 1;
        let deadline = Deadline::after(Instant::now(), Duration::from_millis(300));
        let runs = run_all(&jobs, &config, deadline, &Stdin::new(b"{}".to_vec()));
        assert_eq!(runs[0].finish, Finish::TimedOut);
        assert_eq!(runs[1].finish, Finish::PastDeadline);
        assert!(!marker.exists());
    }

    #[test]
    fn a_program_runs_with_its_arguments_under_the_same_timeout() {
        let stdin = Stdin::new(b"question".to_vec());
        let args = |script: &str| ["-c".into(), script.into()];
        let run = run_program(
            "sh",
            &args("cat; echo \" $0\""),
            &config(5000),
            unbounded(),
            &stdin,
        );
        assert_eq!(run.finish, Finish::Exited(0));
        assert_eq!(String::from_utf8_lossy(&run.stdout), "question sh\n");
        let slow = run_program("sh", &args("sleep 30"), &config(200), unbounded(), &stdin);
        assert_eq!(slow.finish, Finish::TimedOut);
        assert!(slow.elapsed < Duration::from_secs(5), "{:?}", slow.elapsed);
        let passed = Deadline::after(Instant::now(), Duration::ZERO);
        let late = run_program("sh", &args("exit 0"), &config(5000), passed, &stdin);
        assert_eq!(late.finish, Finish::PastDeadline);
        assert_eq!(passed.remaining(), Some(Duration::ZERO));
        assert_eq!(unbounded().remaining(), None);
    }

    #[test]
    fn an_async_script_is_not_started_past_the_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let job = script(dir.path(), "a.sh", "exit 0");
        let passed = Deadline::after(Instant::now(), Duration::ZERO);
        let err = spawn_detached(&job, &config(1000), passed, &Stdin::new(Vec::new())).unwrap_err();
        assert_eq!(err.to_string(), DEADLINE_PASSED);
    }
}
