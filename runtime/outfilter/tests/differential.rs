//! The engine against a deliberately naive model of rtk's `apply_filter`,
//! written here straight-line with the `regex` crate (what rtk uses), over
//! generated filters and generated inputs: lines of words, blanks, CRLF,
//! ANSI codes, long Unicode lines. Every filter runs twice, with its sets as
//! dense DFAs and as `meta::Regex`es, and both must equal the model. The
//! selector and `claims` are checked the same way.

use hookdex_outfilter::{apply, claims, Compiler, Filter};
use std::cell::RefCell;
use std::collections::HashMap;

use regex::{Regex, RegexSet};

thread_local! {
    static CACHE: RefCell<HashMap<String, Regex>> = RefCell::new(HashMap::new());
}

/// `Regex::new(pattern)`, compiled once per pattern.
fn re(pattern: &str) -> Regex {
    CACHE.with(|c| {
        c.borrow_mut()
            .entry(pattern.to_string())
            .or_insert_with(|| Regex::new(pattern).unwrap())
            .clone()
    })
}

/// xorshift64*, enough to vary inputs reproducibly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "noise",
    "word",
    "swordfish",
    "warn",
    "WARNING",
    "error",
    "ALL",
    "OK",
    "done",
    "x=12",
    "key=7",
    "café",
    "日本語",
    "Ωmega",
    "foo",
    "fooo",
    "123",
    "4567",
    "\t",
    "é",
    "ok",
];
const ANSI: &[&str] = &[
    "\x1b[31m",
    "\x1b[0m",
    "\x1b[1;32m",
    "\x1b[m",
    "\x1b[",
    "\x1b[12",
    "\x1b]0;t\x07",
    "\x1b",
];

fn line(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => String::new(),
        1 => " ".repeat(rng.below(4)),
        2 => "done".to_string(),
        3 => (0..rng.below(60) + 20)
            .map(|i| ["é", "日", "a", " ", "w"][i % 5])
            .collect(),
        _ => {
            let mut l = String::new();
            for i in 0..rng.below(6) + 1 {
                if i > 0 {
                    l.push(' ');
                }
                if rng.chance(15) {
                    l.push_str(rng.pick(ANSI));
                }
                l.push_str(rng.pick(WORDS));
            }
            if rng.chance(5) {
                l.push('\r');
            }
            l
        }
    }
}

fn input(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(25) {
        s.push_str(&line(rng));
        s.push_str(if rng.chance(20) { "\r\n" } else { "\n" });
    }
    if rng.chance(50) {
        s.push_str(&line(rng));
    }
    s
}

const LINE_PATTERNS: &[&str] = &[
    r"^\s*$",
    "^noise",
    r"\d{3}",
    "é",
    r"\bword\b",
    "(?i)warn",
    r"^\x1b",
    "fo+",
    "^ok$",
    r"(?-u:\b)OK",
];
const REPLACES: &[(&str, &str)] = &[
    (r"(\w+)=(\d+)", "$2=$1"),
    (r"\s+", " "),
    ("o*", "-"),
    ("é", "e"),
    ("(?P<w>warn)", "[${w}]"),
    (r"\d", "$$"),
    ("(a)", "$1b"),
    ("^", "> "),
];
const OUTPUTS: &[(&str, &str, Option<&str>)] = &[
    ("ALL OK", "ok", Some("warn|error")),
    ("(?m)^done$", "finished", None),
    ("ALL", "all", None),
    ("^$", "nothing", None),
];
const COUNTS: &[usize] = &[0, 1, 2, 3, 5, 8, 20];

