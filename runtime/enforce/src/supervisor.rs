//! The supervisor loop: receives each notification, reads what the stopped
//! process asked for, and answers. An exec of a program no rule names, a
//! PATH search's try of a file that is not there, and a write (judged by
//! the paths it names) are answered on the loop's own thread; a guarded
//! exec is judged on a thread of its own, since its rules run, so a slow
//! rule holds only the process that asked. Nothing read is acted on before
//! the notification is checked still pending.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::listener::{Listener, Next, Notification};
use crate::program::Identities;
use crate::tracee::Tracee;
use crate::write::{normalize, Target, WriteCall, WriteKind};
use crate::{ExecCall, Judge, Verdict};

/// What examining a notification found.
enum Examined {
    /// The answer, found without the judge, or by its quick write check.
    Answer(Verdict),
    /// An exec of a guarded program: the judge runs its rules.
    Exec(PendingExec),
}

/// An exec of a guarded program, read, waiting for the judge.
struct PendingExec {
    pid: u32,
    path: PathBuf,
    argv: Vec<String>,
    cwd: PathBuf,
    views: Vec<crate::program::View>,
}

impl PendingExec {
    fn call(&self) -> ExecCall<'_> {
        ExecCall {
            pid: self.pid,
            path: &self.path,
            argv: &self.argv,
            cwd: &self.cwd,
            views: &self.views,
        }
    }
}

/// How long one wait for a notification lasts before the stop flag is
/// looked at again.
const TICK: Duration = Duration::from_millis(50);

/// What the loop shares with the threads it starts.
pub struct Supervisor<'j> {
    pub listener: Arc<Listener>,
    pub identities: Arc<Identities>,
    pub judge: &'j dyn Judge,
    /// Where denial lines go.
    pub report: &'j (dyn Fn(&str) + Sync),
}

impl Supervisor<'_> {
    /// Answers notifications until no process is left under the filter
    /// (`true`) or `stop` is set (checked between waits; `false`).
    pub fn run(&self, stop: &AtomicBool) -> bool {
        std::thread::scope(|scope| loop {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            let call = match self.listener.next(TICK) {
                Ok(Next::Call(call)) => call,
                Ok(Next::Idle) => continue,
                Ok(Next::Done) | Err(_) => return true,
            };
            match self.examine(&call) {
                Examined::Answer(verdict) => self.answer(&call, verdict),
                // Only running rules takes long: that, on a thread of its
                // own, so it holds only the process that asked.
                Examined::Exec(exec) => {
                    scope.spawn(move || {
                        let verdict = self.judge.exec(&exec.call());
                        self.answer(&call, verdict);
                    });
                }
            }
        })
    }

    fn answer(&self, call: &Notification, verdict: Verdict) {
        match verdict {
            Verdict::Continue => self.listener.allow(call.id),
            Verdict::Deny { message } => {
                // Told only when the process is still there to be refused.
                if self.listener.valid(call.id) {
                    (self.report)(&message);
                }
                self.listener.fail(call.id, libc::EACCES);
            }
        }
    }

    /// What a notification asks, read on the loop's thread: an answer, or
    /// an exec of a guarded program for the judge.
    fn examine(&self, call: &Notification) -> Examined {
        let tracee = Tracee { pid: call.pid };
        match is_exec(call.nr) {
            true => self.examine_exec(&tracee, call),
            false => Examined::Answer(self.judge_write(&tracee, call)),
        }
    }

    fn examine_exec(&self, tracee: &Tracee, call: &Notification) -> Examined {
        let Some((dir, path)) = exec_path(tracee, call) else {
            return Examined::Answer(self.unjudged(call, "exec path not read"));
        };
        let file = tracee.resolve(&dir, &path);
        if std::fs::metadata(&file).is_err() {
            // The kernel fails it too (a PATH search's miss).
            return Examined::Answer(Verdict::Continue);
        }
        if self.identities.is_empty() {
            return Examined::Answer(Verdict::Continue);
        }
        let argv_at = match call.nr as i64 {
            libc::SYS_execveat => call.args[2],
            _ => call.args[1],
        };
        let read = tracee
            .strings(argv_at)
            .and_then(|argv| Ok((argv, tracee.cwd()?)));
        let (argv, cwd) = match read {
            Ok(read) => read,
            Err(err) => {
                return Examined::Answer(self.unjudged(call, &format!("exec not read: {err}")))
            }
        };
        let cwd_link = tracee.proc("cwd");
        let open = |p: &std::path::Path| tracee.resolve(&cwd_link, p);
        let views = self.identities.views(&file, &path, &argv, &open);
        if views.is_empty() || !self.listener.valid(call.id) {
            return Examined::Answer(Verdict::Continue);
        }
        let path = std::fs::canonicalize(&file).unwrap_or(file);
        Examined::Exec(PendingExec {
            pid: call.pid,
            path,
            argv,
            cwd,
            views,
        })
    }

    fn unjudged(&self, call: &Notification, why: &str) -> Verdict {
        match self.listener.valid(call.id) {
            true => self.judge.unjudged(why),
            false => Verdict::Continue,
        }
    }

    fn judge_write(&self, tracee: &Tracee, call: &Notification) -> Verdict {
        let decoded = match decode_write(tracee, call) {
            Ok(decoded) => decoded,
            Err(err) => return self.unjudged(call, &format!("write not read: {err}")),
        };
        let Some((name, kind, named)) = decoded else {
            return Verdict::Continue;
        };
        let paths: Vec<Target> = named.iter().map(|n| n.resolve(tracee)).collect();
        if !self.listener.valid(call.id) {
            return Verdict::Continue;
        }
        self.judge.write(&WriteCall {
            pid: call.pid,
            call: name,
            kind,
            paths: &paths,
        })
    }
}

