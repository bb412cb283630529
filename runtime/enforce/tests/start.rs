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
    // Programs without a slash: found on PATH. awk leaves its mask alone
    // (a shell resets its own), so it reads the mask it started with.
    let script = format!("/^SigBlk/ {{ print > \"{}\" }}", out.display());
    let argv = ["awk", &script, "/proc/self/status"].map(String::from);
    assert_eq!(guard.run(&argv, &Open, &|_| {}).unwrap().code(), Some(0));
    let blocked = std::fs::read_to_string(&out).unwrap();
    assert_eq!(blocked.trim(), "SigBlk:\t0000000000000000", "{blocked}");
    let argv = ["sh", "-c", "exit 7"].map(String::from);
    assert_eq!(guard.run(&argv, &Open, &|_| {}).unwrap().code(), Some(7));

    let missing = ["/nonexistent/hookdex-test-program"].map(String::from);
    match guard.run(&missing, &Open, &|_| {}) {
        Err(Error::Start(err)) => assert_eq!(err.kind(), std::io::ErrorKind::NotFound),
        other => panic!("{other:?}"),
    }
}
