//! The package layer: the files of `rules/` embedded at build time, and their
//! materialization under the cache directory so conditions can be executed.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/package_files.rs"));

/// The package files directly inside `dir` (a path under `rules/` ending in `/`).
pub fn files_in(dir: &str) -> impl Iterator<Item = (&'static str, &'static [u8], bool)> + '_ {
    PACKAGE_FILES.iter().copied().filter(move |(path, _, _)| {
        path.strip_prefix(dir)
            .is_some_and(|rest| !rest.contains('/'))
    })
}

/// Whether the package ships a profile called `name`.
pub fn has_profile(name: &str) -> bool {
    let prefix = format!("profiles/{name}/");
    PACKAGE_FILES
        .iter()
        .any(|(path, _, _)| path.starts_with(&prefix))
}

/// The directory package files are materialized in for this binary version
/// and these package rules.
pub fn materialized_root(cache_dir: &Path) -> PathBuf {
    cache_dir.join(format!(
        "package-{}-{PACKAGE_HASH:016x}",
        env!("CARGO_PKG_VERSION")
    ))
}

/// Writes `contents` to `root/rel` unless an identical file is there; written
/// through a temporary file and a rename, executable when `exec` is set.
pub fn materialize(
    root: &Path,
    rel: &str,
    contents: &[u8],
    exec: bool,
) -> std::io::Result<PathBuf> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dest = root.join(rel);
    if std::fs::read(&dest).is_ok_and(|have| have == contents) {
        return Ok(dest);
    }
    let dir = dest.parent().unwrap_or(root);
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".pkg-").tempfile_in(dir)?;
    tmp.write_all(contents)?;
    let mode = if exec { 0o755 } else { 0o644 };
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    tmp.persist(&dest).map_err(|e| e.error)?;
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_hash_follows_every_file_it_embeds() {
        // Recomputed here from the embedded table: a package rule edited,
        // added, removed or made executable changes the hash, and with it
        // the index key and the materialized root.
        let mut digest = Vec::new();
        for (path, contents, exec) in PACKAGE_FILES {
            let parts: [&[u8]; 3] = [path.as_bytes(), contents, &[u8::from(*exec)]];
            for part in parts {
                digest.extend((part.len() as u64).to_le_bytes());
                digest.extend_from_slice(part);
            }
        }
        assert!(!PACKAGE_FILES.is_empty());
        assert_eq!(PACKAGE_HASH, xxhash_rust::xxh3::xxh3_64(&digest));
        let root = materialized_root(Path::new("/c"));
        assert!(
            root.to_string_lossy()
                .ends_with(&format!("{PACKAGE_HASH:016x}")),
            "{}",
            root.display()
        );
    }
}
