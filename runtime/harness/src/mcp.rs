//! The MCP servers a harness has configured, read from its own settings
//! files, for the harnesses whose MCP tool names cannot be taken apart
//! without them (Gemini's `mcp_<server>_<tool>`, Copilot's
//! `<server>-<tool>`, Cursor's server given by url or command). The name
//! shape itself is the model's [`ToolName`](hookdex_model::ToolName); this
//! module only finds the servers, and only when a harness asks.
//!
//! Servers come in two tiers ([`first_tier`]): the harness's own and the
//! ones of the person's (and the system's) settings first; a repository's
//! settings (`.mcp.json`, `.gemini/settings.json`, …) only when those
//! answer nothing and the repository is trusted. A repository's file can
//! name a new server, never take a tool name from one the person has: a
//! rule on `mcp__github-mcp-server__create_issue` keeps firing whatever an
//! untrusted checkout declares.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hookdex_model::ToolName;
use serde_json::Value;

/// What resolving an MCP tool name may read: the session's directory and
/// the environment, through an injected `var` like the engine's settings.
/// Nothing is read until a harness's tool name looks like its spelling of
/// an MCP tool, so ordinary tools cost no file access.
#[derive(Clone, Copy)]
pub struct McpScope<'a> {
    /// The session's working directory (the payload's `cwd`), where project
    /// settings are looked up.
    pub cwd: &'a Path,
    /// Reads an environment variable.
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
    /// Whether the repository at `cwd` is trusted, so its own settings may
    /// name servers after the person's; asked only when a name is not
    /// resolved without them.
    pub project_trusted: &'a dyn Fn() -> bool,
}

impl McpScope<'_> {
    /// The variable `name` as a path, when set and not empty.
    pub(crate) fn path_var(&self, name: &str) -> Option<PathBuf> {
        (self.var)(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }
}

/// One configured MCP server: its name and how it is reached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Server {
    pub name: String,
    pub url: Option<String>,
    pub command: Option<String>,
    pub args: Vec<String>,
}

/// The servers under `mcpServers` in each of `files`, in order. A file that
/// is missing or not JSON adds none: resolution then leaves the tool name
/// as it is rather than failing the hook.
pub(crate) fn servers_in(files: impl IntoIterator<Item = PathBuf>) -> Vec<Server> {
    let mut servers = Vec::new();
    for file in files {
        // Only a regular file of sane size is read: a FIFO or device put at
        // a project's settings path must not hang the hook (stat, then read:
        // a checkout does not change under the hook while it reads).
        let regular = std::fs::metadata(&file).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20);
        let Some(text) = regular
            .then(|| std::fs::read_to_string(&file).ok())
            .flatten()
        else {
            continue;
        };
        // Gemini strips comments before parsing its settings; the others'
        // files are plain JSON, which this leaves unchanged.
        let Ok(doc) = serde_json::from_str::<Value>(&strip_comments(&text)) else {
            continue;
        };
        let Some(entries) = doc.get("mcpServers").and_then(Value::as_object) else {
            continue;
        };
        for (name, config) in entries {
            let text = |key: &str| config.get(key).and_then(Value::as_str).map(String::from);
            servers.push(Server {
                name: name.clone(),
                url: text("url").or_else(|| text("httpUrl")),
                command: text("command"),
                args: config
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|args| {
                        args.iter()
                            .filter_map(Value::as_str)
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default(),
            });
        }
    }
    servers
}

/// The tool `answer` names with the servers of the first tier that names
/// one: `builtin` (the harness's own) and those of the person's `user`
/// files, then those of the repository's `project` files. A repository's
/// server never competes with the person's for a name; when the repository
/// is not trusted, a name only its servers claim is an MCP tool of no known
/// server (`mcp`: rules on every MCP tool still see it, none on a server).
pub(crate) fn first_tier(
    scope: &McpScope<'_>,
    builtin: &[&str],
    user: Vec<PathBuf>,
    project: Vec<PathBuf>,
    answer: impl Fn(&[Server]) -> Option<ToolName>,
) -> Option<ToolName> {
    let mut servers: Vec<Server> = builtin
        .iter()
        .map(|name| Server {
            name: (*name).to_string(),
            ..Server::default()
        })
        .collect();
    servers.extend(servers_in(user));
    if let Some(found) = answer(&servers) {
        return Some(found);
    }
    let found = answer(&servers_in(project))?;
    Some(match (scope.project_trusted)() {
        true => found,
        false => ToolName::new("mcp"),
    })
}

