//! Running condition scripts: each in its own process group, synchronous ones
//! in parallel up to a limit and killed as a whole group at the timeout,
//! `.async` ones detached with no pipe back to the harness.
//!
//! Every child reads the payload from its own handle on one temporary file, so
//! a script that never reads stdin cannot block the hook. A script's answer
//! is what it printed by the time it exited: a helper it left holding its
//! stdout open delays the answer by `PIPE_GRACE` at most. What outlives a
//! group (`setsid`, double forks) is [`crate::procs`]'s to end.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use hookdex_model::Runner;

pub use crate::settings::ExecConfig;

/// Largest stdout or stderr kept from one condition; the rest is read and dropped.
const OUTPUT_CAP: usize = 16 << 20;
/// How often a script whose output is still open is checked for having exited.
const EXIT_CHECK: Duration = Duration::from_millis(20);
/// How long the output of a script that has exited (its group killed) may
/// stay open, held by a process that left the group, before what was read
/// is taken as its answer.
const PIPE_GRACE: Duration = Duration::from_millis(100);

/// One script to run.
#[derive(Clone, Debug)]
pub struct Job {
    /// The script.
    pub file: PathBuf,
    /// How to start it.
    pub runner: Runner,
    /// Variables added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// Inherit nothing: `env` is the whole environment (a repository's
    /// own rules).
    pub clear_env: bool,
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

/// The payload, written once to an unlinked-on-drop temporary file.
pub struct Stdin {
    file: tempfile::NamedTempFile,
}

impl Stdin {
    /// Writes `payload` to a temporary file.
    ///
    /// # Errors
    ///
    /// When the temporary file cannot be written.
    pub fn new(payload: &[u8]) -> std::io::Result<Stdin> {
        let mut file = tempfile::Builder::new()
            .prefix("hookdex-payload-")
            .tempfile()?;
        file.write_all(payload)?;
        file.flush()?;
        Ok(Stdin { file })
    }

