//! The endpoint provider: an OpenAI-compatible chat-completions endpoint at
//! `HOOKDEX_CLASSIFIER_URL`, asked through `ureq` (blocking, rustls,
//! certificates checked against the system's trust store, so a CA the
//! administrator installed, such as a company proxy's, is trusted; with no
//! system store an `https` endpoint is unreachable). One POST per question: `{"model", "messages":
//! [system, user]}` (no `model` key when none is configured), with
//! `Authorization: Bearer KEY` when `HOOKDEX_CLASSIFIER_KEY` is set. The
//! answer is the first word of `choices[0].message.content`, punctuation
//! trimmed, `yes` or `no` in any case; anything else, a status other than
//! 2xx, a redirect, a body over 1 MiB, no connection within 2 s or no reply
//! within the timeout is [`Unavailable`].
//!
//! Proxies come from the usual variables (`HTTPS_PROXY`, `NO_PROXY`, …),
//! except for a loopback host, which is always reached directly.

use std::time::Duration;

use serde_json::{json, Value};
use ureq::http::Uri;
use ureq::tls::{RootCerts, TlsConfig};
use ureq::Agent;

use super::{
    nonsense, Answer, Classifier, Failure, PromptQuestion, Provider, Question, Unavailable, Verdict,
};
use crate::exec::Deadline;
use crate::settings::Secret;

/// The longest wait for a connection, within the question's timeout.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The largest reply body read.
const MAX_BODY: u64 = 1 << 20;

/// What the model is told to do.
pub const SYSTEM_PROMPT: &str = "You judge one finding in text that an AI coding agent is \
about to write, against the intent of the filter that flagged it. Answer the question with \
exactly one word: yes or no.";

/// Asks an OpenAI-compatible chat-completions endpoint.
#[derive(Debug)]
pub struct HttpClassifier {
    url: String,
    key: Option<Secret>,
    timeout: Duration,
    agent: Agent,
}

impl HttpClassifier {
    /// Asks the endpoint at `url`, sending `key` as a bearer token when
    /// there is one, giving each question `timeout` at most.
    pub fn new(url: String, key: Option<Secret>, timeout: Duration) -> HttpClassifier {
        let direct = url.parse::<Uri>().ok().is_some_and(|uri| loopback(&uri));
        let mut config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .user_agent(concat!("hookdex/", env!("CARGO_PKG_VERSION")))
            .tls_config(
                TlsConfig::builder()
                    .root_certs(RootCerts::PlatformVerifier)
                    .build(),
            );
        if direct {
            config = config.proxy(None);
        }
        HttpClassifier {
            url,
            key,
            timeout,
            agent: config.build().into(),
        }
    }

    /// The endpoint as the log names it: its host and port, nothing that
    /// may carry a secret.
    fn provider(&self) -> Provider {
        let host = self
            .url
            .parse::<Uri>()
            .ok()
            .and_then(|uri| uri.authority().map(|a| a.as_str().to_string()))
            .map(|authority| authority.rsplit('@').next().unwrap_or_default().to_string())
            .unwrap_or_else(|| "an unparsable URL".to_string());
        Provider::Endpoint { host }
    }

    /// The reply body of one POST within `budget`.
    fn post(&self, body: &[u8], budget: Duration) -> Result<String, Failure> {
        let timed_out = |err: &ureq::Error| matches!(err, ureq::Error::Timeout(_));
        let fail = |err: ureq::Error| match timed_out(&err) {
            true => Failure::TimedOut(budget),
            false => Failure::Unreachable(err.to_string()),
        };
        let mut request = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(budget))
            .build()
            .header("Content-Type", "application/json");
        if let Some(key) = &self.key {
            request = request.header("Authorization", format!("Bearer {}", key.expose()));
        }
        let mut response = request.send(body).map_err(fail)?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(Failure::Status(status));
        }
        response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(fail)
    }
}

impl Classifier for HttpClassifier {
    fn ask(
        &self,
        question: &Question,
        model: Option<&str>,
        deadline: Deadline,
    ) -> Result<Answer, Unavailable> {
        let body = request(question, model);
        self.exchange(&body, model, deadline, first_word)
    }

    fn verdict(
        &self,
        question: &PromptQuestion,
        model: Option<&str>,
        deadline: Deadline,
    ) -> Result<Verdict, Unavailable> {
        let mut body = json!({
            "messages": [
                {"role": "system", "content": format!("{JUDGE_PROMPT}\n\nRule:\n{}", question.prompt)},
                {"role": "user", "content": format!("Event:\n{}", question.payload)},
            ],
        });
        if let Some(model) = model {
            body["model"] = Value::from(model);
        }
        self.exchange(&body, model, deadline, Verdict::read)
    }
}

/// The judge instructions of a `prompt` hook, before its rule.
pub const JUDGE_PROMPT: &str = "You are a hook judge for an AI coding agent. Decide whether the \
event below breaks the rule that follows. Answer with one JSON object only: {\"ok\": true} when \
the rule allows it or does not apply, or {\"ok\": false, \"reason\": \"...\"} when it breaks it.";

