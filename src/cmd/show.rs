//! `hookdex show NAME [--json]`: prints [`report::show`], the body of one
//! rule `hookdex list` shows, found by override key, file name (with or
//! without its extension), name part or path, optionally after `LAYER/`;
//! `--json` prints `{"file", "layer", "key", "body"}`.

use std::io::Write;

use hookdex_model::Target;
use hookdex_runtime::report;

use super::{context, current_settings, print_json, CmdResult};

/// Prints the file of the one rule `name` designates.
pub fn run(target: Target, name: &str, json: bool) -> CmdResult {
    let settings = current_settings(target);
    let shown = report::show(&context(&settings, None), name)?;
    if json {
        print_json(&shown);
    } else {
        let _ = std::io::stdout().write_all(&shown.body);
    }
    Ok(0)
}
