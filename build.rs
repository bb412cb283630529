//! Build script of the `hookdex` binary: the version `hookdex --version`
//! prints, `VERSION (COMMIT)` when built from a git checkout, the crate
//! version alone otherwise (a tarball, or no `git` on the build machine).
//! It is run again when HEAD moves: the checkout's `HEAD` file and the
//! branch it points to (loose or packed) are watched. It is run again when
//! `scripts/hot-symbols.txt` changes too: the release link reads that file
//! (`scripts/cargo-release-args.sh`), which cargo does not know of.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=scripts/hot-symbols.txt");
    let version = env!("CARGO_PKG_VERSION");
    let long = match git(&["rev-parse", "--short", "HEAD"]) {
        Some(commit) => {
            watch_head();
            format!("{version} ({commit})")
        }
        None => version.to_string(),
    };
    println!("cargo:rustc-env=HOOKDEX_VERSION={long}");
}

/// Asks git to rerun this script when the checked-out commit changes; a
/// worktree keeps `HEAD` in its own git dir and branches in the common one.
fn watch_head() {
    let (Some(dir), Some(common)) = (
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) else {
        return;
    };
    let mut watched = vec![PathBuf::from(&dir).join("HEAD")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(PathBuf::from(&common).join(branch));
    }
    watched.push(PathBuf::from(&common).join("packed-refs"));
    // A path that does not exist would rerun the script on every build.
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// The trimmed output of a successful `git ARGS` in the crate's directory
/// (cargo runs build scripts there).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
