//! The classifier as the filter engine calls it, against real providers: a
//! stub chat-completions server on 127.0.0.1 (a thread speaking just
//! enough HTTP/1.1, recording every request) and `sh` scripts as the
//! command. What is asked, what the cache spares, and every way of getting
//! no answer.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hookdex_model::Target;
use hookdex_runtime::exec::Deadline;
use hookdex_runtime::filters::classifier::{
    judge, Answer, Failure, Judge, Provider, Question, Unavailable,
};
use hookdex_runtime::settings::Settings;
use hookdex_runtime::state::answers::AnswerCache;
use serde_json::Value;

/// One request the stub received.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    authorization: Option<String>,
    body: Value,
}

/// How the stub replies: status, body, and a pause before replying.
type Reply = (u16, String, Duration);

/// A stub chat-completions server.
struct Stub {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    most_at_once: Arc<AtomicUsize>,
}

impl Stub {
    /// A server on a free loopback port answering every request with
    /// `reply(body)`, each connection on a thread of its own.
    fn start(reply: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "http://{}/v1/chat/completions",
            listener.local_addr().unwrap()
        );
        let seen = Arc::new(Mutex::new(Vec::new()));
        let most_at_once = Arc::new(AtomicUsize::new(0));
        let running = Arc::new(AtomicUsize::new(0));
        let reply = Arc::new(reply);
        let (recorder, most) = (Arc::clone(&seen), Arc::clone(&most_at_once));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (seen, most, running) = (recorder.clone(), most.clone(), running.clone());
                let reply = Arc::clone(&reply);
                std::thread::spawn(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    serve(stream, &seen, &*reply);
                    running.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Stub {
            url,
            seen,
            most_at_once,
        }
    }

    /// A server that answers every question with `content`.
    fn answering(content: &'static str) -> Stub {
        Stub::start(move |_| (200, completion(content), Duration::ZERO))
    }

    fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

/// A chat-completions reply whose message is `content`.
fn completion(content: &str) -> String {
    serde_json::json!({
        "id": "stub",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    })
    .to_string()
}

/// Reads one request from `stream`, records it, and replies.
fn serve(stream: TcpStream, seen: &Mutex<Vec<Seen>>, reply: &(dyn Fn(&Value) -> Reply + Sync)) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split(' ').nth(1).unwrap_or_default().to_string();
    let (mut length, mut authorization) = (0, None);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or_default();
        let value = value.trim().to_string();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse().unwrap_or(0),
            "authorization" => authorization = Some(value),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, text, pause) = reply(&body);
    seen.lock().unwrap().push(Seen {
        path,
        authorization,
        body,
    });
    std::thread::sleep(pause);
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} Stub\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
}

/// Settings for a call under `home` with `vars` set.
fn settings(home: &Path, vars: &[(&str, &str)]) -> Settings {
    let home = home.to_path_buf();
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Settings::from_vars(Target::Claude, &home.clone(), move |name| {
        if name == "HOOKDEX_HOME" {
            return Some(home.clone().into_os_string());
        }
        vars.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| OsString::from(v))
    })
}

fn question(span: &str) -> Question {
    Question {
        intent: "User-facing text states the value its label names.".into(),
        question: "Does this finding go against the filter intent?".into(),
        span: span.into(),
        reason: "explanation tail".into(),
        context: format!("reason += f\"{span}\""),
        path: Some("scripts/swarm/capacity.py".into()),
        tool: "Edit".into(),
    }
}

fn soon() -> Deadline {
    Deadline::after(Instant::now(), Duration::from_secs(30))
}

