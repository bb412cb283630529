//! Helpers the test suites of several workspace crates share, so each does not
//! carry its own copy: a scratch directory removed on drop ([`ScratchDir`]), a
//! stub program writer ([`write_executable`]) and whether bash runs here
//! ([`has_bash`]). A dev-dependency only, with no dependencies of its own, so a
//! crate without any (`hookdex-shell`) can use it. The root package's
//! `tests/common::Scratch` (a whole hookdex home) stays where it is.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fresh directory under the system's temp directory, removed with
/// everything in it when dropped.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Creates `hookdex-NAME-PID-THREAD` under the temp directory, emptied of
    /// anything an earlier run left there. The process and thread in the name
    /// keep parallel tests and test binaries apart.
    ///
    /// # Panics
    ///
    /// When the directory cannot be created.
    #[must_use]
    pub fn new(name: &str) -> ScratchDir {
        let path = std::env::temp_dir().join(format!(
            "hookdex-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create `{}`: {e}", path.display()));
        ScratchDir(path)
    }

    /// The directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to the file `rel` inside, creating its folders.
    ///
    /// # Panics
    ///
    /// When the file cannot be written.
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.0.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("cannot create `{}`: {e}", parent.display()));
        }
        std::fs::write(&path, text)
            .unwrap_or_else(|e| panic!("cannot write `{}`: {e}", path.display()));
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes a program at `path` with `body` (a `#!` script) and makes it
/// executable (mode 0755; only written where there are no modes).
///
/// # Panics
///
/// When the file cannot be written or its mode set.
pub fn write_executable(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap_or_else(|e| panic!("cannot write `{}`: {e}", path.display()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("cannot make `{}` executable: {e}", path.display()));
    }
}

/// Whether `bash -c true` runs and succeeds here (tests that need a real bash
/// say so and pass without one).
#[must_use]
pub fn has_bash() -> bool {
    Command::new("bash")
        .args(["-c", "true"])
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
