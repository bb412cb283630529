//! The `hookdex` command: argument parsing, dispatch, exit codes and
//! printing. Each subcommand lives in `cmd/` and calls one library function
//! that returns data; the work is done by the compiler and runtime crates.
//!
//! The binary defines the C `main` itself (`no_main`): std's runtime set-up
//! probes the main thread's stack through `/proc/self/maps` and costs about
//! 80 µs per process, and every tool call of an agent starts one. Without it
//! there is no stack-overflow message (the guard page still stops the
//! process) and SIGPIPE keeps its default; `hookdex hook` ignores it so a
//! harness that closed the pipe still sees exit 0 (see `cmd/hook.rs`).
// The test harness brings its own `main`, which calls none of this.
#![cfg_attr(not(test), no_main)]
#![cfg_attr(test, allow(dead_code, unused_imports))]
// Only the exported C `main` (`#[no_mangle]`) and the hook's signal
// dispositions need `unsafe_code`, each argued where it is.
#![deny(unsafe_code)]

mod cmd;

use std::ffi::{c_char, c_int};
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use hookdex_model::{Step, Target};

/// Rules compiler and hook runtime for AI coding agents.
#[derive(Parser)]
#[command(name = "hookdex", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build (or with --check, validate) the index for the current directory's view.
    Compile {
        /// Only validate: exit 1 and print `file: reason` lines when any rule file is invalid.
        #[arg(long)]
        check: bool,
        /// Print a machine-readable report.
        #[arg(long)]
        json: bool,
        /// Compile this bundle (overrides state.json and HOOKDEX_BUNDLE).
        #[arg(long, value_name = "DIR")]
        bundle: Option<PathBuf>,
        /// Harness whose view to compile.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
        /// Compile the managed directory alone into itself (run by its
        /// owner; every target unless --target names one).
        #[arg(long)]
        managed: bool,
    },
    /// The harness hook command: read the payload on stdin and answer.
    Hook {
        /// The harness that runs this hook.
        #[arg(long, value_parser = parse_target)]
        target: Target,
        /// The event, when the payload does not name it.
        #[arg(long)]
        event: Option<String>,
    },
    /// Runs an `.async` condition with a deadline (started by `hook`).
    #[command(hide = true)]
    SuperviseAsync {
        /// Milliseconds before the condition and all it started are killed.
        #[arg(long)]
        timeout_ms: u64,
        /// The program and its arguments.
        #[arg(last = true, required = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// Layers, active rules in execution order, and invalid files.
    List {
        /// Only rules of this step.
        #[arg(long, value_parser = parse_step)]
        step: Option<Step>,
        /// Also say what would fire for this tool.
        #[arg(long)]
        tool: Option<String>,
        /// The shell command of the call.
        #[arg(long)]
        command: Option<String>,
        /// The file path of the call.
        #[arg(long)]
        path: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Harness whose view to list.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
    },
    /// Say, rule by rule, whether it fires for a call and why.
    Explain {
        /// The tool name, as the harness spells it.
        #[arg(long)]
        tool: String,
        /// The shell command of the call.
        #[arg(long)]
        command: Option<String>,
        /// The file path of the call.
        #[arg(long)]
        path: Option<String>,
        /// The whole tool input as a JSON object.
        #[arg(long, value_name = "JSON", value_parser = parse_json_object)]
        input: Option<serde_json::Value>,
        /// The step (default pre).
        #[arg(long, value_parser = parse_step)]
        step: Option<Step>,
        /// The harness.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a harness's hook settings (merging into what is there) and state.json.
    Init {
        /// The harness to wire.
        #[arg(long, value_parser = parse_target)]
        target: Target,
        /// Where to write the harness settings.
        #[arg(long, value_enum, default_value = "user")]
        scope: cmd::init::Scope,
        /// The bundle to link.
        #[arg(long, value_name = "DIR")]
        bundle: Option<PathBuf>,
        /// The profile chain (comma list).
        #[arg(long, value_name = "A,B", value_delimiter = ',')]
        profile: Vec<String>,
        /// Codex: do not record the hooks as trusted in config.toml (Codex
        /// then skips them until they are trusted in its own review).
        #[arg(long)]
        no_trust: bool,
    },
    /// Filters outside the hook.
    Filter {
        #[command(subcommand)]
        command: FilterCommand,
    },
    /// Print the body of one active rule (by key, file name or name).
    Show {
        /// The rule.
        name: String,
        /// Harness whose view to search.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
    },
}

#[derive(Subcommand)]
enum FilterCommand {
    /// Check a synthetic tool's input (stdin) against its filters: prints
    /// {"decision", "reason", "tool_input"}; exit 0 allow, 2 deny.
    Check {
        /// The synthetic tool (ledger_write, inbox_send, judge).
        #[arg(long)]
        tool: String,
        /// The session whose send-backs count toward the round cap.
        #[arg(long)]
        session: Option<String>,
        /// Harness whose view to use.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
    },
}

fn parse_target(s: &str) -> Result<Target, String> {
    s.parse().map_err(|e: hookdex_model::Error| e.to_string())
}

fn parse_json_object(s: &str) -> Result<serde_json::Value, String> {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err("expected a JSON object".into()),
        Err(err) => Err(format!("not valid JSON: {err}")),
    }
}

