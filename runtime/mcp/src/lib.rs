//! `hookdex mcp` (**contract**, SPEC §13): a stdio MCP server on the Rust
//! SDK (`rmcp`), never on the hook path. Its tools, with agentihooks'
//! argument names, are in [`tools`]; this module only puts them on the
//! wire. A refusal (the gate closed, a body that does not validate) is a
//! tool result marked as an error, whose text says why.

pub mod tools;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};

use hookdex_model::Target;

use crate::tools::{ClearArgs, EnforcementArgs, ListArgs, Place, Refusal, SetArgs};

/// The server: the condition tools for one harness's view.
#[derive(Clone)]
pub struct ConditionServer {
    target: Target,
    tool_router: ToolRouter<Self>,
}

fn answer(result: Result<String, Refusal>) -> Result<CallToolResult, ErrorData> {
    Ok(match result {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(why) => CallToolResult::error(vec![ContentBlock::text(why)]),
    })
}

fn json(result: Result<serde_json::Value, Refusal>) -> Result<CallToolResult, ErrorData> {
    answer(result.map(|v| v.to_string()))
}

#[tool_router]
impl ConditionServer {
    /// The server for `target`'s view.
    pub fn new(target: Target) -> ConditionServer {
        ConditionServer {
            target,
            tool_router: Self::tool_router(),
        }
    }

    fn place(&self) -> Place {
        Place {
            target: self.target,
        }
    }

    #[tool(
        description = "Write a condition: <step>-<matcher>-<name>[.async].<ext> with the script (language bash, python, filter for a filter's YAML body, or guard for a declarative guard's YAML: reason, deny/ask/allow entries, options), executable, in scope global (the bundle, or $HOOKDEX_HOME), profile or directory. Only when the person asked in this session: their prompt opens the gate."
    )]
    fn condition_set(
        &self,
        Parameters(args): Parameters<SetArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        json(tools::condition_set(&self.place(), &args))
    }

    #[tool(
        description = "Remove a condition file (scope picks a layer when the name is in several). Only when the person asked in this session."
    )]
    fn condition_clear(
        &self,
        Parameters(args): Parameters<ClearArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        json(tools::condition_clear(&self.place(), &args))
    }

    #[tool(
        description = "The layers, their trust, the active rules in order and the files that do not parse, as `hookdex list --json` prints them."
    )]
    fn condition_list(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        answer(tools::hookdex(
            &self.place(),
            &["list", "--json"],
            args.cwd.as_deref(),
        ))
    }

    #[tool(description = "The body of one active rule, by file name or key.")]
    fn condition_show(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(file) = args.file.as_deref() else {
            return answer(Err("condition_show needs `file`".into()));
        };
        answer(tools::hookdex(
            &self.place(),
            &["show", file],
            args.cwd.as_deref(),
        ))
    }

    #[tool(
        description = "Add an enforcement: a message given as context on matching call 1 and every multiple of cadence. Only when the person asked in this session."
    )]
    fn enforcement_set(
        &self,
        Parameters(args): Parameters<EnforcementArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        json(tools::enforcement_set(&self.place(), &args))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ConditionServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hookdex", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "hookdex's rules. Change them only when the person asks for it in this session.",
            )
    }
}

/// Why the server stopped before its client left.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The async runtime could not start.
    Runtime(std::io::Error),
    /// The client's handshake failed.
    Start(Box<rmcp::service::ServerInitializeError>),
    /// The transport broke while serving.
    Transport(tokio::task::JoinError),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Runtime(e) => e.fmt(f),
            ServeError::Start(e) => e.fmt(f),
            ServeError::Transport(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ServeError {}

/// Serves `target`'s tools on stdin and stdout until the client leaves.
///
/// # Errors
///
/// When the runtime cannot start or the transport breaks.
pub fn serve(target: Target) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let service = ConditionServer::new(target)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Start(Box::new(e)))?;
        service.waiting().await.map_err(ServeError::Transport)?;
        Ok(())
    })
}
