//! What one condition said, read from its exit code and stdout by the
//! agentihooks contract: nothing, plain text (context), or a JSON object with
//! `context`, `tool_input`, `tool_output`, `decision` and `reason`; exit 2
//! denies (pre) or blocks (post) with stderr as the reason; anything else
//! skips the condition with a note.
//!
//! A broken rule never denies: bash exits 2 on a syntax error, and so does a
//! command failing under `set -e` (`ls`, `grep` on a missing file). So exit
//! 2 denies only with a reason: a non-empty stderr none of whose lines is a
//! diagnostic (see [`is_diagnostic`]); otherwise it is a failure.

use hookdex_model::{Permission, Step};
use serde_json::{Map, Value};

use crate::exec::{Execution, Finish, DEADLINE_PASSED};

/// One condition's effect.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Text for the agent's context.
    pub context: Option<String>,
    /// A shallow patch over the tool input (pre).
    pub patch: Option<Map<String, Value>>,
    /// A full replacement of the tool input (pre: a `hooks.yaml` hook's
    /// `updatedInput`, a `HOOK.md` hook's `modify`).
    pub replacement: Option<Value>,
    /// A message for the person (a `hooks.yaml` hook's `systemMessage`).
    pub notice: Option<String>,
    /// A replacement tool result (post).
    pub tool_output: Option<Value>,
    /// A permission decision.
    pub decision: Option<Permission>,
    /// The reason attached to the decision.
    pub reason: Option<String>,
    /// Post only: exit 2, blocking with this reason (never empty).
    pub block: Option<String>,
    /// Why the condition was skipped (crash, timeout, bad output), one line.
    pub failure: Option<String>,
    /// Parts of its output this step cannot use, one line each.
    pub ignored: Vec<String>,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_string()
}

/// Reads `execution` of a condition at `step`.
pub fn interpret(step: Step, execution: &Execution) -> Outcome {
    match &execution.finish {
        Finish::Exited(0) => from_stdout(step, &text(&execution.stdout)),
        Finish::Exited(2) => {
            let reason = text(&execution.stderr);
            if reason.is_empty() {
                return failed("exit 2 with no reason on stderr".into(), execution);
            }
            if reason.lines().any(is_diagnostic) {
                return failed("exit 2 from an error, not a decision".into(), execution);
            }
            if step.decides_permission() {
                Outcome {
                    decision: Some(Permission::Deny),
                    reason: Some(reason),
                    ..Outcome::default()
                }
            } else {
                Outcome {
                    block: Some(reason),
                    ..Outcome::default()
                }
            }
        }
        Finish::Exited(code) => failed(format!("exit {code}"), execution),
        Finish::Signaled(signal) => failed(format!("killed by signal {signal}"), execution),
        Finish::TimedOut => failed(
            format!(
                "timed out after {:.0} s, process group killed",
                execution.elapsed.as_secs_f64()
            ),
            execution,
        ),
        Finish::NotStarted(err) => failed(format!("could not start: {err}"), execution),
        Finish::PastDeadline => failed(format!("not started: {DEADLINE_PASSED}"), execution),
    }
}

/// Ends of the messages of system errors (strerror) and of the shell, as a
/// command or interpreter prints them when it fails.
const ERROR_ENDINGS: &[&str] = &[
    "No such file or directory",
    "Permission denied",
    "command not found",
    "Is a directory",
    "Not a directory",
    "required file not found",
    "Operation not permitted",
    "unbound variable",
];

