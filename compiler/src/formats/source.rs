//! Reading one rule source file that is not a conditions folder's (an
//! output-filter file, `hooks.yaml`, `HOOK.md`, `enforcements.json`):
//! stamped, confined to its root, bounded in size, UTF-8. A leaf the
//! formats share, so no format reaches back into `formats/mod.rs` for it.

use std::path::{Path, PathBuf};

use hookdex_index::{Stamp, StampKind};

use crate::error::{RuleError, RuleErrorKind};
use crate::sources::confine::{self, Place};

/// The largest rule file whose contents are read (a filter's YAML); a
/// larger one is refused, so a huge file costs a compile one `fstat`.
pub const MAX_RULE_BYTES: u64 = 1 << 20;

/// The text of a source file that is not a conditions folder's (an
/// output-filter file, `enforcements.json`): stamped whatever it is, so
/// its creation or removal recompiles; read only when it is a regular
/// file of at most [`MAX_RULE_BYTES`] that
/// does not leave `root`, as UTF-8. What is wrong goes to `invalid`;
/// `None` when there is nothing to read.
pub(crate) fn read_source(
    path: &Path,
    root: &Path,
    stamps: &mut Vec<(PathBuf, Stamp)>,
    invalid: &mut Vec<RuleError>,
) -> Option<String> {
    let shown = path.display().to_string();
    if let Place::Leaves(to) = confine::place(path, root) {
        stamps.push((path.to_path_buf(), Stamp::of_link(path)));
        invalid.push(RuleError::new(shown, RuleErrorKind::LinkLeaves { to }));
        return None;
    }
    let stamp = Stamp::of(path);
    stamps.push((path.to_path_buf(), stamp));
    let refused = match stamp.kind {
        StampKind::Absent => return None,
        StampKind::File => None,
        StampKind::Dir => Some(RuleErrorKind::Directory),
        _ => Some(RuleErrorKind::Special),
    };
    if let Some(kind) = refused {
        invalid.push(RuleError::new(shown, kind));
        return None;
    }
    match read_text(path) {
        Ok(text) => Some(text),
        Err(kind) => {
            invalid.push(RuleError::new(shown, kind));
            None
        }
    }
}

/// The text of the rule file at `path` as a compile reads it: a regular
/// file of at most [`MAX_RULE_BYTES`] (never a FIFO's hang), as UTF-8.
///
/// # Errors
///
/// Why it could not be read: too large, unreadable, or not UTF-8.
pub fn read_text(path: &Path) -> Result<String, RuleErrorKind> {
    let limit = MAX_RULE_BYTES;
    let bytes = confine::read_regular(path, limit).map_err(|err| match err.kind() {
        std::io::ErrorKind::FileTooLarge => RuleErrorKind::TooLarge { limit },
        _ => RuleErrorKind::Unreadable(err.to_string()),
    })?;
    String::from_utf8(bytes).map_err(|_| RuleErrorKind::NotUtf8)
}
