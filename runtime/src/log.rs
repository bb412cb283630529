//! The hook log: one JSON object per line in `$HOOKDEX_HOME/logs/hook.log`,
//! appended with a single `write` on an `O_APPEND` file so concurrent hook
//! processes never interleave within a line. It is created `0600` (its lines
//! name commands and paths), opened non-blocking and only when it is a
//! regular file (a FIFO planted there cannot hang the hook), and bounded: a
//! line is at most [`MAX_LINE`] bytes, and past [`MAX_LOG`] bytes the log is
//! renamed to `hook.log.1` (replacing the one before) and started afresh.

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use serde_json::Value;

/// The longest line written; a longer entry keeps its fields but has its
/// notes cut.
pub const MAX_LINE: usize = 16 << 10;

/// The size past which the log is rotated.
pub const MAX_LOG: u64 = 8 << 20;

/// Appends `entry` to `<home>/logs/hook.log`; a log that cannot be written
/// never stops the hook.
pub fn append(home: &Path, entry: &Value) {
    let dir = home.join("logs");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("hook.log");
    let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(&path)
    else {
        return;
    };
    let Ok(meta) = file.metadata() else { return };
    if !meta.file_type().is_file() || meta.file_type().is_fifo() {
        return;
    }
    if meta.len() > MAX_LOG {
        // Whoever renames first rotates; the others append to the new file
        // on their next call, or to the renamed one now (it is still theirs).
        let _ = std::fs::rename(&path, dir.join("hook.log.1"));
    }
    let mut line = bounded(entry).to_string();
    line.push('\n');
    let _ = file.write_all(line.as_bytes());
}

/// `entry` with its notes cut so the line stays within [`MAX_LINE`].
fn bounded(entry: &Value) -> Value {
    if entry.to_string().len() <= MAX_LINE {
        return entry.clone();
    }
    let mut entry = entry.clone();
    if let Some(notes) = entry.get_mut("notes").and_then(Value::as_array_mut) {
        let share = MAX_LINE / (notes.len() + 2);
        for note in notes.iter_mut() {
            if let Some(text) = note.as_str() {
                *note = Value::String(hookdex_model::text::cut(text, share));
            }
        }
    }
    entry
}

/// Milliseconds since the epoch (0 if the clock is before it).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_private_bounded_and_never_a_fifo() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let huge = "x".repeat(MAX_LINE * 4);
        append(dir.path(), &serde_json::json!({"notes": [huge, "short"]}));
        let path = dir.path().join("logs/hook.log");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() <= MAX_LINE + 1, "{}", text.len());
        assert!(text.contains("short"));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A FIFO in its place is left alone, at once.
        std::fs::remove_file(&path).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        append(dir.path(), &serde_json::json!({"notes": ["after"]}));
        assert!(std::fs::metadata(&path).unwrap().file_type().is_fifo());
    }
}
