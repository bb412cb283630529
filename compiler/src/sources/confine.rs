//! Keeping the compiler inside a layer. A layer folder must stay inside the
//! directory its configuration names, and a rule file inside its folder: a
//! symlink that leaves is found without opening its target, stamped itself
//! (`lstat`), and refused, so nothing outside a layer (`/proc`, a device, a
//! file that changes on every call) is read or decides freshness. A file is
//! read only when it is a regular file of bounded size, opened so that a
//! FIFO swapped in cannot block the compile.

use std::io::Read;
use std::path::{Path, PathBuf};

use hookdex_index::{Stamp, StampKind};

/// Where a path leads, relative to the directory it must stay in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Inside (itself, or through symlinks that stay inside), or a symlink
    /// to nothing at all: stamped through, so its target appearing is noticed.
    Inside,
    /// Through a symlink, somewhere else, or nowhere a path can name (a
    /// `/proc/self/fd/0`-like link): the target as far as it is known.
    Leaves(String),
}

/// Where `path` leads, relative to `within` (canonicalized here).
/// Resolving a link reads links and directory entries; it never opens the
/// target itself.
pub fn place(path: &Path, within: &Path) -> Place {
    match std::fs::canonicalize(path) {
        Ok(target) => {
            let within = std::fs::canonicalize(within).unwrap_or_else(|_| within.to_path_buf());
            if target.starts_with(&within) {
                Place::Inside
            } else {
                Place::Leaves(target.display().to_string())
            }
        }
        // Nothing stats there either: dangling, harmless, stamped absent.
        Err(_) if Stamp::of(path).kind == StampKind::Absent => Place::Inside,
        // It stats (a magic link of /proc) but names no path.
        Err(_) => Place::Leaves(
            std::fs::read_link(path).map_or_else(|_| "?".to_string(), |t| t.display().to_string()),
        ),
    }
}

/// A symlink on the way from a layer's root to its folder that leaves the
/// root: the link and where it leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaving {
    /// The link (a component of the folder's path).
    pub link: PathBuf,
    /// Where it leads.
    pub to: String,
}

/// The first symlink among the components of `dir` below `root` that leaves
/// `root`, if any. Links that stay inside are followed; a folder outside
/// `root` (not below it at all) is the configuration's own choice.
pub fn leaving_link(dir: &Path, root: &Path) -> Option<Leaving> {
    let rel = dir.strip_prefix(root).ok()?;
    let mut at = root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        let meta = std::fs::symlink_metadata(&at).ok()?;
        if !meta.is_symlink() {
            continue;
        }
        if let Place::Leaves(to) = place(&at, root) {
            return Some(Leaving { link: at, to });
        }
    }
    None
}

/// Reads `path` when it is a regular file of at most `limit` bytes. It is
/// opened without blocking (a FIFO or device put there reads as an error,
/// never a hang) and checked on the open descriptor, so a swap between a
/// check and the read cannot hand over something else.
///
/// # Errors
///
/// When it cannot be opened or read, is not a regular file, or is larger
/// than `limit` (the error's kind is `FileTooLarge`).
pub fn read_regular(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    read_regular_meta(path, limit).map(|(bytes, _)| bytes)
}

/// Like [`read_regular`], with the metadata of the file read, taken on its
/// descriptor before reading (one `fstat` for both).
///
/// # Errors
///
/// As [`read_regular`].
pub fn read_regular_meta(path: &Path, limit: u64) -> std::io::Result<(Vec<u8>, std::fs::Metadata)> {
    let (file, meta) = open_regular_meta(path)?;
    if meta.len() > limit {
        return Err(too_large(limit));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Bounded again while reading: the file may grow after the check.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok((bytes, meta))
}

/// Opens `path` for reading when it is a regular file, without blocking (a
/// FIFO or device put there is an error, never a hang), checked on the
/// open descriptor.
///
/// # Errors
///
/// When it cannot be opened or is not a regular file.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_meta(path).map(|(file, _)| file)
}

/// [`open_regular`], with the metadata it checked.
fn open_regular_meta(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok((file, meta))
}

fn too_large(limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!("larger than {limit} bytes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn places() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let folder = root.join("folder");
        std::fs::create_dir_all(folder.join("sub")).unwrap();
        std::fs::write(folder.join("sub/real.sh"), "").unwrap();
        std::fs::write(root.join("outside.sh"), "").unwrap();
        symlink("sub/real.sh", folder.join("in.sh")).unwrap();
        symlink("../outside.sh", folder.join("out.sh")).unwrap();
        symlink("missing.sh", folder.join("dangling.sh")).unwrap();
        symlink("/proc/self/status", folder.join("proc.sh")).unwrap();
        symlink("/proc/self/fd/0", folder.join("fd.sh")).unwrap();
        // (name, leaves)
        let cases = [
            ("sub/real.sh", false),
            ("in.sh", false),
            ("dangling.sh", false),
            ("out.sh", true),
            ("proc.sh", true),
            ("fd.sh", true),
        ];
        for (name, leaves) in cases {
            let got = place(&folder.join(name), &folder);
            assert_eq!(matches!(got, Place::Leaves(_)), leaves, "{name}: {got:?}");
        }
    }

    #[test]
    fn a_folder_reached_through_a_link_out_of_its_root_leaves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("repo");
        std::fs::create_dir_all(root.join("real/conditions")).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere/conditions")).unwrap();
        let folder = |name: &str| root.join(name).join("conditions");
        assert_eq!(leaving_link(&folder("real"), &root), None);
        assert_eq!(leaving_link(&folder("absent"), &root), None);
        symlink("real", root.join("inside")).unwrap();
        assert_eq!(leaving_link(&folder("inside"), &root), None);
        symlink(dir.path().join("elsewhere"), root.join("out")).unwrap();
        let leaving = leaving_link(&folder("out"), &root).unwrap();
        assert_eq!(leaving.link, root.join("out"));
        std::fs::create_dir_all(root.join("last")).unwrap();
        symlink("/proc/self", root.join("last/conditions")).unwrap();
        let leaving = leaving_link(&folder("last"), &root).unwrap();
        assert_eq!(leaving.link, folder("last"));
    }

    #[test]
    fn only_bounded_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "four").unwrap();
        assert_eq!(read_regular(&file, 4).unwrap(), b"four");
        let big = read_regular(&file, 3).unwrap_err();
        assert_eq!(big.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(read_regular(dir.path(), 10).is_err(), "a directory");
        assert!(
            read_regular(Path::new("/dev/zero"), 10).is_err(),
            "a device"
        );
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Opened without blocking, and refused: no writer needed.
            assert!(read_regular(&fifo, 10).is_err(), "a FIFO");
        } else {
            eprintln!("mkfifo unavailable: the FIFO case is skipped");
        }
    }
}
