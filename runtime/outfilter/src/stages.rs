//! The pipeline: [`apply`] runs rtk's eight stages in rtk's order and
//! reports, in [`Output`], the text and every way it lost content.
//!
//! Edge behaviour, as rtk's `apply_filter` has it:
//! - the input is split with [`str::lines`]: a final newline makes no empty
//!   last line, `\r\n` ends a line, a bare `\r` stays in its line; the result
//!   is joined with `\n` and has no final newline (empty input gives `""`);
//! - `strip_ansi` removes `ESC [ [0-9;]* [A-Za-z]` (CSI sequences only);
//! - `replace` works line by line, rule after rule, with the `regex` crate's
//!   `replace_all` (`$1`, `${name}`, `$$`);
//! - `match_output` matches the lines joined with `\n` (no `(?m)` unless the
//!   pattern asks); the first rule whose `pattern` matches and whose `unless`
//!   does not returns its message verbatim, skipping every later stage;
//! - `truncate_lines_at = n` counts characters: a longer line keeps `n - 3`
//!   characters and gains `...`; below `n = 3` it becomes `...`;
//! - `head_lines` + `tail_lines` cut only when there are more lines than both
//!   together (overlap leaves the text alone) and put `... (N lines omitted)`
//!   between them; `head_lines` alone appends that marker, `tail_lines` alone
//!   prepends it;
//! - `max_lines` counts the marker lines above and appends
//!   `... (N lines truncated)`;
//! - `on_empty` replaces a result that is empty or only whitespace.

use std::borrow::Cow;

use crate::filter::{Filter, LineFilter, ReplaceRule};

/// What [`apply`] produced: the filtered text and what was lost making it.
///
/// `replace` and `strip_ansi` rewrite without losing (seed 003: `replace`
/// sets no lossiness), and neither does normalising line endings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// The filtered text, without a final newline.
    pub text: String,
    /// How many lines the input had, as [`str::lines`] counts them.
    pub input_lines: usize,
    /// Each stage that dropped content, in pipeline order; empty when the
    /// filtering was lossless.
    pub losses: Vec<Loss>,
}

/// One way a stage dropped content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Loss {
    /// A `match_output` rule (its index in the list) replaced the whole output
    /// with its message.
    Replaced {
        /// The index of the rule in `match_output`.
        rule: usize,
    },
    /// `strip_lines_matching` or `keep_lines_matching` removed lines, anywhere.
    LinesDropped {
        /// How many lines.
        count: usize,
    },
    /// `truncate_lines_at` shortened lines.
    LinesTruncated {
        /// How many lines.
        count: usize,
    },
    /// `head_lines` with `tail_lines` omitted a contiguous middle.
    MiddleOmitted {
        /// How many lines.
        count: usize,
    },
    /// `tail_lines` alone omitted the first lines.
    HeadOmitted {
        /// How many lines.
        count: usize,
    },
    /// `head_lines` alone or `max_lines` cut everything after the first
    /// `kept` lines of what reached that stage.
    TailCut {
        /// How many lines were kept before the cut.
        kept: usize,
        /// How many lines were cut.
        count: usize,
    },
    /// `on_empty` replaced a result that was whitespace, not empty, or that
    /// `replace` emptied.
    BlankReplaced,
}

impl Output {
    /// Whether any content was lost.
    pub fn is_lossy(&self) -> bool {
        !self.losses.is_empty()
    }

    /// When the only loss is one cut of the tail, the number of lines of the
    /// original (as [`str::lines`] counts them) that the output still holds,
    /// in order; the recovery is then "the original from line `kept + 1`".
    ///
    /// ```
    /// let src = "schema_version = 1\n[filters.f]\nmatch_command = 'f'\nmax_lines = 2\n";
    /// let file = hookdex_outfilter::parse(src).into_result().unwrap();
    /// let out = hookdex_outfilter::apply(&file.filters[0], "a\nb\nc\nd\n");
    /// assert_eq!(out.text, "a\nb\n... (2 lines truncated)");
    /// assert_eq!(out.clean_tail_cut(), Some(2));
    /// ```
    pub fn clean_tail_cut(&self) -> Option<usize> {
        match self.losses.as_slice() {
            [Loss::TailCut { kept, .. }] => Some(*kept),
            _ => None,
        }
    }
}

