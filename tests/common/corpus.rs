//! The adversarial corpus of command lines (`tests/enforce/*.txt`), read by the exec guard's
//! test (`tests/enforce_corpus.rs`), the text guard's (`tests/text_guard.rs`) and the
//! splitter's own (`runtime/shell/tests/corpus.rs`, which includes this file by path).
//!
//! One command line per line: `<class> TAB <expect> TAB <bash command line>`; `#` starts a
//! comment, and `# dynamic: CLASS…` names the classes whose program a text splitter cannot see.
//! A line holds a newline as `␤` (U+2424), so heredocs and multi-line substitutions fit.

use std::collections::BTreeSet;
use std::io::Read;
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

/// The script stub: logs its arguments as one line to `$KUBECTL_LOG`, says it ran.
pub const SCRIPT_STUB: &str =
    "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$KUBECTL_LOG\"\necho \"kubectl-stub $*\"\n";

/// The dynamic loader the `elf-ldso` lines (and one benign line) name.
pub const LDSO: &str = "/lib64/ld-linux-x86-64.so.2";

/// Programs some lines need that a machine may lack: a line naming a missing one is
/// skipped, and the test's summary says so.
pub const TOOLS: &[&str] = &[
    "python3",
    "perl",
    "node",
    "tclsh",
    "make",
    "git",
    "script",
    "setsid",
    "ssh",
    "run-parts",
    "base64",
    "rev",
    "dash",
    "tar",
    "flock",
    "ionice",
    "taskset",
    "stdbuf",
    "tac",
    "md5sum",
    "od",
    "awk",
    "nohup",
    "timeout",
    "rbash",
    "setarch",
    "linux64",
    "ssh-agent",
];

/// The words of a command line, for spotting the programs it names.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
        .filter(|w| !w.is_empty())
}

/// Whether the script stub ran `delete` / `get`: a logged line holding the word.
pub fn logged(log: &Path) -> (bool, bool) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let has = |verb: &str| {
        text.lines()
            .any(|l| l.split_whitespace().any(|w| w == verb))
    };
    (has("delete"), has("get"))
}

/// The [`TOOLS`] found on PATH, asked of bash (`command -v`).
pub fn present_tools() -> BTreeSet<&'static str> {
    let probe = TOOLS
        .iter()
        .map(|t| format!("command -v {t} >/dev/null 2>&1 && echo {t};"))
        .collect::<String>();
    let found = std::process::Command::new("bash")
        .args(["-c", &probe])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run bash");
    let found = String::from_utf8_lossy(&found.stdout).to_string();
    TOOLS
        .iter()
        .copied()
        .filter(|t| found.lines().any(|l| l == *t))
        .collect()
}

/// The tool (or the loader) `text` needs that is not in `present`.
pub fn missing(text: &str, present: &BTreeSet<&'static str>) -> Option<String> {
    if text.contains(LDSO) && !Path::new(LDSO).exists() {
        return Some(LDSO.to_string());
    }
    words(text)
        .find(|w| TOOLS.contains(w) && !present.contains(*w))
        .map(String::from)
}

/// Whether `path` is an ELF file.
pub fn is_elf(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == *b"\x7fELF"
}

/// Whether the ELF stub ran `delete` / `get`: a file of that name anywhere under `cwd`
/// (lines may `cd` into a directory they made).
pub fn left_files(cwd: &Path) -> (bool, bool) {
    let mut names = BTreeSet::new();
    names_under(cwd, &mut names);
    (names.contains("delete"), names.contains("get"))
}

fn names_under(dir: &Path, names: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        names.insert(entry.file_name().to_string_lossy().into_owned());
        // Not through links: a line may link the stub's directory in.
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            names_under(&entry.path(), names);
        }
    }
}
