//! The decision classifier: one yes or no question per finding, answered
//! from the answer cache ([`crate::state::answers`]) when it can be, else
//! asked of the configured provider, a command ([`command`]) or an
//! OpenAI-compatible endpoint ([`http`]), a few questions at a time. Every
//! way of getting no answer is [`Unavailable`], which the filter treats as
//! a pass, logging `filter passed: classifier unavailable (<reason>)`.
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use hookdex_runtime::exec::Deadline;
//! use hookdex_runtime::filters::classifier::{judge, Answer, Question};
//! use hookdex_runtime::settings::Settings;
//!
//! let cwd = std::env::current_dir().unwrap();
//! let settings = Settings::from_env(hookdex_model::Target::Claude, &cwd);
//! let question = Question {
//!     intent: "User-facing text never explains how a value was computed.".into(),
//!     question: "Does this finding go against the filter intent?".into(),
//!     span: "; Claude has 3 free seats".into(),
//!     reason: "explanation tail".into(),
//!     context: "reason += f\"; Claude has 3 free seats\"".into(),
//!     path: Some("scripts/swarm/capacity.py".into()),
//!     tool: "Edit".into(),
//! };
//! let deadline = Deadline::after(Instant::now(), Duration::from_secs(10));
//! match &judge(&settings, &[question], deadline)[0] {
//!     Ok(Answer::Yes) => println!("send it back"),
//!     Ok(Answer::No) => println!("it passes"),
//!     Err(why) => println!("filter passed: classifier unavailable ({why})"),
//! }
//! ```

pub mod command;
pub mod http;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::exec::Deadline;
use crate::settings::Settings;
use crate::state::answers::{AnswerCache, AnswerKey};

// The answer lives with its cache, which spells it on disk.
pub use self::command::CommandClassifier;
pub use self::http::HttpClassifier;
pub use crate::state::answers::Answer;

/// Questions asked at once, at most.
pub const MAX_CONCURRENT: usize = 4;

/// One yes or no question about one finding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Question {
    /// What the text must be, in plain words (the filter's `intent`).
    pub intent: String,
    /// The yes or no wording (the filter's `question`).
    pub question: String,
    /// The finding: the text a finder flagged.
    pub span: String,
    /// Why the finder flagged it.
    pub reason: String,
    /// The lines that enclose the span.
    pub context: String,
    /// The file the text goes to, when the tool names one.
    pub path: Option<String>,
    /// The tool (or synthetic tool) the text is for.
    pub tool: String,
}

impl Question {
    /// The cache key of this question under the model set `models`: a hash
    /// of the intent, question, span, reason, enclosing lines and models
    /// (not the path or the tool, so one answer serves every file).
    pub fn key(&self, models: &[String]) -> AnswerKey {
        let count = models.len().to_string();
        let fields = [
            &self.intent,
            &self.question,
            &self.span,
            &self.reason,
            &self.context,
        ];
        AnswerKey::of(
            fields
                .into_iter()
                .map(String::as_str)
                .chain([count.as_str()])
                .chain(models.iter().map(String::as_str)),
        )
    }
}

/// Which provider gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// The command of `HOOKDEX_CLASSIFIER_CMD` (not repeated: it may carry
    /// a secret).
    Command,
    /// The endpoint of `HOOKDEX_CLASSIFIER_URL`, by its host and port only
    /// (its path or query may carry a secret).
    Endpoint {
        /// `host[:port]`.
        host: String,
    },
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provider::Command => f.write_str("`HOOKDEX_CLASSIFIER_CMD`"),
            Provider::Endpoint { host } => write!(f, "`HOOKDEX_CLASSIFIER_URL` at `{host}`"),
        }
    }
}

/// What went wrong asking one provider one question.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// No answer within this time (its process group was killed, or the
    /// request abandoned).
    TimedOut(Duration),
    /// The command could not be started.
    NotStarted(String),
    /// The command exited with this non-zero code.
    Exited(i32),
    /// A signal ended the command.
    Signaled(i32),
    /// The endpoint could not be reached or the exchange broke off.
    Unreachable(String),
    /// The endpoint answered with this HTTP status, not a success.
    Status(u16),
    /// The reply was neither yes nor no; this is its start.
    Nonsense(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::TimedOut(after) => write!(f, "no answer within {after:?}"),
            Failure::NotStarted(err) => write!(f, "could not be started: {err}"),
            Failure::Exited(code) => write!(f, "exited with {code}"),
            Failure::Signaled(signal) => write!(f, "ended by signal {signal}"),
            Failure::Unreachable(err) => write!(f, "unreachable: {err}"),
            Failure::Status(status) => write!(f, "answered HTTP {status}"),
            Failure::Nonsense(start) => write!(f, "answered neither yes nor no: `{start}`"),
        }
    }
}