    /// A fresh read handle, positioned at the start.
    fn handle(&self) -> std::io::Result<File> {
        File::open(self.file.path())
    }
}

/// The program and arguments that run `job`.
fn argv(job: &Job) -> (OsString, Vec<OsString>) {
    let file = job.file.clone().into_os_string();
    match job.runner {
        Runner::Bash => ("bash".into(), vec![file]),
        Runner::Python => ("python3".into(), vec![file]),
        Runner::Direct | Runner::None => (file, Vec::new()),
    }
}

/// The command that runs `job`; a `detached` one goes under the `.async`
/// supervisor when there is one.
fn command(
    job: &Job,
    config: &ExecConfig,
    stdin: &Stdin,
    detached: bool,
) -> std::io::Result<Command> {
    let (program, args) = argv(job);
    let mut cmd = match detached.then(crate::procs::supervisor).flatten() {
        // The supervisor runs the program; its deadline comes first.
        Some(supervisor) => {
            let timeout_ms = config.timeout.as_millis().min(u128::from(u64::MAX));
            let mut c = Command::new(supervisor);
            c.args([
                "supervise-async",
                "--timeout-ms",
                &timeout_ms.to_string(),
                "--",
            ])
            .arg(program);
            c
        }
        None => Command::new(program),
    };
    if job.clear_env {
        cmd.env_clear();
    }
    cmd.args(args)
        .current_dir(&config.cwd)
        .envs(
            job.env
                .iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
        )
        .stdin(stdin.handle()?)
        .process_group(0);
    Ok(cmd)
}

/// Starts `job` detached: its own process group, stdout and stderr to
/// `/dev/null`, never waited for. When supervision is on
/// ([`crate::procs::enable`]), it runs under `hookdex supervise-async`, a
/// process of its own that gives it `config.timeout` and then kills what it
/// started, since the hook itself exits long before.
///
/// # Errors
///
/// When it cannot be started.
pub fn spawn_detached(job: &Job, config: &ExecConfig, stdin: &Stdin) -> std::io::Result<()> {
    crate::procs::arm();
    let mut cmd = command(job, config, stdin, true)?;
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let child = cmd.spawn()?;
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
    let ended = wait_until(&child, started.checked_add(timeout));
    if !matches!(ended, Ended::Unknown(_)) {
        kill_group(&child);
    }
    let _ = child.wait();
    crate::procs::sweep();
    0
}

/// Runs every job, at most `config.max_parallel` at once, and returns their
/// executions in job order.
pub fn run_all(jobs: &[Job], config: &ExecConfig, stdin: &Stdin) -> Vec<Execution> {
    crate::procs::arm();
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Execution>> = vec![None; jobs.len()];
    let workers = config.max_parallel.min(jobs.len());
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let _ = tx.send((i, run_one(job, config, stdin)));
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

/// Runs one job to completion or timeout; its group never outlives this call.
fn run_one(job: &Job, config: &ExecConfig, stdin: &Stdin) -> Execution {
    let started = Instant::now();
    let spawned = command(job, config, stdin, false)
        .and_then(|mut cmd| cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn());
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            return Execution {
                finish: Finish::NotStarted(err.to_string()),
                stdout: Vec::new(),
                stderr: Vec::new(),
                elapsed: started.elapsed(),
            }
        }
    };
    let pid = i32::try_from(child.id()).ok();
    if let Some(pid) = pid {
        crate::procs::register(pid);
    }
    // A timeout too far to represent is no timeout.
    let deadline = started.checked_add(config.timeout);
    let (tx, rx) = mpsc::channel();
    let outputs = [Output::default(), Output::default()];
    let mut pending = 0;
    if let Some(out) = child.stdout.take() {
        read_in_background(out, Arc::clone(&outputs[0]), tx.clone());
        pending += 1;
    }
    if let Some(err) = child.stderr.take() {
        read_in_background(err, Arc::clone(&outputs[1]), tx);
        pending += 1;
    }
    let mut ended = None;
    while pending > 0 {
        let left = deadline.map_or(EXIT_CHECK, |d| d.saturating_duration_since(Instant::now()));
        match rx.recv_timeout(left.min(EXIT_CHECK)) {
            Ok(()) => pending -= 1,
            Err(_) if left.is_zero() => {
                ended = Some(Ended::TimedOut);
                break;
            }
            // The script may have exited while something it started in the
            // background still holds its output open: that is its answer.
            Err(_) => match has_exited(&child) {
                Ok(true) => {
                    ended = Some(Ended::Exited);
                    break;
                }
                Ok(false) => {}
                Err(err) => {
                    ended = Some(Ended::Unknown(err.to_string()));
                    break;
                }
            },
        }
    }
    let ended = ended.unwrap_or_else(|| wait_until(&child, deadline));
    let status = {
        // Under the reaping lock (crate::procs): nobody else reaps while it
        // is held, so the leader stays unreaped until `wait` below.
        let mut live = crate::procs::lock();
        // Whatever the script left behind in its group goes with it. The
        // leader has not been reaped yet, so the group id cannot have been
        // reused; when waiting failed, that is not known, and the group is
        // left alone.
        if !matches!(ended, Ended::Unknown(_)) {
            kill_group(&child);
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
    let grace = Instant::now() + PIPE_GRACE;
    while pending > 0 {
        match rx.recv_timeout(grace.saturating_duration_since(Instant::now())) {
            Ok(()) => pending -= 1,
            Err(_) => break,
        }
    }
    let [stdout, stderr] = outputs.map(|o| std::mem::take(&mut *lock_output(&o)));
    Execution {
        finish,
        stdout,
        stderr,
        elapsed: started.elapsed(),
    }
}

/// What a reader has read of one pipe so far.
type Output = Arc<Mutex<Vec<u8>>>;

fn lock_output(output: &Output) -> std::sync::MutexGuard<'_, Vec<u8>> {
    output
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reads a pipe to its end on a detached thread into `kept` (capped), and
/// says so on `done`.
fn read_in_background(mut pipe: impl Read + Send + 'static, kept: Output, done: mpsc::Sender<()>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let mut kept = lock_output(&kept);
                    let room = OUTPUT_CAP.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        let _ = done.send(());
    });
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
fn wait_until(child: &Child, deadline: Option<Instant>) -> Ended {
    loop {
        match has_exited(child) {
            Ok(true) => return Ended::Exited,
            Ok(false) if deadline.is_none_or(|d| Instant::now() < d) => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Ok(false) => return Ended::TimedOut,
            Err(err) => return Ended::Unknown(err.to_string()),
        }
    }
}

/// Whether `child` has exited, leaving it a zombie (`WNOWAIT`): until it is
/// reaped its pid, and so its process group id, cannot be given to another
/// process, which makes killing the group afterwards safe.
#[allow(unsafe_code)]
fn has_exited(child: &Child) -> std::io::Result<bool> {
    let pid = libc::id_t::from(child.id());
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

fn finish_of(status: std::process::ExitStatus) -> Finish {
    match (status.code(), status.signal()) {
        (Some(code), _) => Finish::Exited(code),
        (None, Some(signal)) => Finish::Signaled(signal),
        (None, None) => Finish::Exited(-1),
    }
}

/// SIGKILL to the child's whole process group (the child leads it). Call
/// it only while the child is known to be unreaped: running, or seen
/// exited by [`has_exited`] (which requires SIGCHLD not to be ignored; the
/// hook sets it to its default).
#[allow(unsafe_code)]
fn kill_group(child: &Child) {
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config(timeout_ms: u64) -> ExecConfig {
        ExecConfig {
            cwd: std::env::temp_dir(),
            timeout: Duration::from_millis(timeout_ms),
            max_parallel: 4,
        }
    }

    fn script(dir: &std::path::Path, name: &str, body: &str) -> Job {
        let file = dir.join(name);
        std::fs::write(&file, body).unwrap();
        Job {
            file,
            runner: Runner::Bash,
            env: vec![("AH_TEST".into(), "yes".into())],
            clear_env: false,
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
        let stdin = Stdin::new(b"{\"x\":1}").unwrap();
        let runs = run_all(&jobs, &config(5000), &stdin);
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
        let stdin = Stdin::new(b"{}").unwrap();
        let started = Instant::now();
        let run = &run_all(&[job], &config(10_000), &stdin)[0];
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
        let ended = wait_until(&child, Some(Instant::now() + Duration::from_secs(10)));
        assert!(matches!(ended, Ended::Exited), "{ended:?}");
        // Still a zombie: its pid, and so its group id, is not free for reuse.
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
        let state = stat.rsplit(')').next().unwrap().split_whitespace().next();
        assert_eq!(state, Some("Z"), "{stat}");
        kill_group(&child);
        assert_eq!(child.wait().unwrap().code(), Some(3));
    }

    #[test]
    fn a_timeout_beyond_any_instant_does_not_panic() {
        let dir = tempfile::tempdir().unwrap();
        let job = script(dir.path(), "quick.sh", "echo done");
        let stdin = Stdin::new(b"{}").unwrap();
        let mut config = config(0);
        config.timeout = Duration::MAX;
        let run = &run_all(&[job], &config, &stdin)[0];
        assert_eq!(run.finish, Finish::Exited(0));
    }

    #[test]
    fn a_missing_script_does_not_start() {
        let stdin = Stdin::new(b"{}").unwrap();
        let job = Job {
            file: "/nonexistent/hookdex/x".into(),
            runner: Runner::Direct,
            env: Vec::new(),
            clear_env: false,
        };
        assert!(matches!(
            run_all(&[job], &config(1000), &stdin)[0].finish,
            Finish::NotStarted(_)
        ));
    }
}
