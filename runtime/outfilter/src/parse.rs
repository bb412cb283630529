//! Reading a filter file: TOML (through `toml_edit`, for the line of every
//! key) into a [`FilterFile`], every regex compiled once, every problem an
//! [`Error`] with its line and key.
//!
//! An unknown key is an error, where rtk (serde's `deny_unknown_fields`)
//! silently drops the whole file. The unit of loss here is the filter: a
//! filter table with any error is left out and each of its errors reported;
//! the file's other filters and tests still load. A missing or wrong
//! `schema_version`, or text that is not TOML, loads nothing. Unknown
//! top-level keys are reported too (rtk ignores them) but cost no filter.

use toml_edit::{Document, Item, TableLike};

use crate::error::{Error, ErrorKind};
use crate::filter::{
    Filter, FilterFile, LineFilter, OutputRule, ReplaceRule, TestCase, DEFAULT_MIN_SIZE,
};
use crate::matcher::{meta_builder, Matcher, DEFAULT_DFA_SIZE_LIMIT};

/// Reads filter files. The options concern compilation only; the meaning of
/// a file does not depend on them.
///
/// ```
/// let mut compiler = hookdex_outfilter::Compiler::new();
/// compiler.dfa_size_limit(None); // every set as a meta::Regex, no DFA
/// let parsed = compiler.parse("schema_version = 1\n[filters.f]\nmatch_command = '^f'\n");
/// assert!(parsed.errors.is_empty());
/// assert_eq!(parsed.file.filters[0].name(), "f");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Compiler {
    dfa_size_limit: Option<usize>,
}

impl Default for Compiler {
    fn default() -> Compiler {
        Compiler {
            dfa_size_limit: Some(DEFAULT_DFA_SIZE_LIMIT),
        }
    }
}

/// The result of reading a file: what loaded, and every error found.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// The filters and tests that loaded.
    pub file: FilterFile,
    /// The errors, in file order; a filter with an error is absent from `file`.
    pub errors: Vec<Error>,
}

impl Parsed {
    /// The file if there was no error at all, else the first error.
    ///
    /// # Errors
    ///
    /// The first error found in the file.
    pub fn into_result(self) -> Result<FilterFile, Error> {
        match self.errors.into_iter().next() {
            None => Ok(self.file),
            Some(error) => Err(error),
        }
    }
}

/// Reads a filter file with the default [`Compiler`].
///
/// ```
/// let src = r#"
/// schema_version = 1
/// [filters.make]
/// match_command = "^make\\b"
/// strip_lines_matching = ["^make\\[\\d+\\]:"]
/// "#;
/// let file = hookdex_outfilter::parse(src).into_result().unwrap();
/// assert_eq!(file.filters[0].name(), "make");
///
/// let err = hookdex_outfilter::parse("schema_version = 1\n[filters.x]\nmatch_command = 'x'\nfoo = 1\n")
///     .into_result()
///     .unwrap_err();
/// assert_eq!(err.to_string(), "line 4: key 'filters.x.foo': unknown key");
/// ```
pub fn parse(source: &str) -> Parsed {
    Compiler::new().parse(source)
}

impl Compiler {
    /// A compiler with the defaults: each regex set becomes a dense DFA when
    /// it fits in 1 MiB, a `meta::Regex` otherwise.
    pub fn new() -> Compiler {
        Compiler::default()
    }

    /// The cap, in bytes, on the dense DFA of one regex set; a set above it
    /// (or `None`: every set) is compiled as a `meta::Regex` instead.
    pub fn dfa_size_limit(&mut self, bytes: Option<usize>) -> &mut Compiler {
        self.dfa_size_limit = bytes;
        self
    }

    /// Reads one filter file.
    pub fn parse(&self, source: &str) -> Parsed {
        let mut reader = Reader {
            lines: LineIndex::new(source),
            compiler: *self,
            errors: Vec::new(),
        };
        let file = reader.file(source);
        let mut errors = reader.errors;
        errors.sort_by_key(|e| e.line);
        Parsed { file, errors }
    }
}

/// Byte offsets of line starts, to turn spans into 1-based lines.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(source: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}

struct Reader {
    lines: LineIndex,
    compiler: Compiler,
    errors: Vec<Error>,
}

