//! A compiled set of regexes answering one question, "does any of them match
//! this text?": a dense DFA for the whole set when regex-automata can build
//! one within the size limit, a `meta::Regex` over the set otherwise (Unicode
//! `\b`, or a set too big to determinize). Both read patterns exactly as the
//! `regex` crate (which rtk uses) does: same syntax, Unicode on, leftmost-first.
//!
//! The DFA reads ASCII text (see `build_dfa`); text with any other byte is
//! read by a second, sparse DFA of the set with Unicode classes, built at
//! compile time when it fits ([`UNICODE_DFA_SIZE_LIMIT`]), and only where
//! that cannot be built by the `meta::Regex`, compiled at the first such
//! text. Compiling a `meta::Regex` costs milliseconds per set, and a
//! selector with one box-drawing character used to pay it for every filter
//! tried before the one that claimed it. The Unicode DFA is kept as bytes
//! and checked and loaded the first time text needs it: its checked load
//! costs more than searching ASCII text with the first DFA.

use std::borrow::Cow;
use std::fmt;

use regex_automata::{
    dfa::{dense, sparse, Automaton, StartKind},
    meta,
    nfa::thompson,
    util::syntax,
    Input, MatchError,
};
use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
    Look, Repetition,
};

use crate::error::DecodeErrorKind;

/// The default cap on one set's dense DFA, in bytes; above it the set is
/// matched by a `meta::Regex` instead.
pub(crate) const DEFAULT_DFA_SIZE_LIMIT: usize = 1 << 20;

/// The cap on a set's Unicode DFA while it is determinized (dense), in
/// bytes; a set above it reads non-ASCII text with its `meta::Regex`. The
/// sparse form kept is a few percent of this.
pub(crate) const UNICODE_DFA_SIZE_LIMIT: usize = 4 << 20;

/// A pattern set compiled for "does any pattern match".
#[derive(Clone)]
pub(crate) struct Matcher {
    sources: Vec<String>,
    multi_line: bool,
    engine: Engine,
    /// The set as a sparse DFA with Unicode classes, for text the ASCII DFA
    /// gives up on, in its serialized form; `None` when it could not be
    /// built (Unicode `\b`, too big).
    unicode: Option<Cow<'static, [u8]>>,
    /// `unicode` checked and loaded, the first time it is needed; `None`
    /// when its bytes do not load (the `meta::Regex` answers then).
    unicode_dfa: std::sync::OnceLock<Option<sparse::DFA<Vec<u8>>>>,
    /// The set as a `meta::Regex`, built the first time both DFAs give up,
    /// so loading stays cheap.
    fallback: std::sync::OnceLock<Option<meta::Regex>>,
}

/// How a [`Matcher`] answers.
#[derive(Clone)]
pub(crate) enum Engine {
    /// One forward dense DFA for the whole set, unanchored start only,
    /// reading ASCII text (see `build_dfa`). Dense, not sparse, even for a
    /// claim read on every call: a dense DFA is checked on load in one pass
    /// over its table, a sparse one through a set of every state it holds,
    /// which measured twice as slow although half the size.
    Dense(Box<dense::DFA<Vec<u32>>>),
    /// [`Engine::Dense`] read in place from the binary's own bytes (a
    /// shipped filter's).
    Own(Box<dense::DFA<&'static [u32]>>),
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
        let (engine, unicode) = match dfa {
            Some(dfa) => (
                Engine::Dense(Box::new(dfa)),
                build_unicode_dfa(&sources, multi_line)
                    .map(|dfa| Cow::Owned(dfa.to_bytes_little_endian())),
            ),
            None => (
                Engine::Meta(
                    build_meta(&sources, multi_line)
                        .map_err(|error| BadPattern { index: 0, error })?,
                ),
                None,
            ),
        };
        Ok(Matcher::from_parts(sources, multi_line, engine, unicode))
    }