/// Runs `filter`'s pipeline over `input` (the whole pipeline and nothing
/// else: no size floor, no never-worse check, no recovery marker).
///
/// ```
/// let src = r#"
/// schema_version = 1
/// [filters.make]
/// match_command = "^make\\b"
/// strip_lines_matching = ["^make\\[\\d+\\]:", "^\\s*$"]
/// on_empty = "make: ok"
/// "#;
/// let file = hookdex_outfilter::parse(src).into_result().unwrap();
/// let make = &file.filters[0];
/// let out = hookdex_outfilter::apply(make, "make[1]: Entering directory '/x'\ncc -c a.c\n\n");
/// assert_eq!(out.text, "cc -c a.c");
/// assert_eq!(out.losses, [hookdex_outfilter::Loss::LinesDropped { count: 2 }]);
/// assert_eq!(hookdex_outfilter::apply(make, "make[1]: Leaving directory '/x'\n").text, "make: ok");
/// ```
pub fn apply(filter: &Filter, input: &str) -> Output {
    // One scan of the whole input finds most outputs without an escape.
    let escapes = filter.strip_ansi && memchr::memchr(0x1b, input.as_bytes()).is_some();
    let rewritten = lines_of(input).map(|line| rewrite(filter, escapes, line));
    if filter.match_output.is_empty() {
        return filter_lines(filter, input, rewritten);
    }
    let lines: Vec<Cow<'_, str>> = rewritten.collect();
    let blob = lines.join("\n");
    for (index, rule) in filter.match_output.iter().enumerate() {
        let vetoed = || rule.unless.as_ref().is_some_and(|u| u.is_match(&blob));
        if rule.pattern.is_match(&blob) && !vetoed() {
            return Output {
                text: rule.message.clone(),
                input_lines: lines.len(),
                losses: vec![Loss::Replaced { rule: index }],
            };
        }
    }
    filter_lines(filter, input, lines.into_iter())
}

/// One line through `strip_ansi` (when the input has an escape at all) and
/// then every `replace` rule in order; `Borrowed` while nothing changed it.
fn rewrite<'a>(filter: &Filter, escapes: bool, line: &'a str) -> Cow<'a, str> {
    let mut line = Cow::Borrowed(line);
    if escapes {
        if let Cow::Owned(s) = strip_ansi(&line) {
            line = Cow::Owned(s);
        }
    }
    for rule in &filter.replace {
        if let Cow::Owned(s) = replace_all(rule, &line) {
            line = Cow::Owned(s);
        }
    }
    line
}

/// Where [`filter_lines`] puts the lines it keeps: straight into the text, unless
/// a stage that counts lines (`head_lines`, `tail_lines`, `max_lines`) has
/// to see them all first. Most filters have none, and a large output then
/// never holds a list of its lines.
enum Kept<'a> {
    Text { text: String, lines: usize },
    Lines(Vec<Cow<'a, str>>),
}

impl<'a> Kept<'a> {
    fn push(&mut self, line: Cow<'a, str>) {
        match self {
            Kept::Text { text, lines } => {
                if *lines > 0 {
                    text.push('\n');
                }
                text.push_str(&line);
                *lines += 1;
            }
            Kept::Lines(kept) => kept.push(line),
        }
    }
}

