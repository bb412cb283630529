//! The finder script contract: stdin `{"text", "path", "tool"}`; stdout a
//! JSON list of `{"start", "end", "text", "reason"}` where `text` equals the
//! source between `start` and `end`. A script that exits non-zero, times
//! out, prints something else or a span whose `text` is not the source
//! there yields no findings, with the reason for the hook log.
//!
//! # Offsets
//!
//! `start` and `end` count characters (Unicode code points), as a Python
//! finder's `str` indices do: `text[start:end]` in Python is the span. Byte
//! offsets (what a finder reading bytes counts) and UTF-16 units (a
//! JavaScript finder's string indices) are accepted too: a span stands
//! when one of the three readings, tried in that order, makes `text` equal
//! the source there. On ASCII text the three agree. Spans come back as
//! byte ranges of the text.

use std::ops::Range;

use serde_json::{json, Value};

use crate::exec::{Execution, Finish};

/// What a finder script reads on stdin.
pub fn stdin(text: &str, path: Option<&str>, tool: &str) -> Vec<u8> {
    json!({"text": text, "path": path, "tool": tool})
        .to_string()
        .into_bytes()
}

/// One span a finder script reported, as a byte range of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The byte range.
    pub range: Range<usize>,
    /// Its reason, when the script gave one.
    pub reason: Option<String>,
}

/// Why a finder script yields no findings: how it ended, or what is wrong
/// with what it printed.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptError {
    kind: ScriptErrorKind,
}

/// What went wrong with one run of a finder script.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ScriptErrorKind {
    /// It exited non-zero; the last line of its stderr, when any.
    Exited {
        /// The exit code.
        code: i32,
        /// The last non-empty line of stderr, trimmed.
        stderr: Option<String>,
    },
    /// A signal ended it.
    Signaled(i32),
    /// It ran past the timeout, this many seconds, and its group was killed.
    TimedOut(f64),
    /// It could not be started.
    NotStarted(String),
    /// It was not started: the call's deadline had passed.
    PastDeadline,
    /// Its stdout is JSON, but not a list.
    NotAList,
    /// Its stdout is not JSON (the parser's reason).
    NotJson(String),
    /// A listed span lacks a whole-number `start` or `end`, or a string `text`.
    BadSpan(usize),
    /// A span whose `text` is not the source there under any reading.
    Mismatch {
        /// The span's position in the list.
        index: usize,
        /// Its `start`.
        start: usize,
        /// Its `end`.
        end: usize,
        /// Its `text`.
        said: String,
    },
}

impl ScriptError {
    fn new(kind: ScriptErrorKind) -> ScriptError {
        ScriptError { kind }
    }
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ScriptErrorKind::Exited { code, stderr } => match stderr {
                Some(line) => write!(f, "exit {code}: {line}"),
                None => write!(f, "exit {code}"),
            },
            ScriptErrorKind::Signaled(signal) => write!(f, "killed by signal {signal}"),
            ScriptErrorKind::TimedOut(secs) => {
                write!(f, "timed out after {secs:.0} s, process group killed")
            }
            ScriptErrorKind::NotStarted(err) => write!(f, "could not start: {err}"),
            ScriptErrorKind::PastDeadline => {
                write!(f, "not started: {}", crate::exec::DEADLINE_PASSED)
            }
            ScriptErrorKind::NotAList => f.write_str("stdout is not a JSON list"),
            ScriptErrorKind::NotJson(err) => write!(f, "stdout is not JSON: {err}"),
            ScriptErrorKind::BadSpan(i) => write!(
                f,
                "span {i} needs a whole-number `start` and `end` and a string `text`"
            ),
            ScriptErrorKind::Mismatch {
                index,
                start,
                end,
                said,
            } => write!(
                f,
                "span {index} ({start}..{end}) does not match the source: its text is {said:?}"
            ),
        }
    }
}

impl std::error::Error for ScriptError {}

