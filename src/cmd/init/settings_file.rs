//! The settings files `init` edits: read one as a JSON object (members in
//! document order, via serde_json's `preserve_order`) or as a TOML document
//! (comments and layout kept, via `toml_edit`), and write it back atomically
//! only when its text changed.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// A JSON object file: where it is, the bytes it held, and its edited root.
pub struct Doc {
    /// The path as given (printed, and created when missing).
    pub path: PathBuf,
    /// The file's bytes when it was read; `None` when it did not exist.
    original: Option<Vec<u8>>,
    /// The object, edited in place by the caller.
    pub root: Map<String, Value>,
}

/// What [`Doc::save`] did.
pub enum Saved {
    /// The file was (re)written.
    Wrote,
    /// The file already held exactly this text.
    Unchanged,
}

impl Doc {
    /// Reads the JSON object at `path`; a missing or blank file is an empty
    /// object. Anything else that is not a JSON object is an error naming the file.
    pub fn load(path: PathBuf) -> Result<Doc, String> {
        let original = read(&path)?;
        let root = match original.as_deref() {
            // Parsed as any value, not as a map, so a non-object gets its own message.
            Some(bytes) if !bytes.trim_ascii().is_empty() => {
                match serde_json::from_slice::<Value>(bytes) {
                    Ok(Value::Object(root)) => root,
                    Ok(_) => return Err(format!("{}: not a JSON object", path.display())),
                    Err(err) => {
                        return Err(format!("{}: not valid JSON ({err})", path.display()));
                    }
                }
            }
            _ => Map::new(),
        };
        Ok(Doc {
            path,
            original,
            root,
        })
    }

    /// Writes the root as 2-space pretty JSON and a newline, unless the file
    /// already holds exactly that.
    pub fn save(&self) -> Result<Saved, String> {
        let mut text = serde_json::to_vec_pretty(&self.root)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        text.push(b'\n');
        save(&self.path, self.original.as_deref(), &text)
    }
}

/// A TOML file: where it is, the bytes it held, and its edited document.
pub struct TomlDoc {
    /// The path as given.
    pub path: PathBuf,
    original: Option<Vec<u8>>,
    /// The document, edited in place by the caller.
    pub doc: toml_edit::DocumentMut,
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
        })
    }

    /// Writes the document back unless the file already holds exactly it.
    pub fn save(&self) -> Result<Saved, String> {
        // toml_edit writes `\n`; a CRLF file keeps its CRLF.
        let mut text = self.doc.to_string();
        let crlf = self
            .original
            .as_deref()
            .is_some_and(|o| o.windows(2).any(|w| w == b"\r\n"));
        if crlf {
            text = text.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        save(&self.path, self.original.as_deref(), text.as_bytes())
    }
}

/// The bytes of the file at `path`; `None` when there is none.
fn read(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(format!("{}: {err}", path.display())),
    }
}

/// Writes `text` to `path` unless `original` (what it held) is the same.
fn save(path: &Path, original: Option<&[u8]>, text: &[u8]) -> Result<Saved, String> {
    if original == Some(text) {
        return Ok(Saved::Unchanged);
    }
    write_atomic(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Saved::Wrote)
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
