//! How the guard starts a command on the real kernel: found on `PATH` as a
//! shell finds it, with the caller's signal mask (the start holds every
//! signal while the child shares the caller's memory), its exit status
//! passed back, and a program that is not there reported as not found.
//! Skips, saying why, where the kernel cannot supervise.

use hookdex_enforce::{Error, ExecCall, Guard, Judge, Verdict, WriteCall};

/// Lets everything run.
struct Open;

impl Judge for Open {
    fn exec(&self, _: &ExecCall<'_>) -> Verdict {
        Verdict::Continue
    }

    fn write(&self, _: &WriteCall<'_>) -> Verdict {
        Verdict::Continue
    }
}

#[test]
fn a_guarded_command_starts_as_a_shell_would_start_it() {
    if let Err(why) = hookdex_enforce::available() {
        eprintln!("skipped: enforcement unavailable here: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("status");
    let guard = Guard::builder().programs(["kubectl"]).build();
    // The caller blocks a signal and ignores SIGPIPE (as a harness may
    // start the wrapper); the command starts as std's `Command` starts
    // one: nothing blocked, SIGPIPE at its default.
    // SAFETY: valid sigsets and a plain disposition, in this test alone.
    unsafe {
        let mut usr2: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut usr2);
        libc::sigaddset(&mut usr2, libc::SIGUSR2);
        libc::pthread_sigmask(libc::SIG_BLOCK, &usr2, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // Programs without a slash: found on PATH. awk leaves its mask and
    // dispositions alone (a shell resets its own), so it reads what it
    // started with.
    let script = format!("/^Sig(Blk|Ign)/ {{ print > \"{}\" }}", out.display());
    let argv = ["awk", &script, "/proc/self/status"].map(String::from);
    assert_eq!(guard.run(&argv, &Open, &|_| {}).unwrap().code(), Some(0));
    let status = std::fs::read_to_string(&out).unwrap();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        u64::from_str_radix(line.rsplit('\t').next().unwrap(), 16).unwrap()
    };
    assert_eq!(field("SigBlk:"), 0, "{status}");
    let pipe = 1u64 << (libc::SIGPIPE - 1);
    assert_eq!(field("SigIgn:") & pipe, 0, "{status}");
    let argv = ["sh", "-c", "exit 7"].map(String::from);
    assert_eq!(guard.run(&argv, &Open, &|_| {}).unwrap().code(), Some(7));

    let missing = ["/nonexistent/hookdex-test-program"].map(String::from);
    match guard.run(&missing, &Open, &|_| {}) {
        Err(Error::Start(err)) => assert_eq!(err.kind(), std::io::ErrorKind::NotFound),
        other => panic!("{other:?}"),
    }
}
