//! Reading a process stopped in a system call: strings and pointer arrays
//! from its memory (`process_vm_readv`), its working directory and what its
//! descriptors name (`/proc`). Every read is bounded; what is read is only
//! believed once the notification is checked still pending
//! ([`crate::listener::Listener::valid`]).

use std::io;
use std::path::{Component, Path, PathBuf};

/// The longest path read (the kernel's `PATH_MAX`).
pub const MAX_PATH: usize = 4096;
/// The most arguments read of one exec.
pub const MAX_ARGS: usize = 4096;
/// The most bytes of arguments read of one exec, all together.
pub const MAX_ARG_BYTES: usize = 1 << 20;

/// A process's memory and `/proc` entries.
#[derive(Clone, Copy, Debug)]
pub struct Tracee {
    /// Its id.
    pub pid: u32,
}

impl Tracee {
    /// Reads `buf.len()` bytes at `addr` (fewer where the mapping ends).
    fn read(&self, addr: u64, buf: &mut [u8]) -> io::Result<usize> {
        let local = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let remote = libc::iovec {
            iov_base: addr as usize as *mut libc::c_void,
            iov_len: buf.len(),
        };
        // SAFETY: `local` covers `buf`, which we own mutably; the remote
        // address is only read by the kernel, in the other process.
        let n = unsafe { libc::process_vm_readv(self.pid as i32, &local, 1, &remote, 1, 0) };
        match n {
            n if n < 0 => Err(io::Error::last_os_error()),
            n => Ok(n as usize),
        }
    }

    /// Exactly `len` bytes at `addr`.
    pub fn bytes(&self, addr: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        match self.read(addr, &mut buf)? == len {
            true => Ok(buf),
            false => Err(io::Error::from_raw_os_error(libc::EFAULT)),
        }
    }

    /// The NUL-terminated string at `addr`, at most `limit` bytes.
    pub fn string(&self, addr: u64, limit: usize) -> io::Result<Vec<u8>> {
        if addr == 0 {
            return Err(io::Error::from_raw_os_error(libc::EFAULT));
        }
        let mut out = Vec::new();
        let mut at = addr;
        // Page by page: a string may end right before an unmapped page.
        while out.len() < limit {
            let to_page_end = 4096 - (at % 4096) as usize;
            let mut chunk = vec![0u8; to_page_end.min(limit - out.len())];
            let n = self.read(at, &mut chunk)?;
            if n == 0 {
                return Err(io::Error::from_raw_os_error(libc::EFAULT));
            }
            if let Some(end) = chunk[..n].iter().position(|&b| b == 0) {
                out.extend_from_slice(&chunk[..end]);
                return Ok(out);
            }
            out.extend_from_slice(&chunk[..n]);
            at += n as u64;
        }
        Err(io::Error::from_raw_os_error(libc::ENAMETOOLONG))
    }