/// The stages after `match_output`, over the rewritten lines of `input`:
/// which lines stay, how long they may be, how many are shown, and
/// `on_empty`.
fn filter_lines<'a>(
    filter: &Filter,
    input: &str,
    lines: impl Iterator<Item = Cow<'a, str>>,
) -> Output {
    let counts_lines =
        filter.head_lines.is_some() || filter.tail_lines.is_some() || filter.max_lines.is_some();
    let mut kept = match counts_lines {
        true => Kept::Lines(Vec::new()),
        false => Kept::Text {
            text: String::with_capacity(input.len() + MARKER_ROOM),
            lines: 0,
        },
    };
    let (mut input_lines, mut dropped, mut truncated) = (0, 0, 0);
    for line in lines {
        input_lines += 1;
        let keep = match &filter.lines {
            LineFilter::Strip(set) => !set.is_match(&line),
            LineFilter::Keep(set) => set.is_match(&line),
            LineFilter::None => true,
        };
        if !keep {
            dropped += 1;
            continue;
        }
        match filter
            .truncate_lines_at
            .and_then(|max| truncate(&line, max))
        {
            Some(cut) => {
                truncated += 1;
                kept.push(Cow::Owned(cut));
            }
            None => kept.push(line),
        }
    }
    let mut losses = Vec::new();
    if dropped > 0 {
        losses.push(Loss::LinesDropped { count: dropped });
    }
    if truncated > 0 {
        losses.push(Loss::LinesTruncated { count: truncated });
    }
    let text = match kept {
        Kept::Text { text, .. } => text,
        Kept::Lines(mut lines) => {
            count_lines(filter, &mut lines, &mut losses);
            join(&lines)
        }
    };

    if let Some(message) = &filter.on_empty {
        if text.trim().is_empty() {
            // Lost: a blank result, or one that `replace` emptied (no stage
            // above counted that).
            if !text.is_empty() || (losses.is_empty() && !input.trim().is_empty()) {
                losses.push(Loss::BlankReplaced);
            }
            return Output {
                text: message.clone(),
                input_lines,
                losses,
            };
        }
    }
    Output {
        text,
        input_lines,
        losses,
    }
}

/// `head_lines`, `tail_lines` and then `max_lines` over the kept `lines`,
/// each adding its marker line and its loss.
fn count_lines(filter: &Filter, lines: &mut Vec<Cow<'_, str>>, losses: &mut Vec<Loss>) {
    let total = lines.len();
    match (filter.head_lines, filter.tail_lines) {
        (Some(head), Some(tail)) if total > head.saturating_add(tail) => {
            let omitted = total - head - tail;
            lines.splice(head..total - tail, [Cow::Owned(omitted_marker(omitted))]);
            losses.push(Loss::MiddleOmitted { count: omitted });
        }
        (Some(head), None) if total > head => {
            lines.truncate(head);
            lines.push(Cow::Owned(omitted_marker(total - head)));
            losses.push(Loss::TailCut {
                kept: head,
                count: total - head,
            });
        }
        (None, Some(tail)) if total > tail => {
            let omitted = total - tail;
            lines.splice(..omitted, [Cow::Owned(omitted_marker(omitted))]);
            losses.push(Loss::HeadOmitted { count: omitted });
        }
        _ => {}
    }

    if let Some(max) = filter.max_lines {
        if lines.len() > max {
            let cut = lines.len() - max;
            lines.truncate(max);
            lines.push(Cow::Owned(format!("... ({cut} lines truncated)")));
            losses.push(Loss::TailCut {
                kept: max,
                count: cut,
            });
        }
    }
}

/// The lines of `input` exactly as [`str::lines`] gives them (split at
/// `\n`, a `\r` before it dropped, no empty line after a final `\n`),
/// found with `memchr`: on a large output `str::lines` costs several times
/// the search for its newlines.
fn lines_of(input: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', input.as_bytes()).map(Some);
    ends.chain([None]).filter_map(move |end| {
        let line = match end {
            // `\n` is one byte and never inside a character: a boundary.
            Some(end) => input[start..end]
                .strip_suffix('\r')
                .unwrap_or(&input[start..end]),
            None if start < input.len() => &input[start..],
            None => return None,
        };
        start = end.map_or(input.len(), |end| end + 1);
        Some(line)
    })
}

