//! The kernel side of enforcement (SPEC §15), mechanism only: a command is
//! started under a seccomp filter that hands every `execve`/`execveat` (and,
//! while the write gate is on, every system call that writes a path) of it
//! and all its descendants to this process as a user notification; the
//! supervisor reads what the stopped process asked for, identifies the
//! program the kernel would run ([`program`]) or the paths it would write
//! ([`mod@write`]), asks a [`Judge`] and answers the kernel: continue, or fail
//! the call with `EACCES`.
//!
//! What runs and what may be written is not decided here: the engine
//! implements [`Judge`] over the index and the rule sources.
//!
//! ```no_run
//! use hookdex_enforce::{Guard, Judge, ExecCall, WriteCall, Verdict};
//!
//! struct DenyKubectlDelete;
//! impl Judge for DenyKubectlDelete {
//!     fn exec(&self, call: &ExecCall<'_>) -> Verdict {
//!         match call.views.iter().any(|v| v.argv.get(1).is_some_and(|a| a == "delete")) {
//!             true => Verdict::deny("hookdex: kubectl-readonly: delete is not allowed"),
//!             false => Verdict::Continue,
//!         }
//!     }
//!     fn write(&self, _: &WriteCall<'_>) -> Verdict {
//!         Verdict::Continue
//!     }
//! }
//!
//! let guard = Guard::builder().programs(["kubectl"]).build();
//! let argv = ["bash", "-c", "c=kubectl; $c delete pod x"].map(String::from);
//! let status = guard.run(&argv, &DenyKubectlDelete, &|_pid| {}).unwrap();
//! # let _ = status;
//! ```
//!
//! Why `seccompiler` and not the `libseccomp` bindings: the filter is a
//! handful of system calls, `seccompiler` (rust-vmm's, Firecracker's) builds
//! it in pure Rust, and `libseccomp` would bring its C library into a binary
//! that is linked statically and runs on every tool call. The user
//! notification ioctls it lacks are three calls through `libc`
//! (`listener`).
#![deny(missing_docs)]

#[cfg(target_os = "linux")]
mod filter;
#[cfg(target_os = "linux")]
mod listener;
mod listing;
pub mod program;
#[cfg(target_os = "linux")]
mod spawn;
#[cfg(target_os = "linux")]
mod supervisor;
#[cfg(target_os = "linux")]
mod tracee;
pub mod write;

mod guard;
mod probe;
mod reap;

pub use guard::{Error, Guard, GuardBuilder, Ran};
pub use probe::{available, landlock, Unavailable};
pub use reap::reap;

#[cfg(target_os = "linux")]
pub use filter::{filter_program, Watch};
pub use program::{Identities, View};
pub use write::{WriteCall, WriteKind};

use std::path::Path;

/// What the supervisor answers for one system call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The kernel carries the call out as asked.
    Continue,
    /// The call fails with `EACCES`; `message` is written as one line to
    /// the supervisor's standard error (the command's, in the harness).
    Deny {
        /// The line, without its newline.
        message: String,
    },
}

impl Verdict {
    /// A denial with `message`.
    pub fn deny(message: impl Into<String>) -> Verdict {
        Verdict::Deny {
            message: message.into(),
        }
    }
}

/// One `execve`/`execveat` a supervised process asked for.
#[derive(Debug)]
pub struct ExecCall<'a> {
    /// The process that asked.
    pub pid: u32,
    /// The file the kernel will run, absolute, as far as it could be resolved.
    pub path: &'a Path,
    /// The arguments it passes (`argv[0]` as the caller chose it).
    pub argv: &'a [String],
    /// The process's working directory.
    pub cwd: &'a Path,
    /// The guarded programs this exec runs, each as a rule would see its
    /// command line ([`View`]); never empty when the judge is asked.
    pub views: &'a [View],
}

/// Decides what the supervised command may do. Implemented by the engine
/// over the index; called from the supervisor's threads, so it is `Sync`.
pub trait Judge: Sync {
    /// Whether an exec of a guarded program may go on. Called only for an
    /// exec that runs a program [`Identities`] knows.
    fn exec(&self, call: &ExecCall<'_>) -> Verdict;

    /// Whether a write may go on; called only while the write gate is on.
    fn write(&self, call: &WriteCall<'_>) -> Verdict;

    /// What to answer when a guarded exec could not be read or judged
    /// (the process vanished mid-read, its memory could not be read): by
    /// default it goes on (fail open); a judge that holds managed rules
    /// denies.
    fn unjudged(&self, _why: &str) -> Verdict {
        Verdict::Continue
    }
}
