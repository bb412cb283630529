//! Opens the index for a view, recompiling in process when it is missing,
//! stale, truncated, corrupt or from another version, and writing the new
//! one atomically. This is the one place the runtime's read path meets the
//! compiler.

use hookdex_runtime::index::{Freshness, Index, IndexFile};
use hookdex_runtime::view::View;

/// How the index in hand came to be.
#[derive(Clone, Debug)]
pub enum IndexState {
    /// Mapped from disk; every recorded path stats the same.
    Fresh {
        /// Paths checked.
        checked: usize,
    },
    /// Recompiled in process and written to disk.
    Recompiled {
        /// Why the file on disk could not be used.
        why: String,
    },
    /// Recompiled in process but not written (the cache is not writable).
    InMemory {
        /// Why the file on disk could not be used.
        why: String,
        /// Why it could not be written.
        write_error: String,
    },
}

impl IndexState {
    /// Whether the file on disk was used as it was.
    pub fn is_fresh(&self) -> bool {
        matches!(self, IndexState::Fresh { .. })
    }

    /// One line for `explain`.
    pub fn describe(&self) -> String {
        match self {
            IndexState::Fresh { checked } => format!("fresh ({checked} paths checked)"),
            IndexState::Recompiled { why } => format!("recompiled ({why})"),
            IndexState::InMemory { why, write_error } => {
                format!("compiled in memory ({why}; not written: {write_error})")
            }
        }
    }
}

/// How much of an index on disk to verify before using it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Header and small sections now; other blocks as a lookup reads them
    /// (the hook path: cost does not grow with the index).
    Lazy,
    /// Every block now (commands that read the whole index).
    Full,
}

/// The index for `view`, from disk when fresh, else freshly compiled.
///
/// # Errors
///
/// Only when compiling fails; the caller fails open.
pub fn load(
    view: &View,
    verify: Verify,
) -> Result<(IndexFile, IndexState), hookdex_compiler::Error> {
    let path = view.index_path();
    let why = match IndexFile::open(&path) {
        Err(err) => err.to_string(),
        Ok(file) => match file.index().and_then(|index| check(&index, verify)) {
            Ok(Ok(checked)) => return Ok((file, IndexState::Fresh { checked })),
            Ok(Err(stale)) => stale,
            Err(err) => err.to_string(),
        },
    };
    recompile(view, why)
}

/// Runs `read` on the index for `view`, parsing it once: from disk when
/// fresh, else freshly compiled. When `read` finds the file on disk damaged
/// where it reads (lazy verification), the index is recompiled and `read`
/// runs again on the new one.
///
/// # Errors
///
/// A one-line reason when compiling fails or the fresh index cannot be read.
pub fn with_index<T>(
    view: &View,
    verify: Verify,
    read: impl Fn(&Index<'_>) -> Result<T, hookdex_runtime::Error>,
) -> Result<T, String> {
    let path = view.index_path();
    let why = match IndexFile::open(&path) {
        Err(err) => err.to_string(),
        Ok(file) => match file.index() {
            Err(err) => err.to_string(),
            Ok(index) => match check(&index, verify).map(|fresh| fresh.map(|_| read(&index))) {
                Ok(Ok(Ok(answer))) => return Ok(answer),
                Ok(Ok(Err(err))) | Err(err) => err.to_string(),
                Ok(Err(stale)) => stale,
            },
        },
    };
    let (file, _) = recompile(view, why).map_err(|e| format!("index: {e}"))?;
    let index = file.index().map_err(|e| e.to_string())?;
    read(&index).map_err(|e| e.to_string())
}

/// Verifies `index` as asked and stats its recorded paths: `Ok(paths
/// checked)` when fresh, `Err(what changed)` when stale.
fn check(
    index: &Index<'_>,
    verify: Verify,
) -> Result<Result<usize, String>, hookdex_runtime::Error> {
    if verify == Verify::Full {
        index.verify_all()?;
    }
    Ok(match index.freshness()? {
        Freshness::Fresh { checked } => Ok(checked),
        Freshness::Stale { path, was, now } => Err(format!(
            "{} changed: {} -> {}",
            path.display(),
            was.describe(),
            now.describe()
        )),
    })
}

/// Compiles `view` in process and writes the index atomically; `why` says
/// what was wrong with the one on disk.
///
/// # Errors
///
/// Only when compiling fails; the caller fails open.
pub fn recompile(
    view: &View,
    why: String,
) -> Result<(IndexFile, IndexState), hookdex_compiler::Error> {
    let path = view.index_path();
    let compiled = hookdex_compiler::compile(view)?;
    let state = match IndexFile::write_atomic(&path, &compiled.bytes) {
        Ok(()) => IndexState::Recompiled { why },
        Err(err) => IndexState::InMemory {
            why,
            write_error: err.to_string(),
        },
    };
    Ok((IndexFile::from_bytes(&path, &compiled.bytes), state))
}
