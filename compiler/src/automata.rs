//! Builds the DFAs the index carries: filter `paths` glob sets and inline
//! finder regexes. Every DFA is serialized in native endianness and
//! validated with `DFA::from_bytes` here, so a rule that would not load is
//! refused at compile time (readers validate again when they load it).

use hookdex_index::GlobSetData;
use regex_automata::dfa::{dense, regex::Regex, StartKind};
use regex_automata::util::syntax;
use zerocopy::IntoBytes;

use crate::error::RuleErrorKind;

/// Why regexes did not become a DFA (a regex to blame is named in the kind).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutomatonError {
    kind: AutomatonErrorKind,
}

/// What went wrong building a DFA.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AutomatonErrorKind {
    /// A regex does not parse.
    Syntax {
        /// The regex as written.
        regex: String,
        /// regex-automata's reason, on one line.
        reason: String,
    },
    /// The DFA of the set would pass its size limit.
    TooLarge(String),
    /// regex-automata refused the set (it does not parse, or is too large).
    Build(String),
    /// The serialized DFA does not load back with full validation.
    Invalid(String),
}

impl AutomatonError {
    fn new(kind: AutomatonErrorKind) -> AutomatonError {
        AutomatonError { kind }
    }
}

impl std::fmt::Display for AutomatonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            AutomatonErrorKind::Syntax { regex, reason } => write!(f, "regex `{regex}`: {reason}"),
            AutomatonErrorKind::TooLarge(reason) => {
                write!(f, "too large for an automaton: {reason}")
            }
            AutomatonErrorKind::Build(reason) => f.write_str(reason),
            AutomatonErrorKind::Invalid(reason) => {
                write!(f, "serialized DFA does not validate: {reason}")
            }
        }
    }
}

impl std::error::Error for AutomatonError {}

fn paths_error(reason: String) -> RuleErrorKind {
    RuleErrorKind::Key {
        key: "paths".into(),
        reason,
    }
}

/// Largest DFA one glob or one finder may compile to.
const SIZE_LIMIT: usize = 4 << 20;
/// Largest DFA for a filter's globs together; past it each glob gets its own,
/// which is cheaper than determinizing a blown-up union to the end.
const SET_LIMIT: usize = 256 << 10;

/// Compiles `globs` into as few DFAs as fit under the size limit: all in one
/// when they fit, else one per glob (a handful of `**/dir/**` globs in one
/// DFA can grow exponentially).
///
/// # Errors
///
/// A `paths` error naming the glob that is invalid or too large on its own,
/// with that glob's position in `globs`.
pub fn glob_sets(globs: &[String]) -> Result<Vec<GlobSetData>, (usize, RuleErrorKind)> {
    if globs.is_empty() {
        return Ok(Vec::new());
    }
    let mut regexes = Vec::with_capacity(globs.len());
    for (at, glob) in globs.iter().enumerate() {
        let compiled = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| (at, paths_error(format!("`{glob}`: {}", e.kind()))))?;
        regexes.push(compiled.regex().to_string());
    }
    if let Ok(dfa) = glob_dfa(&regexes, SET_LIMIT) {
        return Ok(vec![GlobSetData {
            globs: globs.to_vec(),
            dfa,
        }]);
    }
    globs
        .iter()
        .zip(&regexes)
        .enumerate()
        .map(|(at, (glob, regex))| {
            let dfa = glob_dfa(std::slice::from_ref(regex), SIZE_LIMIT).map_err(|e| {
                let reason = format!("`{glob}` is too large for an automaton: {e}");
                (at, paths_error(reason))
            })?;
            Ok(GlobSetData {
                globs: vec![glob.clone()],
                dfa,
            })
        })
        .collect()
}

/// A glob set's DFA, minimized: the hook validates and copies it on every
/// call its filter's matcher fires for (every Edit, for the package's
/// `ui_slop`), so its size is paid there, and minimizing once here halves
/// it (23 KB to 10 KB for `ui_slop`'s two globs).
fn glob_dfa(regexes: &[String], limit: usize) -> Result<Vec<u8>, AutomatonError> {
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .minimize(true)
                .dfa_size_limit(Some(limit))
                .determinize_size_limit(Some(limit)),
        )
        .syntax(syntax::Config::new().utf8(false))
        .build_many(regexes)
        .map_err(|e| AutomatonError::new(AutomatonErrorKind::Build(e.to_string())))?;
    serialize(&dfa)
}

