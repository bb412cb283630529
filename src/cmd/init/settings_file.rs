//! The settings files `init` edits: read one as a JSON object (members in
//! document order, via serde_json's `preserve_order`) or as a TOML document
//! (comments and layout kept, via `toml_edit`), and write it back atomically
//! only when its text changed — or, for `init --remove`, remove a file left
//! with nothing in it (a symlink stays, and its target is emptied) — or
//! show the change as a unified diff (`--dry-run`). Only a regular file of
//! bounded size is read.

use std::path::{Path, PathBuf};

use hookdex_compiler::sources::confine;
use hookdex_harness::split_comment_header;
use serde_json::{Map, Value};

/// A JSON object file: where it is, the bytes it held, and its edited root.
pub struct Doc {
    /// The path as given (printed, and created when missing).
    pub path: PathBuf,
    /// The file's bytes when it was read; `None` when it did not exist.
    original: Option<Vec<u8>>,
    /// The `//` comment lines before the object (Copilot's `config.json`
    /// starts with some), written back as they were.
    header: String,
    /// The object, edited in place by the caller.
    pub root: Map<String, Value>,
    /// Whether an empty object means the file is to go (`init --remove`).
    pub gone_when_empty: bool,
}

/// What [`save`] did.
pub enum Saved {
    /// The file was (re)written.
    Wrote,
    /// The file already held exactly this text.
    Unchanged,
    /// The file was left with nothing in it, and removed.
    Removed,
}

/// A file `init` edited in memory: what it held and what it is to hold.
pub trait Edited {
    /// The path as given.
    fn path(&self) -> &Path;
    /// The file's bytes when it was read; `None` when it did not exist.
    fn original(&self) -> Option<&[u8]>;
    /// The bytes the file is to hold; `None` when it is to go.
    fn planned(&self) -> Result<Option<Vec<u8>>, String>;
    /// The text of the file with nothing in it, written instead of removing
    /// a symlink (the link is the person's, and stays).
    fn empty(&self) -> &'static [u8];
}

/// What [`save`] leaves at `file`'s path: [`Edited::planned`], except that
/// a symlink that would go keeps its link and its target the empty text.
fn outcome(file: &dyn Edited) -> Result<Option<Vec<u8>>, String> {
    let planned = file.planned()?;
    let linked = std::fs::symlink_metadata(file.path()).is_ok_and(|m| m.is_symlink());
    Ok(match (planned, file.original()) {
        (None, Some(_)) if linked => Some(file.empty().to_vec()),
        (planned, _) => planned,
    })
}

impl Edited for Doc {
    fn path(&self) -> &Path {
        &self.path
    }

    fn original(&self) -> Option<&[u8]> {
        self.original.as_deref()
    }

    /// The comment lines it began with, then the root as 2-space pretty
    /// JSON and a newline.
    fn planned(&self) -> Result<Option<Vec<u8>>, String> {
        if self.gone_when_empty && self.root.is_empty() {
            return Ok(None);
        }
        let mut text = self.header.clone().into_bytes();
        serde_json::to_writer_pretty(&mut text, &self.root)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        text.push(b'\n');
        Ok(Some(text))
    }

    fn empty(&self) -> &'static [u8] {
        b"{}\n"
    }
}

impl Edited for TomlDoc {
    fn path(&self) -> &Path {
        &self.path
    }

    fn original(&self) -> Option<&[u8]> {
        self.original.as_deref()
    }

    /// The document as `toml_edit` prints it, in the file's own line ends.
    fn planned(&self) -> Result<Option<Vec<u8>>, String> {
        let mut text = self.doc.to_string();
        if self.gone_when_empty && text.trim().is_empty() {
            return Ok(None);
        }
        // toml_edit writes `\n`; a CRLF file keeps its CRLF.
        let crlf = self
            .original
            .as_deref()
            .is_some_and(|o| o.windows(2).any(|w| w == b"\r\n"));
        if crlf {
            text = text.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        Ok(Some(text.into_bytes()))
    }

    fn empty(&self) -> &'static [u8] {
        b""
    }
}

