//! A second chance for payload bytes that strict JSON refuses over parts
//! hookdex need not read exactly. A harness forwards what the model wrote,
//! and a model can write an unpaired UTF-16 surrogate escape (`"\ud800"`) or
//! a number no `f64` holds (`1e400`) into any field; if that made the whole
//! payload unreadable, a `bash.kubectl` guard would be skipped by a stray
//! character in the call's description. So: invalid UTF-8 becomes U+FFFD, an
//! unpaired surrogate escape becomes `\ufffd`, an out-of-range number becomes
//! `null`, an array or object nested deeper than [`MAX_DEPTH`] (past the
//! parser's recursion limit) becomes `null`, and everything else is copied as
//! it is. Only used after the strict parse failed, so well-formed payloads
//! cost nothing more.

/// The deepest nesting kept; the parser refuses past 128, and every field
/// hookdex reads sits a few levels down.
const MAX_DEPTH: usize = 100;

/// `bytes` with what strict JSON refuses (and hookdex need not read exactly)
/// repaired; `None` when there was nothing of the kind to repair.
pub(crate) fn repair(bytes: &[u8]) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes);
    let mut changed = matches!(text, std::borrow::Cow::Owned(_));
    let text = text.as_bytes();
    let mut out = Vec::with_capacity(text.len());
    let mut depth = 0;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                let end = string(text, i, &mut out, &mut changed);
                i = end;
            }
            b'[' | b'{' if depth == MAX_DEPTH => {
                i = past_container(text, i);
                out.extend_from_slice(b"null");
                changed = true;
            }
            open @ (b'[' | b'{') => {
                depth += 1;
                out.push(open);
                i += 1;
            }
            close @ (b']' | b'}') => {
                depth = depth.saturating_sub(1);
                out.push(close);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < text.len()
                    && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let token = &text[start..i];
                let infinite = std::str::from_utf8(token)
                    .ok()
                    .and_then(|t| t.parse::<f64>().ok())
                    .is_some_and(f64::is_infinite);
                if infinite {
                    out.extend_from_slice(b"null");
                    changed = true;
                } else {
                    out.extend_from_slice(token);
                }
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

/// The index just past the array or object opening at `start` (its strings
/// skipped whole), or the end of `text` when it is not closed.
fn past_container(text: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// Copies the string starting at the quote at `start` into `out`, repairing
/// unpaired surrogate escapes; returns the index after its closing quote.
fn string(text: &[u8], start: usize, out: &mut Vec<u8>, changed: &mut bool) -> usize {
    out.push(b'"');
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'"' => {
                out.push(b'"');
                return i + 1;
            }
            b'\\' if text.get(i + 1) == Some(&b'u') => {
                let unit = hex4(text, i + 2);
                match unit {
                    Some(0xD800..=0xDBFF) => {
                        let low = (text.get(i + 6) == Some(&b'\\')
                            && text.get(i + 7) == Some(&b'u'))
                        .then(|| hex4(text, i + 8))
                        .flatten();
                        if matches!(low, Some(0xDC00..=0xDFFF)) {
                            out.extend_from_slice(&text[i..i + 12]);
                            i += 12;
                        } else {
                            out.extend_from_slice(b"\\ufffd");
                            *changed = true;
                            i += 6;
                        }
                    }
                    Some(0xDC00..=0xDFFF) => {
                        out.extend_from_slice(b"\\ufffd");
                        *changed = true;
                        i += 6;
                    }
                    _ => {
                        out.extend_from_slice(&text[i..(i + 6).min(text.len())]);
                        i += 6;
                    }
                }
            }
            b'\\' => {
                out.extend_from_slice(&text[i..(i + 2).min(text.len())]);
                i += 2;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    i
}

/// The four hex digits at `at` as a number.
fn hex4(text: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(text.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(text: &str) -> Option<String> {
        repair(text.as_bytes()).map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn what_strict_json_refuses_is_repaired() {
        assert_eq!(
            repaired(r#"{"d":"a\ud800b","c":"kubectl delete x"}"#).as_deref(),
            Some(r#"{"d":"a\ufffdb","c":"kubectl delete x"}"#)
        );
        assert_eq!(
            repaired(r#"{"d":"\udc00"}"#).as_deref(),
            Some(r#"{"d":"\ufffd"}"#)
        );
        assert_eq!(
            repaired(r#"{"n":1e400,"m":-1e999}"#).as_deref(),
            Some(r#"{"n":null,"m":null}"#)
        );
        assert_eq!(
            repair(b"{\"d\":\"caf\xe9\"}")
                .map(|b| String::from_utf8(b).unwrap())
                .as_deref(),
            Some("{\"d\":\"caf\u{fffd}\"}")
        );
    }

    #[test]
    fn nesting_past_the_parsers_limit_becomes_null() {
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        let payload =
            format!(r#"{{"tool_input":{{"command":"kubectl delete x","x":{deep},"s":"[{{"}}}}"#);
        assert!(serde_json::from_str::<serde_json::Value>(&payload).is_err());
        let fixed = repaired(&payload).unwrap();
        let value: serde_json::Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(value["tool_input"]["command"], "kubectl delete x");
        assert_eq!(
            value["tool_input"]["s"], "[{",
            "brackets in strings are text"
        );
        let mut at = &value["tool_input"]["x"];
        for _ in 0..MAX_DEPTH - 2 {
            at = &at[0];
        }
        assert_eq!(at[0], serde_json::Value::Null, "cut at the limit: {at}");
    }

    #[test]
    fn what_is_well_formed_is_left_alone() {
        for fine in [
            r#"{"pair":"\ud83d\ude00","n":1e300,"s":"1e400","esc":"\\ud800"}"#,
            r#"{"q":"say \"\ud83d\ude00\""}"#,
        ] {
            assert_eq!(repaired(fine), None, "{fine}");
            serde_json::from_str::<serde_json::Value>(fine).unwrap();
        }
    }
}