/// The spans of `run` over `text` (non-empty ones only).
///
/// # Errors
///
/// Why the finder yields none: it did not exit 0, or printed something
/// other than a list of spans that match the source.
pub fn spans(run: &Execution, text: &str) -> Result<Vec<Span>, ScriptError> {
    let fail = |kind| Err(ScriptError::new(kind));
    match &run.finish {
        Finish::Exited(0) => {}
        Finish::Exited(code) => {
            return fail(ScriptErrorKind::Exited {
                code: *code,
                stderr: last_line(&run.stderr),
            })
        }
        Finish::Signaled(signal) => return fail(ScriptErrorKind::Signaled(*signal)),
        Finish::TimedOut => return fail(ScriptErrorKind::TimedOut(run.elapsed.as_secs_f64())),
        Finish::NotStarted(err) => return fail(ScriptErrorKind::NotStarted(err.clone())),
        Finish::PastDeadline => return fail(ScriptErrorKind::PastDeadline),
    }
    let stdout = String::from_utf8_lossy(&run.stdout);
    let listed: Vec<Value> = match serde_json::from_str(stdout.trim()) {
        Ok(Value::Array(items)) => items,
        Ok(_) => return fail(ScriptErrorKind::NotAList),
        Err(err) => return fail(ScriptErrorKind::NotJson(err.to_string())),
    };
    let offsets = Offsets::of(text);
    let mut out = Vec::with_capacity(listed.len());
    for (i, item) in listed.iter().enumerate() {
        let field = |key: &str| item.get(key);
        let number = |key: &str| field(key).and_then(Value::as_u64).map(|n| n as usize);
        let (Some(start), Some(end), Some(said)) = (
            number("start"),
            number("end"),
            field("text").and_then(Value::as_str),
        ) else {
            return fail(ScriptErrorKind::BadSpan(i));
        };
        let Some(range) = offsets.matching(start, end, said) else {
            return fail(ScriptErrorKind::Mismatch {
                index: i,
                start,
                end,
                said: said.to_string(),
            });
        };
        if range.is_empty() {
            continue;
        }
        let reason = field("reason")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(String::from);
        out.push(Span { range, reason });
    }
    Ok(out)
}

/// The last non-empty line of stderr, trimmed, when there is one.
fn last_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(String::from)
}

/// Reads a span's offsets as characters, bytes or UTF-16 units of one text.
struct Offsets<'t> {
    text: &'t str,
    /// Byte offset of each character, and the text's length last (empty for ASCII).
    chars: Vec<usize>,
    /// Byte offset of each UTF-16 unit (`None` inside a surrogate pair),
    /// and the text's length last (empty for ASCII).
    units: Vec<Option<usize>>,
}