/// Why a question has no answer: the filter passes the text and logs this.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unavailable {
    /// Neither `HOOKDEX_CLASSIFIER_CMD` nor `HOOKDEX_CLASSIFIER_URL` is set.
    NotConfigured,
    /// The hook's deadline had passed before the question was asked.
    PastDeadline,
    /// The provider was asked (`model`, when one is configured) and gave
    /// no answer.
    Failed {
        /// Which provider.
        provider: Provider,
        /// The model asked.
        model: Option<String>,
        /// What went wrong.
        failure: Failure,
    },
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::NotConfigured => f.write_str(
                "no classifier configured: set `HOOKDEX_CLASSIFIER_CMD` or `HOOKDEX_CLASSIFIER_URL`",
            ),
            Unavailable::PastDeadline => {
                f.write_str("the hook's deadline (`HOOKDEX_HOOK_TIMEOUT_SEC`) had passed")
            }
            Unavailable::Failed {
                provider,
                model: Some(model),
                failure,
            } => write!(f, "{provider}, model `{model}`: {failure}"),
            Unavailable::Failed {
                provider,
                model: None,
                failure,
            } => write!(f, "{provider}: {failure}"),
        }
    }
}

impl Unavailable {
    /// The hook log's note for a text passed because of this:
    /// `filter passed: classifier unavailable (<reason>)`.
    pub fn note(&self) -> String {
        format!("filter passed: classifier unavailable ({self})")
    }
}

impl std::error::Error for Unavailable {}

/// The text that starts a nonsense reply, for [`Failure::Nonsense`]: its
/// first 60 characters on one line.
pub(crate) fn nonsense(reply: &str) -> Failure {
    let start: String = reply
        .trim()
        .chars()
        .take(60)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    Failure::Nonsense(start)
}

/// A `prompt` hook's question (**contract**, SPEC §9): its rule, the event
/// and the payload the hook was called with.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptQuestion {
    /// The hook's `prompt`: the rule to judge the event against.
    pub prompt: String,
    /// The event, in Claude Code's spelling.
    pub event: String,
    /// The payload, as a command hook would read it.
    pub payload: serde_json::Value,
}

/// A judge's answer to a [`PromptQuestion`]: `ok: false` blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the event may go on.
    pub ok: bool,
    /// Why, when the judge says.
    pub reason: Option<String>,
}

impl Verdict {
    /// The verdict in a judge's reply text: the whole text as
    /// `{"ok": bool, "reason"?: string}`, else the slice from its first
    /// `{` to its last `}` (BioRouter's reading: fences and prose around
    /// one object are fine). `ok` must be a JSON boolean.
    pub fn read(text: &str) -> Option<Verdict> {
        let text = text.trim();
        let parse = |s: &str| -> Option<Verdict> {
            let value: serde_json::Value = serde_json::from_str(s).ok()?;
            Some(Verdict {
                ok: value.get("ok")?.as_bool()?,
                reason: value
                    .get("reason")
                    .and_then(serde_json::Value::as_str)
                    .filter(|r| !r.trim().is_empty())
                    .map(String::from),
            })
        };
        parse(text).or_else(|| {
            let (start, end) = (text.find('{')?, text.rfind('}')?);
            (start < end).then(|| parse(&text[start..=end])).flatten()
        })
    }
}

/// Something that answers yes or no.
pub trait Classifier: Sync {
    /// Asks `question` of `model` (`None`: the provider's default), giving
    /// up at `deadline`.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] for every way of getting no definite answer.
    fn ask(
        &self,
        question: &Question,
        model: Option<&str>,
        deadline: Deadline,
    ) -> Result<Answer, Unavailable>;

    /// Judges a `prompt` hook's `question` with `model` (`None`: the
    /// provider's default), giving up at `deadline`.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] for every way of getting no verdict; a provider
    /// that cannot judge prompt hooks has none.
    fn verdict(
        &self,
        question: &PromptQuestion,
        model: Option<&str>,
        deadline: Deadline,
    ) -> Result<Verdict, Unavailable> {
        let _ = (question, model, deadline);
        Err(Unavailable::NotConfigured)
    }
}