impl HttpClassifier {
    /// Posts `body` within the deadline and reads the reply's content
    /// with `read`; every other way it ends is [`Unavailable`].
    fn exchange<T>(
        &self,
        body: &Value,
        model: Option<&str>,
        deadline: Deadline,
        read: impl Fn(&str) -> Option<T>,
    ) -> Result<T, Unavailable> {
        let budget = deadline
            .remaining()
            .map_or(self.timeout, |left| left.min(self.timeout));
        if budget.is_zero() {
            return Err(Unavailable::PastDeadline);
        }
        self.post(body.to_string().as_bytes(), budget)
            .and_then(|reply| content(&reply).ok_or_else(|| nonsense(&reply)))
            .and_then(|text| read(&text).ok_or_else(|| nonsense(&text)))
            .map_err(|failure| Unavailable::Failed {
                provider: self.provider(),
                model: model.map(str::to_string),
                failure,
            })
    }
}

/// Whether `uri` names this machine (`localhost`, `127.0.0.0/8`, `::1`).
fn loopback(uri: &Uri) -> bool {
    let Some(host) = uri.host() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The chat-completions request for `question`.
pub fn request(question: &Question, model: Option<&str>) -> Value {
    let mut request = json!({
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt(question)},
        ],
    });
    if let Some(model) = model {
        request["model"] = Value::from(model);
    }
    request
}

/// The user message: the question with everything it is about.
pub fn prompt(question: &Question) -> String {
    let mut text = format!(
        "Filter intent: {}\n\nFinding: {}\nWhy it was flagged: {}\n\nEnclosing lines:\n{}\n\n",
        question.intent, question.span, question.reason, question.context
    );
    if let Some(path) = &question.path {
        text.push_str(&format!("File: {path}\n"));
    }
    text.push_str(&format!(
        "Tool: {}\n\nQuestion: {}\nAnswer yes or no.",
        question.tool, question.question
    ));
    text
}

/// `choices[0].message.content` of a chat-completions reply.
pub fn content(reply: &str) -> Option<String> {
    let value: Value = serde_json::from_str(reply).ok()?;
    let text = value.pointer("/choices/0/message/content")?.as_str()?;
    Some(text.to_string())
}

/// The answer the first word of `text` spells, punctuation around it
/// trimmed (`Yes.`, `**No**`, `"yes"`).
pub fn first_word(text: &str) -> Option<Answer> {
    let word = text.split_whitespace().next()?;
    Answer::from_word(word.trim_matches(|c: char| c.is_ascii_punctuation()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words() {
        let table = [
            ("yes", Some(Answer::Yes)),
            ("Yes.", Some(Answer::Yes)),
            ("  NO, because it explains", Some(Answer::No)),
            ("**No**", Some(Answer::No)),
            ("\"yes\"\n", Some(Answer::Yes)),
            ("yes-ish", None),
            ("Yesterday", None),
            ("Maybe yes", None),
            ("", None),
            ("...", None),
        ];
        for (text, answer) in table {
            assert_eq!(first_word(text), answer, "{text:?}");
        }
    }

    #[test]
    fn contents() {
        let reply = r#"{"choices":[{"message":{"role":"assistant","content":"No."}}]}"#;
        assert_eq!(content(reply).as_deref(), Some("No."));
        for nonsense in [
            "",
            "not json",
            r#"{"choices":[]}"#,
            r#"{"choices":[{"message":{"content":null}}]}"#,
            r#"{"error":{"message":"quota"}}"#,
        ] {
            assert_eq!(content(nonsense), None, "{nonsense}");
        }
    }

    #[test]
    fn the_request_carries_the_question_and_the_model_when_there_is_one() {
        let question = Question {
            intent: "plain words".into(),
            question: "Against it?".into(),
            span: "; because".into(),
            reason: "explanation tail".into(),
            context: "x = \"a; because\"".into(),
            path: Some("ui.py".into()),
            tool: "Edit".into(),
        };
        let with = request(&question, Some("small"));
        assert_eq!(with["model"], "small");
        assert_eq!(with["messages"][0]["role"], "system");
        let user = with["messages"][1]["content"].as_str().unwrap();
        for part in [
            "plain words",
            "Against it?",
            "; because",
            "explanation tail",
            "x = \"a; because\"",
            "ui.py",
            "Edit",
        ] {
            assert!(user.contains(part), "{part} missing from {user}");
        }
        assert!(request(&question, None).get("model").is_none());
    }

    #[test]
    fn loopback_hosts_and_what_the_log_names() {
        let table = [
            ("http://127.0.0.1:8080/v1/chat/completions", true),
            ("http://localhost/v1", true),
            ("http://[::1]:9/x", true),
            ("https://api.example.com/v1/chat/completions", false),
            ("http://10.0.0.1/", false),
        ];
        for (url, direct) in table {
            assert_eq!(loopback(&url.parse().unwrap()), direct, "{url}");
        }
        let named =
            |url: &str| HttpClassifier::new(url.into(), None, Duration::from_secs(1)).provider();
        assert_eq!(
            named("https://user:pw@api.example.com:8443/v1?key=sk"),
            Provider::Endpoint {
                host: "api.example.com:8443".into()
            }
        );
        assert_eq!(
            named("not a url"),
            Provider::Endpoint {
                host: "an unparsable URL".into()
            }
        );
    }
}
