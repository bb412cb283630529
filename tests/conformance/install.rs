//! The harness clients, installed from the npm registry at pinned versions
//! into a cache kept across runs (`$HOOKDEX_CONFORMANCE_CACHE`, else
//! `$XDG_CACHE_HOME/hookdex-conformance`, else `~/.cache/hookdex-conformance`).
//! An install goes to a temporary directory first and is renamed into
//! place, so a broken or concurrent install never leaves half a client.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a harness cannot be tried here.
pub enum Unavailable {
    /// Outside our control (no registry): the test skips, saying why.
    Skip(String),
    /// Something `.ci/run` should have provided (node, npm): a failure in CI.
    Missing(String),
}

/// One npm package at one version.
pub struct Package {
    /// `@scope/name`.
    pub name: &'static str,
    /// The version proven; `HOOKDEX_CONFORMANCE_<HARNESS>` overrides it.
    pub version: String,
    /// The executable under `node_modules/.bin/`.
    pub bin: &'static str,
}

fn cache_dir() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("HOOKDEX_CONFORMANCE_CACHE") {
        return PathBuf::from(dir);
    }
    var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("hookdex-conformance")
}

/// The major version of `node` on PATH.
fn node_major() -> Option<u32> {
    let out = Command::new("node").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .trim_start_matches('v')
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// The client's executable, installed if the cache does not have it.
pub fn ensure(package: &Package) -> Result<PathBuf, Unavailable> {
    match node_major() {
        None => {
            return Err(Unavailable::Missing(
                "node is not installed (node >= 20 and npm are needed)".into(),
            ))
        }
        // `.ci/run` takes node 22 from the npm registry when the system's is
        // older; without the registry there is none to be had.
        Some(major) if major < 20 => {
            return Err(Unavailable::Skip(format!(
                "node {major} is older than 20, which the harnesses need"
            )))
        }
        Some(_) => {}
    }
    let slug = format!("{}@{}", package.name.replace('/', "+"), package.version);
    let root = cache_dir();
    let dir = root.join(&slug);
    let bin = dir.join("node_modules/.bin").join(package.bin);
    if bin.exists() {
        return Ok(bin);
    }
    let npm = Command::new("npm").arg("--version").output();
    if !npm.is_ok_and(|o| o.status.success()) {
        return Err(Unavailable::Missing("npm is not installed".into()));
    }
    std::fs::create_dir_all(&root)
        .map_err(|e| Unavailable::Missing(format!("{}: {e}", root.display())))?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{slug}-"))
        .tempdir_in(&root)
        .map_err(|e| Unavailable::Missing(format!("{}: {e}", root.display())))?;
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(staging.path())
        .arg(format!("{}@{}", package.name, package.version))
        .output()
        .map_err(|e| Unavailable::Missing(format!("npm: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(Unavailable::Skip(format!(
            "npm install {}@{} failed (is the npm registry reachable?): {last}",
            package.name, package.version
        )));
    }
    let staged = staging.keep();
    // Another run may have won the race; its copy is as good as ours.
    if std::fs::rename(&staged, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    if bin.exists() {
        Ok(bin)
    } else {
        Err(Unavailable::Missing(format!(
            "{} installed but {} is missing",
            package.name,
            bin.display()
        )))
    }
}
