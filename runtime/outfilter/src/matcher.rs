//! A compiled set of regexes answering one question, "does any of them match
//! this text?": a dense DFA for the whole set when regex-automata can build
//! one within the size limit, a `meta::Regex` over the set otherwise (Unicode
//! `\b`, or a set too big to determinize). Both read patterns exactly as the
//! `regex` crate (which rtk uses) does: same syntax, Unicode on, leftmost-first.

use std::fmt;

use regex_automata::{
    dfa::{dense, sparse, Automaton, StartKind},
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
    /// The set as a `meta::Regex`, built the first time a DFA gives up (a
    /// Unicode `\b` next to a non-ASCII byte), so loading stays cheap.
    fallback: std::sync::OnceLock<Option<meta::Regex>>,
}

/// How a [`Matcher`] answers.
#[derive(Clone)]
pub(crate) enum Engine {
    /// One forward dense DFA for the whole set, unanchored start only,
    /// reading ASCII text (see `build_dfa`): fast to search, what a
    /// filter's stages use.
    Dense(Box<dense::DFA<Vec<u32>>>),
    /// The same as a sparse DFA: a fraction of the size and cheap to load,
    /// slower to search; what a claim uses, read on every call.
    Dfa(Box<sparse::DFA<Vec<u8>>>),
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
            Some(dfa) => Engine::Dense(Box::new(dfa)),
            None => Engine::Meta(
                build_meta(&sources, multi_line).map_err(|error| BadPattern { index: 0, error })?,
            ),
        };
        Ok(Matcher::from_parts(sources, multi_line, engine))
    }

    /// Reassembles a matcher from its parts (the checked loader in `bytes.rs`
    /// has validated the DFA against the sources).
    pub(crate) fn from_parts(sources: Vec<String>, multi_line: bool, engine: Engine) -> Matcher {
        Matcher {
            sources,
            multi_line,
            engine,
            fallback: std::sync::OnceLock::new(),
        }
    }

    /// Whether any pattern of the set matches somewhere in `haystack`.
    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        match &self.engine {
            // The DFA gives up only at a Unicode `\b` next to a non-ASCII
            // byte: the set's `meta::Regex` answers then.
            Engine::Dense(dfa) => self.answer(
                dfa.try_search_fwd(&Input::new(haystack).earliest(true)),
                haystack,
            ),
            Engine::Dfa(dfa) => self.answer(
                dfa.try_search_fwd(&Input::new(haystack).earliest(true)),
                haystack,
            ),
            Engine::Meta(re) => re.is_match(haystack),
        }
    }

    /// A DFA search's answer, or the Unicode regex's where the DFA gave up.
    fn answer(
        &self,
        found: Result<Option<regex_automata::HalfMatch>, regex_automata::MatchError>,
        haystack: &str,
    ) -> bool {
        match found {
            Ok(found) => found.is_some(),
            Err(_) => self
                .fallback
                .get_or_init(|| build_meta(&self.sources, self.multi_line).ok())
                .as_ref()
                .is_some_and(|re| re.is_match(haystack)),
        }
    }

    /// The same matcher with a dense DFA made sparse (for a claim).
    pub(crate) fn compact(&self) -> Matcher {
        let engine = match &self.engine {
            Engine::Dense(dfa) => match dfa.to_sparse() {
                Ok(sparse) => Engine::Dfa(Box::new(sparse)),
                Err(_) => self.engine.clone(),
            },
            other => other.clone(),
        };
        Matcher::from_parts(self.sources.clone(), self.multi_line, engine)
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
            Engine::Dense(dfa) => format!("dense DFA, {} bytes", dfa.memory_usage()),
            Engine::Dfa(dfa) => format!("sparse DFA, {} bytes", dfa.memory_usage()),
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

/// One DFA for the set that reads ASCII text only, or `None` when it
/// would exceed `limit` bytes.
///
/// It is built with ASCII classes and quits at every byte above 0x7F. On
/// ASCII text the two readings agree (`\w`, `\d`, `\s`, `\b` and case
/// folding match the same ASCII characters with Unicode on or off), so the
/// DFA answers exactly as the `regex` crate would; on text with any other
/// byte it gives up, and [`Matcher::is_match`] asks the Unicode
/// `meta::Regex` instead. Unicode classes as UTF-8 automata are what made
/// these DFAs large (a shipped filter's claim: 75 KB, against a few KB).
fn build_dfa(sources: &[String], multi_line: bool, limit: usize) -> Option<dense::DFA<Vec<u32>>> {
    let mut config = dense::Config::new()
        .start_kind(StartKind::Unanchored)
        .dfa_size_limit(Some(limit))
        .determinize_size_limit(Some(limit.saturating_mul(4)));
    for byte in 0x80..=0xFF {
        config = config.quit(byte, true);
    }
    dense::Builder::new()
        .configure(config)
        .syntax(syntax_config(multi_line).unicode(false).utf8(false))
        .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
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
            (&["\\bword\\b"], true),
            (&["^\\w+ \\d+$"], true),
        ];
        for (patterns, dfa) in cases {
            let m = set(patterns, false);
            assert_eq!(matches!(m.engine(), Engine::Dense(_)), *dfa, "{patterns:?}");
        }
    }

    #[test]
    fn non_ascii_text_is_read_with_unicode_classes() {
        // The ASCII DFA gives up on these; the Unicode regex answers.
        let cases = [
            ("^\\w+$", "héllo", true),
            ("\\bword\\b", "éword", false),
            ("\\bword\\b", "é word", true),
            ("(?i)^straße$", "STRASSE", false),
            ("^\\d$", "٣", true),
            ("^\\s$", "\u{2003}", true),
        ];
        for (pattern, hay, want) in cases {
            let m = set(&[pattern], false);
            assert!(matches!(m.engine(), Engine::Dense(_)), "{pattern}");
            assert_eq!(m.is_match(hay), want, "{pattern} on {hay:?}");
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
