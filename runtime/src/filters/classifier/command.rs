//! The command provider (**contract**, SPEC §6): `HOOKDEX_CLASSIFIER_CMD`
//! is a command line, run as `sh -c "$HOOKDEX_CLASSIFIER_CMD"` (so it may
//! carry arguments, `~` and variables, as a user's shell would read it), in
//! the call's directory with the hook's environment, under the discipline
//! of a condition script ([`crate::exec::run_program`]: its own process
//! group, killed whole at the timeout).
//!
//! stdin is one JSON object, `{"intent", "question", "span", "reason",
//! "context", "path", "tool", "model"}` (`path` and `model` are `null`
//! when there is none). stdout is `{"answer": "yes"|"no"}` or a bare `yes`
//! or `no` (any case, surrounding whitespace ignored). Anything else, a
//! non-zero exit, a signal or the timeout is [`Unavailable`].

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

use super::{
    nonsense, Answer, Classifier, Failure, PromptQuestion, Provider, Question, Unavailable, Verdict,
};
use crate::exec::{self, Deadline, ExecConfig, Finish, Stdin};

/// Asks a command.
#[derive(Clone, Debug)]
pub struct CommandClassifier {
    command: String,
    config: ExecConfig,
}

impl CommandClassifier {
    /// Asks `command` (a `sh -c` command line), run in `cwd`, giving it
    /// `timeout` per question.
    pub fn new(command: String, cwd: PathBuf, timeout: Duration) -> CommandClassifier {
        CommandClassifier {
            command,
            config: ExecConfig {
                cwd,
                timeout,
                hook_timeout: timeout,
                max_parallel: 1,
            },
        }
    }
}

impl Classifier for CommandClassifier {
    fn ask(
        &self,
        question: &Question,
        model: Option<&str>,
        deadline: Deadline,
    ) -> Result<Answer, Unavailable> {
        self.exchange(payload(question, model), model, deadline, reply)
    }

    fn verdict(
        &self,
        question: &PromptQuestion,
        model: Option<&str>,
        deadline: Deadline,
    ) -> Result<Verdict, Unavailable> {
        let asked = json!({
            "kind": "prompt",
            "prompt": question.prompt,
            "event": question.event,
            "payload": question.payload,
            "model": model,
        });
        let read = |stdout: &[u8]| Verdict::read(std::str::from_utf8(stdout).ok()?);
        self.exchange(asked, model, deadline, read)
    }
}

impl CommandClassifier {
    /// Runs the command with `asked` on stdin and reads its stdout with
    /// `read`; every other way it ends is [`Unavailable`].
    fn exchange<T>(
        &self,
        asked: Value,
        model: Option<&str>,
        deadline: Deadline,
        read: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<T, Unavailable> {
        let stdin = Stdin::new(asked.to_string().into_bytes());
        let args = [OsString::from("-c"), OsString::from(&self.command)];
        let run = exec::run_program("sh", &args, &self.config, deadline, &stdin);
        let failure = match run.finish {
            Finish::Exited(0) => match read(&run.stdout) {
                Some(answer) => return Ok(answer),
                None => nonsense(&String::from_utf8_lossy(&run.stdout)),
            },
            Finish::Exited(code) => Failure::Exited(code),
            Finish::Signaled(signal) => Failure::Signaled(signal),
            Finish::TimedOut => Failure::TimedOut(self.config.timeout),
            Finish::NotStarted(err) => Failure::NotStarted(err),
            Finish::PastDeadline => return Err(Unavailable::PastDeadline),
        };
        Err(Unavailable::Failed {
            provider: Provider::Command,
            model: model.map(str::to_string),
            failure,
        })
    }
}

/// The JSON object the command reads on stdin.
pub fn payload(question: &Question, model: Option<&str>) -> Value {
    json!({
        "intent": question.intent,
        "question": question.question,
        "span": question.span,
        "reason": question.reason,
        "context": question.context,
        "path": question.path,
        "tool": question.tool,
        "model": model,
    })
}

/// The answer the command printed: `{"answer": "yes"|"no"}` or a bare word.
pub fn reply(stdout: &[u8]) -> Option<Answer> {
    let text = std::str::from_utf8(stdout).ok()?.trim();
    if text.starts_with('{') {
        let value: Value = serde_json::from_str(text).ok()?;
        return Answer::from_word(value.get("answer")?.as_str()?.trim());
    }
    Answer::from_word(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let table: &[(&str, Option<Answer>)] = &[
            ("yes", Some(Answer::Yes)),
            ("no\n", Some(Answer::No)),
            ("  YES \n", Some(Answer::Yes)),
            (r#"{"answer": "yes"}"#, Some(Answer::Yes)),
            ("{\"answer\":\"No\"}\n", Some(Answer::No)),
            (r#"{"answer": "yes", "why": "tail"}"#, Some(Answer::Yes)),
            (r#"{"answer": true}"#, None),
            (r#"{"verdict": "yes"}"#, None),
            (r#"["yes"]"#, None),
            ("{\"answer\": \"yes\"", None),
            ("yes, it does", None),
            ("yes\nno", None),
            ("", None),
            ("\u{feff}yes", None),
        ];
        for (stdout, answer) in table {
            assert_eq!(reply(stdout.as_bytes()), *answer, "{stdout:?}");
        }
        assert_eq!(reply(b"\xffyes"), None);
    }

    #[test]
    fn the_payload_has_every_contract_key_in_order() {
        let question = Question {
            intent: "i".into(),
            question: "q".into(),
            span: "s".into(),
            reason: "r".into(),
            context: "c".into(),
            path: None,
            tool: "Edit".into(),
        };
        assert_eq!(
            payload(&question, Some("m")).to_string(),
            r#"{"intent":"i","question":"q","span":"s","reason":"r","context":"c","path":null,"tool":"Edit","model":"m"}"#
        );
        assert_eq!(payload(&question, None)["model"], Value::Null);
    }
}
