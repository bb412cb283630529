//! Choosing the filter for an output: the [`Selector`] text (`$ <command>`
//! and the first six non-empty output lines), [`claims`] (does one filter
//! want this output) and [`select`] (which filter of many gets it).

use crate::filter::{Claim, Filter};
use crate::matcher::Matcher;

/// How many non-empty output lines the selector holds (seed 003: one line
/// missed most pytest runs; the whole output would let a generic pattern
/// match an incidental line).
pub const SELECTOR_LINES: usize = 6;

/// The text `match_shape` regexes run over: `$ <command>` when the command
/// is known, then the first [`SELECTOR_LINES`] non-empty lines of the output,
/// joined with `\n`.
///
/// Lines are taken as [`str::lines`] splits them, with CSI escape sequences
/// removed (as `strip_ansi` removes them) so colour does not hide a shape;
/// a line that is empty or only whitespace after that does not count.
///
/// ```
/// use hookdex_outfilter::Selector;
/// let s = Selector::new(Some("pytest -q"), "\nExit code 1\n\n\x1b[1m===== test session starts\x1b[0m\n");
/// assert_eq!(s.text(), "$ pytest -q\nExit code 1\n===== test session starts");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector<'c> {
    command: Option<&'c str>,
    text: String,
}

impl<'c> Selector<'c> {
    /// The selector of `output`, produced by `command` when it is known.
    pub fn new(command: Option<&'c str>, output: &str) -> Selector<'c> {
        let mut text = String::new();
        if let Some(command) = command {
            text.push_str("$ ");
            text.push_str(command);
        }
        let lines = output
            .lines()
            .map(crate::stages::strip_ansi)
            .filter(|l| !l.trim().is_empty())
            .take(SELECTOR_LINES);
        for line in lines {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&line);
        }
        Selector { command, text }
    }

    /// The selector text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The command, when it is known.
    pub fn command(&self) -> Option<&'c str> {
        self.command
    }

    /// Whether `filter` claims the output this selector was made from: its
    /// `match_command` matches the command, or one of its `match_shape`
    /// regexes (compiled with `(?m)`) matches the selector text.
    pub fn is_claimed_by(&self, filter: &Filter) -> bool {
        self.claimed(filter.match_command.as_ref(), filter.match_shape.as_ref())
    }

    /// [`Selector::is_claimed_by`] for a filter's [`Claim`].
    pub fn claims(&self, claim: &Claim) -> bool {
        self.claimed(claim.match_command.as_ref(), claim.match_shape.as_ref())
    }

    fn claimed(&self, match_command: Option<&Matcher>, match_shape: Option<&Matcher>) -> bool {
        let by_command = match (match_command, self.command) {
            (Some(m), Some(command)) => m.is_match(command),
            _ => false,
        };
        by_command || match_shape.is_some_and(|m| m.is_match(&self.text))
    }
}

/// Whether `filter` claims `output` (produced by `command`, when known).
///
/// `match_command` runs on the command string as given; rtk gives it the
/// basename of the program followed by the arguments joined with spaces
/// (`/usr/bin/make -j4` is matched as `make -j4`). Size is not considered:
/// [`Filter::min_size`] is the caller's.
///
/// ```
/// let src = r#"
/// schema_version = 1
/// [filters.tf]
/// match_command = "^terraform\\s+plan"
/// match_shape = ["^Refreshing state\\.\\.\\."]
/// "#;
/// let file = hookdex_outfilter::parse(src).into_result().unwrap();
/// let tf = &file.filters[0];
/// assert!(hookdex_outfilter::claims(tf, Some("terraform plan -out x"), ""));
/// assert!(hookdex_outfilter::claims(tf, None, "Exit code 0\nRefreshing state... [id=1]\n"));
/// assert!(!hookdex_outfilter::claims(tf, Some("ls"), "main.tf\n"));
/// ```
pub fn claims(filter: &Filter, command: Option<&str>, output: &str) -> bool {
    Selector::new(command, output).is_claimed_by(filter)
}

/// The filter that gets `output`: filters are tried by descending
/// [`priority`](Filter::priority), then by name (then in the order given),
/// and the first that [claims] it wins.
///
/// ```
/// let src = r#"
/// schema_version = 1
/// [filters.generic]
/// match_shape = ["error:"]
/// priority = -10
/// [filters.make]
/// match_shape = ["^make\\["]
/// priority = 20
/// "#;
/// let file = hookdex_outfilter::parse(src).into_result().unwrap();
/// let out = "make[1]: Entering directory '/x'\na.c:1:1: error: oops\n";
/// let chosen = hookdex_outfilter::select(&file.filters, None, out).unwrap();
/// assert_eq!(chosen.name(), "make");
/// ```
pub fn select<'f, I>(filters: I, command: Option<&str>, output: &str) -> Option<&'f Filter>
where
    I: IntoIterator<Item = &'f Filter>,
{
    let mut ordered: Vec<&Filter> = filters.into_iter().collect();
    ordered.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then_with(|| a.name.cmp(&b.name))
    });
    let selector = Selector::new(command, output);
    ordered.into_iter().find(|f| selector.is_claimed_by(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn selector_text() {
        let cases: &[(Option<&str>, &str, &str)] = &[
            (None, "", ""),
            (Some("ls"), "", "$ ls"),
            (None, "a\n\n \nb\r\n", "a\nb"),
            (None, "1\n2\n3\n4\n5\n6\n7\n", "1\n2\n3\n4\n5\n6"),
            (Some("x"), "\x1b[0m\n1\n", "$ x\n1"),
        ];
        for (command, output, text) in cases {
            assert_eq!(Selector::new(*command, output).text(), *text, "{output:?}");
        }
    }

    #[test]
    fn claims_table() {
        let src = r#"
schema_version = 1
[filters.cmd]
match_command = "^make\\b"
[filters.shape]
match_shape = ["^\\$ pytest", "^=+ test session starts"]
"#;
        let file = parse(src).into_result().unwrap();
        let cmd = file.filter("cmd").unwrap();
        let shape = file.filter("shape").unwrap();
        let cases: &[(&Filter, Option<&str>, &str, bool)] = &[
            (cmd, Some("make -j2"), "", true),
            (cmd, Some("cmake ."), "", false),
            (cmd, None, "make -j2\n", false),
            (shape, Some("pytest -q"), "", true),
            (shape, None, "x\n=== test session starts ===\n", true),
            (
                shape,
                None,
                "1\n2\n3\n4\n5\n6\n=== test session starts\n",
                false,
            ),
            (shape, None, "  === test session starts\n", false),
        ];
        for (filter, command, output, claimed) in cases {
            assert_eq!(
                claims(filter, *command, output),
                *claimed,
                "{} {command:?} {output:?}",
                filter.name()
            );
        }
    }

    #[test]
    fn order_is_priority_then_name() {
        let src = r#"
schema_version = 1
[filters.b]
match_shape = ["x"]
[filters.a]
match_shape = ["x"]
[filters.z]
match_shape = ["x"]
priority = 5
[filters.low]
match_shape = ["x"]
priority = -1
"#;
        let file = parse(src).into_result().unwrap();
        assert_eq!(
            select(&file.filters, None, "x").map(Filter::name),
            Some("z")
        );
        let without_z: Vec<&Filter> = file.filters.iter().filter(|f| f.name() != "z").collect();
        assert_eq!(select(without_z, None, "x").map(Filter::name), Some("a"));
        assert_eq!(select(&file.filters, None, "y").map(Filter::name), None);
    }
}
