//! What a subcommand fails with, and the one place a failure becomes a
//! message on stderr and an exit code: the reports' typed errors, and the
//! lines the other subcommands still compose themselves.

use std::fmt;

use hookdex_runtime::report;

/// Why a subcommand failed.
#[derive(Debug)]
pub enum CmdError {
    /// `list`, `explain` or `show` could not make its report.
    Report(report::Error),
    /// The MCP server stopped before its client left.
    Mcp(hookdex_mcp::ServeError),
    /// Another subcommand's failure, as the line it prints.
    Failed(String),
    /// The arguments ask for what cannot be (an unknown profile), as the
    /// line it prints; a usage error, so exit 2.
    Usage(String),
}

impl CmdError {
    /// The process's exit code for it.
    pub fn exit_code(&self) -> i32 {
        match self {
            CmdError::Usage(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for CmdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CmdError::Report(e) => e.fmt(f),
            CmdError::Mcp(e) => e.fmt(f),
            CmdError::Failed(line) | CmdError::Usage(line) => f.write_str(line),
        }
    }
}

impl From<report::Error> for CmdError {
    fn from(e: report::Error) -> CmdError {
        CmdError::Report(e)
    }
}

impl From<String> for CmdError {
    fn from(line: String) -> CmdError {
        CmdError::Failed(line)
    }
}