/// Writes what `file` is to hold, unless it already holds exactly that;
/// removes it when it is to go (a symlink stays, its target emptied).
pub fn save(file: &dyn Edited) -> Result<Saved, String> {
    let path = file.path();
    match (file.original(), outcome(file)?) {
        (None, None) => Ok(Saved::Unchanged),
        (Some(_), None) => match std::fs::remove_file(path) {
            Ok(()) => Ok(Saved::Removed),
            Err(e) => Err(format!("{}: {e}", path.display())),
        },
        (original, Some(text)) if original == Some(text.as_slice()) => Ok(Saved::Unchanged),
        (_, Some(text)) => {
            write_atomic(path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(Saved::Wrote)
        }
    }
}

/// The change [`save`] would make to `file`, as a unified line diff
/// (`/dev/null` for a file created or removed); `None` when there is none.
pub fn diff(file: &dyn Edited) -> Result<Option<String>, String> {
    let planned = outcome(file)?;
    let original = file.original();
    if original == planned.as_deref() || original.is_none() && planned.is_none() {
        return Ok(None);
    }
    let name = file.path().display().to_string();
    let old = String::from_utf8_lossy(original.unwrap_or_default());
    let new = String::from_utf8_lossy(planned.as_deref().unwrap_or_default());
    let from = if original.is_some() {
        name.as_str()
    } else {
        "/dev/null"
    };
    let to = if planned.is_some() {
        name.as_str()
    } else {
        "/dev/null"
    };
    Ok(Some(
        similar::TextDiff::from_lines(&old, &new)
            .unified_diff()
            .header(from, to)
            .to_string(),
    ))
}

impl Doc {
    /// Reads the JSON object at `path`, after any `//` comment lines that
    /// open it; a missing or blank file is an empty object. Anything else
    /// that is not a JSON object is an error naming the file.
    pub fn load(path: PathBuf) -> Result<Doc, String> {
        let original = read(&path)?;
        let text = original.as_deref().map(String::from_utf8_lossy);
        let (header, json) = split_comment_header(text.as_deref().unwrap_or_default());
        let root = match original.as_deref() {
            // Only text that opens with comments is read past them; any
            // other file is parsed as its own bytes.
            Some(_) if !header.is_empty() => parse(&path, json.as_bytes())?,
            Some(bytes) => parse(&path, bytes)?,
            None => Map::new(),
        };
        Ok(Doc {
            header: header.to_string(),
            path,
            original,
            root,
            gone_when_empty: false,
        })
    }
}

/// The JSON object `bytes` of the file at `path`; blank is an empty one.
fn parse(path: &Path, bytes: &[u8]) -> Result<Map<String, Value>, String> {
    Ok(match bytes {
        // Parsed as any value, not as a map, so a non-object gets its own message.
        bytes if !bytes.trim_ascii().is_empty() => match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(root)) => root,
            Ok(_) => return Err(format!("{}: not a JSON object", path.display())),
            Err(err) => {
                return Err(format!("{}: not valid JSON ({err})", path.display()));
            }
        },
        _ => Map::new(),
    })
}

/// A TOML file: where it is, the bytes it held, and its edited document.
pub struct TomlDoc {
    /// The path as given.
    pub path: PathBuf,
    original: Option<Vec<u8>>,
    /// The document, edited in place by the caller.
    pub doc: toml_edit::DocumentMut,
    /// Whether an empty document means the file is to go (`init --remove`).
    pub gone_when_empty: bool,
}

impl TomlDoc {
    /// Reads the TOML document at `path`; a missing file is an empty one.
    pub fn load(path: PathBuf) -> Result<TomlDoc, String> {
        let original = read(&path)?;
        let text = std::str::from_utf8(original.as_deref().unwrap_or_default())
            .map_err(|e| format!("{}: not UTF-8 ({e}); left as it is", path.display()))?;
        let doc = text.parse().map_err(|e: toml_edit::TomlError| {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or("not valid TOML").to_string();
            format!("{}: {first}", path.display())
        })?;
        Ok(TomlDoc {
            path,
            original,
            doc,
            gone_when_empty: false,
        })
    }
}

/// The most a settings file `init` reads may hold.
const MAX_SETTINGS_BYTES: u64 = 16 << 20;

/// The bytes of the file at `path`; `None` when there is none. Only a
/// regular file of at most [`MAX_SETTINGS_BYTES`] is read: a FIFO or a
/// device put there is an error naming it, never a hang.
fn read(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match confine::read_regular(path, MAX_SETTINGS_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(format!("{}: {err}", path.display())),
    }
}

/// Replaces the file at `path` with `bytes` atomically, so a harness reading
/// it concurrently sees the old text or the new, never a part.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // Write through a symlink (dotfile managers link settings files) rather
    // than replacing the link with a plain file.
    let dest = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    // Keep the mode of a file that is there; a new one is readable like any
    // config. A person's file is flushed before it replaces the old one.
    hookdex_index::AtomicWrite::new()
        .keep_mode(0o644)
        .sync(true)
        .write(&dest, bytes)
}
