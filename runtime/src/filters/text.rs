//! The text each tool offers a filter, as [`Unit`]s: one piece of text,
//! the input key it counts as for `fields`, where it sits in the tool
//! input, and the file it lands in. Then putting stripped text back
//! ([`Cut`], [`apply`]).
//!
//! | normalized tool | text |
//! |---|---|
//! | `write` | `content` (Claude, Gemini `write_file`, Cursor), `file_text` (Copilot `create`) |
//! | `edit` | `new_string` (Claude, Gemini `replace`, Cursor), `new_str` (Copilot `edit`), or the lines a Codex `apply_patch` adds, one unit per file |
//! | `multiedit` | each `edits[].new_string` |
//! | `notebookedit` | `new_source` |
//! | `ledger_write`, `inbox_send` | `text` |
//! | `judge` | `text`, each `evidence[]` item (a string, or its `claim` and `excerpt`), `case.intent`, each `case.points[]` |
//!
//! For `fields`, a harness's spelling counts as the key it stands for
//! (`file_text` is `content`, `new_str` is `new_string`), and a patch's
//! added file as `content`, its updated file as `new_string`. Every other
//! tool offers no text.

use std::ops::Range;

use hookdex_model::{FilterField, ToolName};
use serde_json::{Map, Value};

use super::patch;

/// One piece of text a filter reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The input key it counts as, for `fields`.
    pub field: FilterField,
    /// The JSON pointer of the input string that holds it.
    pub pointer: String,
    /// How the text sits in that string.
    pub place: Place,
    /// The text.
    pub text: String,
    /// The file it lands in, as the input names it.
    pub path: Option<String>,
}

/// How a unit's text sits in the input string at its pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// It is the whole string.
    Whole,
    /// It is these lines of a patch, joined by line breaks.
    Lines(Vec<Line>),
}

/// One added line of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Its range in the unit's text.
    pub text: Range<usize>,
    /// Where it starts in the patch.
    pub source: usize,
}

/// A change to one input string: `range` of it becomes `with`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The JSON pointer of the string.
    pub pointer: String,
    /// The byte range replaced.
    pub range: Range<usize>,
    /// What replaces it.
    pub with: String,
}

/// The units `input` offers when the call's normalized tool is `tool`, in
/// input order.
pub fn units(tool: &ToolName, input: &Value) -> Vec<Unit> {
    let path = ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str))
        .map(String::from);
    let mut out = Vec::new();
    let mut put = |field, pointer: String| {
        if let Some(text) = input.pointer(&pointer).and_then(Value::as_str) {
            out.push(Unit {
                field,
                pointer,
                place: Place::Whole,
                text: text.to_string(),
                path: path.clone(),
            });
        }
    };
    let each = |pointer: &str| {
        input
            .pointer(pointer)
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    };
    // A harness's spellings of one key, in the order they are looked for.
    let first = |keys: &[&'static str]| keys.iter().copied().find(|k| input.get(*k).is_some());
    match tool.as_str() {
        "write" => {
            if let Some(key) = first(&["content", "file_text"]) {
                put(FilterField::Content, format!("/{key}"));
            }
        }
        "edit" => {
            // Both, when an input has both: a patch in an extra key must not
            // hide the `new_string` the tool writes.
            if let Some(key) = first(&["new_string", "new_str"]) {
                put(FilterField::NewString, format!("/{key}"));
            }
            if let Some(patched) = patch_units(input) {
                out.extend(patched);
            }
        }
        "multiedit" => {
            for i in 0..each("/edits") {
                put(FilterField::Edits, format!("/edits/{i}/new_string"));
            }
        }
        "notebookedit" => put(FilterField::NewSource, "/new_source".into()),
        "ledger_write" | "inbox_send" => put(FilterField::Text, "/text".into()),
        "judge" => {
            put(FilterField::Text, "/text".into());
            for i in 0..each("/evidence") {
                let item = format!("/evidence/{i}");
                if input.pointer(&item).is_some_and(Value::is_string) {
                    put(FilterField::Evidence, item);
                } else {
                    put(FilterField::Evidence, format!("{item}/claim"));
                    put(FilterField::Evidence, format!("{item}/excerpt"));
                }
            }
            put(FilterField::Case, "/case/intent".into());
            for i in 0..each("/case/points") {
                put(FilterField::Case, format!("/case/points/{i}"));
            }
        }
        _ => {}
    }
    out
}

/// Where the texts `input` offers land: one entry per unit, `None` for a
/// text that lands in no file. A filter fires when its `paths` admit one.
pub fn landing(tool: &ToolName, input: &Value) -> Vec<Option<String>> {
    units(tool, input)
        .into_iter()
        .map(|unit| unit.path)
        .collect()
}