fn is_exec(nr: i32) -> bool {
    matches!(nr as i64, libc::SYS_execve | libc::SYS_execveat)
}

/// The directory an exec's path is relative to and the path as given
/// (empty for `fexecve`, which runs what the descriptor holds).
fn exec_path(tracee: &Tracee, call: &Notification) -> Option<(PathBuf, PathBuf)> {
    match call.nr as i64 {
        libc::SYS_execveat => {
            let path = tracee.path(call.args[1]).ok()?;
            Some((tracee.dir_of(call.args[0]), path))
        }
        _ => Some((tracee.proc("cwd"), tracee.path(call.args[0]).ok()?)),
    }
}

/// A path argument of a writing call, before resolution.
#[derive(Debug)]
struct Named {
    /// The directory a relative path starts from (a `/proc` link).
    dir: PathBuf,
    /// The path as the process gave it.
    path: PathBuf,
    /// Whether the call follows a link in the last part.
    follows: bool,
}

impl Named {
    /// Where the path leads for `tracee`.
    fn resolve(&self, tracee: &Tracee) -> Target {
        let base = std::fs::read_link(&self.dir).unwrap_or_else(|_| self.dir.clone());
        let lexical = normalize(&base.join(&self.path));
        let opened = |path: PathBuf| std::fs::canonicalize(&path).unwrap_or(path);
        let real = match (self.follows, self.path.parent(), self.path.file_name()) {
            (false, Some(parent), Some(name)) => {
                opened(tracee.resolve(&self.dir, parent)).join(name)
            }
            _ => opened(tracee.resolve(&self.dir, &self.path)),
        };
        Target {
            lexical,
            real: Some(real),
        }
    }
}

