//! One rule file checked before it is written (`compile --check` reads
//! whole layers; the MCP server writes one file at a time): its name must
//! parse, a filter's or a guard's body must compile, a `hooks.yaml` or `HOOK.md` must
//! read, and a bash or Python script must parse. The check is the
//! compiler's own, so what it accepts the next compile accepts too.

use hookdex_model::{RuleKind, Runner};

use crate::error::{RuleError, RuleErrorKind};
use crate::formats::filename::{classify, FileClass};
use crate::formats::{enforcements, filter, guard, hook_md, hooks_yaml, syntax};

/// Checks the rule file `file_name` with `text` as its body.
///
/// # Errors
///
/// The first thing wrong with it, as `compile --check` would list it.
pub fn validate_file(file_name: &str, text: &str) -> Result<(), RuleError> {
    let scratch = tempfile::tempdir()
        .map_err(|e| RuleError::new(file_name, RuleErrorKind::Unreadable(e.to_string())))?;
    let path = scratch.path().join(file_name);
    std::fs::write(&path, text)
        .map_err(|e| RuleError::new(file_name, RuleErrorKind::Unreadable(e.to_string())))?;
    let first = |mut errors: Vec<RuleError>| match errors.is_empty() {
        true => Ok(()),
        false => {
            let mut error = errors.remove(0);
            error.file = file_name.to_string();
            Err(error)
        }
    };
    if file_name == enforcements::FILE {
        return first(enforcements::scan(&path, scratch.path()).invalid);
    }
    if file_name == hooks_yaml::FILE {
        return first(hooks_yaml::scan(&path, scratch.path()).invalid);
    }
    if file_name == hook_md::FILE {
        let folder = scratch.path().join("hook");
        std::fs::create_dir_all(&folder)
            .and_then(|_| std::fs::rename(&path, folder.join(hook_md::FILE)))
            .map_err(|e| RuleError::new(file_name, RuleErrorKind::Unreadable(e.to_string())))?;
        return first(hook_md::scan(scratch.path(), scratch.path(), 0).invalid);
    }
    let name = match classify(file_name) {
        FileClass::Rule(name) => name,
        FileClass::Invalid(kind) => return Err(RuleError::new(file_name, kind)),
        FileClass::Ignored | FileClass::OutFilters | FileClass::Cases => return Ok(()),
    };
    let compiled = match name.kind {
        RuleKind::Filter => Some(filter::compile(text).map(|_| ())),
        RuleKind::Guard => Some(guard::compile(&name, text).map(|_| ())),
        _ => None,
    };
    if let Some(compiled) = compiled {
        return compiled.map_err(|(kind, span)| RuleError::new(file_name, kind).at(span));
    }
    let runner = match name.ext.as_str() {
        "sh" | "bash" => Runner::Bash,
        "py" => Runner::Python,
        _ => return Ok(()),
    };
    let script = syntax::Script {
        path: path.clone(),
        runner,
    };
    let cache = scratch.path().join("syntax.json");
    let found = crate::interpreters::find();
    if let Some(program) = found.missing(runner) {
        let program = program.to_string();
        return Err(RuleError::new(
            file_name,
            RuleErrorKind::NoInterpreter { program },
        ));
    }
    match syntax::check(std::slice::from_ref(&script), &found, &cache)
        .remove(0)
        .error
    {
        Some(error) => Err(RuleError::new(file_name, RuleErrorKind::Syntax(error))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_checked_by_their_format() {
        assert!(validate_file("pre-bash-x.sh", "#!/bin/bash\nexit 0\n").is_ok());
        let err = validate_file("pre-bash-x.sh", "if then fi (\n").unwrap_err();
        assert!(matches!(err.kind, RuleErrorKind::Syntax(_)), "{err}");
        let err = validate_file("pre-x.sh", "exit 0").unwrap_err();
        assert!(err.to_string().contains("pre-x.sh"), "{err}");
        assert!(validate_file("pre-edit-ui.filter.yaml", "mode: classifier\n").is_ok());
        let err = validate_file("pre-edit-ui.filter.yaml", "mode: sometimes\n").unwrap_err();
        assert!(
            err.to_string().contains("unknown variant `sometimes`"),
            "{err}"
        );
        assert!(validate_file("hooks.yaml", "hooks:\n  Nope: []\n").is_err());
        assert!(validate_file("enforcements.json", r#"[{"id": "a", "message": "m"}]"#).is_ok());
        assert!(validate_file(
            "enforcements.json",
            r#"[{"id": "a", "message": "m", "cadence": 0}]"#
        )
        .is_err());
        assert!(validate_file(
            "HOOK.md",
            "+++\nname = \"x\"\nevents = [\"BeforeToolCall\"]\ncommand = \"true\"\n+++\n"
        )
        .is_ok());
    }
}