    /// Reassembles a matcher from its parts (the checked loader in `bytes.rs`
    /// has validated `engine` against the sources; `unicode` is checked when
    /// it is first needed).
    pub(crate) fn from_parts(
        sources: Vec<String>,
        multi_line: bool,
        engine: Engine,
        unicode: Option<Cow<'static, [u8]>>,
    ) -> Matcher {
        Matcher {
            sources,
            multi_line,
            engine,
            unicode,
            unicode_dfa: std::sync::OnceLock::new(),
            fallback: std::sync::OnceLock::new(),
        }
    }

    /// Whether any pattern of the set matches somewhere in `haystack`.
    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        match &self.engine {
            // The DFA gives up at the first non-ASCII byte.
            Engine::Dense(dfa) => self.answer(earliest(dfa.as_ref(), haystack), haystack),
            Engine::Own(dfa) => self.answer(earliest(dfa.as_ref(), haystack), haystack),
            Engine::Meta(re) => re.is_match(haystack),
        }
    }

    /// An ASCII DFA search's answer, or where it gave up the Unicode DFA's,
    /// or where that is missing the `meta::Regex`'s.
    fn answer(&self, found: Result<bool, MatchError>, haystack: &str) -> bool {
        let found = found.or_else(|err| match self.unicode_dfa() {
            Some(dfa) => earliest(dfa, haystack),
            None => Err(err),
        });
        match found {
            Ok(found) => found,
            Err(_) => self
                .fallback
                .get_or_init(|| build_meta(&self.sources, self.multi_line).ok())
                .as_ref()
                .is_some_and(|re| re.is_match(haystack)),
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

    /// The serialized Unicode DFA answering for non-ASCII text, when there
    /// is one.
    pub(crate) fn unicode(&self) -> Option<&[u8]> {
        self.unicode.as_deref()
    }

    /// The Unicode DFA, checked and loaded on first use; `None` when there is
    /// none or its bytes do not load as a DFA for this set.
    fn unicode_dfa(&self) -> Option<&sparse::DFA<Vec<u8>>> {
        self.unicode_dfa
            .get_or_init(|| {
                let dfa = load_dfa(self.unicode.as_deref()?).ok()?;
                (dfa.pattern_len() == self.sources.len()).then_some(dfa)
            })
            .as_ref()
    }
}

/// Whether `dfa` matches anywhere in `haystack`, walking its transitions
/// byte by byte to the first match state (a DFA's matches show one byte
/// late, so one at the end shows on the end-of-input transition). Filters
/// search line by line, and for lines of a few dozen bytes the setup of
/// `try_search_fwd` (its `Input`, prefilter and unrolled loop) cost more
/// than this walk.
///
/// # Errors
///
/// When the DFA gives up on a byte (a quit byte: the ASCII DFA's non-ASCII
/// bytes).
fn earliest<A: Automaton + ?Sized>(dfa: &A, haystack: &str) -> Result<bool, MatchError> {
    let mut state = dfa.start_state_forward(&Input::new(haystack))?;
    for (at, &byte) in haystack.as_bytes().iter().enumerate() {
        state = dfa.next_state(state, byte);
        if dfa.is_special_state(state) {
            if dfa.is_match_state(state) {
                return Ok(true);
            }
            if dfa.is_dead_state(state) {
                return Ok(false);
            }
            if dfa.is_quit_state(state) {
                return Err(MatchError::quit(byte, at));
            }
        }
    }
    Ok(dfa.is_match_state(dfa.next_eoi_state(state)))
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let engine = match &self.engine {
            Engine::Dense(dfa) => format!("dense DFA, {} bytes", dfa.memory_usage()),
            Engine::Own(dfa) => format!("dense DFA in place, {} bytes", dfa.memory_usage()),
            Engine::Meta(_) => "meta::Regex".to_string(),
        };
        let unicode = self.unicode.as_ref().map(|bytes| bytes.len());
        f.debug_struct("Matcher")
            .field("sources", &self.sources)
            .field("multi_line", &self.multi_line)
            .field("engine", &engine)
            .field("unicode_dfa_bytes", &unicode)
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
/// It is built from each pattern read as the `regex` crate reads it
/// (Unicode on), with every class cut to its ASCII members and Unicode
/// word boundaries made ASCII ones ([`ascii_part`]), and it quits at every
/// byte above 0x7F. On ASCII text that is exactly the Unicode reading: a
/// match there uses only the ASCII members of a class, and `(?i)ſ` still
/// matches `s` (reading the pattern with Unicode off would not fold `ſ`).
/// On text with any other byte it gives up, and [`Matcher::is_match`] asks
/// the Unicode DFA instead. Unicode classes as UTF-8 automata are what made
/// these DFAs large (a shipped filter's claim: 75 KB, against a few KB).
fn build_dfa(sources: &[String], multi_line: bool, limit: usize) -> Option<dense::DFA<Vec<u32>>> {
    let mut config = dense::Config::new()
        .start_kind(StartKind::Unanchored)
        .dfa_size_limit(Some(limit))
        .determinize_size_limit(Some(limit.saturating_mul(4)));
    for byte in 0x80..=0xFF {
        config = config.quit(byte, true);
    }
    let syntax = syntax_config(multi_line);
    let hirs = sources
        .iter()
        .map(|s| {
            syntax::parse_with(s, &syntax)
                .ok()
                .map(|hir| ascii_part(&hir))
        })
        .collect::<Option<Vec<_>>>()?;
    let nfa = thompson::Compiler::new()
        .configure(thompson::Config::new().utf8(false))
        .build_many_from_hir(&hirs)
        .ok()?;
    dense::Builder::new()
        .configure(config)
        .build_from_nfa(&nfa)
        .ok()
}

/// `hir` as it can match ASCII text: classes cut to their ASCII members,
/// Unicode word boundaries made ASCII ones (they agree on ASCII text).
fn ascii_part(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Empty | HirKind::Literal(_) => hir.clone(),
        HirKind::Class(Class::Unicode(class)) => {
            let mut class = class.clone();
            class.intersect(&ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7F')]));
            Hir::class(Class::Unicode(class))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut class = class.clone();
            class.intersect(&ClassBytes::new([ClassBytesRange::new(0, 0x7F)]));
            Hir::class(Class::Bytes(class))
        }
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            other => *other,
        }),
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(ascii_part(&rep.sub)),
            ..rep.clone()
        }),
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(ascii_part(&capture.sub)),
            ..capture.clone()
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(ascii_part).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(ascii_part).collect()),
    }
}

