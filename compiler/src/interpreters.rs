//! The interpreters rules run with, found in system locations at compile
//! time and never through `PATH`: a `bash` the agent puts first on `PATH`
//! (`~/.local/bin/bash`) must not stand in for the one a guard needs.
//!
//! A system location is a file that root owns and no one else can write,
//! in a directory chain with the same property (through every symlink, to
//! the file it names). The invoking user is not trusted beyond that: the
//! agent runs as that user, so whatever the user can write the agent can
//! replace. (A user who is root is trusted with root's files: nothing
//! else is left.)

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use hookdex_index::Stamp;
use hookdex_model::{Interpreters, Runner};

/// Where interpreters are looked for, in order (the last is NixOS's, which
/// has no `/usr/bin/bash`).
pub const SYSTEM_DIRS: [&str; 4] = [
    "/usr/local/bin",
    "/usr/bin",
    "/bin",
    "/run/current-system/sw/bin",
];

/// The interpreters found, with the stamps that make a change to them (an
/// upgrade, one installed later) recompile.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// The interpreter of each runner.
    pub paths: Interpreters,
    /// Each interpreter found, stamped; for one not found, every place
    /// it was looked for (absent or refused).
    pub stamps: Vec<(PathBuf, Stamp)>,
}

impl Found {
    /// The interpreter of `runner`, when it needs one and one was found.
    pub fn get(&self, runner: Runner) -> Option<&Path> {
        self.paths.get(runner).map(Path::new)
    }

    /// Why a rule of `runner` cannot run: it needs an interpreter and none
    /// was found in a system location.
    pub fn missing(&self, runner: Runner) -> Option<&'static str> {
        let program = runner.program()?;
        self.paths.get(runner).is_none().then_some(program)
    }
}

/// The interpreters in [`SYSTEM_DIRS`].
pub fn find() -> Found {
    find_in(&SYSTEM_DIRS.map(Path::new))
}

/// The first of `dirs` to hold each interpreter as a system file.
pub fn find_in(dirs: &[&Path]) -> Found {
    let mut found = Found::default();
    let mut one = |program: &str| -> Option<String> {
        for dir in dirs {
            let path = dir.join(program);
            if system_file(&path) {
                found.stamps.push((path.clone(), Stamp::of(&path)));
                return Some(path.display().to_string());
            }
        }
        found.stamps.extend(dirs.iter().map(|dir| {
            let path = dir.join(program);
            let stamp = Stamp::of(&path);
            (path, stamp)
        }));
        None
    };
    let paths = Interpreters {
        bash: one("bash"),
        python: one("python3"),
        sh: one("sh"),
    };
    found.paths = paths;
    found
}

/// Whether `path` is an executable file that only root can change: it,
/// the file it resolves to, and every directory above either are owned by
/// root and writable by no one else.
fn system_file(path: &Path) -> bool {
    let Ok(real) = std::fs::canonicalize(path) else {
        return false;
    };
    let Ok(meta) = std::fs::metadata(&real) else {
        return false;
    };
    if !meta.is_file() || meta.mode() & 0o111 == 0 {
        return false;
    }
    // The link itself lives in `path`'s directories; what it names, in
    // `real`'s.
    let link_dirs = path.parent().into_iter().flat_map(Path::ancestors);
    std::iter::once(real.as_path())
        .chain(real.ancestors().skip(1))
        .chain(link_dirs)
        .all(|p| std::fs::metadata(p).is_ok_and(|m| root_only(&m)))
}

/// Owned by root, and writable by no other user: no write bit for others,
/// and none for the group unless the group is root's.
fn root_only(meta: &std::fs::Metadata) -> bool {
    let mode = meta.mode();
    meta.uid() == 0 && mode & 0o002 == 0 && (mode & 0o020 == 0 || meta.gid() == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn system_interpreters_are_found_and_stamped() {
        let found = find();
        // Every machine that builds this has a root-owned bash and sh.
        let bash = found.get(Runner::Bash).expect("a system bash");
        assert!(SYSTEM_DIRS.iter().any(|d| bash.starts_with(d)), "{bash:?}");
        assert!(found.get(Runner::Shell).is_some());
        assert_eq!(found.get(Runner::Direct), None);
        assert_eq!(found.missing(Runner::Direct), None);
        assert!(found.stamps.iter().any(|(p, _)| p == bash));
    }

    #[test]
    fn what_another_user_can_write_is_no_system_location() {
        // A temporary directory sits in a world-writable one (`/tmp`) or
        // belongs to a user who is not root: nothing in it is a system file.
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::copy("/bin/sh", bin.join("sh")).unwrap();
        let found = find_in(&[bin.as_path()]);
        assert_eq!(found.missing(Runner::Shell), Some("sh"));
        assert_eq!(found.missing(Runner::Bash), Some("bash"));
        // Every place looked in is stamped, so an interpreter installed
        // there later is seen.
        assert!(found.stamps.iter().any(|(p, _)| *p == bin.join("sh")));
        assert!(found.stamps.iter().any(|(p, _)| *p == bin.join("bash")));
    }

    #[test]
    fn only_root_may_write() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        let root = std::fs::metadata(&file).unwrap().uid() == 0;
        let gid = std::fs::metadata(&file).unwrap().gid();
        for (mode, expected) in [
            (0o755, root),
            (0o757, false),
            (0o775, root && gid == 0),
            (0o700, root),
        ] {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            let meta = std::fs::metadata(&file).unwrap();
            assert_eq!(root_only(&meta), expected, "{mode:o}");
        }
    }
}
