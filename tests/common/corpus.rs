//! The adversarial corpus of command lines (`tests/enforce/*.txt`), read by the exec guard's
//! test (`tests/enforce_corpus.rs`), the text guard's (`tests/text_guard.rs`) and the
//! splitter's own (`runtime/shell/tests/corpus.rs`, which includes this file by path).
//!
//! One command line per line: `<class> TAB <expect> TAB <bash command line>`; `#` starts a
//! comment, and `# dynamic: CLASS…` names the classes whose program a text splitter cannot see.
//! A line holds a newline as `␤` (U+2424), so heredocs and multi-line substitutions fit.

use std::collections::BTreeSet;
use std::path::Path;

/// What a line claims, checked under plain bash first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The line runs `kubectl delete`: a guard must stop it.
    Stop,
    /// The line runs `kubectl get`: a selective guard lets it run.
    Run,
    /// No kubectl runs.
    Benign,
}

/// One command line of the corpus.
pub struct Line {
    /// Where it is: `corpus.txt:12`.
    pub at: String,
    /// Its class (a slug).
    pub class: String,
    /// What it claims.
    pub expect: Expect,
    /// The command line, newlines restored.
    pub text: String,
}

/// Every line of every corpus file, in file-name order.
pub struct Corpus {
    /// The lines.
    pub lines: Vec<Line>,
    /// The classes whose kubectl a text splitter cannot see (`# dynamic:` comment lines).
    pub dynamic: BTreeSet<String>,
}

impl Corpus {
    /// Whether `line`'s program is one the text shows (its class is not dynamic).
    pub fn visible(&self, line: &Line) -> bool {
        !self.dynamic.contains(&line.class)
    }
}

/// Reads `tests/enforce/*.txt` of the workspace; a malformed line panics naming its file and line.
pub fn corpus() -> Corpus {
    corpus_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/enforce"))
}

/// Reads `dir/*.txt` (another crate's tests include this file by path and name the folder).
pub fn corpus_in(dir: &Path) -> Corpus {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut lines = Vec::new();
    let mut dynamic = BTreeSet::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (n, raw) in text.lines().enumerate() {
            let at = format!("{name}:{}", n + 1);
            if let Some(classes) = raw.strip_prefix("# dynamic:") {
                dynamic.extend(classes.split_whitespace().map(String::from));
                continue;
            }
            if raw.trim().is_empty() || raw.starts_with('#') {
                continue;
            }
            let mut fields = raw.splitn(3, '\t');
            let (Some(class), Some(expect), Some(command)) =
                (fields.next(), fields.next(), fields.next())
            else {
                panic!("{at}: expected `<class>\\t<expect>\\t<command line>`: {raw:?}");
            };
            let expect = match expect {
                "stop" => Expect::Stop,
                "run" => Expect::Run,
                "benign" => Expect::Benign,
                other => panic!("{at}: expect `{other}`: expected one of stop, run, benign"),
            };
            assert!(!command.trim().is_empty(), "{at}: empty command line");
            lines.push(Line {
                at,
                class: class.to_string(),
                expect,
                text: command.replace('\u{2424}', "\n"),
            });
        }
    }
    Corpus { lines, dynamic }
}
