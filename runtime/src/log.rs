//! The hook log: one JSON object per line in `$HOOKDEX_HOME/logs/hook.log`,
//! appended with a single `write` on an `O_APPEND` file so concurrent hook
//! processes never interleave within a line.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

/// Appends `entry` to `<home>/logs/hook.log`; a log that cannot be written
/// never stops the hook.
pub fn append(home: &Path, entry: &Value) {
    let dir = home.join("logs");
    let _ = std::fs::create_dir_all(&dir);
    let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("hook.log"))
    else {
        return;
    };
    let mut line = entry.to_string();
    line.push('\n');
    let _ = file.write_all(line.as_bytes());
}

/// Milliseconds since the epoch (0 if the clock is before it).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