/// `text` with `//` and `/* */` comments outside strings blanked out
/// (JSON with comments, as Copilot and Gemini write their files).
pub(crate) fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{harness, Payload};
    use hookdex_model::Target;
    use hookdex_test_support::ScratchDir;

    /// The normalized name of `payload` (a Gemini/Copilot/Cursor pre) with
    /// `home` as HOME and `home/repo` as the session's directory.
    fn resolved(
        target: Target,
        payload: &str,
        event: Option<&str>,
        home: &ScratchDir,
    ) -> Option<String> {
        let payload = Payload::parse(target, payload.as_bytes(), event).unwrap();
        let root = home.path().to_path_buf();
        let var = move |name: &str| (name == "HOME").then(|| root.clone().into_os_string());
        let cwd = home.path().join("repo");
        let trusted = || !cwd.join("untrusted").exists();
        let scope = McpScope {
            cwd: &cwd,
            var: &var,
            project_trusted: &trusted,
        };
        harness(target)
            .mcp_tool(&payload, &scope)
            .map(|tool| tool.as_str().to_string())
    }

    #[test]
    fn gemini_names_resolve_against_its_settings() {
        let home = ScratchDir::new("harness-gemini-mcp");
        home.write(
            ".gemini/settings.json",
            "{\n  // user\n  \"mcpServers\": {\"srv\": {\"command\": \"a\"}, \"srv_a\": {\"command\": \"b\"}}\n}",
        );
        home.write(
            "repo/.gemini/settings.json",
            r#"{"mcpServers": {"my.proj": {"url": "http://p"}}}"#,
        );
        home.write(
            ".gemini/extensions/ext/gemini-extension.json",
            r#"{"name": "ext", "mcpServers": {"ext_srv": {"command": "c"}}}"#,
        );
        let pre = |tool: &str| {
            format!(r#"{{"hook_event_name":"BeforeTool","tool_name":"{tool}","tool_input":{{}}}}"#)
        };
        let long = format!("mcp_srv_a_{}...{}", "x".repeat(20), "y".repeat(30));
        let cases: &[(String, Option<&str>)] = &[
            (pre("mcp_srv_a_tool"), Some("mcp__srv_a__tool")),
            (pre("mcp_srv_tool_x"), Some("mcp__srv__tool_x")),
            (pre("mcp_my.proj_deploy"), Some("mcp__my.proj__deploy")),
            (pre("mcp_ext_srv_run"), Some("mcp__ext_srv__run")),
            (pre(&long), Some("mcp__srv_a")),
            // An unconfigured server is not guessed at.
            (pre("mcp_other_tool"), None),
            (pre("run_shell_command"), None),
            (pre("mcp__srv__tool"), None),
            // Gemini's own answer wins over the files.
            (
                r#"{"hook_event_name":"BeforeTool","tool_name":"mcp_x_y_z","tool_input":{},"mcp_context":{"server_name":"x_y","tool_name":"z"}}"#.to_string(),
                Some("mcp__x_y__z"),
            ),
        ];
        for (payload, want) in cases {
            assert_eq!(
                resolved(Target::Gemini, payload, None, &home).as_deref(),
                *want,
                "{payload}"
            );
        }
        home.write("repo/untrusted", "");
        let untrusted = resolved(Target::Gemini, &pre("mcp_my.proj_deploy"), None, &home);
        assert_eq!(untrusted.as_deref(), Some("mcp"));
    }

    #[test]
    fn gemini_prefixes_sanitize_like_gemini() {
        use crate::gemini::tool_prefix;
        assert_eq!(tool_prefix("srv"), "mcp_srv_");
        assert_eq!(tool_prefix("mcp_srv"), "mcp_srv_");
        assert_eq!(tool_prefix("my server/x"), "mcp_my_server_x_");
        assert_eq!(tool_prefix("a😀"), "mcp_a___");
    }

    #[test]
    fn copilot_prefixes_sanitize_like_copilot() {
        use crate::copilot::tool_prefix;
        assert_eq!(tool_prefix("srv_a"), "srv_a-");
        assert_eq!(tool_prefix("a/b c@d"), "a-b-c-d-");
        assert_eq!(tool_prefix("my-srv.v2"), "my-srv-v2-");
    }

    #[test]
    fn copilot_names_resolve_against_its_servers() {
        let home = ScratchDir::new("harness-copilot-mcp");
        home.write(
            ".copilot/mcp-config.json",
            r#"{"mcpServers": {"srv": {}, "srv-a": {}, "my-srv.v2": {}}}"#,
        );
        // The repository declares a server whose tools Copilot spells like
        // its own GitHub server's, and one whose prefix is longer than a
        // user server's.
        home.write(
            "repo/.mcp.json",
            r#"{"mcpServers": {"proj": {}, "github.mcp.server": {}, "srv-b": {}}}"#,
        );
        home.write(
            "repo/.github/mcp.json",
            r#"{"mcpServers": {"gh_proj": {}}}"#,
        );
        let camel = |tool: &str| format!(r#"{{"toolName":"{tool}","toolArgs":{{}}}}"#);
        let cases: &[(&str, Option<&str>)] = &[
            ("srv-a-tool", Some("mcp__srv-a__tool")),
            ("proj-deploy", Some("mcp__proj__deploy")),
            ("gh_proj-list", Some("mcp__gh_proj__list")),
            // The person's servers first: the repository's longer prefix
            // and its look-alike of the built-in server take nothing.
            ("srv-b-tool", Some("mcp__srv__b-tool")),
            (
                "github-mcp-server-create_issue",
                Some("mcp__github-mcp-server__create_issue"),
            ),
            (
                "github-mcp-server-search_code",
                Some("mcp__github-mcp-server__search_code"),
            ),
            ("my-srv-v2-do_thing", Some("mcp__my-srv.v2__do_thing")),
            ("other-tool", None),
            // Native tools have no `-` and are never taken for MCP.
            ("list_bash", None),
            ("bash", None),
        ];
        for (tool, want) in cases {
            let got = resolved(Target::Copilot, &camel(tool), Some("preToolUse"), &home);
            assert_eq!(got.as_deref(), *want, "{tool}");
        }
        // Untrusted, the repository's servers name nothing: their tools are
        // MCP tools of no known server.
        home.write("repo/untrusted", "");
        let cases: &[(&str, Option<&str>)] = &[
            ("proj-deploy", Some("mcp")),
            ("gh_proj-list", Some("mcp")),
            ("other-tool", None),
            ("srv-a-tool", Some("mcp__srv-a__tool")),
            (
                "github-mcp-server-create_issue",
                Some("mcp__github-mcp-server__create_issue"),
            ),
        ];
        for (tool, want) in cases {
            let got = resolved(Target::Copilot, &camel(tool), Some("preToolUse"), &home);
            assert_eq!(got.as_deref(), *want, "untrusted: {tool}");
        }
    }

    #[test]
    fn cursor_servers_come_from_the_endpoint() {
        let home = ScratchDir::new("harness-cursor-mcp");
        home.write(
            ".cursor/mcp.json",
            r#"{"mcpServers": {"web": {"url": "https://mcp.example/sse"}, "local": {"command": "npx", "args": ["-y", "srv"]}}}"#,
        );
        let before = |endpoint: &str| {
            format!(
                r#"{{"hook_event_name":"beforeMCPExecution","tool_name":"create_issue","tool_input":"{{}}",{endpoint}}}"#
            )
        };
        let cases: &[(String, Option<&str>)] = &[
            (
                before(r#""url":"https://mcp.example/sse""#),
                Some("mcp__web__create_issue"),
            ),
            (
                before(r#""command":"npx -y srv""#),
                Some("mcp__local__create_issue"),
            ),
            (
                before(r#""command":"npx""#),
                Some("mcp__local__create_issue"),
            ),
            (before(r#""url":"https://elsewhere""#), Some("mcp")),
            (
                r#"{"hook_event_name":"preToolUse","tool_name":"MCP","tool_input":{}}"#.to_string(),
                None,
            ),
        ];
        for (payload, want) in cases {
            assert_eq!(
                resolved(Target::Cursor, payload, None, &home).as_deref(),
                *want,
                "{payload}"
            );
        }
    }

    #[test]
    fn other_harnesses_and_ordinary_tools_read_nothing() {
        let payload = Payload::parse(
            Target::Gemini,
            br#"{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{}}"#,
            None,
        )
        .unwrap();
        let var = |name: &str| -> Option<OsString> { panic!("read {name}") };
        let scope = McpScope {
            cwd: Path::new("/nonexistent"),
            var: &var,
            project_trusted: &|| panic!("asked for trust"),
        };
        for target in Target::ALL {
            assert_eq!(harness(target).mcp_tool(&payload, &scope), None, "{target}");
        }
    }

    #[test]
    fn comments_are_stripped_outside_strings() {
        let text = "{\n // user servers\n \"mcpServers\": {\"a\": {\"url\": \"http://x/*y*/\"}} /* end */\n}";
        let doc: Value = serde_json::from_str(&strip_comments(text)).unwrap();
        assert_eq!(doc["mcpServers"]["a"]["url"], "http://x/*y*/");
        assert_eq!(strip_comments(r#""a\"//b""#), r#""a\"//b""#);
    }

    #[test]
    fn servers_come_from_every_readable_file() {
        let dir = std::env::temp_dir().join(format!("hookdex-mcp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.json");
        std::fs::write(
            &good,
            r#"{"mcpServers": {"srv_a": {"command": "node", "args": ["s.js"]}, "web": {"httpUrl": "https://w"}}}"#,
        )
        .unwrap();
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "not json").unwrap();
        let servers = servers_in([dir.join("missing.json"), bad, good]);
        std::fs::remove_dir_all(&dir).unwrap();
        let names: Vec<_> = servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["srv_a", "web"]);
        assert_eq!(servers[0].args, ["s.js"]);
        assert_eq!(servers[1].url.as_deref(), Some("https://w"));
    }
}