/// The failure of an unavailable result, or a panic naming what came back.
fn failure(result: &Result<Answer, Unavailable>) -> &Failure {
    match result {
        Err(Unavailable::Failed { failure, .. }) => failure,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_question_is_asked_once_and_then_answered_from_the_cache() {
    let stub = Stub::answering("Yes.");
    let home = tempfile::tempdir().unwrap();
    let settings = settings(
        home.path(),
        &[
            ("HOOKDEX_CLASSIFIER_URL", &stub.url),
            ("HOOKDEX_CLASSIFIER_KEY", "sk-test"),
            ("AGENTIHOOKS_CLASSIFIER_MODELS", "small"),
        ],
    );
    let tail = question("; Claude has 3 free seats");
    assert_eq!(
        judge(&settings, std::slice::from_ref(&tail), soon()),
        [Ok(Answer::Yes)]
    );
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(seen[0].body["model"], "small");
    let user = seen[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("; Claude has 3 free seats"), "{user}");
    assert!(user.contains("explanation tail"), "{user}");
    // Again, twice in one batch: every finding is cached, nothing is asked.
    let again = judge(&settings, &[tail.clone(), tail.clone()], soon());
    assert_eq!(again, [Ok(Answer::Yes), Ok(Answer::Yes)]);
    assert_eq!(stub.count(), 1);
    assert_eq!(
        Judge::from_settings(&settings).cached(&tail),
        Some(Answer::Yes)
    );
}

#[test]
fn changing_the_model_set_asks_again() {
    let stub = Stub::answering("no");
    let home = tempfile::tempdir().unwrap();
    let with = |models: &str| {
        let vars = [
            ("HOOKDEX_CLASSIFIER_URL", stub.url.as_str()),
            ("AGENTIHOOKS_CLASSIFIER_MODELS", models),
        ];
        judge(&settings(home.path(), &vars), &[question("x")], soon())
    };
    assert_eq!(with("a"), [Ok(Answer::No)]);
    assert_eq!(with("a, b"), [Ok(Answer::No)]);
    assert_eq!(with(""), [Ok(Answer::No)]);
    assert_eq!(stub.count(), 3);
    assert_eq!(with("a"), [Ok(Answer::No)]);
    assert_eq!(stub.count(), 3);
    // With no model configured the request names none.
    assert!(stub.requests()[2].body.get("model").is_none());
}

#[test]
fn an_answer_older_than_the_ttl_is_asked_again() {
    let stub = Stub::answering("yes");
    let home = tempfile::tempdir().unwrap();
    let with_ttl = |ttl: &str| {
        let vars = [
            ("HOOKDEX_CLASSIFIER_URL", stub.url.as_str()),
            ("AGENTIHOOKS_FILTER_CACHE_TTL_S", ttl),
        ];
        judge(&settings(home.path(), &vars), &[question("x")], soon())
    };
    assert_eq!(with_ttl("60"), [Ok(Answer::Yes)]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(with_ttl("60"), [Ok(Answer::Yes)]);
    assert_eq!(stub.count(), 1);
    assert_eq!(with_ttl("0.2"), [Ok(Answer::Yes)]);
    assert_eq!(stub.count(), 2);
    // A TTL of zero keeps nothing: every run asks.
    with_ttl("0");
    with_ttl("0");
    assert_eq!(stub.count(), 4);
}

#[test]
fn a_slow_endpoint_is_unavailable_at_the_timeout_and_nothing_is_cached() {
    let stub = Stub::start(|_| (200, completion("yes"), Duration::from_secs(5)));
    let home = tempfile::tempdir().unwrap();
    let settings = settings(
        home.path(),
        &[
            ("HOOKDEX_CLASSIFIER_URL", &stub.url),
            ("HOOKDEX_CLASSIFIER_TIMEOUT_SEC", "0.3"),
        ],
    );
    let started = Instant::now();
    let results = judge(&settings, &[question("x")], soon());
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        failure(&results[0]),
        &Failure::TimedOut(Duration::from_millis(300))
    );
    let why = results[0].as_ref().unwrap_err().to_string();
    assert!(
        why.starts_with("`HOOKDEX_CLASSIFIER_URL` at `127.0.0.1:"),
        "{why}"
    );
    judge(&settings, &[question("x")], soon());
    assert_eq!(stub.count(), 2, "an unavailable answer is not cached");
}

#[test]
fn the_hooks_deadline_cuts_a_question_short() {
    let stub = Stub::start(|_| (200, completion("yes"), Duration::from_secs(5)));
    let home = tempfile::tempdir().unwrap();
    let settings = settings(home.path(), &[("HOOKDEX_CLASSIFIER_URL", &stub.url)]);
    let started = Instant::now();
    let deadline = Deadline::after(started, Duration::from_millis(300));
    let results = judge(&settings, &[question("x")], deadline);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(failure(&results[0]), Failure::TimedOut(d) if *d <= Duration::from_millis(300))
    );
    let passed = Deadline::after(Instant::now(), Duration::ZERO);
    assert_eq!(
        judge(&settings, &[question("y")], passed),
        [Err(Unavailable::PastDeadline)]
    );
}

#[test]
fn errors_and_nonsense_are_unavailable() {
    let stub = Stub::start(|body| {
        let user = body["messages"][1]["content"].as_str().unwrap_or_default();
        let pause = Duration::ZERO;
        if user.contains("status") {
            (500, "{\"error\": \"down\"}".into(), pause)
        } else if user.contains("redirect") {
            (302, String::new(), pause)
        } else if user.contains("html") {
            (200, "<html>hello</html>".into(), pause)
        } else if user.contains("empty") {
            (200, "{\"choices\": []}".into(), pause)
        } else {
            (200, completion("Perhaps, it depends."), pause)
        }
    });
    let home = tempfile::tempdir().unwrap();
    let settings = settings(home.path(), &[("HOOKDEX_CLASSIFIER_URL", &stub.url)]);
    // One question per batch: a failing status trips the endpoint for the
    // rest of its batch.
    let table = [
        ("status", Failure::Status(500)),
        ("redirect", Failure::Status(302)),
        ("html", Failure::Nonsense("<html>hello</html>".into())),
        ("empty", Failure::Nonsense("{\"choices\": []}".into())),
        ("hedge", Failure::Nonsense("Perhaps, it depends.".into())),
    ];
    for (span, expected) in &table {
        let results = judge(&settings, &[question(span)], soon());
        assert_eq!(failure(&results[0]), expected, "{span}");
        assert_eq!(
            Judge::from_settings(&settings).cached(&question(span)),
            None
        );
    }
    for (span, _) in &table {
        judge(&settings, &[question(span)], soon());
    }
    assert_eq!(
        stub.count(),
        2 * table.len(),
        "nothing unavailable is cached"
    );
}

#[test]
fn a_closed_port_is_unavailable() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{port}/v1/chat/completions");
    let settings = settings(home.path(), &[("HOOKDEX_CLASSIFIER_URL", &url)]);
    let results = judge(&settings, &[question("x")], soon());
    assert!(
        matches!(failure(&results[0]), Failure::Unreachable(_)),
        "{results:?}"
    );
    let why = format!("{}", results[0].as_ref().unwrap_err());
    assert!(why.contains(&format!("127.0.0.1:{port}")), "{why}");
}