/// A filter as the model sees it.
#[derive(Debug, Default)]
struct Model {
    strip_ansi: bool,
    replace: Vec<(&'static str, &'static str)>,
    match_output: Vec<(&'static str, &'static str, Option<&'static str>)>,
    strip: Vec<&'static str>,
    keep: Vec<&'static str>,
    truncate: Option<usize>,
    head: Option<usize>,
    tail: Option<usize>,
    max: Option<usize>,
    on_empty: Option<&'static str>,
}

fn model_config(rng: &mut Rng) -> Model {
    let mut m = Model {
        strip_ansi: rng.chance(50),
        ..Model::default()
    };
    let some = |rng: &mut Rng, percent| rng.chance(percent).then(|| rng.pick(COUNTS));
    if rng.chance(40) {
        m.replace = (0..rng.below(3) + 1).map(|_| rng.pick(REPLACES)).collect();
    }
    if rng.chance(30) {
        m.match_output = (0..rng.below(2) + 1).map(|_| rng.pick(OUTPUTS)).collect();
    }
    let list = |rng: &mut Rng| {
        (0..rng.below(3) + 1)
            .map(|_| rng.pick(LINE_PATTERNS))
            .collect()
    };
    match rng.below(3) {
        0 => m.strip = list(rng),
        1 => m.keep = list(rng),
        _ => {}
    }
    m.truncate = some(rng, 30);
    m.head = some(rng, 30);
    m.tail = some(rng, 30);
    m.max = some(rng, 30);
    if rng.chance(40) {
        m.on_empty = Some("empty!");
    }
    m
}

fn toml(m: &Model) -> String {
    let list = |v: &[&str]| {
        v.iter()
            .map(|p| format!("'{p}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::from("schema_version = 1\n[filters.gen]\nmatch_command = '^gen'\n");
    s += &format!("strip_ansi = {}\n", m.strip_ansi);
    if !m.replace.is_empty() {
        let rules: Vec<String> = m
            .replace
            .iter()
            .map(|(p, r)| format!("{{pattern = '{p}', replacement = '{r}'}}"))
            .collect();
        s += &format!("replace = [{}]\n", rules.join(", "));
    }
    if !m.match_output.is_empty() {
        let rules: Vec<String> = m
            .match_output
            .iter()
            .map(|(p, msg, u)| match u {
                Some(u) => format!("{{pattern = '{p}', message = '{msg}', unless = '{u}'}}"),
                None => format!("{{pattern = '{p}', message = '{msg}'}}"),
            })
            .collect();
        s += &format!("match_output = [{}]\n", rules.join(", "));
    }
    if !m.strip.is_empty() {
        s += &format!("strip_lines_matching = [{}]\n", list(&m.strip));
    }
    if !m.keep.is_empty() {
        s += &format!("keep_lines_matching = [{}]\n", list(&m.keep));
    }
    for (key, value) in [
        ("truncate_lines_at", m.truncate),
        ("head_lines", m.head),
        ("tail_lines", m.tail),
        ("max_lines", m.max),
    ] {
        if let Some(v) = value {
            s += &format!("{key} = {v}\n");
        }
    }
    if let Some(msg) = m.on_empty {
        s += &format!("on_empty = '{msg}'\n");
    }
    s
}

/// rtk's `apply_filter`, naively.
fn model_apply(m: &Model, input: &str) -> String {
    // Split on '\n'; a last empty piece is no line; a '\r' before '\n' goes.
    let mut pieces: Vec<&str> = input.split('\n').collect();
    let ended = input.ends_with('\n');
    if ended || input.is_empty() {
        pieces.pop();
    }
    let count = pieces.len();
    let mut lines: Vec<String> = pieces
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let terminated = i + 1 < count || ended;
            if terminated && p.ends_with('\r') {
                p[..p.len() - 1].to_string()
            } else {
                p.to_string()
            }
        })
        .collect();
    if m.strip_ansi {
        let ansi = re(r"\x1b\[[0-9;]*[a-zA-Z]");
        lines = lines
            .iter()
            .map(|l| ansi.replace_all(l, "").into_owned())
            .collect();
    }
    for (pattern, replacement) in &m.replace {
        let regex = re(pattern);
        lines = lines
            .iter()
            .map(|l| regex.replace_all(l, *replacement).into_owned())
            .collect();
    }
    if !m.match_output.is_empty() {
        let blob = lines.join("\n");
        for (pattern, message, unless) in &m.match_output {
            if re(pattern).is_match(&blob) {
                if let Some(u) = unless {
                    if re(u).is_match(&blob) {
                        continue;
                    }
                }
                return message.to_string();
            }
        }
    }
    if !m.strip.is_empty() {
        let set = RegexSet::new(&m.strip).unwrap();
        lines.retain(|l| !set.is_match(l));
    } else if !m.keep.is_empty() {
        let set = RegexSet::new(&m.keep).unwrap();
        lines.retain(|l| set.is_match(l));
    }
    if let Some(n) = m.truncate {
        lines = lines
            .into_iter()
            .map(|l| {
                let chars: Vec<char> = l.chars().collect();
                if chars.len() <= n {
                    l
                } else if n < 3 {
                    "...".to_string()
                } else {
                    chars[..n - 3].iter().collect::<String>() + "..."
                }
            })
            .collect();
    }
    let total = lines.len();
    if let (Some(h), Some(t)) = (m.head, m.tail) {
        if total > h + t {
            let mut out = lines[..h].to_vec();
            out.push(format!("... ({} lines omitted)", total - h - t));
            out.extend_from_slice(&lines[total - t..]);
            lines = out;
        }
    } else if let Some(h) = m.head {
        if total > h {
            lines.truncate(h);
            lines.push(format!("... ({} lines omitted)", total - h));
        }
    } else if let Some(t) = m.tail {
        if total > t {
            let mut out = vec![format!("... ({} lines omitted)", total - t)];
            out.extend_from_slice(&lines[total - t..]);
            lines = out;
        }
    }
    if let Some(max) = m.max {
        if lines.len() > max {
            let cut = lines.len() - max;
            lines.truncate(max);
            lines.push(format!("... ({cut} lines truncated)"));
        }
    }
    let result = lines.join("\n");
    match m.on_empty {
        Some(msg) if result.trim().is_empty() => msg.to_string(),
        _ => result,
    }
}

fn compile(src: &str, dfa: bool) -> Filter {
    let mut compiler = Compiler::new();
    if !dfa {
        compiler.dfa_size_limit(None);
    }
    let parsed = compiler.parse(src);
    assert!(parsed.errors.is_empty(), "{src}\n{:?}", parsed.errors);
    parsed.file.filters.into_iter().next().unwrap()
}

#[test]
fn pipeline_matches_the_model() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0;
    for _ in 0..150 {
        let m = model_config(&mut rng);
        let src = toml(&m);
        let with_dfa = compile(&src, true);
        let with_meta = compile(&src, false);
        let round_trip = Filter::from_bytes(&with_dfa.to_bytes()).unwrap();
        for _ in 0..25 {
            let input = input(&mut rng);
            let expected = model_apply(&m, &input);
            for (engine, filter) in [
                ("dfa", &with_dfa),
                ("meta", &with_meta),
                ("bytes", &round_trip),
            ] {
                let out = apply(filter, &input);
                assert_eq!(out.text, expected, "{engine}\n{src}\ninput {input:?}");
                if out.text != input.lines().collect::<Vec<_>>().join("\n") {
                    assert!(
                        out.is_lossy()
                            || !m.replace.is_empty()
                            || m.strip_ansi
                            || m.on_empty.is_some(),
                        "changed without a loss or a lossless rewrite\n{src}\ninput {input:?}"
                    );
                }
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 150 * 25);
}

/// The selector, naively: `$ cmd`, then the first six lines that are not
/// blank once ANSI codes are gone.
fn model_selector(command: Option<&str>, output: &str) -> String {
    let ansi = re(r"\x1b\[[0-9;]*[a-zA-Z]");
    let mut parts: Vec<String> = command.map(|c| format!("$ {c}")).into_iter().collect();
    parts.extend(
        output
            .lines()
            .map(|l| ansi.replace_all(l, "").into_owned())
            .filter(|l| !l.trim().is_empty())
            .take(6),
    );
    parts.join("\n")
}

#[test]
fn claims_match_the_model() {
    const SHAPES: &[&str] = &["^done$", "^noise", r"^\$ gen", "warn$", r"\bword\b", "^é"];
    const COMMANDS: &[Option<&str>] = &[None, Some("gen -x"), Some("make"), Some("generate")];
    let mut rng = Rng(42);
    for _ in 0..60 {
        let shapes: Vec<&str> = (0..rng.below(3) + 1).map(|_| rng.pick(SHAPES)).collect();
        let command = rng.chance(50).then_some(r"^gen\b");
        let mut src = String::from("schema_version = 1\n[filters.s]\n");
        if let Some(c) = command {
            src += &format!("match_command = '{c}'\n");
        }
        let list: Vec<String> = shapes.iter().map(|p| format!("'{p}'")).collect();
        src += &format!("match_shape = [{}]\n", list.join(", "));
        let filters = [compile(&src, true), compile(&src, false)];
        let shape_set: Vec<String> = shapes.iter().map(|p| format!("(?m){p}")).collect();
        let shape_set = RegexSet::new(&shape_set).unwrap();
        for _ in 0..25 {
            let output = input(&mut rng);
            let cmd = rng.pick(COMMANDS);
            let by_command = matches!((command, cmd), (Some(c), Some(x)) if re(c).is_match(x));
            let expected = by_command || shape_set.is_match(&model_selector(cmd, &output));
            for filter in &filters {
                assert_eq!(
                    claims(filter, cmd, &output),
                    expected,
                    "{src}\n{cmd:?} {output:?}"
                );
            }
        }
    }
}