fn parse_step(s: &str) -> Result<Step, String> {
    s.parse().map_err(|e: hookdex_model::Error| e.to_string())
}

/// The target when none is given: `HOOKDEX_TARGET`, else claude.
fn default_target(target: Option<Target>) -> Target {
    target
        .or_else(|| std::env::var("HOOKDEX_TARGET").ok()?.parse().ok())
        .unwrap_or(Target::Claude)
}

/// The process entry point; see the module doc for why it is not `fn main`.
#[cfg(not(test))]
#[allow(unsafe_code)]
#[no_mangle]
extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    let code = run();
    // std's runtime would flush stdout at exit; without it, flush here.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    code
}

fn run() -> c_int {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => err.exit(),
        Err(err) => {
            // One line, as every other error: clap's first line names the
            // argument and the reason.
            let text = err.render().to_string();
            let line = text
                .lines()
                .next()
                .unwrap_or("usage error")
                .trim_start_matches("error: ");
            eprintln!("hookdex: {line}");
            // Harnesses read a non-zero hook exit as a deny, and so does a
            // call site of `filter check`.
            match std::env::args_os().nth(1) {
                Some(a) if a == "hook" => return cmd::hook::usage_error(line),
                Some(a) if a == "filter" => return cmd::filter::usage_error(line),
                _ => {}
            }
            return 2;
        }
    };
    let result = match cli.command {
        Command::Compile {
            check,
            json,
            bundle,
            target,
            managed,
        } => cmd::compile::run(cmd::compile::CompileArgs {
            // The managed index is compiled for every target unless one is named.
            target: match managed {
                true => target,
                false => Some(default_target(target)),
            },
            bundle,
            check,
            json,
            managed,
        }),
        Command::Hook { target, event } => cmd::hook::run(target, event.as_deref()),
        Command::SuperviseAsync {
            timeout_ms,
            command,
        } => cmd::hook::supervise_async(timeout_ms, &command),
        Command::List {
            step,
            tool,
            command,
            path,
            json,
            target,
        } => cmd::list::run(
            default_target(target),
            step,
            tool.map(|tool| cmd::CallArgs {
                tool,
                command,
                path,
                input: None,
                step: step.unwrap_or(Step::Pre),
            }),
            json,
        ),
        Command::Explain {
            tool,
            command,
            path,
            input,
            step,
            target,
            json,
        } => cmd::explain::run(
            default_target(target),
            cmd::CallArgs {
                tool,
                command,
                path,
                input,
                step: step.unwrap_or(Step::Pre),
            },
            json,
        ),
        Command::Show { name, target } => cmd::show::run(default_target(target), &name),
        Command::Filter {
            command:
                FilterCommand::Check {
                    tool,
                    session,
                    target,
                },
        } => cmd::filter::check_command(default_target(target), &tool, session.as_deref()),
        Command::Init {
            target,
            scope,
            bundle,
            profile,
            no_trust,
        } => cmd::init::run(target, scope, bundle, profile, !no_trust),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("hookdex: {message}");
            1
        }
    }
}
