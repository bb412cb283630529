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
//! For the same reason `hook`'s own command line is read without clap
//! ([`hook_args`]).
// The test harness brings its own `main`, which calls none of this.
#![cfg_attr(not(test), no_main)]
#![cfg_attr(test, allow(dead_code, unused_imports))]
// Only the exported C `main` (`#[no_mangle]`) and the hook's signal
// dispositions need `unsafe_code`, each argued where it is.
#![deny(unsafe_code)]

mod cmd;
mod error;
mod paint;

use std::ffi::{c_char, c_int, OsString};
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use hookdex_model::{Step, Target};

/// Rules compiler and hook runtime for AI coding agents.
#[derive(Parser)]
#[command(
    name = "hookdex",
    version = env!("HOOKDEX_VERSION"),
    about,
    max_term_width = 100,
    arg_required_else_help = true
)]
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
        /// Show the gate's state for this session.
        #[arg(long)]
        session: Option<String>,
        /// Also list the rules a higher layer overrides.
        #[arg(long)]
        all: bool,
    },
    /// Say, rule by rule, whether it fires for a call and why.
    #[command(mut_arg("tool", |tool| tool.required(true)))]
    Explain {
        #[command(flatten)]
        call: CallFlags,
        /// The harness.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Show the gate's state for this session.
        #[arg(long)]
        session: Option<String>,
    },
    /// Run what fires for a call exactly as the hook would (conditions
    /// really run, filters, merge, re-judge) and show each rule's answer,
    /// the merged answer and what the harness does; exit 0 whatever the
    /// decision.
    #[command(mut_arg("tool", |tool| tool.required_unless_present("payload")))]
    Try {
        #[command(flatten)]
        call: CallFlags,
        /// A harness payload instead of the call flags (`-`: stdin).
        #[arg(long, value_name = "FILE", conflicts_with_all = ["tool", "command", "path", "input", "step"])]
        payload: Option<PathBuf>,
        /// The harness.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
        /// The session to judge the call in (default `hookdex-try`, which
        /// leaves every real session's state alone).
        #[arg(long)]
        session: Option<String>,
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
        /// Print what would change in each file as a unified diff, and
        /// write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Undo what init wrote for the target at this scope: hookdex's
        /// hook entries, its MCP server, Codex's trust records for them.
        #[arg(long, conflicts_with_all = ["bundle", "profile"])]
        remove: bool,
        /// Print JSON: each file with what was done to it (and its diff in
        /// a dry run), the folder created, the notes and next steps.
        #[arg(long)]
        json: bool,
    },
    /// Run a command and print its output shrunk by the output filter that
    /// claims it; exit with the command's code.
    Exec(cmd::outputs::ExecArgs),
    /// Print an output a filter shrank, as it was (its key is in the
    /// filtered output's last line).
    Expand {
        /// The stash key.
        key: String,
    },
    /// What output filters saved, and the outputs no filter claimed.
    Stats {
        /// Print a machine-readable report.
        #[arg(long)]
        json: bool,
    },
    /// Run the inline tests of text-filter and output-filter files (every
    /// shipped filter when no file is named); exit 1 on any failure.
    Test {
        /// The files.
        files: Vec<PathBuf>,
        /// Print a machine-readable report.
        #[arg(long)]
        json: bool,
    },
    /// Filters outside the hook.
    Filter {
        #[command(subcommand)]
        command: FilterCommand,
    },
    /// Serve the condition tools over MCP on stdio (condition_set,
    /// condition_clear, condition_list, condition_show, enforcement_set).
    Mcp {
        /// Harness whose view the tools work on.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
    },
    /// Trust a repository's own rules (`.hookdex/`, `.agentihooks/`)
    /// whatever its remotes, or with --revoke never run them; recorded
    /// outside the repository, in `$HOOKDEX_HOME/trust/`.
    Trust {
        /// The repository (default: the one the current directory is in).
        path: Option<PathBuf>,
        /// Never run its rules, whatever its owners.
        #[arg(long, conflicts_with = "list")]
        revoke: bool,
        /// List every repository the store knows, with its decision and owners seen.
        #[arg(long, conflicts_with = "path")]
        list: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check the set-up: each harness's wiring, trust and environment, the
    /// rules, the index and enforcement; exit 1 when a rule you wrote
    /// would not run.
    Doctor {
        /// Only this harness.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the body of one active rule (by key, file name or name).
    Show {
        /// The rule.
        name: String,
        /// Harness whose view to search.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script for hookdex on stdout.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
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

/// The flags that describe one tool call (`explain`, `try`).
#[derive(clap::Args)]
struct CallFlags {
    /// The tool name, as the harness spells it.
    #[arg(long)]
    tool: Option<String>,
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
}

impl CallFlags {
    /// The call they describe (clap requires `--tool` where it is needed).
    fn spec(self) -> hookdex_runtime::report::CallSpec {
        hookdex_runtime::report::CallSpec {
            tool: self.tool.unwrap_or_default(),
            command: self.command,
            path: self.path,
            input: self.input,
            step: self.step.unwrap_or(Step::Pre),
        }
    }
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

/// The arguments of `hook --target T [--event E]` (the two options in
/// either order, each with a separate value), the command line a harness
/// runs on every tool call, read without clap: building clap's command
/// tree for every subcommand, parsing with it and dropping it costs about
/// 90,000 instructions and their page faults, more than the rest of a call
/// where nothing fires. Anything else, a wrong target or an unusual
/// spelling included, is `None` and goes to clap, which parses it and
/// explains what is wrong. What this accepts, clap accepts with the same
/// meaning (tested against it).
fn hook_args(args: impl Iterator<Item = OsString>) -> Option<(Target, Option<String>)> {
    let args: Vec<OsString> = args.take(6).collect();
    if !matches!(args.len(), 3 | 5) || args[0] != "hook" {
        return None;
    }
    let (mut target, mut event) = (None, None);
    for pair in args[1..].chunks(2) {
        let [option, value] = pair else {
            return None;
        };
        // clap reads a value that starts with `-` as the next option.
        let value = value
            .to_str()
            .filter(|v| !v.is_empty() && !v.starts_with('-'))?;
        match option.to_str()? {
            "--target" if target.is_none() => target = Some(parse_target(value).ok()?),
            "--event" if event.is_none() => event = Some(value.to_string()),
            _ => return None,
        }
    }
    Some((target?, event))
}

/// The words of `exec [--guard [--target T] [--session S]] -- CMD…`, read
/// without clap for the same reason as [`hook_args`]: a `pre` rewrite puts
/// `hookdex exec` before every shell command it guards. Only that spelling,
/// with every word UTF-8, is taken; anything else goes to clap.
fn exec_args(mut args: impl Iterator<Item = OsString>) -> Option<cmd::outputs::ExecArgs> {
    let first = args.next()?.into_string().ok()?;
    if let Some(target) = first.strip_prefix("--guard-shell=") {
        // A harness's shell prefix (Claude Code's): `hookdex
        // --guard-shell=T STRING`, the same as `exec --guard --shell
        // --target T -- STRING`. One word after the program, since Claude
        // Code 2.1.332 reads the words of a prefix before its first option
        // as one program name.
        let command = args
            .map(|a| a.into_string().ok())
            .collect::<Option<Vec<_>>>()?;
        return (!command.is_empty()).then(|| cmd::outputs::ExecArgs {
            guard: true,
            target: Some(target.to_string()),
            session: None,
            shell: true,
            command,
        });
    }
    if first != "exec" {
        return None;
    }
    let mut exec = cmd::outputs::ExecArgs::default();
    loop {
        let word = args.next()?.into_string().ok()?;
        match word.as_str() {
            "--" => break,
            "--guard" if !exec.guard => exec.guard = true,
            "--target" if exec.guard && exec.target.is_none() => {
                exec.target = Some(args.next()?.into_string().ok()?)
            }
            "--session" if exec.guard && exec.session.is_none() => {
                exec.session = Some(args.next()?.into_string().ok()?)
            }
            "--shell" if exec.guard && !exec.shell => exec.shell = true,
            _ => return None,
        }
    }
    exec.command = args
        .map(|a| a.into_string().ok())
        .collect::<Option<Vec<_>>>()?;
    (!exec.command.is_empty()).then_some(exec)
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
    if let Some((target, event)) = hook_args(std::env::args_os().skip(1)) {
        return exit_code(cmd::hook::run(target, event.as_deref()));
    }
    if let Some(exec) = exec_args(std::env::args_os().skip(1)) {
        return exit_code(cmd::outputs::exec(&exec));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => err.exit(),
        Err(err) => return usage_error(&err),
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
            session,
            all,
        } => cmd::list::run(
            default_target(target),
            session.as_deref(),
            step,
            tool.map(|tool| hookdex_runtime::report::CallSpec {
                tool,
                command,
                path,
                input: None,
                step: step.unwrap_or(Step::Pre),
            }),
            all,
            json,
        ),
        Command::Explain {
            call,
            target,
            json,
            session,
        } => cmd::explain::run(
            default_target(target),
            session.as_deref(),
            call.spec(),
            json,
        ),
        Command::Try {
            call,
            payload,
            target,
            session,
            json,
        } => {
            let call = match payload {
                Some(file) => cmd::try_call::read_payload(&file)
                    .map(hookdex_runtime::report::TryCall::Payload),
                None => Ok(hookdex_runtime::report::TryCall::Flags(call.spec())),
            };
            call.and_then(|call| {
                cmd::try_call::run(default_target(target), session.as_deref(), call, json)
            })
        }
        Command::Show { name, target, json } => cmd::show::run(default_target(target), &name, json),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "hookdex", &mut std::io::stdout());
            Ok(0)
        }
        Command::Doctor { target, json } => cmd::doctor::run(target, json),
        Command::Trust {
            path,
            revoke,
            list,
            json,
        } => {
            let action = match (list, revoke) {
                (true, _) => cmd::trust::Action::List,
                (_, true) => cmd::trust::Action::Revoke,
                _ => cmd::trust::Action::Trust,
            };
            cmd::trust::run(action, path, json)
        }
        Command::Mcp { target } => hookdex_mcp::serve(default_target(target))
            .map(|()| 0)
            .map_err(error::CmdError::Mcp),
        Command::Test { files, json } => cmd::test::run(&files, json),
        Command::Exec(args) => cmd::outputs::exec(&args),
        Command::Expand { key } => cmd::outputs::expand(&key),
        Command::Stats { json } => cmd::outputs::stats(json),
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
            dry_run,
            remove,
            json,
        } => cmd::init::run(cmd::init::Options {
            target,
            scope,
            bundle,
            profiles: profile,
            trust: !no_trust,
            dry_run,
            remove,
            json,
        }),
    };
    exit_code(result)
}

