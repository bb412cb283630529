//! The scripted model server the harnesses talk to, bound to 127.0.0.1 and
//! owned by the test. One port speaks the four wire protocols the harnesses
//! use (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini
//! `streamGenerateContent`), chosen by the request path. Its script: a
//! request that carries a tool result gets a final text; a request that
//! offers the shell tool gets one call of it running the scenario's command;
//! anything else (titles, side requests) gets a short text. Every request
//! body is kept so a scenario can read what the harness told the model.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{json, Value};

/// A running server; it stops when dropped (its thread ends with the process).
pub struct ModelServer {
    /// The port on 127.0.0.1.
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Request {
    /// The path, query included.
    pub path: String,
    /// The body as JSON (`null` when empty, `{"unreadable": …}` when not JSON).
    pub body: Value,
}

impl ModelServer {
    /// Starts a server whose shell tool call runs `command`.
    pub fn start(command: &str) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(command.to_string());
        let log = Arc::clone(&requests);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                let script = Arc::clone(&script);
                thread::spawn(move || {
                    let _ = serve(stream, &script, &log);
                });
            }
        });
        ModelServer { port, requests }
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, command: &str, log: &Mutex<Vec<Request>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((&header, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let raw = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut raw = vec![0; length];
        reader.read_exact(&mut raw)?;
        raw
    };
    let body: Value = if raw.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&raw)
            .unwrap_or_else(|_| json!({"unreadable": String::from_utf8_lossy(&raw)}))
    };
    log.lock().unwrap().push(Request {
        path: path.clone(),
        body: body.clone(),
    });
    let mut out = stream;
    let route = path.split('?').next().unwrap_or_default();
    if method == "GET" {
        let model =
            json!({"id": "test-model", "object": "model", "created": 0, "owned_by": "test"});
        return send_json(
            &mut out,
            json!({"object": "list", "data": [model], "models": [model]}),
        );
    }
    let turn = Turn::of(&body);
    if route.ends_with("/count_tokens") || route.ends_with(":countTokens") {
        send_json(&mut out, json!({"input_tokens": 10, "totalTokens": 10}))
    } else if route.ends_with("/messages") {
        anthropic(&mut out, &body, &turn, command)
    } else if route.ends_with("/responses") {
        responses(&mut out, &body, &turn, command)
    } else if route.ends_with("/chat/completions") {
        chat(&mut out, &body, &turn, command)
    } else if route.contains(":streamGenerateContent") || route.contains(":generateContent") {
        gemini(&mut out, &body, &turn, command, route.contains("stream"))
    } else {
        write!(
            out,
            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
    }
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut raw = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size =
            usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        if size == 0 {
            return Ok(raw);
        }
        raw.extend_from_slice(&chunk[..size]);
    }
}

/// What the script answers to one request.
enum Turn {
    /// The conversation has a tool result: say so and stop.
    Done(String),
    /// Tools are offered (their names): call the shell tool.
    Call(Vec<String>),
    /// A side request.
    Chat,
}

impl Turn {
    fn of(body: &Value) -> Turn {
        if let Some(result) = tool_result_text(body) {
            return Turn::Done(result.chars().take(200).collect());
        }
        let mut names = Vec::new();
        for tool in body
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let declared = tool
                .get("functionDeclarations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|d| d.get("name"));
            let own = tool
                .get("name")
                .or_else(|| tool.pointer("/function/name"))
                .into_iter();
            names.extend(
                own.chain(declared)
                    .filter_map(Value::as_str)
                    .map(String::from),
            );
        }
        if names.is_empty() {
            Turn::Chat
        } else {
            Turn::Call(names)
        }
    }

    fn text(&self) -> String {
        match self {
            Turn::Done(result) => format!("done: {result}"),
            _ => "ok".into(),
        }
    }
}