#[test]
fn nothing_configured_is_unavailable_and_says_what_to_set() {
    let home = tempfile::tempdir().unwrap();
    let results = judge(&settings(home.path(), &[]), &[question("x")], soon());
    assert_eq!(results, [Err(Unavailable::NotConfigured)]);
}

#[test]
fn a_batch_is_asked_a_few_at_a_time() {
    let stub = Stub::start(|_| (200, completion("no"), Duration::from_millis(100)));
    let home = tempfile::tempdir().unwrap();
    let settings = settings(home.path(), &[("HOOKDEX_CLASSIFIER_URL", &stub.url)]);
    let batch: Vec<Question> = (0..10).map(|i| question(&format!("finding {i}"))).collect();
    let results = judge(&settings, &batch, soon());
    assert!(results.iter().all(|r| *r == Ok(Answer::No)), "{results:?}");
    assert_eq!(stub.count(), 10);
    let most = stub.most_at_once.load(Ordering::SeqCst);
    assert!((1..=4).contains(&most), "{most} at once");
}

#[test]
fn threads_sharing_the_cache_never_corrupt_it_and_a_torn_file_is_a_miss() {
    let stub = Stub::answering("yes");
    let home = tempfile::tempdir().unwrap();
    let settings = settings(home.path(), &[("HOOKDEX_CLASSIFIER_URL", &stub.url)]);
    let batch: Vec<Question> = (0..8).map(|i| question(&format!("shared {i}"))).collect();
    std::thread::scope(|scope| {
        for _ in 0..16 {
            scope.spawn(|| {
                for _ in 0..5 {
                    let results = judge(&settings, &batch, soon());
                    assert!(results.iter().all(|r| *r == Ok(Answer::Yes)), "{results:?}");
                }
            });
        }
    });
    let judge_now = Judge::from_settings(&settings);
    for q in &batch {
        assert_eq!(judge_now.cached(q), Some(Answer::Yes));
    }
    let cache = AnswerCache::new(home.path(), Duration::from_secs(60));
    let files: Vec<_> = walk(cache.dir());
    assert_eq!(files.len(), batch.len(), "{files:?}");
    assert!(files.iter().all(|f| !f.contains(".tmp")), "{files:?}");
    // A torn answer (a full disk, another writer) is a miss, asked again
    // and replaced whole.
    let torn = cache.path(&judge_now.key(&batch[0]));
    std::fs::write(&torn, "1 ye").unwrap();
    assert_eq!(judge_now.cached(&batch[0]), None);
    let before = stub.count();
    assert_eq!(judge(&settings, &batch[..1], soon()), [Ok(Answer::Yes)]);
    assert_eq!(stub.count(), before + 1);
    assert!(std::fs::read_to_string(&torn)
        .unwrap()
        .starts_with("1 yes "));
}