/// Whether a stderr line is an error message rather than a reason: bash's
/// own (`SCRIPT: line N: …`, `bash: …`), a Python traceback or launcher
/// error, or any line ending in a system error message (`ls: cannot
/// access 'x': No such file or directory`).
pub fn is_diagnostic(line: &str) -> bool {
    let line = line.trim();
    let bash_line = line.split_once(": line ").is_some_and(|(_, rest)| {
        rest.split_once(": ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    bash_line
        || line.starts_with("bash: ")
        || line.starts_with("Traceback (most recent call last):")
        || line.contains("can't open file")
        || ERROR_ENDINGS.iter().any(|end| line.ends_with(end))
}

fn failed(what: String, execution: &Execution) -> Outcome {
    // The last line of a crash says what went wrong (a Python traceback
    // ends with the exception).
    let stderr = text(&execution.stderr);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim();
    Outcome {
        failure: Some(if last.is_empty() {
            what
        } else {
            format!("{what}: {last}")
        }),
        ..Outcome::default()
    }
}

fn from_stdout(step: Step, stdout: &str) -> Outcome {
    if stdout.is_empty() {
        return Outcome::default();
    }
    let object = stdout
        .starts_with('{')
        .then(|| serde_json::from_str::<Map<String, Value>>(stdout).ok())
        .flatten();
    let Some(object) = object else {
        return Outcome {
            context: Some(stdout.to_string()),
            ..Outcome::default()
        };
    };
    let mut outcome = Outcome::default();
    for (key, value) in object {
        match (key.as_str(), value) {
            ("context", Value::String(s)) if !s.trim().is_empty() => outcome.context = Some(s),
            ("context", Value::String(_)) => {}
            ("tool_input", Value::Object(patch)) if step == Step::Pre => {
                outcome.patch = Some(patch)
            }
            ("tool_output", value) if step == Step::Post && !value.is_null() => {
                outcome.tool_output = Some(value)
            }
            ("decision", Value::String(s)) => match Permission::parse(&s) {
                Some(p) => outcome.decision = Some(p),
                None => outcome
                    .ignored
                    .push(format!("decision `{s}` (expected allow, ask or deny)")),
            },
            ("reason", Value::String(s)) => outcome.reason = Some(s),
            ("decision" | "reason" | "context" | "tool_input" | "tool_output", Value::Null) => {}
            (key, _) => outcome
                .ignored
                .push(format!("`{key}` at step {}", step.as_str())),
        }
    }
    // An allow given for a rewritten input that this step cannot apply was
    // not given for the input the call has: it is not sent.
    let rewrote = outcome
        .ignored
        .iter()
        .any(|i| i.starts_with("`tool_input`"));
    if rewrote && outcome.decision == Some(Permission::Allow) {
        outcome.decision = None;
        outcome.ignored.push(format!(
            "its allow, given with a rewrite that cannot apply at step {}",
            step.as_str()
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn run(finish: Finish, stdout: &str, stderr: &str) -> Execution {
        Execution {
            finish,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            elapsed: Duration::from_secs(10),
        }
    }

    #[test]
    fn the_contract() {
        let ok = |stdout: &str| interpret(Step::Pre, &run(Finish::Exited(0), stdout, ""));
        assert_eq!(ok(""), Outcome::default());
        assert_eq!(
            ok("Migrations are append-only.\n").context.as_deref(),
            Some("Migrations are append-only.")
        );
        let json = ok(
            r#"{"tool_input": {"command": "git log -20"}, "decision": "allow", "reason": "short"}"#,
        );
        assert_eq!(json.patch.unwrap()["command"], "git log -20");
        assert_eq!(json.decision, Some(Permission::Allow));
        assert_eq!(json.reason.as_deref(), Some("short"));
        assert_eq!(ok("{not json").context.as_deref(), Some("{not json"));
        let odd = ok(r#"{"decision": "maybe", "tool_output": "x"}"#);
        assert_eq!(odd.decision, None);
        assert_eq!(odd.ignored.len(), 2, "{:?}", odd.ignored);

        let post = interpret(
            Step::Post,
            &run(
                Finish::Exited(0),
                r#"{"tool_output": "short", "context": "trimmed"}"#,
                "",
            ),
        );
        assert_eq!(post.tool_output, Some(Value::String("short".into())));
        assert_eq!(post.context.as_deref(), Some("trimmed"));

        let deny = interpret(
            Step::Pre,
            &run(
                Finish::Exited(2),
                "{\"context\": \"x\"}",
                "kubectl writes go through GitOps\n",
            ),
        );
        assert_eq!(
            (deny.decision, deny.reason.as_deref()),
            (
                Some(Permission::Deny),
                Some("kubectl writes go through GitOps")
            )
        );
        assert_eq!(deny.context, None, "stdout is not applied on exit 2");
        let block = interpret(Step::Post, &run(Finish::Exited(2), "", "tests failed"));
        assert_eq!(block.block.as_deref(), Some("tests failed"));

        let crash = interpret(
            Step::Pre,
            &run(
                Finish::Exited(1),
                "{\"decision\": \"deny\"}",
                "Traceback (most recent call last):\n  x",
            ),
        );
        assert_eq!(crash.decision, None, "a crash never denies");
        assert_eq!(crash.failure.as_deref(), Some("exit 1: x"));
        // Exit 2 is a decision only with a reason that is not an error message.
        for (stderr, failure) in [
            ("", "exit 2 with no reason on stderr"),
            (
                "/r/pre-bash-x.sh: line 3: syntax error near unexpected token `then'\n/r/pre-bash-x.sh: line 3: `if then'",
                "exit 2 from an error, not a decision: /r/pre-bash-x.sh: line 3: `if then'",
            ),
            (
                "ls: cannot access '/x': No such file or directory",
                "exit 2 from an error, not a decision: ls: cannot access '/x': No such file or directory",
            ),
            (
                "python3: can't open file '/r/x.py': [Errno 2] No such file or directory",
                "exit 2 from an error, not a decision: python3: can't open file '/r/x.py': [Errno 2] No such file or directory",
            ),
            (
                "bash: /r/x.sh: Permission denied",
                "exit 2 from an error, not a decision: bash: /r/x.sh: Permission denied",
            ),
        ] {
            for step in [Step::Pre, Step::Post] {
                let broken = interpret(step, &run(Finish::Exited(2), "", stderr));
                assert_eq!(broken.failure.as_deref(), Some(failure), "{stderr}");
                assert_eq!((broken.decision, broken.block), (None, None), "{stderr}");
            }
        }
        for reason in [
            "run plan first",
            "kubectl writes go through GitOps; use a read-only command (get, describe, logs)",
            "the line: 3 of the plan is missing",
        ] {
            let deny = interpret(Step::Pre, &run(Finish::Exited(2), "", reason));
            assert_eq!(deny.decision, Some(Permission::Deny), "{reason}");
        }
        assert!(interpret(Step::Pre, &run(Finish::TimedOut, "", ""))
            .failure
            .unwrap()
            .contains("timed out"));
        assert_eq!(
            interpret(Step::Pre, &run(Finish::PastDeadline, "", ""))
                .failure
                .as_deref(),
            Some("not started: the hook's deadline (HOOKDEX_HOOK_TIMEOUT_SEC) had passed")
        );
    }
}