/// Compiles an inline finder regex into its forward and reverse DFAs.
/// Unicode word boundaries are allowed: the search gives up (and the finder
/// fails open) only on non-ASCII text next to one.
///
/// # Errors
///
/// A `finders` error naming the regex when it does not parse or is too large.
pub fn finder(regex: &str) -> Result<(Vec<u8>, Vec<u8>), RuleErrorKind> {
    let fail = |reason: String| RuleErrorKind::Key {
        key: "finders".into(),
        reason,
    };
    let built: Regex = regex_automata::dfa::regex::Builder::new()
        .dense(
            dense::Config::new()
                .unicode_word_boundary(true)
                .dfa_size_limit(Some(SIZE_LIMIT))
                .determinize_size_limit(Some(SIZE_LIMIT)),
        )
        .build(regex)
        .map_err(|e| {
            let reason = syntax_error(regex).unwrap_or_else(|| one_line(&e.to_string()));
            fail(format!("regex `{regex}`: {reason}"))
        })?;
    Ok((
        serialize(built.forward()).map_err(|e| fail(e.to_string()))?,
        serialize(built.reverse()).map_err(|e| fail(e.to_string()))?,
    ))
}

/// Largest DFA one step's `hooks.yaml` matcher regexes, or one hook's
/// `input_matcher`, may compile to.
const HOOK_LIMIT: usize = 8 << 20;

/// Compiles the regex `matchers` of one step's hooks into one anchored DFA
/// that reports every pattern matching a whole tool name (`MatchKind::All`):
/// pattern `i` is `matchers[i]`, wrapped as `(?:…)$` (the search is anchored
/// at the start). Unicode classes as the `regex` crate has them.
///
/// # Errors
///
/// Why the union does not fit the limit, or which matcher does not parse.
pub fn name_patterns(matchers: &[String]) -> Result<Vec<u8>, AutomatonError> {
    syntax_errors(matchers)?;
    let wrapped: Vec<String> = matchers.iter().map(|m| format!("(?:{m})$")).collect();
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .match_kind(regex_automata::MatchKind::All)
                .minimize(matchers.len() <= 64)
                .dfa_size_limit(Some(HOOK_LIMIT))
                .determinize_size_limit(Some(HOOK_LIMIT)),
        )
        .build_many(&wrapped)
        .map_err(|e| AutomatonError::new(AutomatonErrorKind::Build(one_line(&e.to_string()))))?;
    serialize(&dfa)
}

/// The literal prefixes one of which every text `regex` matches (from its
/// start) begins with, as the step's gate in front of its pattern DFA;
/// `None` when it has no finite set of non-empty ones (`.*shell`).
pub fn literal_prefixes(regex: &str) -> Option<Vec<String>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::parse(regex).ok()?;
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    let mut prefixes = Vec::new();
    for literal in seq.literals()? {
        let bytes = literal.as_bytes();
        // A prefix cut inside a character keeps its whole characters.
        let valid = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
        };
        if valid.is_empty() || valid.contains('\n') {
            return None;
        }
        prefixes.push(valid.to_string());
    }
    (!prefixes.is_empty()).then_some(prefixes)
}

/// Compiles a hook's `input_matcher` regexes into one DFA with a start of
/// its own per pattern: searching pattern `i` anchored finds whether
/// `regexes[i]` matches anywhere in a text (each is `(?s:.)*?(?:…)`).
/// Unicode word boundaries are allowed: the search gives up (and the
/// group does not match) only on non-ASCII text next to one.
///
/// # Errors
///
/// The regex that does not parse, or why the set is too large.
pub fn input_patterns(regexes: &[String]) -> Result<Vec<u8>, AutomatonError> {
    let config = || {
        dense::Config::new()
            .start_kind(StartKind::Anchored)
            .starts_for_each_pattern(true)
            .unicode_word_boundary(true)
            .dfa_size_limit(Some(HOOK_LIMIT))
            .determinize_size_limit(Some(HOOK_LIMIT))
    };
    syntax_errors(regexes)?;
    let wrapped: Vec<String> = regexes.iter().map(|r| format!("(?s:.)*?(?:{r})")).collect();
    let dfa = dense::Builder::new()
        .configure(config())
        .build_many(&wrapped)
        .map_err(|e| AutomatonError::new(AutomatonErrorKind::TooLarge(one_line(&e.to_string()))))?;
    serialize(&dfa)
}

/// Largest DFA of one guard's entries.
const GUARD_LIMIT: usize = 1 << 20;

/// Compiles a guard's entry patterns ([`crate::formats::guard`]) into one
/// DFA where `regexes[i]` is pattern `i` with its own anchored start, read
/// byte by byte by the hook ([`hookdex_index::GuardPatterns::prefix`]).
///
/// # Errors
///
/// When the set does not build or is too large.
pub fn guard_patterns(regexes: &[String]) -> Result<Vec<u8>, AutomatonError> {
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .starts_for_each_pattern(true)
                .minimize(true)
                .dfa_size_limit(Some(GUARD_LIMIT))
                .determinize_size_limit(Some(GUARD_LIMIT)),
        )
        .syntax(syntax::Config::new().utf8(false))
        .build_many(regexes)
        .map_err(|e| AutomatonError::new(AutomatonErrorKind::TooLarge(one_line(&e.to_string()))))?;
    serialize(&dfa)
}

