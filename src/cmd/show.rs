//! `hookdex show NAME`: the body of one active rule, found by override key,
//! file name, or name part.

use hookdex_runtime::rule::LayerKind;
use hookdex_runtime::tool::Target;

use super::{current_view, open, parse, CmdResult};

/// Prints the file of the one active rule `name` designates.
pub fn run(target: Target, name: &str) -> CmdResult {
    let view = current_view(target);
    let (file, _) = open(&view)?;
    let index = parse(&file)?;
    let trust = index.meta().map_err(|e| e.to_string())?.trust();
    let wanted = name.to_ascii_lowercase();
    let mut found = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let rule = index.rule(id).map_err(|e| e.to_string())?;
        let matches = rule.key == wanted
            || rule.file_name().eq_ignore_ascii_case(name)
            || rule.name.eq_ignore_ascii_case(name)
            || rule.file == name;
        let layer = index
            .layer(usize::from(rule.layer))
            .map_err(|e| e.to_string())?;
        let runs =
            rule.is_active(&trust) && (layer.kind != LayerKind::Directory || trust.is_trusted());
        if runs && matches {
            found.push(rule);
        }
    }
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