/// A command line clap refused. `hook` and `filter` answer as their
/// callers need (exit 0, the reason's first line in the log or the
/// verdict): harnesses read a non-zero hook exit as a deny, and so does a
/// call site of `filter check`. Any other command prints clap's whole
/// message (the reason, the usage, a tip or the possible values; coloured
/// only on a terminal without `NO_COLOR`) and exits 2.
fn usage_error(err: &clap::Error) -> c_int {
    let text = err.render().to_string();
    let line = text
        .lines()
        .next()
        .unwrap_or("usage error")
        .trim_start_matches("error: ");
    match std::env::args_os().nth(1) {
        Some(a) if a == "hook" => {
            eprintln!("hookdex: {line}");
            cmd::hook::usage_error(line)
        }
        Some(a) if a == "filter" => {
            eprintln!("hookdex: {line}");
            cmd::filter::usage_error(line)
        }
        _ => {
            let _ = err.print();
            2
        }
    }
}

/// The exit code of a command's result; an error is printed first.
fn exit_code(result: cmd::CmdResult) -> c_int {
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hookdex: {error}");
            error.exit_code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What clap makes of `args`: the hook's target and event, if it parses
    /// as `hook`.
    fn by_clap(args: &[&str]) -> Option<(Target, Option<String>)> {
        let cli = Cli::try_parse_from(std::iter::once("hookdex").chain(args.iter().copied()));
        match cli.ok()?.command {
            Command::Hook { target, event } => Some((target, event)),
            _ => None,
        }
    }

    #[test]
    fn the_hook_fast_path_agrees_with_clap() {
        // (arguments, whether the fast path takes them)
        let table: &[(&[&str], bool)] = &[
            (&["hook", "--target", "claude"], true),
            (&["hook", "--target", "Codex"], true),
            (
                &["hook", "--target", "gemini", "--event", "BeforeTool"],
                true,
            ),
            (
                &["hook", "--event", "preToolUse", "--target", "copilot"],
                true,
            ),
            (&["hook", "--target", "vim"], false),
            (&["hook", "--target=claude"], false),
            (&["hook", "--target"], false),
            (&["hook"], false),
            (&["hook", "--target", "claude", "--target", "codex"], false),
            (&["hook", "--event", "a", "--event", "b"], false),
            (&["hook", "--target", "claude", "--event"], false),
            (&["hook", "--target", "claude", "--event", "-x"], false),
            (&["hook", "--target", "claude", "--event", ""], false),
            (&["hook", "--target", "claude", "--verbose", "x"], false),
            (&["hook", "--target", "claude", "extra"], false),
            (
                &["hook", "--target", "claude", "--event", "e", "extra"],
                false,
            ),
            (&["list", "--target", "claude"], false),
            (&["--version"], false),
        ];
        for (args, fast) in table {
            let taken = hook_args(args.iter().map(OsString::from));
            assert_eq!(taken.is_some(), *fast, "{args:?}");
            if taken.is_some() {
                assert_eq!(taken, by_clap(args), "{args:?}");
            }
        }
    }

    #[test]
    fn the_exec_fast_path_agrees_with_clap() {
        let by_clap = |args: &[&str]| {
            let cli = Cli::try_parse_from(std::iter::once("hookdex").chain(args.iter().copied()));
            match cli.ok()?.command {
                Command::Exec(args) => Some(args),
                _ => None,
            }
        };
        let table: &[(&[&str], bool)] = &[
            (&["exec", "--guard", "--", "bash", "-c", "x"], true),
            (
                &[
                    "exec",
                    "--guard",
                    "--target",
                    "codex",
                    "--session",
                    "s",
                    "--",
                    "ls",
                ],
                true,
            ),
            (
                &[
                    "exec",
                    "--guard",
                    "--session",
                    "s",
                    "--target",
                    "codex",
                    "--",
                    "ls",
                ],
                true,
            ),
            (&["exec", "--target", "codex", "--", "ls"], false),
            (&["exec", "--guard", "--guard", "--", "ls"], false),
            (&["exec", "--shell", "--", "ls"], false),
            (
                &[
                    "exec", "--guard", "--target", "claude", "--shell", "--", "ls",
                ],
                true,
            ),
            (&["exec", "--", "make"], true),
            (&["exec", "--", "cargo", "build", "--release"], true),
            (&["exec", "--", "sh", "-c", "echo -- x"], true),
            (&["exec", "--", "--weird"], true),
            (&["exec", "--"], false),
            (&["exec", "make"], false),
            (&["exec"], false),
            (&["expand", "--", "x"], false),
        ];
        for (args, fast) in table {
            let taken = exec_args(args.iter().map(OsString::from));
            assert_eq!(taken.is_some(), *fast, "{args:?}");
            if taken.is_some() {
                assert_eq!(taken, by_clap(args), "{args:?}");
            }
        }
    }

    #[test]
    fn a_harness_shell_prefix_is_a_guarded_shell_string() {
        let args = ["--guard-shell=claude", "source x && eval 'ls'"].map(OsString::from);
        let exec = exec_args(args.into_iter()).unwrap();
        assert_eq!(
            exec,
            cmd::outputs::ExecArgs {
                guard: true,
                target: Some("claude".into()),
                session: None,
                shell: true,
                command: vec!["source x && eval 'ls'".into()],
            }
        );
        assert_eq!(
            exec_args([OsString::from("--guard-shell=claude")].into_iter()),
            None
        );
    }

    #[test]
    fn a_value_that_is_not_utf8_goes_to_clap() {
        use std::os::unix::ffi::OsStrExt;
        let event = OsString::from(std::ffi::OsStr::from_bytes(b"caf\xe9"));
        let args = ["hook", "--target", "claude", "--event"]
            .map(OsString::from)
            .into_iter()
            .chain([event]);
        assert_eq!(hook_args(args), None);
    }
}
