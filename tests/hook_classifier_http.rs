//! The HTTP classifier through `hookdex hook`: a real chat-completions stub
//! on 127.0.0.1 (python3's `http.server`, threaded, recording every
//! request) judges the seed's capacity line; a repeated question is
//! answered from the cache; concurrent hook processes share that cache;
//! a closed port lets the text pass and the log says why.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use common::hook::*;
use common::*;

const CAPACITY: &str = r#"reason += f"; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats""#;
const TAIL: &str =
    "; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats";
const FILE: &str = "pre-edit+write+multiedit-ledger_ui.filter.yaml";
const SEED: &str = "paths:
  - 'scripts/swarm/capacity.py'
  - '**/scripts/swarm/capacity.py'
finders:
  - script: string_literals
  - script: explanation_tail
mode: both
action: send-back
intent: >-
  User-facing text states the value or state its label names. It never explains
  why, how it was computed, or adds detail nobody asked for.
";

/// The stub: answers yes to explanation tails and no to the rest, as an
/// OpenAI-compatible endpoint, appending each request body to `log`.
const STUB: &str = r#"import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
log = sys.argv[1]
lock = threading.Lock()
class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with lock, open(log, "a") as f:
            f.write(json.dumps(body) + "\n")
        user = body["messages"][-1]["content"]
        word = "Yes." if "Why it was flagged: explanation tail" in user else "No."
        reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": word}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    def log_message(self, *args):
        pass
# A real server's backlog: Python's default of 5 resets connections
# when the 32 concurrent hooks of a test connect at once.
ThreadingHTTPServer.request_queue_size = 128
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

/// A running stub, killed when dropped.
struct Stub {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Stub {
    fn start(dir: &Path) -> Stub {
        let script = dir.join("stub.py");
        let log = dir.join("requests.jsonl");
        std::fs::write(&script, STUB).unwrap();
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(&log)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the stub");
        let mut port = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        let url = format!("http://127.0.0.1:{}/v1/chat/completions", port.trim());
        Stub { child, url, log }
    }

    /// The findings asked about so far.
    fn asked(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let body: Value = serde_json::from_str(l).unwrap();
                let user = body["messages"][1]["content"].as_str().unwrap().to_string();
                let finding = user.split("\nFinding: ").nth(1).unwrap();
                finding.split('\n').next().unwrap().to_string()
            })
            .collect()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn edit(s: &Scratch, rel: &str, new_string: &str) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": "http-session",
        "cwd": s.repo,
        "tool_name": "Edit",
        "tool_input": {
            "file_path": s.repo.join(rel),
            "old_string": "x",
            "new_string": new_string,
        }
    })
}

fn reason(reply: &Value) -> &str {
    reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
}

fn setup() -> (Scratch, Stub) {
    let mut s = Scratch::new();
    rule_with(&s.agentihooks_dir(), FILE, SEED);
    let stub = Stub::start(&s.path(""));
    s.set_env("HOOKDEX_CLASSIFIER_URL", &stub.url);
    s.set_env("AGENTIHOOKS_CLASSIFIER_MODELS", "stub-small");
    (s, stub)
}

#[test]
fn the_http_classifier_judges_the_capacity_line_and_its_answers_are_cached() {
    let (s, stub) = setup();
    let slop = edit(&s, "scripts/swarm/capacity.py", CAPACITY);
    let reply = hook(&s, "claude", &slop);
    assert_eq!(
        reason(&reply),
        format!("filter sent the text back:\n- \"{TAIL}\": explanation tail"),
        "{reply}"
    );
    let mut asked = stub.asked();
    asked.sort();
    assert_eq!(
        asked,
        [TAIL, TAIL],
        "the literal and its tail, one question each"
    );
    let body: Value = serde_json::from_str(
        std::fs::read_to_string(&stub.log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(body["model"], "stub-small");

    // The same text again: every answer comes from the cache.
    let again = hook(&s, "claude", &slop);
    assert_eq!(reason(&again), reason(&reply));
    assert_eq!(stub.asked().len(), 2, "nothing asked twice");
    // The plain label is asked about once and passes.
    let plain = edit(
        &s,
        "scripts/swarm/capacity.py",
        r#"reason = "changed 9m ago""#,
    );
    assert_eq!(hook(&s, "claude", &plain), Value::Null);
    assert_eq!(stub.asked().len(), 3);
    // Another path is not the filter's: nothing asked.
    assert_eq!(
        hook(&s, "claude", &edit(&s, "scripts/other.py", CAPACITY)),
        Value::Null
    );
    assert_eq!(stub.asked().len(), 3);
}

#[test]
fn concurrent_hooks_share_the_answer_cache() {
    let (s, stub) = setup();
    // Eight distinct lines, each hooked by four processes at once.
    let line =
        |i: usize| format!("reason += f\"; {i} agents hold {{placeable['claude']}} free seats\"");
    let payloads: Vec<Value> = (0..8)
        .map(|i| edit(&s, "scripts/swarm/capacity.py", &line(i)))
        .collect();
    // Each process a session of its own, so no round cap is reached.
    let run_all = |s: &Scratch, round: usize| {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..32)
                .map(|n| {
                    let mut payload = payloads[n % 8].clone();
                    payload["session_id"] = json!(format!("session-{round}-{n}"));
                    scope.spawn(move || hook(s, "claude", &payload))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        })
    };
    for (n, reply) in run_all(&s, 1).iter().enumerate() {
        let tail = format!("; {} agents hold {{placeable['claude']}} free seats", n % 8);
        assert_eq!(
            reason(reply),
            format!("filter sent the text back:\n- \"{tail}\": explanation tail"),
            "process {n}: {reply}"
        );
    }
    let first = stub.asked().len();
    // 16 distinct questions; processes racing on one may each ask it.
    assert!((16..=64).contains(&first), "{first} asked");
    // Every answer is now in the shared cache, whichever process wrote it.
    for reply in run_all(&s, 2) {
        assert!(reason(&reply).contains("explanation tail"), "{reply}");
    }
    assert_eq!(stub.asked().len(), first, "the second round asked nothing");
    let cached = walk(&s.home().join("classifier"));
    assert!(cached.len() >= 16, "one file per answer: {cached:?}");
    assert!(
        cached.iter().all(|f| !f.to_string_lossy().contains(".tmp")),
        "no half-written file is left: {cached:?}"
    );
}

#[test]
fn a_closed_port_lets_the_text_pass_and_the_log_says_so() {
    let mut s = Scratch::new();
    rule_with(&s.agentihooks_dir(), FILE, SEED);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    s.set_env(
        "HOOKDEX_CLASSIFIER_URL",
        format!("http://127.0.0.1:{port}/v1/chat/completions"),
    );
    let reply = hook(
        &s,
        "claude",
        &edit(&s, "scripts/swarm/capacity.py", CAPACITY),
    );
    assert_eq!(reply, Value::Null, "the text passes");
    let log = hook_log(&s).to_vec();
    let notes = serde_json::to_string(&log).unwrap();
    assert!(notes.contains("classifier unavailable"), "{notes}");
}