/// Room left at the end of a result for a caller's marker line, so that
/// appending one does not copy the text again.
const MARKER_ROOM: usize = 256;

/// The lines joined with `\n`, with [`MARKER_ROOM`] left.
fn join(lines: &[Cow<'_, str>]) -> String {
    let len: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut text = String::with_capacity(len + MARKER_ROOM);
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(line);
    }
    text
}

/// rtk's marker for lines cut by `head_lines` / `tail_lines`.
fn omitted_marker(count: usize) -> String {
    format!("... ({count} lines omitted)")
}

/// `line` without its CSI escape sequences (`ESC [ [0-9;]* [A-Za-z]`), or
/// `Borrowed` when it has none.
pub(crate) fn strip_ansi(line: &str) -> Cow<'_, str> {
    let bytes = line.as_bytes();
    let mut out = String::new();
    let mut kept_from = 0;
    let mut i = 0;
    while let Some(offset) = memchr::memchr(0x1b, &bytes[i..]) {
        let esc = i + offset;
        i = esc + 1;
        if bytes.get(i) != Some(&b'[') {
            continue;
        }
        let mut end = i + 1;
        while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b';') {
            end += 1;
        }
        if end < bytes.len() && bytes[end].is_ascii_alphabetic() {
            out.push_str(&line[kept_from..esc]);
            kept_from = end + 1;
            i = end + 1;
        }
    }
    if kept_from == 0 {
        return Cow::Borrowed(line);
    }
    out.push_str(&line[kept_from..]);
    Cow::Owned(out)
}

/// The `regex` crate's `replace_all`: every non-overlapping leftmost-first
/// match replaced, `$` references expanded unless the replacement has no `$`.
fn replace_all<'a>(rule: &ReplaceRule, line: &'a str) -> Cow<'a, str> {
    let mut out = String::new();
    let mut last = 0;
    let mut matched = false;
    if rule.replacement.contains('$') {
        for caps in rule.regex.captures_iter(line) {
            let Some(m) = caps.get_match() else { continue };
            out.push_str(&line[last..m.start()]);
            caps.interpolate_string_into(line, &rule.replacement, &mut out);
            last = m.end();
            matched = true;
        }
    } else {
        for m in rule.regex.find_iter(line) {
            out.push_str(&line[last..m.start()]);
            out.push_str(&rule.replacement);
            last = m.end();
            matched = true;
        }
    }
    if !matched {
        return Cow::Borrowed(line);
    }
    out.push_str(&line[last..]);
    Cow::Owned(out)
}

