//! `hookdex show NAME`: prints [`report::show`], the body of one active
//! rule, found by override key, file name, or name part.

use std::io::Write;

use hookdex_model::Target;
use hookdex_runtime::report;

use super::{context, current_settings, CmdResult};

/// Prints the file of the one active rule `name` designates.
pub fn run(target: Target, name: &str) -> CmdResult {
    let settings = current_settings(target);
    let body = report::show(&context(&settings, None), name)?;
    let _ = std::io::stdout().write_all(&body);
    Ok(0)
}