/// Serializes `dfa` and proves the bytes load with full validation.
fn serialize(dfa: &dense::DFA<Vec<u32>>) -> Result<Vec<u8>, AutomatonError> {
    let (bytes, pad) = dfa.to_bytes_native_endian();
    let bytes = bytes[pad..].to_vec();
    // DFAs load from 4-aligned bytes; a `u32` buffer is.
    let mut aligned = vec![0u32; bytes.len().div_ceil(4)];
    let view = &mut aligned.as_mut_bytes()[..bytes.len()];
    view.copy_from_slice(&bytes);
    dense::DFA::from_bytes(view)
        .map_err(|e| AutomatonError::new(AutomatonErrorKind::Invalid(e.to_string())))?;
    Ok(bytes)
}

/// The first of `regexes` that does not parse, as a `Syntax` error with
/// [`syntax_error`]'s reason.
fn syntax_errors(regexes: &[String]) -> Result<(), AutomatonError> {
    match regexes.iter().find_map(|r| Some((r, syntax_error(r)?))) {
        Some((regex, reason)) => Err(AutomatonError::new(AutomatonErrorKind::Syntax {
            regex: regex.clone(),
            reason,
        })),
        None => Ok(()),
    }
}

/// Why `regex` (as written, with the default syntax: Unicode, UTF-8) does
/// not parse: regex-syntax's reason and where in it, as `unclosed group
/// at column 12` (and the line, for a regex of several); `None` when it
/// parses. Builders report such a regex only as "error building NFA".
pub fn syntax_error(regex: &str) -> Option<String> {
    let err = regex_syntax::Parser::new().parse(regex).err()?;
    let (kind, span) = match &err {
        regex_syntax::Error::Parse(e) => (e.kind().to_string(), *e.span()),
        regex_syntax::Error::Translate(e) => (e.kind().to_string(), *e.span()),
        _ => return Some(one_line(&err.to_string())),
    };
    let line = match span.start.line {
        1 => String::new(),
        n => format!("line {n}, "),
    };
    Some(format!("{kind} at {line}column {}", span.start.column))
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regex_error_names_regex_syntax_reason_and_column() {
        assert_eq!(
            syntax_error("(?i)because(x").as_deref(),
            Some("unclosed group at column 12")
        );
        assert_eq!(
            syntax_error("a\\qb").as_deref(),
            Some("unrecognized escape sequence at column 2")
        );
        assert_eq!(syntax_error("a|b"), None);
        let err = name_patterns(&["Bash".into(), "Bash|(x".into()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "regex `Bash|(x`: unclosed group at column 6"
        );
        let err = input_patterns(&["rm(\\s".into()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "regex `rm(\\s`: unclosed group at column 3"
        );
        let Err(RuleErrorKind::Key { reason, .. }) = finder("x[") else {
            panic!("x[ built");
        };
        assert_eq!(reason, "regex `x[`: unclosed character class at column 2");
    }

    #[test]
    fn globs_compile_and_fall_back_to_one_dfa_each() {
        let sets = glob_sets(&["**/*.tsx".into(), "src/ui/**".into()]).unwrap();
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].globs.len(), 2);
        let many: Vec<String> = (0..12).map(|i| format!("**/dir{i}/**/x{i}/**")).collect();
        let sets = glob_sets(&many).unwrap();
        assert!(!sets.is_empty());
        assert_eq!(sets.iter().map(|s| s.globs.len()).sum::<usize>(), 12);
        let (at, err) = glob_sets(&["*.rs".into(), "a[".into()]).unwrap_err();
        assert_eq!(at, 1);
        assert!(err.to_string().contains("`a[`"), "{err}");
    }

    #[test]
    fn regex_matchers_have_literal_prefixes_where_they_can() {
        assert_eq!(
            literal_prefixes("mcp__github__.*"),
            Some(vec!["mcp__github__".into()])
        );
        let both = literal_prefixes("developer__(shell|text_editor)").unwrap();
        assert_eq!(both, ["developer__shell", "developer__text_editor"]);
        assert_eq!(literal_prefixes(".*shell"), None);
        assert_eq!(literal_prefixes("a?b"), Some(vec!["ab".into(), "b".into()]));
        assert_eq!(literal_prefixes("(x|)y*"), None);
    }

    #[test]
    fn finders_compile_with_unicode_word_boundaries() {
        let (forward, reverse) = finder(r"\bbecause\b").unwrap();
        assert!(!forward.is_empty() && !reverse.is_empty());
        assert!(finder("(").unwrap_err().to_string().contains("regex `(`"));
    }
}
