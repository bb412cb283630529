//! The matcher grammar: `any`, a tool, `mcp`, `mcp__<server>`,
//! `mcp__<server>__<tool>`, `bash.<cli>`, and alternatives joined by `+`,
//! parsed into the model's [`Alternative`]s that the index stores.

use hookdex_model::Alternative;

/// Parses a matcher (the part of a filename between the first and the last `-`).
///
/// # Errors
///
/// A one-line reason when an alternative is empty, has characters outside
/// `[a-z0-9_.-]`, or names an empty MCP server, MCP tool or cli; the
/// filename grammar reports it as [`RuleErrorKind::Name`](crate::RuleErrorKind::Name).
pub(crate) fn parse(matcher: &str) -> Result<Vec<Alternative>, String> {
    let lower = matcher.to_ascii_lowercase();
    let mut alternatives = Vec::new();
    for part in lower.split('+') {
        let alternative = parse_alternative(part)?;
        if !alternatives.contains(&alternative) {
            alternatives.push(alternative);
        }
    }
    Ok(alternatives)
}

fn parse_alternative(part: &str) -> Result<Alternative, String> {
    if part.is_empty() {
        return Err("matcher has an empty alternative (check the `+` signs)".to_string());
    }
    if let Some(bad) = part
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '_' | '.' | '-'))
    {
        return Err(format!(
            "matcher `{part}`: character `{bad}` not allowed (use a-z, 0-9, `_`, `.`, `-`)"
        ));
    }
    if part == "any" {
        return Ok(Alternative::Any);
    }
    if part == "mcp" {
        return Ok(Alternative::Prefix(part.to_string()));
    }
    if let Some(rest) = part.strip_prefix("mcp__") {
        return match rest.split_once("__") {
            None if rest.is_empty() => Err("matcher `mcp__` names no server".to_string()),
            None => Ok(Alternative::Prefix(part.to_string())),
            Some(("", _)) => Err(format!("matcher `{part}` names no server")),
            Some((_, "")) => Err(format!("matcher `{part}` names no tool")),
            Some(_) => Ok(Alternative::Name(part.to_string())),
        };
    }
    if let Some(cli) = part.strip_prefix("bash.") {
        if cli.is_empty() {
            return Err("matcher `bash.` names no program".to_string());
        }
        return Ok(Alternative::Program(cli.to_string()));
    }
    Ok(Alternative::Name(part.to_string()))
}

#[cfg(test)]
mod tests {
    use super::Alternative::*;
    use super::*;

    fn name(s: &str) -> Alternative {
        Name(s.to_string())
    }

    #[test]
    fn grammar() {
        let ok: &[(&str, &[Alternative])] = &[
            ("any", &[Any]),
            ("bash", &[name("bash")]),
            ("Bash", &[name("bash")]),
            ("edit+write", &[name("edit"), name("write")]),
            ("edit+edit", &[name("edit")]),
            ("mcp", &[Prefix("mcp".into())]),
            ("mcp__github", &[Prefix("mcp__github".into())]),
            ("mcp__gateway-tools", &[Prefix("mcp__gateway-tools".into())]),
            ("mcp__github__create_pr", &[name("mcp__github__create_pr")]),
            (
                "mcp__gateway-tools__github-create_pull_request",
                &[name("mcp__gateway-tools__github-create_pull_request")],
            ),
            ("bash.git", &[Program("git".into())]),
            (
                "bash.git+bash.gh",
                &[Program("git".into()), Program("gh".into())],
            ),
            ("bash.docker-compose", &[Program("docker-compose".into())]),
            ("bash.python3.11", &[Program("python3.11".into())]),
            ("startup", &[name("startup")]),
        ];
        for (text, want) in ok {
            assert_eq!(parse(text).as_deref(), Ok(*want), "{text}");
        }
        let bad: &[(&str, &str)] = &[
            ("", "empty alternative"),
            ("edit+", "empty alternative"),
            ("+edit", "empty alternative"),
            ("mcp__", "names no server"),
            ("mcp____t", "names no server"),
            ("mcp__s__", "names no tool"),
            ("bash.", "names no program"),
            ("bash*", "character `*`"),
            ("edit write", "character ` `"),
            ("écrire", "character `é`"),
        ];
        for (text, want) in bad {
            let err = parse(text).unwrap_err();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
