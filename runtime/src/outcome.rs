//! What one condition said, read from its exit code and stdout by the
//! agentihooks contract: nothing, plain text (context), or a JSON object with
//! `context`, `tool_input`, `tool_output`, `decision` and `reason`; exit 2
//! denies (pre) or blocks (post) with stderr as the reason; anything else
//! skips the condition with a note.

use hookdex_model::{Permission, Step};
use serde_json::{Map, Value};

use crate::exec::{Execution, Finish};

/// One condition's effect.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Text for the agent's context.
    pub context: Option<String>,
    /// A shallow patch over the tool input (pre).
    pub patch: Option<Map<String, Value>>,
    /// A replacement tool result (post).
    pub tool_output: Option<Value>,
    /// A permission decision.
    pub decision: Option<Permission>,
    /// The reason attached to the decision.
    pub reason: Option<String>,
    /// Post only: exit 2, blocking with this reason.
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
            let reason = (!reason.is_empty()).then_some(reason);
            if step.decides_permission() {
                Outcome {
                    decision: Some(Permission::Deny),
                    reason,
                    ..Outcome::default()
                }
            } else {
                Outcome {
                    block: Some(reason.unwrap_or_default()),
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
    }
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
        assert!(interpret(Step::Pre, &run(Finish::TimedOut, "", ""))
            .failure
            .unwrap()
            .contains("timed out"));
    }
}