impl<'t> Offsets<'t> {
    fn of(text: &'t str) -> Offsets<'t> {
        if text.is_ascii() {
            return Offsets {
                text,
                chars: Vec::new(),
                units: Vec::new(),
            };
        }
        let mut chars = Vec::with_capacity(text.len() + 1);
        let mut units = Vec::with_capacity(text.len() + 1);
        for (at, c) in text.char_indices() {
            chars.push(at);
            units.push(Some(at));
            if c.len_utf16() == 2 {
                units.push(None);
            }
        }
        chars.push(text.len());
        units.push(Some(text.len()));
        Offsets { text, chars, units }
    }

    /// The byte range `start..end` means under the one reading that makes
    /// it hold `said`; `None` when none does, or when two readings hold it
    /// at different places (`go` at bytes 5..7 of `🙂 go go` is also the
    /// second `go` read as characters): guessing there could strip text the
    /// finder never flagged.
    fn matching(&self, start: usize, end: usize, said: &str) -> Option<Range<usize>> {
        let bytes = start..end;
        if self.chars.is_empty() {
            return (self.text.get(bytes.clone()) == Some(said)).then_some(bytes);
        }
        let by_chars = (|| Some(*self.chars.get(start)?..*self.chars.get(end)?))();
        let by_units = (|| Some((*self.units.get(start)?)?..(*self.units.get(end)?)?))();
        let mut holding = [by_chars, Some(bytes), by_units]
            .into_iter()
            .flatten()
            .filter(|range| range.start <= range.end && self.text.get(range.clone()) == Some(said));
        let first = holding.next()?;
        holding.all(|other| other == first).then_some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn run(stdout: &str) -> Execution {
        Execution {
            finish: Finish::Exited(0),
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            elapsed: Duration::from_millis(5),
        }
    }

    #[test]
    fn a_span_two_readings_place_apart_is_refused() {
        let text = "🙂 go go";
        let bytes = text.find("go").unwrap();
        let said = format!(
            r#"[{{"start": {bytes}, "end": {}, "text": "go"}}]"#,
            bytes + 2
        );
        let err = spans(&run(&said), text).unwrap_err().to_string();
        assert!(err.contains("does not match the source"), "{err}");
        // The first `go` in characters (2..4): as bytes that is inside 🙂,
        // so only one reading holds and it stands.
        let said = r#"[{"start": 2, "end": 4, "text": "go"}]"#;
        assert_eq!(spans(&run(said), text).unwrap()[0].range, bytes..bytes + 2);
    }

    #[test]
    fn spans_in_characters_bytes_or_utf16_units_stand_when_their_text_matches() {
        // "é" is 2 bytes and 1 unit; "😀" is 4 bytes, 1 character, 2 units.
        let text = "é 😀 seats; because";
        let tail = text.find(';').unwrap();
        let cases = [
            // characters (Python)
            (
                r#"[{"start": 9, "end": 18, "text": "; because", "reason": "r"}]"#.to_string(),
                Some(tail..text.len()),
            ),
            // bytes
            (
                format!(
                    r#"[{{"start": {tail}, "end": {}, "text": "; because"}}]"#,
                    text.len()
                ),
                Some(tail..text.len()),
            ),
            // UTF-16 units (JavaScript)
            (
                r#"[{"start": 10, "end": 19, "text": "; because"}]"#.to_string(),
                Some(tail..text.len()),
            ),
        ];
        for (stdout, want) in cases {
            let got = spans(&run(&stdout), text).unwrap();
            assert_eq!(got.first().map(|s| s.range.clone()), want, "{stdout}");
        }
        let ok = spans(
            &run(r#"[{"start": 2, "end": 3, "text": "😀", "reason": " emoji "}]"#),
            text,
        )
        .unwrap();
        assert_eq!(ok[0].reason.as_deref(), Some("emoji"));
        assert_eq!(&text[ok[0].range.clone()], "😀");
    }

    #[test]
    fn a_lie_or_a_bad_answer_yields_nothing() {
        let text = "reason = 'x; y'";
        let bad = [
            (
                r#"[{"start": 0, "end": 6, "text": "reasons"}]"#,
                "does not match the source",
            ),
            (
                r#"[{"start": 0, "end": 600, "text": "reason"}]"#,
                "does not match",
            ),
            (r#"[{"start": 6, "end": 0, "text": ""}]"#, "does not match"),
            (
                r#"[{"start": -1, "end": 3, "text": "rea"}]"#,
                "whole-number",
            ),
            (r#"[{"start": 0, "end": 3}]"#, "string `text`"),
            (r#"{"start": 0}"#, "not a JSON list"),
            ("not json", "not JSON"),
        ];
        for (stdout, want) in bad {
            let err = spans(&run(stdout), text).unwrap_err().to_string();
            assert!(err.contains(want), "{stdout}: {err}");
        }
        assert_eq!(spans(&run("[]"), text).unwrap(), []);
        assert_eq!(
            spans(&run(r#"[{"start": 3, "end": 3, "text": ""}]"#), text).unwrap(),
            [],
            "an empty span is no finding"
        );
        let crashed = Execution {
            finish: Finish::Exited(1),
            stderr: b"Traceback (most recent call last):\nValueError: boom\n".to_vec(),
            ..run("[]")
        };
        assert_eq!(
            spans(&crashed, text).unwrap_err().to_string(),
            "exit 1: ValueError: boom"
        );
        let slow = Execution {
            finish: Finish::TimedOut,
            ..run("")
        };
        assert!(spans(&slow, text)
            .unwrap_err()
            .to_string()
            .contains("timed out"));
    }
}