/// The smallest input of `tool` that offers `text` as its first unit,
/// landing in `path`: what an inline test's text is offered as. `None` for a
/// tool that offers no text.
pub fn offering(tool: &ToolName, path: Option<&str>, text: &str) -> Option<Value> {
    let mut input = match tool.as_str() {
        "write" => serde_json::json!({ "content": text }),
        "edit" => serde_json::json!({ "new_string": text }),
        "multiedit" => serde_json::json!({ "edits": [{ "new_string": text }] }),
        "notebookedit" => serde_json::json!({ "new_source": text }),
        "ledger_write" | "inbox_send" | "judge" => serde_json::json!({ "text": text }),
        _ => return None,
    };
    if let (Some(path), Some(object)) = (path, input.as_object_mut()) {
        let key = if tool.as_str() == "notebookedit" {
            "notebook_path"
        } else {
            "file_path"
        };
        object.insert(key.into(), Value::from(path));
    }
    Some(input)
}

/// The units of a patch in a string `command` (Codex), `input` or `patch`
/// key: one per file that gains lines. `None` when no such key holds a patch.
fn patch_units(input: &Value) -> Option<Vec<Unit>> {
    let (key, body) = ["command", "input", "patch"]
        .iter()
        .find_map(|key| Some((*key, input.get(*key)?.as_str()?)))?;
    let files = patch::files(body)?;
    Some(
        files
            .into_iter()
            .map(|file| {
                let mut text = String::new();
                let mut lines = Vec::with_capacity(file.lines.len());
                for (i, range) in file.lines.into_iter().enumerate() {
                    if i > 0 {
                        text.push('\n');
                    }
                    let start = text.len();
                    text.push_str(&body[range.clone()]);
                    lines.push(Line {
                        text: start..text.len(),
                        source: range.start,
                    });
                }
                Unit {
                    field: if file.added {
                        FilterField::Content
                    } else {
                        FilterField::NewString
                    },
                    pointer: format!("/{key}"),
                    place: Place::Lines(lines),
                    text,
                    path: Some(file.path),
                }
            })
            .collect(),
    )
}

impl Unit {
    /// The cuts that remove `spans` (byte ranges of the text, sorted and
    /// not overlapping) from the input, and the text that is left. In a
    /// patch the line breaks between added lines stay: one added line
    /// cannot run into the next.
    pub fn strip(&self, spans: &[Range<usize>]) -> (Vec<Cut>, String) {
        match &self.place {
            Place::Whole => {
                let left = without(&self.text, spans, 0);
                let cut = Cut {
                    pointer: self.pointer.clone(),
                    range: 0..self.text.len(),
                    with: left.clone(),
                };
                (vec![cut], left)
            }
            Place::Lines(lines) => {
                let mut cuts = Vec::new();
                let mut left = Vec::with_capacity(lines.len());
                for line in lines {
                    let text = &self.text[line.text.clone()];
                    let kept = without(text, spans, line.text.start);
                    if kept.len() != text.len() {
                        cuts.push(Cut {
                            pointer: self.pointer.clone(),
                            range: line.source..line.source + text.len(),
                            with: kept.clone(),
                        });
                    }
                    left.push(kept);
                }
                (cuts, left.join("\n"))
            }
        }
    }
}

/// `text` (which starts at `offset` of the spans' text) without the parts
/// of `spans` that fall in it.
fn without(text: &str, spans: &[Range<usize>], offset: usize) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut from = 0;
    for span in spans {
        let start = span.start.saturating_sub(offset).min(text.len());
        let end = span.end.saturating_sub(offset).min(text.len());
        if end <= from || start >= end {
            continue;
        }
        let start = start.max(from);
        kept.push_str(text.get(from..start).unwrap_or_default());
        from = end;
    }
    kept.push_str(text.get(from..).unwrap_or_default());
    kept
}