/// The line cut to `max` characters as rtk's `utils::truncate` cuts it, or
/// `None` when it is not longer than `max` characters.
fn truncate(line: &str, max: usize) -> Option<String> {
    line.char_indices().nth(max)?;
    if max < 3 {
        return Some("...".to_string());
    }
    let end = line
        .char_indices()
        .nth(max - 3)
        .map_or(line.len(), |(i, _)| i);
    Some(format!("{}...", &line[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_as_str_lines_splits_them() {
        for input in [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "a\r",
            "a\r\r\n",
            "\r\n",
            "é\nü\r\n€",
            "x\n\r\ny\r",
            " \n\t\n",
        ] {
            assert_eq!(
                lines_of(input).collect::<Vec<_>>(),
                input.lines().collect::<Vec<_>>(),
                "{input:?}"
            );
        }
    }
    use crate::parse;

    /// A filter from the keys of its table.
    fn filter(keys: &str) -> Filter {
        let src = format!("schema_version = 1\n[filters.t]\nmatch_command = '^t'\n{keys}\n");
        let mut file = parse(&src).into_result().unwrap();
        file.filters.remove(0)
    }

    /// Each case: the filter's keys, the input, the expected text.
    fn table(cases: &[(&str, &str, &str)]) {
        for (keys, input, expected) in cases {
            let out = apply(&filter(keys), input);
            assert_eq!(out.text, *expected, "keys {keys:?} input {input:?}");
        }
    }

    #[test]
    fn kept_lines_come_out_the_same_whether_or_not_a_stage_counts_them() {
        // A `max_lines` no output reaches sends every kept line through the
        // list the counting stages need; without it they go straight into
        // the text. The two must agree on text and losses.
        let keys = [
            "",
            "strip_ansi = true\nstrip_lines_matching = ['^\\s*$']",
            "keep_lines_matching = ['a', '^$']\ntruncate_lines_at = 4",
            "replace = [{pattern = 'b', replacement = ''}]\non_empty = 'none'",
            "replace = [{pattern = 'x', replacement = 'y\\n'}]\nstrip_lines_matching = ['^c']",
            "match_output = [{pattern = 'zzz', message = 'm'}]\nstrip_lines_matching = ['^a']",
        ];
        let inputs = [
            "",
            "\n",
            "\n\na",
            "a\nb\n\nc\n",
            "b\nb",
            "\x1b[31mabcdef\x1b[0m\r\n\r\nax\ncx\n",
            "é€abc\n  \nbbb",
        ];
        for keys in keys {
            let direct = filter(keys);
            let listed = filter(&format!("{keys}\nmax_lines = 1000"));
            for input in inputs {
                assert_eq!(
                    apply(&direct, input),
                    apply(&listed, input),
                    "keys {keys:?} input {input:?}"
                );
            }
        }
    }

    #[test]
    fn lines_and_endings() {
        table(&[
            ("", "", ""),
            ("", "\n", ""),
            ("", "a\n", "a"),
            ("", "a\n\n", "a\n"),
            ("", "a\r\nb\r\n", "a\nb"),
            ("", "a\rb\n", "a\rb"),
            ("", "a\r", "a\r"),
            ("", "\n\na", "\n\na"),
        ]);
    }

    #[test]
    fn strip_ansi_stage() {
        table(&[
            ("strip_ansi = true", "\x1b[31mred\x1b[0m", "red"),
            ("strip_ansi = true", "\x1b[1;32mok\x1b[m x", "ok x"),
            (
                "strip_ansi = true",
                "\x1b]0;title\x07x",
                "\x1b]0;title\x07x",
            ),
            ("strip_ansi = true", "\x1b[12", "\x1b[12"),
            ("strip_ansi = true", "\x1b\x1b[0mé", "\x1bé"),
            ("strip_ansi = true", "\x1b[?25l", "\x1b[?25l"),
            ("strip_ansi = false", "\x1b[31mred", "\x1b[31mred"),
        ]);
    }

    #[test]
    fn replace_stage() {
        table(&[
            ("replace = [{pattern = 'a', replacement = 'b'}]", "aaa\nxa", "bbb\nxb"),
            ("replace = [{pattern = '(\\w+)=(\\d+)', replacement = '$2:$1'}]", "x=1 y=2", "1:x 2:y"),
            ("replace = [{pattern = '(?P<k>\\w+)', replacement = '<${k}>'}]", "ab cd", "<ab> <cd>"),
            ("replace = [{pattern = '(\\w)', replacement = '$1a'}]", "xy", ""),
            ("replace = [{pattern = 'x', replacement = '$$'}]", "axb", "a$b"),
            ("replace = [{pattern = '', replacement = '-'}]", "ab", "-a-b-"),
            ("replace = [{pattern = 'x*', replacement = '-'}]", "axxb", "-a-b-"),
            ("replace = [{pattern = '', replacement = '-'}]", "é", "-é-"),
            ("replace = [{pattern = '^', replacement = '> '}]", "a\nb", "> a\n> b"),
            (
                "replace = [{pattern = 'a', replacement = 'b'}, {pattern = 'b', replacement = 'c'}]",
                "ab",
                "cc",
            ),
            ("replace = [{pattern = 'q', replacement = 'z'}]", "abc", "abc"),
        ]);
    }

    #[test]
    fn match_output_stage() {
        let keys = "match_output = [\n{pattern = 'done', message = 'ok', unless = 'warn'},\n{pattern = 'done', message = 'ok with warnings'}]";
        table(&[
            (keys, "building\ndone", "ok"),
            (keys, "warn: x\ndone", "ok with warnings"),
            (keys, "building", "building"),
            (
                "match_output = [{pattern = '^b', message = 'm'}]",
                "a\nb",
                "a\nb",
            ),
            (
                "match_output = [{pattern = '(?m)^b', message = 'm'}]",
                "a\nb",
                "m",
            ),
            (
                "match_output = [{pattern = 'a\\nb', message = 'm'}]",
                "a\r\nb",
                "m",
            ),
            ("match_output = [{pattern = '^$', message = 'm'}]", "", "m"),
            (
                "strip_ansi = true\nmatch_output = [{pattern = '^ok$', message = 'm'}]",
                "\x1b[1mok\x1b[0m",
                "m",
            ),
            (
                "match_output = [{pattern = 'x', message = 'm'}]\nmax_lines = 0",
                "x\ny",
                "m",
            ),
        ]);
    }

    #[test]
    fn strip_and_keep_stage() {
        table(&[
            (
                "strip_lines_matching = ['^\\s*$', '^noise']",
                "a\n\n  \nnoise 1\nb",
                "a\nb",
            ),
            (
                "keep_lines_matching = ['^E', 'fail']",
                "E1\nok\nx fail\nE2",
                "E1\nx fail\nE2",
            ),
            ("keep_lines_matching = ['^E']", "ok\nfine", ""),
            ("strip_lines_matching = ['.*']", "", ""),
            ("strip_lines_matching = ['^a$']", "a\r\nb", "b"),
            (
                "strip_lines_matching = ['\\bword\\b']",
                "a word\nswordfish\nmot",
                "swordfish\nmot",
            ),
            (
                "strip_lines_matching = []\nkeep_lines_matching = ['a']",
                "a\nb",
                "a",
            ),
        ]);
    }

    #[test]
    fn truncate_stage() {
        table(&[
            (
                "truncate_lines_at = 5",
                "hello\n日本語xyz",
                "hello\n日本...",
            ),
            ("truncate_lines_at = 3", "abcd\nabc", "...\nabc"),
            ("truncate_lines_at = 2", "abc\nab\n", "...\nab"),
            ("truncate_lines_at = 0", "a\n\nb", "...\n\n..."),
            ("truncate_lines_at = 4", "éééééé", "é..."),
        ]);
    }

    #[test]
    fn head_tail_stage() {
        table(&[
            (
                "head_lines = 2",
                "a\nb\nc\nd\ne",
                "a\nb\n... (3 lines omitted)",
            ),
            ("head_lines = 5", "a\nb", "a\nb"),
            ("head_lines = 0", "a\nb", "... (2 lines omitted)"),
            ("head_lines = 0", "", ""),
            (
                "tail_lines = 2",
                "a\nb\nc\nd\ne",
                "... (3 lines omitted)\nd\ne",
            ),
            ("tail_lines = 0", "a", "... (1 lines omitted)"),
            (
                "head_lines = 2\ntail_lines = 2",
                "a\nb\nc\nd\ne\nf",
                "a\nb\n... (2 lines omitted)\ne\nf",
            ),
            ("head_lines = 2\ntail_lines = 2", "a\nb\nc\nd", "a\nb\nc\nd"),
            ("head_lines = 3\ntail_lines = 3", "a\nb\nc\nd", "a\nb\nc\nd"),
            (
                "head_lines = 0\ntail_lines = 0",
                "a\nb",
                "... (2 lines omitted)",
            ),
            (
                "head_lines = 1\ntail_lines = 0",
                "a\nb\nc",
                "a\n... (2 lines omitted)",
            ),
        ]);
    }

    #[test]
    fn max_lines_stage() {
        table(&[
            (
                "max_lines = 3",
                "a\nb\nc\nd\ne",
                "a\nb\nc\n... (2 lines truncated)",
            ),
            ("max_lines = 3", "a\nb\nc", "a\nb\nc"),
            ("max_lines = 0", "a", "... (1 lines truncated)"),
            ("max_lines = 0", "", ""),
            (
                "head_lines = 2\nmax_lines = 2",
                "a\nb\nc",
                "a\nb\n... (1 lines truncated)",
            ),
            (
                "tail_lines = 1\nmax_lines = 1",
                "a\nb\nc",
                "... (2 lines omitted)\n... (1 lines truncated)",
            ),
        ]);
    }

    #[test]
    fn on_empty_stage() {
        table(&[
            ("on_empty = 'none'", "", "none"),
            ("on_empty = 'none'", "\n\n", "none"),
            ("on_empty = 'none'", "  \n\t", "none"),
            ("on_empty = 'none'", "x", "x"),
            (
                "strip_lines_matching = ['x']\non_empty = 'none'",
                "x\nx",
                "none",
            ),
            (
                "max_lines = 0\non_empty = 'none'",
                "a",
                "... (1 lines truncated)",
            ),
            ("", "", ""),
        ]);
    }

    #[test]
    fn losses_are_typed() {
        let cases: &[(&str, &str, &[Loss])] = &[
            ("strip_ansi = true", "\x1b[1ma", &[]),
            ("replace = [{pattern = 'a', replacement = ''}]", "a", &[]),
            (
                "match_output = [{pattern = 'a', message = 'm'}]",
                "a",
                &[Loss::Replaced { rule: 0 }],
            ),
            (
                "strip_lines_matching = ['a']",
                "a\nb\na",
                &[Loss::LinesDropped { count: 2 }],
            ),
            (
                "truncate_lines_at = 1",
                "ab\nc",
                &[Loss::LinesTruncated { count: 1 }],
            ),
            (
                "head_lines = 1\ntail_lines = 1",
                "a\nb\nc\nd",
                &[Loss::MiddleOmitted { count: 2 }],
            ),
            (
                "head_lines = 1",
                "a\nb\nc",
                &[Loss::TailCut { kept: 1, count: 2 }],
            ),
            (
                "tail_lines = 1",
                "a\nb\nc",
                &[Loss::HeadOmitted { count: 2 }],
            ),
            (
                "max_lines = 2",
                "a\nb\nc",
                &[Loss::TailCut { kept: 2, count: 1 }],
            ),
            ("on_empty = 'm'", "  ", &[Loss::BlankReplaced]),
            ("on_empty = 'm'", "", &[]),
            // `replace` emptied the only line: the error is gone, so lost.
            (
                "replace = [{pattern = '^.*$', replacement = ''}]\non_empty = 'm'",
                "error: disk full",
                &[Loss::BlankReplaced],
            ),
            (
                "strip_lines_matching = ['x']\nhead_lines = 1",
                "x\na\nb",
                &[
                    Loss::LinesDropped { count: 1 },
                    Loss::TailCut { kept: 1, count: 1 },
                ],
            ),
        ];
        for (keys, input, losses) in cases {
            let out = apply(&filter(keys), input);
            assert_eq!(out.losses, *losses, "keys {keys:?} input {input:?}");
        }
        let out = apply(
            &filter("max_lines = 1\nstrip_lines_matching = ['x']"),
            "a\nb",
        );
        assert_eq!(out.clean_tail_cut(), Some(1));
        let out = apply(
            &filter("max_lines = 1\nstrip_lines_matching = ['x']"),
            "x\na\nb",
        );
        assert_eq!(out.clean_tail_cut(), None);
    }
}
