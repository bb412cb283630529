//! The matcher grammar: `any`, a tool, `mcp`, `mcp__<server>`,
//! `mcp__<server>__<tool>`, `bash.<cli>`, and alternatives joined by `+`,
//! parsed into the model's [`Alternative`]s that the index stores.

use hookdex_model::Alternative;

/// Why a matcher does not parse: the alternative at fault and what is
/// wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MatcherError {
    alternative: String,
    kind: MatcherErrorKind,
}

/// What is wrong with a matcher's alternative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum MatcherErrorKind {
    /// It is empty (two `+` in a row, or one at an end).
    Empty,
    /// It has this character outside `[a-z0-9_.-]`.
    Character(char),
    /// `mcp__…` with no server.
    NoServer,
    /// `mcp__<server>__` with no tool.
    NoTool,
    /// `bash.` with no program.
    NoProgram,
}

impl std::fmt::Display for MatcherError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let part = &self.alternative;
        match self.kind {
            MatcherErrorKind::Empty => {
                f.write_str("matcher has an empty alternative (check the `+` signs)")
            }
            MatcherErrorKind::Character(bad) => write!(
                f,
                "matcher `{part}`: character `{bad}` not allowed (use a-z, 0-9, `_`, `.`, `-`)"
            ),
            MatcherErrorKind::NoServer => write!(f, "matcher `{part}` names no server"),
            MatcherErrorKind::NoTool => write!(f, "matcher `{part}` names no tool"),
            MatcherErrorKind::NoProgram => write!(f, "matcher `{part}` names no program"),
        }
    }
}

impl std::error::Error for MatcherError {}

/// Parses a matcher (the part of a filename between the first and the last `-`).
///
/// # Errors
///
/// When an alternative is empty, has characters outside `[a-z0-9_.-]`, or
/// names an empty MCP server, MCP tool or cli; the filename grammar reports
/// it as [`RuleErrorKind::Name`](crate::RuleErrorKind::Name).
pub(crate) fn parse(matcher: &str) -> Result<Vec<Alternative>, MatcherError> {
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

fn parse_alternative(part: &str) -> Result<Alternative, MatcherError> {
    let fail = |kind| MatcherError {
        alternative: part.to_string(),
        kind,
    };
    if part.is_empty() {
        return Err(fail(MatcherErrorKind::Empty));
    }
    if let Some(bad) = part
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '_' | '.' | '-'))
    {
        return Err(fail(MatcherErrorKind::Character(bad)));
    }
    if part == "any" {
        return Ok(Alternative::Any);
    }
    if part == "mcp" {
        return Ok(Alternative::Prefix(part.to_string()));
    }
    if let Some(rest) = part.strip_prefix("mcp__") {
        return match rest.split_once("__") {
            None if rest.is_empty() => Err(fail(MatcherErrorKind::NoServer)),
            None => Ok(Alternative::Prefix(part.to_string())),
            Some(("", _)) => Err(fail(MatcherErrorKind::NoServer)),
            Some((_, "")) => Err(fail(MatcherErrorKind::NoTool)),
            Some(_) => Ok(Alternative::Name(part.to_string())),
        };
    }
    if let Some(cli) = part.strip_prefix("bash.") {
        if cli.is_empty() {
            return Err(fail(MatcherErrorKind::NoProgram));
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
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
