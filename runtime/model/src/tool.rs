//! A tool name after a harness's table normalized it: the one place that
//! knows what an MCP tool is.

use std::fmt;

/// A normalized tool name (`bash`, `edit`, `mcp__github__create_pr`, or, for
/// an event step, the value of the field its matcher reads).
///
/// ```
/// use hookdex_model::ToolName;
///
/// let tool = ToolName::new("mcp__github__create_pr");
/// assert!(tool.is_mcp());
/// assert_eq!(tool.server(), Some("github"));
/// assert_eq!(tool.mcp_prefixes().collect::<Vec<_>>(), ["mcp", "mcp__github"]);
/// assert!(!ToolName::new("bash").is_mcp());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ToolName(String);

impl ToolName {
    /// Wraps a name that is already normalized.
    pub fn new(name: impl Into<String>) -> ToolName {
        ToolName(name.into())
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the shell tool, whose command line `bash.<cli>` matchers read.
    pub fn is_bash(&self) -> bool {
        self.0 == "bash"
    }

    /// Whether this is an MCP tool: `mcp__<server>__<tool>`, a bare
    /// `mcp__<server>`, or `mcp` (Cursor's generic MCP tool, which names no server).
    pub fn is_mcp(&self) -> bool {
        self.0 == "mcp" || self.0.starts_with("mcp__")
    }

    /// The MCP server, when the name carries one.
    pub fn server(&self) -> Option<&str> {
        let rest = self.0.strip_prefix("mcp__")?;
        let server = rest.split_once("__").map_or(rest, |(server, _)| server);
        (!server.is_empty()).then_some(server)
    }

    /// The prefix alternatives this name falls under: `mcp` for every MCP
    /// tool, then `mcp__<server>` when it names a server.
    pub fn mcp_prefixes(&self) -> impl Iterator<Item = &str> {
        let mcp = self.is_mcp().then_some("mcp");
        let server = self.server().map(|s| &self.0[..5 + s.len()]);
        mcp.into_iter().chain(server)
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_names() {
        let cases: &[(&str, bool, Option<&str>, &[&str])] = &[
            ("bash", false, None, &[]),
            ("mcp", true, None, &["mcp"]),
            ("mcp__gh", true, Some("gh"), &["mcp", "mcp__gh"]),
            ("mcp__gh__pr", true, Some("gh"), &["mcp", "mcp__gh"]),
            ("mcp__", true, None, &["mcp"]),
            ("mcpx", false, None, &[]),
        ];
        for (name, mcp, server, prefixes) in cases {
            let tool = ToolName::new(*name);
            assert_eq!(tool.is_mcp(), *mcp, "{name}");
            assert_eq!(tool.server(), *server, "{name}");
            assert_eq!(tool.mcp_prefixes().collect::<Vec<_>>(), *prefixes, "{name}");
        }
    }
}