/// Every file under `dir`, as paths relative to it.
fn walk(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for shard in std::fs::read_dir(dir).unwrap().flatten() {
        for file in std::fs::read_dir(shard.path()).unwrap().flatten() {
            let name = file.path();
            files.push(name.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    files
}

/// Whether `sh` can be run here; the command tests are skipped, saying so,
/// where it cannot.
fn have_sh() -> bool {
    let ok = std::process::Command::new("sh")
        .args(["-c", "exit 0"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: no `sh` to run the classifier command with");
    }
    ok
}

#[test]
fn the_command_reads_the_question_and_answers() {
    if !have_sh() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let seen = home.path().join("seen.json");
    let script = home.path().join("judge.sh");
    std::fs::write(
        &script,
        format!(
            "cat > '{}'\ncase \"$1\" in yes) echo yes;; json) echo '{{\"answer\": \"no\"}}';; \
             garbage) echo 'I would say yes';; fail) echo yes; exit 1;; \
             slow) sleep 30;; esac\n",
            seen.display()
        ),
    )
    .unwrap();
    let run = |mode: &str| {
        let command = format!("sh '{}' {mode}", script.display());
        let settings = settings(
            home.path(),
            &[
                ("HOOKDEX_CLASSIFIER_CMD", &command),
                // The command wins over the URL.
                ("HOOKDEX_CLASSIFIER_URL", "http://127.0.0.1:9/never"),
                ("AGENTIHOOKS_CLASSIFIER_MODELS", "m1"),
                ("AGENTIHOOKS_FILTER_CACHE_TTL_S", "0"),
                ("HOOKDEX_CLASSIFIER_TIMEOUT_SEC", "0.5"),
            ],
        );
        judge(&settings, &[question("; because")], soon()).remove(0)
    };
    assert_eq!(run("yes"), Ok(Answer::Yes));
    let payload: Value = serde_json::from_slice(&std::fs::read(&seen).unwrap()).unwrap();
    let keys: Vec<&str> = payload
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["intent", "question", "span", "reason", "context", "path", "tool", "model"]
    );
    assert_eq!(payload["span"], "; because");
    assert_eq!(payload["model"], "m1");
    assert_eq!(payload["path"], "scripts/swarm/capacity.py");
    assert_eq!(run("json"), Ok(Answer::No));
    let garbage = run("garbage");
    assert_eq!(
        failure(&garbage),
        &Failure::Nonsense("I would say yes".into())
    );
    assert_eq!(
        garbage.unwrap_err().to_string(),
        "`HOOKDEX_CLASSIFIER_CMD`, model `m1`: answered neither yes nor no: `I would say yes`"
    );
    assert_eq!(failure(&run("fail")), &Failure::Exited(1));
    let started = Instant::now();
    assert_eq!(
        failure(&run("slow")),
        &Failure::TimedOut(Duration::from_millis(500))
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_command_that_cannot_run_is_unavailable() {
    if !have_sh() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let settings = settings(
        home.path(),
        &[("HOOKDEX_CLASSIFIER_CMD", "/nonexistent/hookdex-judge")],
    );
    let results = judge(&settings, &[question("x")], soon());
    // `sh` starts and reports the missing program with 127.
    assert_eq!(failure(&results[0]), &Failure::Exited(127));
    assert!(matches!(
        &results[0],
        Err(Unavailable::Failed {
            provider: Provider::Command,
            model: None,
            ..
        })
    ));
}
