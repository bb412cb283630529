//! `hookdex show NAME`: the body of one active rule, found by override key,
//! file name, or name part.

use std::process::ExitCode;

use hookdex_runtime::tool::Target;

use super::{current_view, open, parse, CmdResult};

/// Prints the file of the one active rule `name` designates.
pub fn run(target: Target, name: &str) -> CmdResult {
    let view = current_view(target);
    let (file, _) = open(&view)?;
    let index = parse(&file)?;
    let wanted = name.to_ascii_lowercase();
    let mut found = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let rule = index.rule(id).map_err(|e| e.to_string())?;
        let matches = rule.key == wanted
            || rule.file_name().eq_ignore_ascii_case(name)
            || rule.name.eq_ignore_ascii_case(name)
            || rule.file == name;
        if rule.overridden_by.is_none() && matches {
            found.push(rule);
        }
    }
    match found.as_slice() {
        [] => Err(format!(
            "no active rule named `{name}` (try `hookdex list`)"
        )),
        [rule] => {
            let body = std::fs::read(rule.file).map_err(|e| format!("{}: {e}", rule.file))?;
            use std::io::Write;
            let _ = std::io::stdout().write_all(&body);
            Ok(ExitCode::SUCCESS)
        }
        many => Err(format!(
            "`{name}` names {} active rules: {}; give the key or file name",
            many.len(),
            many.iter().map(|r| r.key).collect::<Vec<_>>().join(", ")
        )),
    }
}
