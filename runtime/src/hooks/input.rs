//! A `hooks.yaml` group's `input_matcher` (SPEC §9, BioRouter's rule): one
//! regex searched in the tool input's JSON text, or a map from a dotted
//! field path to a regex searched in that field; every entry must match, a
//! missing field never matches, and a call with no tool input matches
//! none. The JSON text is compact, in the payload's own key order (as
//! BioRouter's desktop build has it); a string is searched as it is.

use hookdex_index::InputMatcher;
use hookdex_model::InputPattern;
use serde_json::Value;

/// Whether every entry of `patterns` (pattern `i` of `matcher` being entry
/// `i`) matches `input`. Where the DFA gives up (a Unicode word boundary,
/// once the search has read a non-ASCII character), the entry's regex is
/// compiled and searched in full: a guard must not miss a call because of
/// an accent elsewhere in it.
pub fn matches(patterns: &[InputPattern], matcher: &InputMatcher, input: &Value) -> bool {
    if input.is_null() {
        return false;
    }
    patterns.iter().enumerate().all(|(at, pattern)| {
        let value = match &pattern.field {
            None => Some(input),
            Some(path) => field(input, path),
        };
        value.is_some_and(|value| {
            let text = text(value);
            matcher.is_match(at, &text).unwrap_or_else(|_| {
                REGEX_BUILDS.with(|n| n.set(n.get() + 1));
                regex_automata::meta::Regex::new(&pattern.regex).is_ok_and(|re| re.is_match(&*text))
            })
        })
    })
}

thread_local! {
    /// Regexes [`matches`] compiled on this thread (the fallback only).
    static REGEX_BUILDS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many regexes an input matcher compiled on this thread since the
/// last call: zero unless a DFA gave up, which the test that holds the hook
/// path to no parsing of rule meaning counts.
pub fn take_regex_builds() -> usize {
    REGEX_BUILDS.with(|n| n.replace(0))
}

/// The value at a dotted `path`: object keys exactly, array positions as
/// unsigned integers (`edits.0.new_string`).
fn field<'v>(input: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(input, |value, segment| match value {
            Value::Object(map) => map.get(segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        })
}

/// The text a pattern searches: a string as it is, anything else as
/// compact JSON.
fn text(value: &Value) -> std::borrow::Cow<'_, str> {
    match value {
        Value::String(s) => s.as_str().into(),
        other => other.to_string().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_resolve_and_values_read_as_their_text() {
        let input = json!({"params": {"path": "/etc/x"}, "edits": [{"new_string": "a"}], "n": 3});
        assert_eq!(field(&input, "params.path"), Some(&json!("/etc/x")));
        assert_eq!(field(&input, "edits.0.new_string"), Some(&json!("a")));
        assert_eq!(field(&input, "edits.x"), None);
        assert_eq!(field(&input, "n.0"), None);
        assert_eq!(text(&json!({"b": 1, "a": [true]})), r#"{"b":1,"a":[true]}"#);
        assert_eq!(text(&json!("rm -rf")), "rm -rf");
    }
}