/// The provider `settings` configure: the command when
/// `HOOKDEX_CLASSIFIER_CMD` is set, else the endpoint when
/// `HOOKDEX_CLASSIFIER_URL` is, else none.
pub fn provider(settings: &Settings) -> Option<Box<dyn Classifier>> {
    provider_with_timeout(settings, settings.classifier.timeout)
}

/// [`provider`] with `timeout` per question in place of
/// `HOOKDEX_CLASSIFIER_TIMEOUT_SEC` (a `prompt` hook's own `timeout`).
pub fn provider_with_timeout(
    settings: &Settings,
    timeout: Duration,
) -> Option<Box<dyn Classifier>> {
    let classifier = &settings.classifier;
    if let Some(command) = &classifier.command {
        let cwd = settings.exec.cwd.clone();
        return Some(Box::new(CommandClassifier::new(
            command.clone(),
            cwd,
            timeout,
        )));
    }
    let url = classifier.url.as_ref()?;
    Some(Box::new(HttpClassifier::new(
        url.clone(),
        classifier.key.clone(),
        timeout,
    )))
}

/// Asks `questions` as `settings` configure: a [`Judge`] with the
/// configured provider, models and cache under `$HOOKDEX_HOME`. One result
/// per question, in order.
pub fn judge(
    settings: &Settings,
    questions: &[Question],
    deadline: Deadline,
) -> Vec<Result<Answer, Unavailable>> {
    Judge::from_settings(settings).judge(questions, deadline)
}

/// A provider, the model set and the answer cache: everything that answers
/// a batch of questions.
pub struct Judge {
    classifier: Option<Box<dyn Classifier>>,
    models: Vec<String>,
    cache: AnswerCache,
}

impl Judge {
    /// A judge asking `classifier` (none: every uncached question is
    /// [`Unavailable::NotConfigured`]) each of `models` in order, and
    /// keeping its answers in `cache`.
    pub fn new(
        classifier: Option<Box<dyn Classifier>>,
        models: Vec<String>,
        cache: AnswerCache,
    ) -> Judge {
        Judge {
            classifier,
            models,
            cache,
        }
    }

    /// The judge `settings` configure.
    pub fn from_settings(settings: &Settings) -> Judge {
        let classifier = &settings.classifier;
        Judge::new(
            provider(settings),
            classifier.models.clone(),
            AnswerCache::new(&settings.view.home, classifier.cache_ttl),
        )
    }

    /// The cache key of `question` under this judge's model set.
    pub fn key(&self, question: &Question) -> AnswerKey {
        question.key(&self.models)
    }

    /// The answer cached for `question`, asking nothing (for `explain`).
    pub fn cached(&self, question: &Question) -> Option<Answer> {
        self.cache.get(&self.key(question))
    }

    /// One result per question, in order. Cached answers are used as they
    /// are; each other distinct question is asked once, at most
    /// [`MAX_CONCURRENT`] at a time and none after `deadline`; each model in
    /// turn until one answers (the last failure is the reason when none
    /// does). A model that fails other than by nonsense is not asked again
    /// during this call. Definite answers are cached; unavailability never
    /// is. When every question is cached, nothing is asked.
    pub fn judge(
        &self,
        questions: &[Question],
        deadline: Deadline,
    ) -> Vec<Result<Answer, Unavailable>> {
        let keys: Vec<AnswerKey> = questions.iter().map(|q| self.key(q)).collect();
        let mut results: Vec<Option<Result<Answer, Unavailable>>> =
            keys.iter().map(|key| self.cache.get(key).map(Ok)).collect();
        // The first question of each uncached key is asked for all of them.
        let mut first: HashMap<AnswerKey, usize> = HashMap::new();
        let asks: Vec<usize> = (0..keys.len())
            .filter(|&i| results[i].is_none() && *first.entry(keys[i]).or_insert(i) == i)
            .collect();
        for (i, result) in self.ask_all(questions, &asks, deadline) {
            if let Ok(answer) = result {
                let _ = self.cache.put(&keys[i], answer);
            }
            results[i] = Some(result);
        }
        (0..keys.len())
            .map(|i| {
                let asked = || results[first[&keys[i]]].clone();
                results[i]
                    .clone()
                    .or_else(asked)
                    .expect("every key was asked")
            })
            .collect()
    }