    /// The NULL-terminated array of string pointers at `addr` (an `argv`),
    /// within [`MAX_ARGS`] and [`MAX_ARG_BYTES`]; what is past them is left
    /// out.
    pub fn strings(&self, addr: u64) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        if addr == 0 {
            return Ok(out);
        }
        let mut bytes = 0;
        for i in 0..MAX_ARGS {
            let mut pointer = [0u8; 8];
            self.read(addr + 8 * i as u64, &mut pointer)?;
            let pointer = u64::from_ne_bytes(pointer);
            if pointer == 0 {
                break;
            }
            let arg = self.string(pointer, MAX_ARG_BYTES - bytes)?;
            bytes += arg.len() + 1;
            out.push(String::from_utf8_lossy(&arg).into_owned());
            if bytes >= MAX_ARG_BYTES {
                break;
            }
        }
        Ok(out)
    }

    /// A path argument at `addr`.
    pub fn path(&self, addr: u64) -> io::Result<PathBuf> {
        use std::os::unix::ffi::OsStringExt;
        let bytes = self.string(addr, MAX_PATH)?;
        Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }

    /// `/proc/<pid>/<entry>`: opens and resolves through the process's own
    /// view (its working directory, its descriptors).
    pub fn proc(&self, entry: &str) -> PathBuf {
        PathBuf::from(format!("/proc/{}/{entry}", self.pid))
    }

    /// The process's working directory.
    pub fn cwd(&self) -> io::Result<PathBuf> {
        std::fs::read_link(self.proc("cwd"))
    }

    /// The directory a `*at` call resolves against: the working directory
    /// for `AT_FDCWD`, else what descriptor `dirfd` names, as a `/proc`
    /// path the kernel resolves for us.
    pub fn dir_of(&self, dirfd: u64) -> PathBuf {
        match dirfd as i32 {
            libc::AT_FDCWD => self.proc("cwd"),
            fd => self.proc(&format!("fd/{fd}")),
        }
    }

    /// A path this process can open that leads where `path`, taken from
    /// `dir` ([`Tracee::dir_of`]), leads for the tracee. Links are followed
    /// here, one part at a time, so those that mean "the process that looks"
    /// (`/proc/self`, `/proc/thread-self`, and `/dev/fd`, `/dev/stdin`
    /// through them) name the tracee, not this process; the `/proc/<pid>/`
    /// links to open files (`fd/N`, `cwd`, `root`, `exe`) are kept as they
    /// are, since opening them reaches the very file the tracee holds.
    pub fn resolve(&self, dir: &Path, path: &Path) -> PathBuf {
        let start = match (path.is_absolute(), path.as_os_str().is_empty()) {
            (true, _) => PathBuf::from("/"),
            (false, true) => return dir.to_path_buf(),
            (false, false) => match std::fs::read_link(dir) {
                Ok(real) if real.is_absolute() => real,
                _ => return dir.join(path),
            },
        };
        let mut current = start;
        let mut parts: std::collections::VecDeque<std::ffi::OsString> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_os_string()),
                Component::ParentDir => Some("..".into()),
                _ => None,
            })
            .collect();
        let mut links = 0;
        while let Some(part) = parts.pop_front() {
            if part == ".." {
                current.pop();
                continue;
            }
            let next = current.join(&part);
            if next == Path::new("/proc/self") {
                current = PathBuf::from(format!("/proc/{}", self.pid));
                continue;
            }
            if next == Path::new("/proc/thread-self") {
                current = self.proc(&format!("task/{}", self.pid));
                continue;
            }
            if is_magic(&next) {
                let mut kept = next;
                kept.extend(parts);
                return kept;
            }
            match std::fs::symlink_metadata(&next) {
                Ok(meta) if meta.file_type().is_symlink() && links < 40 => {
                    links += 1;
                    let Ok(target) = std::fs::read_link(&next) else {
                        return next;
                    };
                    if target.is_absolute() {
                        current = PathBuf::from("/");
                    }
                    let words = target.components().filter_map(|c| match c {
                        Component::Normal(n) => Some(n.to_os_string()),
                        Component::ParentDir => Some("..".into()),
                        _ => None,
                    });
                    for (at, word) in words.enumerate() {
                        parts.insert(at, word);
                    }
                }
                _ => current = next,
            }
        }
        current
    }
}

/// Whether `path` is one of a process's `/proc` links to an open file
/// (`/proc/<n>/fd/<m>`, `/proc/<n>/cwd`, `/proc/<n>/root`, `/proc/<n>/exe`,
/// or under `task/<t>/`), which only the kernel can follow.
fn is_magic(path: &Path) -> bool {
    let words: Vec<&std::ffi::OsStr> = path.iter().collect();
    let digits = |w: &std::ffi::OsStr| {
        w.to_str()
            .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
    };
    let rest = match words.as_slice() {
        [root, proc, pid, task, tid, rest @ ..] if *task == "task" && digits(tid) => {
            (*root == "/" && *proc == "proc" && digits(pid)).then_some(rest)
        }
        [root, proc, pid, rest @ ..] => {
            (*root == "/" && *proc == "proc" && digits(pid)).then_some(rest)
        }
        _ => None,
    };
    match rest {
        Some([link]) => ["cwd", "root", "exe"].iter().any(|m| link == m),
        Some([fd, n]) => *fd == "fd" && digits(n),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_that_mean_the_looking_process_name_the_tracee() {
        let me = Tracee {
            pid: std::process::id(),
        };
        let other = Tracee { pid: 1 };
        let cwd = me.proc("cwd");
        assert_eq!(
            other.resolve(&cwd, Path::new("/proc/self/fd/3")),
            Path::new("/proc/1/fd/3")
        );
        assert_eq!(
            other.resolve(&cwd, Path::new("/dev/fd/3")),
            Path::new("/proc/1/fd/3")
        );
        assert_eq!(
            other.resolve(&cwd, Path::new("/dev/stdin")),
            Path::new("/proc/1/fd/0")
        );
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::os::unix::fs::symlink("real", root.join("alias")).unwrap();
        std::os::unix::fs::symlink("/proc/self/fd/7", root.join("fd7")).unwrap();
        assert_eq!(
            other.resolve(&root, Path::new(&root.join("alias/x"))),
            root.join("real/x")
        );
        assert_eq!(
            other.resolve(&root, Path::new(&root.join("fd7"))),
            Path::new("/proc/1/fd/7")
        );
        assert_eq!(
            other.resolve(&root, Path::new(&root.join("alias/../real/./y"))),
            root.join("real/y")
        );
    }
}