/// The set as a sparse DFA with Unicode classes (exact on any UTF-8 text),
/// or `None` when it cannot be built: a Unicode `\b`, or past
/// [`UNICODE_DFA_SIZE_LIMIT`] while determinizing.
fn build_unicode_dfa(sources: &[String], multi_line: bool) -> Option<sparse::DFA<Vec<u8>>> {
    let config = dense::Config::new()
        .start_kind(StartKind::Unanchored)
        .dfa_size_limit(Some(UNICODE_DFA_SIZE_LIMIT))
        .determinize_size_limit(Some(UNICODE_DFA_SIZE_LIMIT));
    dense::Builder::new()
        .configure(config)
        .syntax(syntax_config(multi_line))
        .build_many(sources)
        .ok()?
        .to_sparse()
        .ok()
}

/// Every DFA here is searched from an unanchored start.
pub(crate) fn unanchored(kind: StartKind) -> Result<(), DecodeErrorKind> {
    match kind {
        StartKind::Anchored => Err(DecodeErrorKind::Invalid {
            what: "DFA for its patterns",
        }),
        _ => Ok(()),
    }
}

/// A sparse DFA from its little-endian bytes through regex-automata's
/// checked loader (a sparse DFA needs no alignment).
pub(crate) fn load_dfa(bytes: &[u8]) -> Result<sparse::DFA<Vec<u8>>, DecodeErrorKind> {
    let (dfa, read) =
        sparse::DFA::from_bytes(bytes).map_err(|e| DecodeErrorKind::Dfa(Box::new(e)))?;
    if read != bytes.len() {
        return Err(DecodeErrorKind::Invalid { what: "DFA length" });
    }
    unanchored(dfa.start_kind())?;
    Ok(dfa.to_owned())
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
            // Without `\b`, the Unicode DFA answered and no regex was compiled.
            let by_dfa = !pattern.contains("\\b");
            assert_eq!(m.unicode_dfa().is_some(), by_dfa, "{pattern}");
            assert_eq!(m.fallback.get().is_some(), !by_dfa, "{pattern}");
        }
    }

    #[test]
    fn ascii_text_never_loads_the_unicode_dfa() {
        let m = set(&["^\\w+ \\d+$"], false);
        assert!(m.unicode().is_some());
        assert!(m.is_match("abc 12") && !m.is_match("abc x"));
        assert!(m.unicode_dfa.get().is_none());
    }

    #[test]
    fn unicode_bytes_that_do_not_load_leave_the_answer_to_the_regex() {
        let good = set(&["^\\w+$"], false);
        let mut bytes = good.unicode().unwrap().to_vec();
        let last = bytes.len() - 1;
        bytes[last / 2] ^= 0xff;
        bytes.truncate(last);
        let engine = good.engine().clone();
        let m = Matcher::from_parts(vec!["^\\w+$".into()], false, engine, Some(bytes.into()));
        for (hay, want) in [("héllo", true), ("hé llo", false), ("hello", true)] {
            assert_eq!(m.is_match(hay), want, "{hay:?}");
        }
    }

    #[test]
    fn a_pattern_letter_that_folds_to_ascii_matches_ascii_text() {
        // `ſ` (U+017F) and the Kelvin sign fold to `s` and `k`, as the
        // `regex` crate folds them.
        for pattern in ["(?i)^ſtatu\\x{212A}$", "(?i)^\u{17f}tatu\u{212a}$"] {
            let m = set(&[pattern], false);
            assert!(matches!(m.engine(), Engine::Dense(_)), "{pattern}");
            for hay in ["STATUK", "statuk", "ſtatuK"] {
                let want = regex_automata::meta::Regex::new(pattern)
                    .unwrap()
                    .is_match(hay);
                assert!(want, "{hay}");
                assert_eq!(m.is_match(hay), want, "{pattern} on {hay:?}");
            }
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
    fn the_dfa_walk_agrees_with_the_regex_on_every_pattern_and_line() {
        let patterns = [
            "^make(\\[\\d+\\])?: (Entering|Leaving) directory ['`][^']*'$",
            "^\\s*$",
            "x*",
            "a$",
            "^b",
            "(?-u:\\b)word(?-u:\\b)",
            "\\d{3}",
            "é",
            "(?i)warn",
        ];
        let hays = [
            "",
            "\n",
            "make[1]: Entering directory '/src/d1'",
            "make[12]: Leaving directory `/x'",
            "make: Entering directory '/x' trailing",
            "   ",
            "a",
            "ba",
            "b\na",
            "a\nb",
            "words word sword",
            "word",
            "12 345",
            "café",
            "naïve a",
            "WARNING: x",
            "gcc -c main.c",
        ];
        for multi_line in [false, true] {
            let mut sets: Vec<Vec<&str>> = patterns.iter().map(|p| vec![*p]).collect();
            sets.push(patterns.to_vec());
            for set_of in sets {
                let sources: Vec<String> = set_of.iter().map(|p| p.to_string()).collect();
                let dfa = Matcher::build(sources.clone(), multi_line, Some(DEFAULT_DFA_SIZE_LIMIT))
                    .ok()
                    .unwrap();
                let meta = build_meta(&sources, multi_line).unwrap();
                for hay in hays {
                    assert_eq!(
                        dfa.is_match(hay),
                        meta.is_match(hay),
                        "{set_of:?} (multi-line {multi_line}) on {hay:?}"
                    );
                }
            }
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
