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

/// The synthetic tools: choke points that are not agent tools (the ledger
/// server's writes, `agentihooks msg send`, the judge) and check text with
/// filters under a tool name of their own (`hookdex filter check --tool`).
pub const SYNTHETIC_TOOLS: [&str; 3] = ["ledger_write", "inbox_send", "judge"];

impl ToolName {
    /// Whether this is one of the [`SYNTHETIC_TOOLS`].
    pub fn is_synthetic(&self) -> bool {
        SYNTHETIC_TOOLS.contains(&self.0.as_str())
    }

    /// Wraps a name that is already normalized.
    pub fn new(name: impl Into<String>) -> ToolName {
        ToolName(name.into())
    }

    /// The MCP tool `tool` of `server`: `mcp__<server>__<tool>`, lowercased
    /// as matchers are; `mcp__<server>` when the tool is unknown (empty).
    ///
    /// ```
    /// use hookdex_model::ToolName;
    ///
    /// assert_eq!(ToolName::mcp("GitHub", "create_issue").as_str(), "mcp__github__create_issue");
    /// assert_eq!(ToolName::mcp("srv", "").as_str(), "mcp__srv");
    /// ```
    pub fn mcp(server: &str, tool: &str) -> ToolName {
        let name = if tool.is_empty() {
            format!("mcp__{server}")
        } else {
            format!("mcp__{server}__{tool}")
        };
        ToolName(name.to_ascii_lowercase())
    }

    /// Reads a harness's own spelling of an MCP tool against the servers it
    /// has configured. Each server comes as (the text the harness puts before
    /// that server's tool names, the server's name); the longest such prefix
    /// that `name` starts with, followed by a non-empty tool, wins, and of
    /// prefixes as long, the first listed (so list the servers the person
    /// trusts most first: a later one never takes a name from them). `None`
    /// when no configured server prefixes the name: a separator that may also
    /// occur inside server names is never guessed at.
    ///
    /// ```
    /// use hookdex_model::ToolName;
    ///
    /// let servers = [("mcp_srv_", "srv"), ("mcp_srv_a_", "srv_a")];
    /// let tool = ToolName::resolve_mcp("mcp_srv_a_tool", servers).unwrap();
    /// assert_eq!(tool.as_str(), "mcp__srv_a__tool");
    /// assert_eq!(ToolName::resolve_mcp("mcp_other_tool", servers), None);
    /// ```
    pub fn resolve_mcp<P, S>(
        name: &str,
        servers: impl IntoIterator<Item = (P, S)>,
    ) -> Option<ToolName>
    where
        P: AsRef<str>,
        S: AsRef<str>,
    {
        let mut best: Option<(usize, ToolName)> = None;
        for (prefix, server) in servers {
            let (prefix, server) = (prefix.as_ref(), server.as_ref());
            let Some(tool) = name.strip_prefix(prefix) else {
                continue;
            };
            let longer = best.as_ref().is_none_or(|(len, _)| prefix.len() > *len);
            if longer && !tool.is_empty() && !server.is_empty() {
                best = Some((prefix.len(), ToolName::mcp(server, tool)));
            }
        }
        best.map(|(_, tool)| tool)
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

    #[test]
    fn resolving_takes_the_longest_configured_server() {
        let gemini = [("mcp_srv_", "srv"), ("mcp_srv_a_", "srv_a")];
        let copilot = [("github-mcp-server-", "github-mcp-server"), ("gh-", "gh")];
        type Servers<'a> = &'a [(&'a str, &'a str)];
        let cases: &[(&str, Servers, Option<&str>)] = &[
            ("mcp_srv_a_tool", &gemini, Some("mcp__srv_a__tool")),
            ("mcp_srv_b_tool", &gemini, Some("mcp__srv__b_tool")),
            ("mcp_srv_a_", &gemini, Some("mcp__srv__a_")),
            ("mcp_srv_", &gemini, None),
            ("mcp_other_tool", &gemini, None),
            (
                "github-mcp-server-search_code",
                &copilot,
                Some("mcp__github-mcp-server__search_code"),
            ),
            ("gh-Create", &copilot, Some("mcp__gh__create")),
            ("list_bash", &copilot, None),
            // Two servers with one prefix: the first listed keeps the name.
            (
                "github-mcp-server-create_issue",
                &[
                    ("github-mcp-server-", "github-mcp-server"),
                    ("github-mcp-server-", "github.mcp.server"),
                ],
                Some("mcp__github-mcp-server__create_issue"),
            ),
        ];
        for (name, servers, want) in cases {
            let got = ToolName::resolve_mcp(name, servers.iter().copied());
            assert_eq!(got.as_ref().map(ToolName::as_str), *want, "{name}");
        }
    }
}
