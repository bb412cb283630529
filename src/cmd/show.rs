//! `hookdex show NAME`: the body of one active rule, found by override key,
//! file name, or name part.

use hookdex_model::Target;
use hookdex_runtime::list::find;

use super::{current_settings, open, CmdResult};

/// Prints the file of the one active rule `name` designates.
pub fn run(target: Target, name: &str) -> CmdResult {
    let settings = current_settings(target);
    let (file, _) = open(&settings);
    let err = |e: hookdex_index::Error| e.to_string();
    let index = file.index().map_err(err)?;
    let found = find(&index, &settings, name).map_err(err)?;
    match found.as_slice() {
        [] => Err(format!(
            "no rule named `{name}` runs here (try `hookdex list`)"
        )),
        [rule] => {
            let body = std::fs::read(rule.file).map_err(|e| format!("{}: {e}", rule.file))?;
            use std::io::Write;
            let _ = std::io::stdout().write_all(&body);
            Ok(0)
        }
        many => Err(format!(
            "`{name}` names {} active rules: {}; give the key or file name",
            many.len(),
            many.iter().map(|r| r.key).collect::<Vec<_>>().join(", ")
        )),
    }
}
