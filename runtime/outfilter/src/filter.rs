//! The compiled forms: [`Filter`] (one `[filters.<name>]` table with every
//! regex compiled once), [`TestCase`] (one `[[tests.<name>]]` entry) and
//! [`FilterFile`] (what one file holds). Built by `parse.rs`, read by the
//! stages, the selection helpers, the inline-test runner and `bytes.rs`.

use regex_automata::meta;

use crate::matcher::Matcher;

/// One compiled output filter: rtk's keys with rtk's meaning, plus hookdex's
/// `match_shape`, `priority` and `min_size`.
///
/// Built by [`parse`](crate::parse) or [`Compiler::parse`](crate::Compiler::parse),
/// run by [`apply`](crate::apply), chosen by [`select`](crate::select), and
/// carried in an index with [`to_bytes`](Filter::to_bytes) /
/// [`from_bytes`](Filter::from_bytes).
#[derive(Clone, Debug)]
pub struct Filter {
    pub(crate) name: String,
    pub(crate) line: usize,
    pub(crate) description: Option<String>,
    pub(crate) match_command: Option<Matcher>,
    pub(crate) match_shape: Option<Matcher>,
    pub(crate) strip_ansi: bool,
    pub(crate) replace: Vec<ReplaceRule>,
    pub(crate) match_output: Vec<OutputRule>,
    pub(crate) lines: LineFilter,
    pub(crate) truncate_lines_at: Option<usize>,
    pub(crate) head_lines: Option<usize>,
    pub(crate) tail_lines: Option<usize>,
    pub(crate) max_lines: Option<usize>,
    pub(crate) on_empty: Option<String>,
    pub(crate) filter_stderr: bool,
    pub(crate) priority: i64,
    pub(crate) min_size: usize,
}

/// What choosing a filter needs of it, apart from the rest: its name,
/// `priority`, `min_size`, `match_command` and `match_shape`. An index
/// keeps every filter's claim and loads only the chosen filter whole.
#[derive(Clone, Debug)]
pub struct Claim {
    pub(crate) name: String,
    pub(crate) match_command: Option<Matcher>,
    pub(crate) match_shape: Option<Matcher>,
    pub(crate) priority: i64,
    pub(crate) min_size: usize,
}

impl Claim {
    /// The filter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its `priority`.
    pub fn priority(&self) -> i64 {
        self.priority
    }

    /// Its `min_size`.
    pub fn min_size(&self) -> usize {
        self.min_size
    }
}

/// The default `min_size`: outputs shorter than this many bytes are not
/// worth filtering (SPEC §7, measured in seed 003).
pub const DEFAULT_MIN_SIZE: usize = 400;

/// One `replace` rule: a regex substituted in every line, `$1`/`${name}`
/// expanded as the `regex` crate expands them.
#[derive(Clone)]
pub(crate) struct ReplaceRule {
    pub(crate) regex: meta::Regex,
    pub(crate) pattern: String,
    pub(crate) replacement: String,
}

impl std::fmt::Debug for ReplaceRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplaceRule")
            .field("pattern", &self.pattern)
            .field("replacement", &self.replacement)
            .finish()
    }
}

/// One `match_output` rule: when `pattern` matches the whole text and
/// `unless` does not, the output becomes `message`.
#[derive(Clone, Debug)]
pub(crate) struct OutputRule {
    pub(crate) pattern: Matcher,
    pub(crate) message: String,
    pub(crate) unless: Option<Matcher>,
}

/// The line filter: at most one of strip and keep, each one automaton for
/// its whole list.
#[derive(Clone, Debug)]
pub(crate) enum LineFilter {
    None,
    Strip(Matcher),
    Keep(Matcher),
}

impl Filter {
    /// What choosing this filter needs of it.
    pub fn claim(&self) -> Claim {
        Claim {
            name: self.name.clone(),
            match_command: self.match_command.clone(),
            match_shape: self.match_shape.clone(),
            priority: self.priority,
            min_size: self.min_size,
        }
    }

    /// The filter's name, the `<name>` of `[filters.<name>]`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The 1-based line of the filter's table in its file (`0` when the
    /// table's position was not known).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// `priority`: filters are tried by descending priority (default `0`).
    pub fn priority(&self) -> i64 {
        self.priority
    }

    /// `min_size`: below this many bytes of output the engine filters nothing
    /// (default [`DEFAULT_MIN_SIZE`]). [`apply`](crate::apply) does not
    /// enforce it: the floor is the caller's decision, and inline tests run
    /// without it.
    pub fn min_size(&self) -> usize {
        self.min_size
    }

    /// `filter_stderr`: whether the filter wants stderr merged into the text
    /// it filters.
    ///
    /// Combining the streams is the caller's. rtk, when this is set, captures
    /// both streams, decodes each as lossy UTF-8 and filters
    /// `format!("{stdout}{stderr}")`: stdout then stderr, with no separator, so
    /// a stdout that does not end in a newline runs into stderr's first line.
    /// When it is not set, rtk filters stdout alone and lets stderr through
    /// untouched.
    pub fn filter_stderr(&self) -> bool {
        self.filter_stderr
    }

    /// The `match_command` regex as written, if any.
    pub fn match_command(&self) -> Option<&str> {
        self.match_command.as_ref().map(|m| m.sources()[0].as_str())
    }

    /// The `match_shape` regexes as written (empty when there are none).
    pub fn match_shape(&self) -> &[String] {
        self.match_shape.as_ref().map_or(&[], |m| m.sources())
    }
}

/// One inline test, a `[[tests.<filter>]]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestCase {
    /// The filter it tests: the `<filter>` of `[[tests.<filter>]]`.
    pub filter: String,
    /// The test's `name`.
    pub name: String,
    /// The 1-based line of the entry.
    pub line: usize,
    /// The `input` given to the filter.
    pub input: String,
    /// The `expected` output (compared with trailing newlines trimmed).
    pub expected: String,
}

/// What a filter file holds once read: its filters, sorted by name as rtk
/// orders them, and its inline tests in file order.
#[derive(Clone, Debug, Default)]
pub struct FilterFile {
    /// The filters that compiled, sorted by name.
    pub filters: Vec<Filter>,
    /// The inline tests that were well formed, in file order.
    pub tests: Vec<TestCase>,
}

impl FilterFile {
    /// The filter named `name`, if the file has it.
    pub fn filter(&self, name: &str) -> Option<&Filter> {
        self.filters
            .binary_search_by(|f| f.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.filters[i])
    }
}