/// A table's entry with where it is.
struct At<'a> {
    key: String,
    line: usize,
    item: &'a Item,
}

impl Reader {
    fn file(&mut self, source: &str) -> FilterFile {
        let doc = match Document::parse(source) {
            Ok(doc) => doc,
            Err(e) => {
                let line = e.span().map_or(1, |s| self.lines.line(s.start));
                self.error(
                    line,
                    None,
                    ErrorKind::Syntax {
                        message: e.message().to_string(),
                    },
                );
                return FilterFile::default();
            }
        };
        let root = doc.as_table();
        for (key, _) in root.iter() {
            if !TOP_KEYS.contains(&key) {
                let line = self.key_line(root, key, 1);
                self.unknown(line, key.to_string(), key, TOP_KEYS);
            }
        }
        match root.get("schema_version") {
            Some(item) if item.as_integer() == Some(1) => {}
            found => {
                let line = self.key_line(root, "schema_version", 1);
                let found = found.and_then(Item::as_integer);
                self.error(
                    line,
                    Some("schema_version".into()),
                    ErrorKind::SchemaVersion { found },
                );
                return FilterFile::default();
            }
        }
        let mut file = FilterFile::default();
        for at in self.entries(root, "filters", "") {
            if let Some(table) = self.table(&at) {
                let name = at.key.trim_start_matches("filters.").to_string();
                if let Some(filter) = self.filter(name, table, at.line) {
                    file.filters.push(filter);
                }
            }
        }
        file.filters.sort_by(|a, b| a.name.cmp(&b.name));
        for at in self.entries(root, "tests", "") {
            let filter = at.key.trim_start_matches("tests.").to_string();
            for (entry, line) in self.rule_tables(&at) {
                if let Some(test) = self.test(&filter, &at.key, entry, line) {
                    file.tests.push(test);
                }
            }
        }
        file
    }