/// The latest tool result in any of the four request shapes.
pub fn tool_result_text(body: &Value) -> Option<String> {
    fn walk(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                let text = |v: Option<&Value>| match v {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                match map.get("type").and_then(Value::as_str) {
                    Some("tool_result") => found.push(text(map.get("content"))),
                    Some("function_call_output") => found.push(text(map.get("output"))),
                    _ if map.get("role").and_then(Value::as_str) == Some("tool") => {
                        found.push(text(map.get("content")))
                    }
                    _ => {}
                }
                if let Some(response) = map.get("functionResponse") {
                    found.push(text(response.get("response")));
                }
                map.values().for_each(|v| walk(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(body, &mut found);
    found.pop()
}

fn send_json(out: &mut TcpStream, value: Value) -> std::io::Result<()> {
    let body = value.to_string();
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Server-sent events: `(event name, data)` pairs, then the connection closes.
fn send_events(out: &mut TcpStream, events: &[(Option<&str>, Value)]) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
    )?;
    for (name, data) in events {
        if let Some(name) = name {
            writeln!(out, "event: {name}")?;
        }
        let data = match data {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        write!(out, "data: {data}\n\n")?;
    }
    out.flush()
}

fn streams(body: &Value) -> bool {
    body.get("stream").and_then(Value::as_bool) == Some(true)
}

fn anthropic(out: &mut TcpStream, body: &Value, turn: &Turn, command: &str) -> std::io::Result<()> {
    let model = body.get("model").cloned().unwrap_or(json!("claude"));
    let (block, stop) = match turn {
        Turn::Call(names) if names.iter().any(|n| n == "Bash") => (
            json!({"type": "tool_use", "id": "toolu_conformance1", "name": "Bash",
                   "input": {"command": command, "description": "run the scenario command"}}),
            "tool_use",
        ),
        _ => (json!({"type": "text", "text": turn.text()}), "end_turn"),
    };
    let usage = json!({"input_tokens": 10, "output_tokens": 5,
                       "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    if !streams(body) {
        return send_json(
            out,
            json!({"id": "msg_conformance", "type": "message", "role": "assistant", "model": model,
                   "content": [block], "stop_reason": stop, "stop_sequence": null, "usage": usage}),
        );
    }
    let (start, delta) = if block["type"] == "text" {
        (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": block["text"]}),
        )
    } else {
        (
            json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
            json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
        )
    };
    send_events(
        out,
        &[
            (
                Some("message_start"),
                json!({"type": "message_start", "message": {"id": "msg_conformance", "type": "message",
                       "role": "assistant", "model": model, "content": [], "stop_reason": null,
                       "stop_sequence": null, "usage": usage}}),
            ),
            (
                Some("content_block_start"),
                json!({"type": "content_block_start", "index": 0, "content_block": start}),
            ),
            (
                Some("content_block_delta"),
                json!({"type": "content_block_delta", "index": 0, "delta": delta}),
            ),
            (
                Some("content_block_stop"),
                json!({"type": "content_block_stop", "index": 0}),
            ),
            (
                Some("message_delta"),
                json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                       "usage": {"output_tokens": 5}}),
            ),
            (Some("message_stop"), json!({"type": "message_stop"})),
        ],
    )
}

fn responses(out: &mut TcpStream, body: &Value, turn: &Turn, command: &str) -> std::io::Result<()> {
    let item = match turn {
        Turn::Call(names) if names.iter().any(|n| n == "exec_command") => json!({
            "type": "function_call", "id": "fc_conformance1", "call_id": "call_conformance1",
            "name": "exec_command", "arguments": json!({"cmd": command}).to_string(),
            "status": "completed"}),
        _ => json!({"type": "message", "id": "msg_conformance", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": turn.text(), "annotations": []}]}),
    };
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                       "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                       "total_tokens": 15});
    let response = json!({"id": "resp_conformance", "object": "response", "created_at": 0,
                          "status": "completed", "model": body.get("model"),
                          "output": [item], "usage": usage});
    if !streams(body) {
        return send_json(out, response);
    }
    let mut created = response.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    send_events(
        out,
        &[
            (
                Some("response.created"),
                json!({"type": "response.created", "response": created}),
            ),
            (
                Some("response.output_item.added"),
                json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
            ),
            (
                Some("response.output_item.done"),
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            ),
            (
                Some("response.completed"),
                json!({"type": "response.completed", "response": response}),
            ),
        ],
    )
}

fn chat(out: &mut TcpStream, body: &Value, turn: &Turn, command: &str) -> std::io::Result<()> {
    let (delta, finish) = match turn {
        Turn::Call(names) if names.iter().any(|n| n == "bash") => (
            json!({"tool_calls": [{"index": 0, "id": "call_conformance1", "type": "function",
                   "function": {"name": "bash", "arguments":
                       json!({"command": command, "description": "run the scenario command"}).to_string()}}]}),
            "tool_calls",
        ),
        _ => (json!({"content": turn.text()}), "stop"),
    };
    let base = json!({"id": "chatcmpl-conformance", "object": "chat.completion.chunk",
                      "created": 0, "model": body.get("model")});
    let chunk = |choices: Value| {
        let mut c = base.clone();
        c["choices"] = choices;
        (None, c)
    };
    let mut usage = base.clone();
    usage["choices"] = json!([]);
    usage["usage"] = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    send_events(
        out,
        &[
            chunk(
                json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]),
            ),
            chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])),
            chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}])),
            (None, usage),
            (None, json!("[DONE]")),
        ],
    )
}

fn gemini(
    out: &mut TcpStream,
    _body: &Value,
    turn: &Turn,
    command: &str,
    stream: bool,
) -> std::io::Result<()> {
    let part = match turn {
        Turn::Call(names) if names.iter().any(|n| n == "run_shell_command") => json!({
            "functionCall": {"name": "run_shell_command",
                             "args": {"command": command, "description": "run the scenario command"}}}),
        _ => json!({"text": turn.text()}),
    };
    let response = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-test"});
    if stream {
        send_events(out, &[(None, response)])
    } else {
        send_json(out, response)
    }
}