/// `input` with every cut made, and the shallow patch of its top-level keys
/// that changed. A cut whose string is gone or whose range does not fall on
/// character boundaries of it is not made.
pub fn apply(input: &Value, cuts: &[Cut]) -> (Value, Map<String, Value>) {
    let mut out = input.clone();
    let mut pointers: Vec<&str> = cuts.iter().map(|c| c.pointer.as_str()).collect();
    pointers.sort_unstable();
    pointers.dedup();
    let mut patch = Map::new();
    for pointer in pointers {
        let Some(Value::String(text)) = out.pointer_mut(pointer) else {
            continue;
        };
        let mut mine: Vec<&Cut> = cuts.iter().filter(|c| c.pointer == pointer).collect();
        // Back to front, so each range still means what it meant.
        mine.sort_by_key(|c| std::cmp::Reverse(c.range.start));
        for cut in mine {
            if text.get(cut.range.clone()).is_some() {
                text.replace_range(cut.range.clone(), &cut.with);
            }
        }
        let key = pointer.split('/').nth(1).unwrap_or_default();
        if let Some(value) = out.get(key) {
            patch.insert(key.to_string(), value.clone());
        }
    }
    (out, patch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(tool: &str, input: Value) -> Vec<(FilterField, String, String)> {
        units(&ToolName::new(tool), &input)
            .into_iter()
            .map(|u| (u.field, u.pointer, u.text))
            .collect()
    }

    #[test]
    fn each_tool_offers_its_text() {
        use FilterField::*;
        let s = |v: &str| v.to_string();
        let cases = [
            (
                "write",
                json!({"file_path": "/a", "content": "c"}),
                vec![(Content, s("/content"), s("c"))],
            ),
            (
                "write",
                json!({"path": "/a", "file_text": "f"}),
                vec![(Content, s("/file_text"), s("f"))],
            ),
            (
                "edit",
                json!({"file_path": "/a", "old_string": "o", "new_string": "n"}),
                vec![(NewString, s("/new_string"), s("n"))],
            ),
            (
                "edit",
                json!({"path": "/a", "old_str": "o", "new_str": "n"}),
                vec![(NewString, s("/new_str"), s("n"))],
            ),
            (
                "multiedit",
                json!({"file_path": "/a", "edits": [{"old_string": "a", "new_string": "x"}, {"new_string": "y"}]}),
                vec![
                    (Edits, s("/edits/0/new_string"), s("x")),
                    (Edits, s("/edits/1/new_string"), s("y")),
                ],
            ),
            (
                "notebookedit",
                json!({"notebook_path": "/n.ipynb", "new_source": "print(1)"}),
                vec![(NewSource, s("/new_source"), s("print(1)"))],
            ),
            (
                "ledger_write",
                json!({"text": "done"}),
                vec![(Text, s("/text"), s("done"))],
            ),
            (
                "inbox_send",
                json!({"text": "hi", "to": "x"}),
                vec![(Text, s("/text"), s("hi"))],
            ),
            (
                "judge",
                json!({"text": "t", "evidence": ["e0", {"claim": "c1", "excerpt": "x1"}], "case": {"intent": "i", "points": ["p0", "p1"]}}),
                vec![
                    (Text, s("/text"), s("t")),
                    (Evidence, s("/evidence/0"), s("e0")),
                    (Evidence, s("/evidence/1/claim"), s("c1")),
                    (Evidence, s("/evidence/1/excerpt"), s("x1")),
                    (Case, s("/case/intent"), s("i")),
                    (Case, s("/case/points/0"), s("p0")),
                    (Case, s("/case/points/1"), s("p1")),
                ],
            ),
            ("bash", json!({"command": "echo hi"}), vec![]),
            ("read", json!({"file_path": "/a"}), vec![]),
        ];
        for (tool, input, want) in cases {
            assert_eq!(texts(tool, input.clone()), want, "{tool} {input}");
        }
    }

    #[test]
    fn a_patch_offers_each_file_it_writes() {
        let patch = "*** Begin Patch\n*** Add File: ui/a.tsx\n+<p>one</p>\n+<p>two</p>\n*** Update File: b.py\n@@\n-x = 1\n+x = 'changed because reasons'\n*** End Patch\n";
        let found = units(&ToolName::new("edit"), &json!({"command": patch}));
        let summary: Vec<(FilterField, Option<&str>, &str)> = found
            .iter()
            .map(|u| (u.field, u.path.as_deref(), u.text.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (
                    FilterField::Content,
                    Some("ui/a.tsx"),
                    "<p>one</p>\n<p>two</p>"
                ),
                (
                    FilterField::NewString,
                    Some("b.py"),
                    "x = 'changed because reasons'"
                ),
            ]
        );
    }

    #[test]
    fn a_strip_removes_the_spans_where_they_are() {
        let input = json!({"file_path": "/a.py", "new_string": "x = 'seats; because'\n", "old_string": "o"});
        let unit = &units(&ToolName::new("edit"), &input)[0];
        let tail = std::slice::from_ref(&(10..19));
        let (cuts, left) = unit.strip(tail);
        assert_eq!(left, "x = 'seats'\n");
        let (out, patch) = apply(&input, &cuts);
        assert_eq!(out["new_string"], "x = 'seats'\n");
        assert_eq!(
            patch,
            json!({"new_string": "x = 'seats'\n"})
                .as_object()
                .unwrap()
                .clone()
        );
        // Lines of a patch keep their line breaks; only the spans go.
        let body = "*** Begin Patch\n*** Add File: a.txt\n+keep this; drop\n+and this too\n*** End Patch\n";
        let input = json!({"command": body});
        let unit = &units(&ToolName::new("edit"), &input)[0];
        assert_eq!(unit.text, "keep this; drop\nand this too");
        let (cuts, left) = unit.strip(std::slice::from_ref(&(9..20)));
        assert_eq!(left, "keep this\nthis too");
        let (out, patch) = apply(&input, &cuts);
        assert_eq!(
            out["command"],
            "*** Begin Patch\n*** Add File: a.txt\n+keep this\n+this too\n*** End Patch\n"
        );
        assert_eq!(patch.keys().collect::<Vec<_>>(), ["command"]);
        // Several spans, and spans past the text, are fine.
        assert_eq!(without("abcdef", &[1..2, 3..5, 9..12], 0), "acf");
        assert_eq!(without("abcdef", &[0..2, 1..4], 0), "ef");
    }
}