    /// The sub-entries of `parent[key]`, which must be a table; `prefix` is
    /// the dotted path of `parent`.
    fn entries<'a>(&mut self, parent: &'a dyn TableLike, key: &str, prefix: &str) -> Vec<At<'a>> {
        let path = join(prefix, key);
        let Some(item) = parent.get(key) else {
            return Vec::new();
        };
        let line = self
            .item_line(item)
            .unwrap_or_else(|| self.key_line(parent, key, 1));
        let Some(table) = item.as_table_like() else {
            self.error(
                line,
                Some(path),
                ErrorKind::WrongType {
                    expected: "a table",
                },
            );
            return Vec::new();
        };
        table
            .iter()
            .map(|(k, item)| {
                let line = self.key_line(table, k, line);
                At {
                    key: join(&path, k),
                    line,
                    item,
                }
            })
            .collect()
    }

    fn table<'a>(&mut self, at: &At<'a>) -> Option<&'a dyn TableLike> {
        let table = at.item.as_table_like();
        if table.is_none() {
            self.error(
                at.line,
                Some(at.key.clone()),
                ErrorKind::WrongType {
                    expected: "a table",
                },
            );
        }
        table
    }

    /// The tables of an array of tables or of an array of inline tables, with
    /// their lines.
    fn rule_tables<'a>(&mut self, at: &At<'a>) -> Vec<(&'a dyn TableLike, usize)> {
        let mut out: Vec<(&'a dyn TableLike, usize)> = Vec::new();
        if let Some(aot) = at.item.as_array_of_tables() {
            for t in aot.iter() {
                let line = t.span().map_or(at.line, |s| self.lines.line(s.start));
                out.push((t, line));
            }
            return out;
        }
        let Some(array) = at.item.as_array() else {
            self.error(
                at.line,
                Some(at.key.clone()),
                ErrorKind::WrongType {
                    expected: "an array of tables",
                },
            );
            return out;
        };
        for value in array.iter() {
            let line = value.span().map_or(at.line, |s| self.lines.line(s.start));
            match value.as_inline_table() {
                Some(t) => out.push((t, line)),
                None => self.error(
                    line,
                    Some(at.key.clone()),
                    ErrorKind::WrongType {
                        expected: "an array of tables",
                    },
                ),
            }
        }
        out
    }

    fn test(
        &mut self,
        filter: &str,
        path: &str,
        entry: &dyn TableLike,
        line: usize,
    ) -> Option<TestCase> {
        let before = self.errors.len();
        let mut fields = [None, None, None];
        for (key, item) in entry.iter() {
            let key_line = self.key_line(entry, key, line);
            let slot = match key {
                "name" => 0,
                "input" => 1,
                "expected" => 2,
                _ => {
                    self.unknown(
                        key_line,
                        join(path, key),
                        key,
                        &["name", "input", "expected"],
                    );
                    continue;
                }
            };
            fields[slot] = self.string(item, key_line, &join(path, key));
        }
        for (slot, key) in ["name", "input", "expected"].iter().enumerate() {
            if fields[slot].is_none() && entry.get(key).is_none() {
                self.error(line, Some(join(path, key)), ErrorKind::MissingKey);
            }
        }
        if self.errors.len() > before {
            return None;
        }
        let [Some(name), Some(input), Some(expected)] = fields else {
            return None;
        };
        Some(TestCase {
            filter: filter.to_string(),
            name,
            line,
            input,
            expected,
        })
    }

    fn filter(&mut self, name: String, table: &dyn TableLike, line: usize) -> Option<Filter> {
        let before = self.errors.len();
        let path = format!("filters.{name}");
        let limit = self.compiler.dfa_size_limit;
        let mut filter = Filter {
            name,
            line,
            description: None,
            match_command: None,
            match_shape: None,
            strip_ansi: false,
            replace: Vec::new(),
            match_output: Vec::new(),
            lines: LineFilter::None,
            truncate_lines_at: None,
            head_lines: None,
            tail_lines: None,
            max_lines: None,
            on_empty: None,
            filter_stderr: false,
            priority: 0,
            min_size: DEFAULT_MIN_SIZE,
        };
        let mut strip = None;
        let mut keep: Option<(Matcher, usize)> = None;
        for (key, item) in table.iter() {
            let key_line = self.key_line(table, key, line);
            let key_path = join(&path, key);
            let at = At {
                key: key_path.clone(),
                line: key_line,
                item,
            };
            match key {
                "description" => filter.description = self.string(item, key_line, &key_path),
                "match_command" => {
                    filter.match_command = self
                        .string(item, key_line, &key_path)
                        .and_then(|p| self.matcher(vec![(p, key_line)], false, &key_path, limit));
                }
                "match_shape" => filter.match_shape = self.regex_list(&at, true, limit),
                "strip_lines_matching" => strip = self.regex_list(&at, false, limit),
                "keep_lines_matching" => {
                    keep = self.regex_list(&at, false, limit).map(|m| (m, key_line))
                }
                "strip_ansi" => filter.strip_ansi = self.boolean(&at),
                "filter_stderr" => filter.filter_stderr = self.boolean(&at),
                "replace" => filter.replace = self.replace_rules(&at),
                "match_output" => filter.match_output = self.output_rules(&at, limit),
                "truncate_lines_at" => filter.truncate_lines_at = self.count(&at),
                "head_lines" => filter.head_lines = self.count(&at),
                "tail_lines" => filter.tail_lines = self.count(&at),
                "max_lines" => filter.max_lines = self.count(&at),
                "min_size" => filter.min_size = self.count(&at).unwrap_or(DEFAULT_MIN_SIZE),
                "on_empty" => filter.on_empty = self.string(item, key_line, &key_path),
                "priority" => match item.as_integer() {
                    Some(p) => filter.priority = p,
                    None => self.error(
                        key_line,
                        Some(key_path),
                        ErrorKind::WrongType {
                            expected: "an integer",
                        },
                    ),
                },
                _ => self.unknown(key_line, key_path, key, FILTER_KEYS),
            }
        }
        filter.lines = match (strip, keep) {
            (Some(_), Some((_, keep_line))) => {
                self.error(
                    keep_line,
                    Some(join(&path, "keep_lines_matching")),
                    ErrorKind::StripAndKeep,
                );
                LineFilter::None
            }
            (Some(s), None) => LineFilter::Strip(s),
            (None, Some((k, _))) => LineFilter::Keep(k),
            (None, None) => LineFilter::None,
        };
        let has_command = table.get("match_command").is_some();
        let has_shape = table
            .get("match_shape")
            .and_then(Item::as_array)
            .is_some_and(|a| !a.is_empty());
        if !has_command && !has_shape {
            self.error(line, Some(path), ErrorKind::NoSelector);
        }
        (self.errors.len() == before).then_some(filter)
    }

    /// A list of regexes as one matcher; `None` for an empty list or an error.
    fn regex_list(
        &mut self,
        at: &At<'_>,
        multi_line: bool,
        limit: Option<usize>,
    ) -> Option<Matcher> {
        let Some(array) = at.item.as_array() else {
            self.error(
                at.line,
                Some(at.key.clone()),
                ErrorKind::WrongType {
                    expected: "an array of strings",
                },
            );
            return None;
        };
        let mut patterns = Vec::new();
        for value in array.iter() {
            let line = value.span().map_or(at.line, |s| self.lines.line(s.start));
            match value.as_str() {
                Some(p) => patterns.push((p.to_string(), line)),
                None => {
                    self.error(
                        line,
                        Some(at.key.clone()),
                        ErrorKind::WrongType {
                            expected: "an array of strings",
                        },
                    );
                    return None;
                }
            }
        }
        if patterns.is_empty() {
            return None;
        }
        self.matcher(patterns, multi_line, &at.key, limit)
    }

    fn matcher(
        &mut self,
        mut patterns: Vec<(String, usize)>,
        multi_line: bool,
        key: &str,
        limit: Option<usize>,
    ) -> Option<Matcher> {
        let sources = patterns.iter().map(|(p, _)| p.clone()).collect();
        match Matcher::build(sources, multi_line, limit) {
            Ok(m) => Some(m),
            Err(bad) => {
                let (pattern, line) = patterns.swap_remove(bad.index);
                self.error(
                    line,
                    Some(key.to_string()),
                    ErrorKind::Regex {
                        pattern,
                        error: bad.error,
                    },
                );
                None
            }
        }
    }

    fn replace_rules(&mut self, at: &At<'_>) -> Vec<ReplaceRule> {
        let mut rules = Vec::new();
        for (entry, line) in self.rule_tables(at) {
            let mut fields =
                self.rule_fields(entry, line, &at.key, &["pattern", "replacement"], &[]);
            let (Some(replacement), Some((pattern, pattern_line))) =
                (fields.pop().flatten(), fields.pop().flatten())
            else {
                continue;
            };
            match meta_builder(false).build(&pattern) {
                Ok(regex) => rules.push(ReplaceRule {
                    regex,
                    pattern,
                    replacement: replacement.0,
                }),
                Err(error) => self.error(
                    pattern_line,
                    Some(join(&at.key, "pattern")),
                    ErrorKind::Regex {
                        pattern,
                        error: Box::new(error),
                    },
                ),
            }
        }
        rules
    }

    fn output_rules(&mut self, at: &At<'_>, limit: Option<usize>) -> Vec<OutputRule> {
        let mut rules = Vec::new();
        for (entry, line) in self.rule_tables(at) {
            let mut fields =
                self.rule_fields(entry, line, &at.key, &["pattern", "message"], &["unless"]);
            let unless = fields.pop().flatten();
            let (Some(message), Some(pattern)) = (fields.pop().flatten(), fields.pop().flatten())
            else {
                continue;
            };
            let pattern_key = join(&at.key, "pattern");
            let Some(pattern) = self.matcher(vec![pattern], false, &pattern_key, limit) else {
                continue;
            };
            let unless = match unless {
                Some(u) => match self.matcher(vec![u], false, &join(&at.key, "unless"), limit) {
                    Some(m) => Some(m),
                    None => continue,
                },
                None => None,
            };
            rules.push(OutputRule {
                pattern,
                message: message.0,
                unless,
            });
        }
        rules
    }

    /// The string fields of one rule table, `required` then `optional`, each
    /// with its line; unknown keys and missing required keys are errors.
    fn rule_fields(
        &mut self,
        entry: &dyn TableLike,
        line: usize,
        path: &str,
        required: &[&'static str],
        optional: &[&'static str],
    ) -> Vec<Option<(String, usize)>> {
        for (key, _) in entry.iter() {
            if !required.contains(&key) && !optional.contains(&key) {
                let key_line = self.key_line(entry, key, line);
                let known: Vec<&'static str> = required.iter().chain(optional).copied().collect();
                self.unknown(key_line, join(path, key), key, &known);
            }
        }
        let mut fields = Vec::new();
        for (i, key) in required.iter().chain(optional).enumerate() {
            let key_path = join(path, key);
            match entry.get(key) {
                Some(item) => {
                    let key_line = self.key_line(entry, key, line);
                    fields.push(
                        self.string(item, key_line, &key_path)
                            .map(|s| (s, key_line)),
                    );
                }
                None => {
                    if i < required.len() {
                        self.error(line, Some(key_path), ErrorKind::MissingKey);
                    }
                    fields.push(None);
                }
            }
        }
        fields
    }

    fn string(&mut self, item: &Item, line: usize, key: &str) -> Option<String> {
        let s = item.as_str().map(str::to_string);
        if s.is_none() {
            self.error(
                line,
                Some(key.to_string()),
                ErrorKind::WrongType {
                    expected: "a string",
                },
            );
        }
        s
    }

    fn boolean(&mut self, at: &At<'_>) -> bool {
        at.item.as_bool().unwrap_or_else(|| {
            self.error(
                at.line,
                Some(at.key.clone()),
                ErrorKind::WrongType {
                    expected: "a boolean",
                },
            );
            false
        })
    }

    fn count(&mut self, at: &At<'_>) -> Option<usize> {
        let Some(n) = at.item.as_integer() else {
            self.error(
                at.line,
                Some(at.key.clone()),
                ErrorKind::WrongType {
                    expected: "an integer",
                },
            );
            return None;
        };
        let n = usize::try_from(n).ok();
        if n.is_none() {
            self.error(at.line, Some(at.key.clone()), ErrorKind::OutOfRange);
        }
        n
    }

    fn key_line(&self, table: &dyn TableLike, key: &str, fallback: usize) -> usize {
        table
            .key(key)
            .and_then(|k| k.span())
            .map(|s| self.lines.line(s.start))
            .or_else(|| table.get(key).and_then(|item| self.item_line(item)))
            .unwrap_or(fallback)
    }

    fn item_line(&self, item: &Item) -> Option<usize> {
        item.span().map(|s| self.lines.line(s.start))
    }

    fn error(&mut self, line: usize, key: Option<String>, kind: ErrorKind) {
        self.errors.push(Error::new(line, key, kind));
    }

    /// The key `key` (at `path`), which is none of `known`, naming the one
    /// it is nearest to.
    fn unknown(&mut self, line: usize, path: String, key: &str, known: &[&'static str]) {
        let nearest = hookdex_model::text::nearest(key, known);
        self.error(line, Some(path), ErrorKind::UnknownKey { nearest });
    }
}

/// The keys of a file's top level.
const TOP_KEYS: &[&str] = &["schema_version", "filters", "tests"];

/// The keys of one `[filters.NAME]` table (each an arm of the match in `filter`).
const FILTER_KEYS: &[&str] = &[
    "description",
    "match_command",
    "match_shape",
    "strip_lines_matching",
    "keep_lines_matching",
    "strip_ansi",
    "filter_stderr",
    "replace",
    "match_output",
    "truncate_lines_at",
    "head_lines",
    "tail_lines",
    "max_lines",
    "min_size",
    "on_empty",
    "priority",
];

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case: the file, then the errors as displayed.
    #[test]
    fn errors_name_line_and_key() {
        let cases: &[(&str, &[&str])] = &[
            ("schema_version = 1\n[filters.a]\nmatch_command = 'a'\nfoo = 1\n", &["line 4: key 'filters.a.foo': unknown key"]),
            ("[filters.a]\nmatch_command = 'a'\n", &["line 1: key 'schema_version': expected `schema_version = 1`"]),
            ("schema_version = 2\n", &["line 1: key 'schema_version': unsupported schema_version 2, expected 1"]),
            ("schema_version = 1\n[filters.a\n", &["line 2: not TOML: unclosed table, expected `]`"]),
            ("schema_version = 1\nother = 1\n", &["line 2: key 'other': unknown key"]),
            (
                "schema_version = 1\n[filters.a]\nmatch_command = 'a'\nhead_line = 3\n",
                &["line 4: key 'filters.a.head_line': unknown key (did you mean 'head_lines'?)"],
            ),
            (
                "schema_version = 1\n[filters.a]\nmatch_command = 'a'\nstrip_lines_matching = ['x']\nkeep_lines_matching = ['y']\n",
                &["line 5: key 'filters.a.keep_lines_matching': strip_lines_matching and keep_lines_matching are mutually exclusive"],
            ),
            ("schema_version = 1\n[filters.a]\nmax_lines = 3\n", &["line 2: key 'filters.a': a filter needs `match_command` or a non-empty `match_shape`"]),
            ("schema_version = 1\n[filters.a]\nmatch_command = 'a'\nmax_lines = -1\n", &["line 4: key 'filters.a.max_lines': expected a non-negative integer"]),
            ("schema_version = 1\n[filters.a]\nmatch_command = 'a'\nstrip_ansi = 'yes'\n", &["line 4: key 'filters.a.strip_ansi': expected a boolean"]),
            ("schema_version = 1\n[filters.a]\nmatch_command = 1\n", &["line 3: key 'filters.a.match_command': expected a string"]),
            (
                "schema_version = 1\n[filters.a]\nmatch_command = 'a'\nreplace = [{pattern = 'x'}]\n",
                &["line 4: key 'filters.a.replace.replacement': missing"],
            ),
            (
                "schema_version = 1\n[filters.a]\nmatch_command = 'a'\nmatch_output = [{pattern = 'x', message = 'm', unles = 'e'}]\n",
                &["line 4: key 'filters.a.match_output.unles': unknown key (did you mean 'unless'?)"],
            ),
            (
                "schema_version = 1\n[filters.a]\nmatch_command = 'a'\n[[tests.a]]\nname = 'n'\ninput = ''\n",
                &["line 4: key 'tests.a.expected': missing"],
            ),
            (
                "schema_version = 1\n[filters.a]\nmatch_command = 'a'\n[[tests.a]]\nname = 'n'\ninput = ''\nexpected = ''\nextra = 1\n",
                &["line 8: key 'tests.a.extra': unknown key"],
            ),
        ];
        for (src, expected) in cases {
            let errors: Vec<String> = parse(src).errors.iter().map(|e| e.to_string()).collect();
            assert_eq!(errors, *expected, "{src}");
        }
    }

    #[test]
    fn regex_errors_point_at_the_pattern() {
        let src = "schema_version = 1\n[filters.a]\nmatch_command = 'a'\nstrip_lines_matching = [\n  'ok',\n  '(bad',\n]\n";
        let errors = parse(src).errors;
        assert_eq!(errors.len(), 1);
        assert_eq!(
            (errors[0].line, errors[0].key.as_deref()),
            (6, Some("filters.a.strip_lines_matching"))
        );
        assert!(matches!(&errors[0].kind, ErrorKind::Regex { pattern, .. } if pattern == "(bad"));
    }

    #[test]
    fn a_bad_filter_costs_only_itself() {
        let src = r#"
schema_version = 1
[filters.good]
match_command = "^good"
[filters.bad]
match_command = "^bad"
max_line = 3
[filters.also_good]
match_shape = ["^x"]
[[tests.good]]
name = "t"
input = "a"
expected = "a"
"#;
        let parsed = parse(src);
        let names: Vec<&str> = parsed.file.filters.iter().map(Filter::name).collect();
        assert_eq!(names, ["also_good", "good"]);
        assert_eq!(parsed.errors.len(), 1);
        assert_eq!(parsed.file.tests.len(), 1);
        assert!(parsed.into_result().is_err());
    }

    #[test]
    fn defaults_and_shapes() {
        let src = r#"
schema_version = 1
[filters.a]
match_command = "^a"

[[filters.a.replace]]
pattern = "x"
replacement = "y"

[[filters.a.match_output]]
pattern = "done"
message = "ok"

[tests]
a = [{ name = "inline", input = "x", expected = "y" }]
"#;
        let file = parse(src).into_result().unwrap();
        let a = &file.filters[0];
        assert_eq!(
            (
                a.priority(),
                a.min_size(),
                a.filter_stderr(),
                a.description()
            ),
            (0, 400, false, None)
        );
        assert_eq!(a.replace.len(), 1);
        assert_eq!(a.match_output.len(), 1);
        assert_eq!(a.line(), 3);
        assert_eq!(file.tests[0].name, "inline");
    }
}
