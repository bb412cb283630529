//! The index file on disk: mapping it, and writing it atomically.

use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapOptions};

use zerocopy::IntoBytes;

use crate::error::{Error, ErrorKind};
use crate::Index;

/// The effective user of this process: the owner an index file must have.
#[allow(unsafe_code)]
pub fn current_user() -> u32 {
    // SAFETY: geteuid(2) takes no arguments, touches no memory of ours and
    // cannot fail.
    unsafe { libc::geteuid() }
}

/// The bytes of one index, mapped from disk or held in memory.
pub struct IndexFile {
    path: PathBuf,
    backing: Backing,
}

enum Backing {
    Mapped(Mmap),
    /// `u64` storage keeps the bytes 8-aligned, as the embedded DFAs need.
    Owned(Vec<u64>, usize),
}

impl IndexFile {
    /// Maps the index file at `path`, which must be a regular file (opened
    /// without blocking and not through a symlink, so a FIFO or a link
    /// planted there cannot hang or redirect the hook), owned by `owner`
    /// and writable by no one else: an index someone else can write could
    /// say anything.
    ///
    /// # Errors
    ///
    /// When the file cannot be opened or mapped, or is refused.
    #[allow(unsafe_code)]
    pub fn open(path: &Path, owner: u32) -> Result<IndexFile, Error> {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        let fail = |e: std::io::Error| Error::from(e).with_path(path);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(path)
            .map_err(fail)?;
        let meta = file.metadata().map_err(fail)?;
        let refuse = |why: &str| Err(Error::new(ErrorKind::Refused(why.into())).with_path(path));
        if !meta.is_file() {
            return refuse("not a regular file");
        }
        if meta.uid() != owner {
            return refuse("owned by another user");
        }
        if meta.mode() & 0o022 != 0 {
            return refuse("writable by group or others");
        }
        // The length is the checked metadata's, so mapping costs no second fstat(2).
        let len = usize::try_from(meta.len())
            .map_err(|_| fail(std::io::Error::other("too large to map")))?;
        // SAFETY: mapping is unsafe because another process could change
        // the file while it is mapped. hookdex never writes an index in place:
        // `write_atomic` writes a new inode and renames it over the path, so
        // this mapping keeps the old inode's bytes. A process that rewrites
        // the file in place anyway (not hookdex) changes bytes under a
        // reader; what that can do is bounded by how they are read: records
        // are plain integers read through zerocopy (any bit pattern is a
        // value, and every reference is bounds-checked where used), strings
        // are UTF-8-checked on every read, and DFAs are copied out of the
        // mapping when validated (`dfa.rs`), so no search walks unvalidated
        // bytes. Truncating it in place raises SIGBUS on the lost pages,
        // which ends the process by a signal: a harness sees the hook fail,
        // never a decision it did not make.
        let map = unsafe { MmapOptions::new().len(len).map(&file) }.map_err(fail)?;
        // A call reads a few records: a fault maps the page it needs, not
        // the pages around it or a huge page (see `AtomicWrite::page_writes`).
        // Advice only; the mapping works the same without it.
        let _ = map.advise(memmap2::Advice::Random);
        let _ = map.advise(memmap2::Advice::NoHugePage);
        Ok(IndexFile {
            path: path.to_path_buf(),
            backing: Backing::Mapped(map),
        })
    }

    /// An index held in memory (just compiled, or not writable to disk).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> IndexFile {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            *word = u64::from_ne_bytes(buf);
        }
        IndexFile {
            path: path.to_path_buf(),
            backing: Backing::Owned(words, bytes.len()),
        }
    }

    /// Where the file lives (or would live).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.backing {
            Backing::Mapped(map) => map,
            Backing::Owned(words, len) => &words.as_bytes()[..*len],
        }
    }

    /// Parses the bytes as an index.
    ///
    /// # Errors
    ///
    /// See [`Index::parse`]; the error names this file.
    pub fn index(&self) -> Result<Index<'_>, Error> {
        Index::parse(self.bytes()).map_err(|e| e.with_path(&self.path))
    }

    /// Writes `bytes` to `path` through a temporary file in the same directory
    /// and a rename, so a concurrent reader sees the old file or the new one,
    /// never a part; the file gets permission bits `mode` (`0o600` for a
    /// user's cache, `0o644` for the managed index every user reads).
    ///
    /// # Errors
    ///
    /// When the directory cannot be created or the file written or renamed.
    pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), Error> {
        crate::AtomicWrite::new()
            .mode(mode)
            .page_writes(true)
            .write(path, bytes)
            .map_err(|e| Error::from(e).with_path(path))
    }
}