    /// Asks the questions at `asks` (indices into `questions`), at most
    /// [`MAX_CONCURRENT`] at once; their results in no particular order.
    fn ask_all(
        &self,
        questions: &[Question],
        asks: &[usize],
        deadline: Deadline,
    ) -> Vec<(usize, Result<Answer, Unavailable>)> {
        let Some(classifier) = &self.classifier else {
            return asks
                .iter()
                .map(|&i| (i, Err(Unavailable::NotConfigured)))
                .collect();
        };
        let models = self.models_to_ask();
        let down: Vec<OnceLock<Unavailable>> = models.iter().map(|_| OnceLock::new()).collect();
        let asker = Asker {
            classifier: classifier.as_ref(),
            models: &models,
            down: &down,
        };
        let next = AtomicUsize::new(0);
        let results = Mutex::new(Vec::with_capacity(asks.len()));
        std::thread::scope(|scope| {
            for _ in 0..MAX_CONCURRENT.min(asks.len()) {
                scope.spawn(|| {
                    while let Some(&i) = asks.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let result = asker.ask(&questions[i], deadline);
                        lock(&results).push((i, result));
                    }
                });
            }
        });
        results.into_inner().unwrap_or_else(|p| p.into_inner())
    }

    /// The models to ask in turn: the configured ones, or the provider's
    /// default when none is.
    fn models_to_ask(&self) -> Vec<Option<&str>> {
        match self.models.is_empty() {
            true => vec![None],
            false => self.models.iter().map(|m| Some(m.as_str())).collect(),
        }
    }
}

/// One batch's view of the provider: the models in turn and which of them
/// are down for the rest of the batch.
struct Asker<'a> {
    classifier: &'a dyn Classifier,
    models: &'a [Option<&'a str>],
    down: &'a [OnceLock<Unavailable>],
}

impl Asker<'_> {
    /// The first definite answer of the models in turn, or the last reason
    /// there was none.
    fn ask(&self, question: &Question, deadline: Deadline) -> Result<Answer, Unavailable> {
        let mut last = Unavailable::PastDeadline;
        for (model, down) in self.models.iter().zip(self.down) {
            if deadline.passed() {
                return Err(Unavailable::PastDeadline);
            }
            if let Some(why) = down.get() {
                last = why.clone();
                continue;
            }
            match self.classifier.ask(question, *model, deadline) {
                Ok(answer) => return Ok(answer),
                Err(why) => {
                    if trips(&why) {
                        let _ = down.set(why.clone());
                    }
                    last = why;
                }
            }
        }
        Err(last)
    }
}