/// What a writing call is, the way the gate judges it: its name, its kind
/// and the paths it names; `None` when it writes nothing after all
/// (`openat2` without a writing flag).
type Decoded = Option<(&'static str, WriteKind, Vec<Named>)>;

fn decode_write(tracee: &Tracee, call: &Notification) -> std::io::Result<Decoded> {
    let a = call.args;
    let cwd = || tracee.proc("cwd");
    let at = |dirfd: u64| tracee.dir_of(dirfd);
    let path = |addr: u64| tracee.path(addr);
    let named = |dir: PathBuf, addr: u64, follows: bool| -> std::io::Result<Named> {
        // A NULL path (`utimensat(fd, NULL, …)`) names the descriptor itself.
        let path = match addr {
            0 => PathBuf::new(),
            addr => path(addr)?,
        };
        Ok(Named { dir, path, follows })
    };
    let open_file = |fd: u64| Named {
        dir: tracee.dir_of(fd),
        path: PathBuf::new(),
        follows: true,
    };
    let no_follow = |flags: u64, bit: i32| flags as i32 & bit == 0;
    let (w, m) = (WriteKind::Write, WriteKind::Move);
    let nofollow = libc::AT_SYMLINK_NOFOLLOW;
    let found = match call.nr as i64 {
        libc::SYS_openat => (
            "openat",
            w,
            vec![named(at(a[0]), a[1], no_follow(a[2], libc::O_NOFOLLOW))?],
        ),
        libc::SYS_openat2 => {
            let flags = open_how_flags(tracee, a[2])?;
            let writes = [libc::O_WRONLY, libc::O_RDWR, libc::O_CREAT, libc::O_TRUNC]
                .iter()
                .any(|&f| flags as i32 & f != 0);
            if !writes {
                return Ok(None);
            }
            (
                "openat2",
                w,
                vec![named(at(a[0]), a[1], no_follow(flags, libc::O_NOFOLLOW))?],
            )
        }
        libc::SYS_renameat | libc::SYS_renameat2 => (
            "rename",
            m,
            vec![named(at(a[0]), a[1], false)?, named(at(a[2]), a[3], false)?],
        ),
        libc::SYS_unlinkat => ("unlink", m, vec![named(at(a[0]), a[1], false)?]),
        libc::SYS_mkdirat => ("mkdir", w, vec![named(at(a[0]), a[1], false)?]),
        libc::SYS_mknodat => ("mknod", w, vec![named(at(a[0]), a[1], false)?]),
        libc::SYS_linkat => (
            "link",
            m,
            vec![
                named(at(a[0]), a[1], a[4] as i32 & libc::AT_SYMLINK_FOLLOW != 0)?,
                named(at(a[2]), a[3], false)?,
            ],
        ),
        libc::SYS_symlinkat => ("symlink", w, vec![named(at(a[1]), a[2], false)?]),
        libc::SYS_fchmodat => ("chmod", w, vec![named(at(a[0]), a[1], true)?]),
        452 => (
            "chmod",
            w,
            vec![named(at(a[0]), a[1], no_follow(a[3], nofollow))?],
        ),
        libc::SYS_fchownat => (
            "chown",
            w,
            vec![named(at(a[0]), a[1], no_follow(a[4], nofollow))?],
        ),
        libc::SYS_truncate => ("truncate", w, vec![named(cwd(), a[0], true)?]),
        libc::SYS_setxattr | libc::SYS_removexattr => {
            ("setxattr", w, vec![named(cwd(), a[0], true)?])
        }
        libc::SYS_lsetxattr | libc::SYS_lremovexattr => {
            ("setxattr", w, vec![named(cwd(), a[0], false)?])
        }
        libc::SYS_fchmod => ("fchmod", w, vec![open_file(a[0])]),
        libc::SYS_fchown => ("fchown", w, vec![open_file(a[0])]),
        libc::SYS_fsetxattr | libc::SYS_fremovexattr => ("fsetxattr", w, vec![open_file(a[0])]),
        libc::SYS_ioctl => ("ioctl", w, vec![open_file(a[0])]),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_futimesat => ("utimes", w, vec![named(at(a[0]), a[1], true)?]),
        libc::SYS_utimensat => (
            "utimensat",
            w,
            vec![named(at(a[0]), a[1], no_follow(a[3], nofollow))?],
        ),
        #[cfg(target_arch = "x86_64")]
        other => match decode_legacy(other, a, &cwd, &named)? {
            Some(found) => found,
            None => return Ok(refused(other)),
        },
        #[cfg(not(target_arch = "x86_64"))]
        other => return Ok(refused(other)),
    };
    Ok(Some(found))
}

/// The calls that reach files around any path check (`io_uring`, mounts,
/// file handles): refused whole while the gate is on.
fn refused(nr: i64) -> Decoded {
    let name = match nr {
        libc::SYS_io_uring_setup => "io_uring_setup",
        libc::SYS_open_by_handle_at => "open_by_handle_at",
        _ => "mount",
    };
    Some((name, WriteKind::Unchecked, Vec::new()))
}

#[cfg(target_arch = "x86_64")]
type Found = (&'static str, WriteKind, Vec<Named>);

/// The x86_64 calls that name paths without a directory descriptor.
#[cfg(target_arch = "x86_64")]
fn decode_legacy(
    nr: i64,
    a: [u64; 6],
    cwd: &dyn Fn() -> PathBuf,
    named: &dyn Fn(PathBuf, u64, bool) -> std::io::Result<Named>,
) -> std::io::Result<Option<Found>> {
    let (w, m) = (WriteKind::Write, WriteKind::Move);
    let one = |addr: u64, follows: bool| -> std::io::Result<Vec<Named>> {
        Ok(vec![named(cwd(), addr, follows)?])
    };
    let two = |x: u64, y: u64| -> std::io::Result<Vec<Named>> {
        Ok(vec![named(cwd(), x, false)?, named(cwd(), y, false)?])
    };
    Ok(Some(match nr {
        libc::SYS_open => ("open", w, one(a[0], a[1] as i32 & libc::O_NOFOLLOW == 0)?),
        libc::SYS_creat => ("creat", w, one(a[0], true)?),
        libc::SYS_rename => ("rename", m, two(a[0], a[1])?),
        libc::SYS_unlink => ("unlink", m, one(a[0], false)?),
        libc::SYS_rmdir => ("rmdir", m, one(a[0], false)?),
        libc::SYS_mkdir => ("mkdir", w, one(a[0], false)?),
        libc::SYS_mknod => ("mknod", w, one(a[0], false)?),
        libc::SYS_link => ("link", m, two(a[0], a[1])?),
        libc::SYS_symlink => ("symlink", w, one(a[1], false)?),
        libc::SYS_chmod => ("chmod", w, one(a[0], true)?),
        libc::SYS_chown => ("chown", w, one(a[0], true)?),
        libc::SYS_lchown => ("chown", w, one(a[0], false)?),
        libc::SYS_utime | libc::SYS_utimes => ("utimes", w, one(a[0], true)?),
        _ => return Ok(None),
    }))
}

/// The first field of an `open_how` (its flags).
fn open_how_flags(tracee: &Tracee, addr: u64) -> std::io::Result<u64> {
    let bytes = tracee.bytes(addr, 8)?;
    Ok(u64::from_ne_bytes(bytes.try_into().expect("8 bytes")))
}
