//! A compiled set of regexes answering one question, "does any of them match
//! this text?": a dense DFA for the whole set when regex-automata can build
//! one within the size limit, a `meta::Regex` over the set otherwise (Unicode
//! `\b`, or a set too big to determinize). Both read patterns exactly as the
//! `regex` crate (which rtk uses) does: same syntax, Unicode on, leftmost-first.

use std::fmt;

use regex_automata::{
    dfa::{
        dense::{self, DFA},
        Automaton, StartKind,
    },
    meta,
    util::syntax,
    Input,
};

/// The default cap on one set's dense DFA, in bytes; above it the set is
/// matched by a `meta::Regex` instead.
pub(crate) const DEFAULT_DFA_SIZE_LIMIT: usize = 1 << 20;

/// A pattern set compiled for "does any pattern match".
#[derive(Clone)]
pub(crate) struct Matcher {
    sources: Vec<String>,
    multi_line: bool,
    engine: Engine,
}

/// How a [`Matcher`] answers.
#[derive(Clone)]
pub(crate) enum Engine {
    /// One forward dense DFA for the whole set, unanchored start only.
    Dfa(Box<DFA<Vec<u32>>>),
    /// The set as one `meta::Regex`, compiled from the sources.
    Meta(meta::Regex),
}

/// A pattern of a set that does not compile: its index and the error.
pub(crate) struct BadPattern {
    pub(crate) index: usize,
    pub(crate) error: Box<meta::BuildError>,
}

impl Matcher {
    /// Compiles `sources` (non-empty) as one set; `multi_line` turns on `(?m)`.
    /// Tries a dense DFA first (capped at `dfa_size_limit` bytes, `None` for
    /// never) and falls back to a `meta::Regex`.
    pub(crate) fn build(
        sources: Vec<String>,
        multi_line: bool,
        dfa_size_limit: Option<usize>,
    ) -> Result<Matcher, BadPattern> {
        // Each pattern alone first, so an error names the pattern at fault
        // with the message the `regex` crate would give.
        for (index, source) in sources.iter().enumerate() {
            meta_builder(multi_line)
                .build(source)
                .map_err(|error| BadPattern {
                    index,
                    error: Box::new(error),
                })?;
        }
        let dfa = dfa_size_limit.and_then(|limit| build_dfa(&sources, multi_line, limit));
        let engine = match dfa {
            Some(dfa) => Engine::Dfa(Box::new(dfa)),
            None => Engine::Meta(
                build_meta(&sources, multi_line).map_err(|error| BadPattern { index: 0, error })?,
            ),
        };
        Ok(Matcher {
            sources,
            multi_line,
            engine,
        })
    }

    /// Reassembles a matcher from its parts (the checked loader in `bytes.rs`
    /// has validated the DFA against the sources).
    pub(crate) fn from_parts(sources: Vec<String>, multi_line: bool, engine: Engine) -> Matcher {
        Matcher {
            sources,
            multi_line,
            engine,
        }
    }

    /// Whether any pattern of the set matches somewhere in `haystack`.
    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        match &self.engine {
            // A search error needs quit bytes or an anchored-only start, which
            // `build_dfa` never configures and the loader rejects; if one
            // happened anyway it reads as "no match".
            Engine::Dfa(dfa) => {
                matches!(
                    dfa.try_search_fwd(&Input::new(haystack).earliest(true)),
                    Ok(Some(_))
                )
            }
            Engine::Meta(re) => re.is_match(haystack),
        }
    }

    /// The patterns as written.
    pub(crate) fn sources(&self) -> &[String] {
        &self.sources
    }

    /// Whether the set was compiled with `(?m)`.
    pub(crate) fn multi_line(&self) -> bool {
        self.multi_line
    }

    /// The engine answering for the set.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let engine = match &self.engine {
            Engine::Dfa(dfa) => format!("dense DFA, {} bytes", dfa.memory_usage()),
            Engine::Meta(_) => "meta::Regex".to_string(),
        };
        f.debug_struct("Matcher")
            .field("sources", &self.sources)
            .field("multi_line", &self.multi_line)
            .field("engine", &engine)
            .finish()
    }
}

/// The `regex` crate's syntax defaults, with `(?m)` when asked.
pub(crate) fn syntax_config(multi_line: bool) -> syntax::Config {
    syntax::Config::new().multi_line(multi_line)
}

/// A `meta::Regex` builder configured as the `regex` crate configures one.
pub(crate) fn meta_builder(multi_line: bool) -> meta::Builder {
    let mut builder = meta::Builder::new();
    builder.syntax(syntax_config(multi_line));
    builder
}

/// One `meta::Regex` for the whole set.
pub(crate) fn build_meta(
    sources: &[String],
    multi_line: bool,
) -> Result<meta::Regex, Box<meta::BuildError>> {
    meta_builder(multi_line)
        .build_many(sources)
        .map_err(Box::new)
}

/// One dense DFA for the set, or `None` when regex-automata cannot build it
/// (Unicode word boundary) or it would exceed `limit` bytes.
fn build_dfa(sources: &[String], multi_line: bool, limit: usize) -> Option<DFA<Vec<u32>>> {
    let config = dense::Config::new()
        .start_kind(StartKind::Unanchored)
        .dfa_size_limit(Some(limit))
        .determinize_size_limit(Some(limit.saturating_mul(4)));
    dense::Builder::new()
        .configure(config)
        .syntax(syntax_config(multi_line))
        .build_many(sources)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(patterns: &[&str], multi_line: bool) -> Matcher {
        let sources = patterns.iter().map(|p| p.to_string()).collect();
        Matcher::build(sources, multi_line, Some(DEFAULT_DFA_SIZE_LIMIT))
            .ok()
            .unwrap()
    }

    #[test]
    fn engine_choice() {
        let cases: &[(&[&str], bool)] = &[
            (&["^make\\[\\d+\\]:", "^\\s*$"], true),
            (&["(?-u:\\b)word(?-u:\\b)"], true),
            (&["\\bword\\b"], false),
            (&["^\\w+ \\d+$"], true),
        ];
        for (patterns, dfa) in cases {
            let m = set(patterns, false);
            assert_eq!(matches!(m.engine(), Engine::Dfa(_)), *dfa, "{patterns:?}");
        }
    }

    #[test]
    fn dfa_and_meta_agree() {
        let patterns = ["^Compiling ", "^\\s*$", "warning: \\d+", "é$", "(?i)error"];
        let hays = [
            "Compiling foo",
            " Compiling",
            "",
            "   ",
            "warning: 12",
            "warning: x",
            "café",
            "cafe",
            "ERROR here",
            "fine",
        ];
        let dfa = set(&patterns, false);
        let sources: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        let meta = Matcher::build(sources, false, None).ok().unwrap();
        assert!(matches!(meta.engine(), Engine::Meta(_)));
        for hay in hays {
            assert_eq!(dfa.is_match(hay), meta.is_match(hay), "{hay:?}");
        }
    }

    #[test]
    fn multi_line_anchors_per_line() {
        let m = set(&["^Refreshing state"], true);
        assert!(m.is_match("$ terraform plan\nRefreshing state... [id=1]"));
        let m = set(&["^Refreshing state"], false);
        assert!(!m.is_match("$ terraform plan\nRefreshing state... [id=1]"));
    }

    #[test]
    fn bad_pattern_is_named() {
        let sources = vec!["ok".to_string(), "(unclosed".to_string()];
        let err = Matcher::build(sources, false, Some(DEFAULT_DFA_SIZE_LIMIT))
            .err()
            .unwrap();
        assert_eq!(err.index, 1);
    }
}