/// Whether `why` says the model is down for every question, not just
/// this one (a nonsense reply may be this question's alone).
fn trips(why: &Unavailable) -> bool {
    !matches!(
        why,
        Unavailable::Failed {
            failure: Failure::Nonsense(_),
            ..
        } | Unavailable::PastDeadline
    )
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A classifier that answers from a table of spans, counting its asks
    /// and the most it was asked at once.
    #[derive(Default)]
    struct Fake {
        asked: Mutex<Vec<(String, Option<String>)>>,
        running: AtomicUsize,
        most: AtomicUsize,
        pause: Duration,
    }

    impl Classifier for Fake {
        fn ask(
            &self,
            question: &Question,
            model: Option<&str>,
            _deadline: Deadline,
        ) -> Result<Answer, Unavailable> {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(self.pause);
            self.running.fetch_sub(1, Ordering::SeqCst);
            lock(&self.asked).push((question.span.clone(), model.map(str::to_string)));
            let failed = |failure| Unavailable::Failed {
                provider: Provider::Command,
                model: model.map(str::to_string),
                failure,
            };
            let span = question.span.as_str();
            match model {
                Some("down") => Err(failed(Failure::Exited(1))),
                Some("babbles") => Err(failed(nonsense("well,\nperhaps"))),
                _ if span.starts_with("yes") => Ok(Answer::Yes),
                _ if span.starts_with("no") => Ok(Answer::No),
                _ => Err(failed(nonsense("maybe"))),
            }
        }
    }

    fn question(span: &str) -> Question {
        Question {
            intent: "plain".into(),
            question: "against it?".into(),
            span: span.into(),
            ..Question::default()
        }
    }

    fn never() -> Deadline {
        Deadline::after(Instant::now(), Duration::MAX)
    }

    /// A judge over `fake` with `models`, caching under a fresh home.
    fn judge_with(fake: Fake, models: &[&str]) -> (tempfile::TempDir, Judge, &'static Fake) {
        let home = tempfile::tempdir().unwrap();
        let fake: &'static Fake = Box::leak(Box::new(fake));
        let judge = Judge::new(
            Some(Box::new(Shared(fake))),
            models.iter().map(|m| m.to_string()).collect(),
            AnswerCache::new(home.path(), Duration::from_secs(3600)),
        );
        (home, judge, fake)
    }

    /// Lends a [`Fake`] to a judge while the test keeps reading it.
    struct Shared(&'static Fake);

    impl Classifier for Shared {
        fn ask(&self, q: &Question, m: Option<&str>, d: Deadline) -> Result<Answer, Unavailable> {
            self.0.ask(q, m, d)
        }
    }

    fn spans(fake: &Fake) -> Vec<String> {
        let mut asked: Vec<String> = lock(&fake.asked).iter().map(|a| a.0.clone()).collect();
        asked.sort();
        asked
    }

    #[test]
    fn words() {
        let table = [
            ("yes", Some(Answer::Yes)),
            ("YES", Some(Answer::Yes)),
            ("No", Some(Answer::No)),
            ("yes.", None),
            (" no", None),
            ("", None),
            ("nope", None),
        ];
        for (word, answer) in table {
            assert_eq!(Answer::from_word(word), answer, "{word:?}");
        }
        assert_eq!(Answer::Yes.word(), "yes");
    }

    #[test]
    fn every_part_of_the_question_but_path_and_tool_is_in_the_key() {
        let base = Question {
            intent: "i".into(),
            question: "q".into(),
            span: "s".into(),
            reason: "r".into(),
            context: "c".into(),
            path: Some("a.py".into()),
            tool: "Edit".into(),
        };
        let key = base.key(&[]);
        let changed = [
            Question {
                intent: "I".into(),
                ..base.clone()
            },
            Question {
                question: "Q".into(),
                ..base.clone()
            },
            Question {
                span: "S".into(),
                ..base.clone()
            },
            Question {
                reason: "R".into(),
                ..base.clone()
            },
            Question {
                context: "C".into(),
                ..base.clone()
            },
        ];
        for other in &changed {
            assert_ne!(other.key(&[]), key, "{other:?}");
        }
        let elsewhere = Question {
            path: None,
            tool: "Write".into(),
            ..base.clone()
        };
        assert_eq!(elsewhere.key(&[]), key);
        let models =
            |names: &[&str]| base.key(&names.iter().map(|m| m.to_string()).collect::<Vec<_>>());
        assert_ne!(models(&["a"]), key);
        assert_ne!(models(&["a", "b"]), models(&["b", "a"]));
        assert_ne!(models(&["a,b"]), models(&["a", "b"]));
    }

    #[test]
    fn reasons_read_as_log_lines() {
        let table = [
            (
                Unavailable::NotConfigured,
                "no classifier configured: set `HOOKDEX_CLASSIFIER_CMD` or `HOOKDEX_CLASSIFIER_URL`",
            ),
            (
                Unavailable::Failed {
                    provider: Provider::Endpoint {
                        host: "127.0.0.1:9".into(),
                    },
                    model: Some("small".into()),
                    failure: Failure::Status(500),
                },
                "`HOOKDEX_CLASSIFIER_URL` at `127.0.0.1:9`, model `small`: answered HTTP 500",
            ),
            (
                Unavailable::Failed {
                    provider: Provider::Command,
                    model: None,
                    failure: nonsense("  I think\tso, because\n"),
                },
                "`HOOKDEX_CLASSIFIER_CMD`: answered neither yes nor no: `I think so, because`",
            ),
        ];
        for (why, text) in table {
            assert_eq!(why.to_string(), text);
        }
        assert_eq!(
            Unavailable::PastDeadline.note(),
            "filter passed: classifier unavailable \
             (the hook's deadline (`HOOKDEX_HOOK_TIMEOUT_SEC`) had passed)"
        );
    }

    #[test]
    fn without_a_provider_every_uncached_question_is_unavailable() {
        let home = tempfile::tempdir().unwrap();
        let cache = AnswerCache::new(home.path(), Duration::from_secs(60));
        cache.put(&question("known").key(&[]), Answer::No).unwrap();
        let judge = Judge::new(None, Vec::new(), cache);
        let results = judge.judge(&[question("known"), question("new")], never());
        assert_eq!(results, [Ok(Answer::No), Err(Unavailable::NotConfigured)]);
    }

    #[test]
    fn only_uncached_distinct_questions_are_asked_and_only_answers_are_cached() {
        let (_home, judge, fake) = judge_with(Fake::default(), &[]);
        let batch = [
            question("yes"),
            question("no"),
            question("yes"),
            question("lost"),
        ];
        let results = judge.judge(&batch, never());
        assert_eq!(results[0], Ok(Answer::Yes));
        assert_eq!(results[1], Ok(Answer::No));
        assert_eq!(results[2], Ok(Answer::Yes));
        assert!(results[3].is_err());
        assert_eq!(spans(fake), ["lost", "no", "yes"]);
        assert_eq!(judge.cached(&question("yes")), Some(Answer::Yes));
        assert_eq!(judge.cached(&question("lost")), None);
        // Again: the answers come from the cache; only the lost one is asked.
        lock(&fake.asked).clear();
        let again = judge.judge(&batch, never());
        assert_eq!(&again[..3], &results[..3]);
        assert_eq!(spans(fake), ["lost"]);
        lock(&fake.asked).clear();
        judge.judge(&batch[..3], never());
        assert!(spans(fake).is_empty(), "every finding cached asks nothing");
    }

    #[test]
    fn at_most_four_are_asked_at_once() {
        let fake = Fake {
            pause: Duration::from_millis(30),
            ..Fake::default()
        };
        let (_home, judge, fake) = judge_with(fake, &[]);
        let batch: Vec<Question> = (0..12).map(|i| question(&format!("q{i}"))).collect();
        judge.judge(&batch, never());
        assert_eq!(lock(&fake.asked).len(), 12);
        assert!(fake.most.load(Ordering::SeqCst) <= MAX_CONCURRENT);
        assert!(fake.most.load(Ordering::SeqCst) > 1);
    }

    /// How many times `model` was asked.
    fn asked_of(fake: &Fake, model: &str) -> usize {
        let asked = lock(&fake.asked);
        asked
            .iter()
            .filter(|a| a.1.as_deref() == Some(model))
            .count()
    }

    #[test]
    fn models_are_asked_in_turn_until_one_answers() {
        let (_home, judge, fake) = judge_with(Fake::default(), &["babbles", "good"]);
        let batch = [question("yes"), question("no"), question("unsure")];
        let results = judge.judge(&batch, never());
        assert_eq!(results[0], Ok(Answer::Yes));
        assert_eq!(results[1], Ok(Answer::No));
        // Neither answered: the last model's failure is the reason.
        let last = Unavailable::Failed {
            provider: Provider::Command,
            model: Some("good".into()),
            failure: Failure::Nonsense("maybe".into()),
        };
        assert_eq!(results[2], Err(last));
        // Nonsense is one question's: `babbles` was asked every time.
        assert_eq!(asked_of(fake, "babbles"), 3);
        assert_eq!(asked_of(fake, "good"), 3);
    }

    #[test]
    fn a_model_that_is_down_is_not_asked_again_in_the_batch() {
        let fake = Fake {
            pause: Duration::from_millis(10),
            ..Fake::default()
        };
        let (_home, judge, fake) = judge_with(fake, &["down", "good"]);
        let batch: Vec<Question> = (0..12).map(|i| question(&format!("yes{i}"))).collect();
        let results = judge.judge(&batch, never());
        assert!(results.iter().all(|r| *r == Ok(Answer::Yes)), "{results:?}");
        // Each worker may have asked it once before the first failure.
        let down = asked_of(fake, "down");
        assert!((1..=MAX_CONCURRENT).contains(&down), "{down}");
        assert_eq!(asked_of(fake, "good"), 12);
    }

    #[test]
    fn nothing_is_asked_past_the_deadline() {
        let (_home, judge, fake) = judge_with(Fake::default(), &[]);
        let passed = Deadline::after(Instant::now(), Duration::ZERO);
        let results = judge.judge(&[question("yes")], passed);
        assert_eq!(results, [Err(Unavailable::PastDeadline)]);
        assert!(spans(fake).is_empty());
    }
}
