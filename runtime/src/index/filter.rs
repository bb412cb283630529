//! Reading compiled filters: options in fixed records, `paths` glob sets and
//! inline finder regexes as DFAs used straight from the mapped bytes.

use regex_automata::dfa::{dense, regex::Regex, Automaton};
use regex_automata::{Anchored, Input};

use crate::error::Error;
use crate::index::read::Index;
use crate::index::wire::{self, u32_at};
use crate::rule::{FilterAction, FilterField, FilterMode};

/// A compiled filter rule.
#[derive(Clone, Debug)]
pub struct Filter<'a> {
    /// The rule id of the filter.
    pub rule: u32,
    /// `mode`.
    pub mode: FilterMode,
    /// `action`.
    pub action: FilterAction,
    /// `fields` (empty: every field).
    pub fields: Vec<FilterField>,
    /// `max_rounds`.
    pub max_rounds: u32,
    /// `intent`.
    pub intent: &'a str,
    /// `intent_from`.
    pub intent_from: Option<&'a str>,
    /// `question`.
    pub question: Option<&'a str>,
    /// `paths`, as glob sets (empty: every path).
    pub globs: Vec<GlobSet<'a>>,
    /// `finders`, in order.
    pub finders: Vec<Finder<'a>>,
}

/// Some of a filter's `paths` globs and the DFA matching any of them.
#[derive(Clone, Debug)]
pub struct GlobSet<'a> {
    /// The globs, one per line.
    pub globs: &'a str,
    dfa: &'a [u8],
}

/// One finder.
#[derive(Clone, Debug)]
pub enum Finder<'a> {
    /// An inline regex.
    Regex {
        /// The regex as written.
        source: &'a str,
        /// Its reason.
        reason: Option<&'a str>,
        /// Forward DFA bytes.
        forward: &'a [u8],
        /// Reverse DFA bytes.
        reverse: &'a [u8],
    },
    /// A named finder.
    Script {
        /// The name.
        name: &'a str,
        /// Its reason.
        reason: Option<&'a str>,
    },
}

/// Loads a dense DFA from verified index bytes without re-validating it.
fn load(bytes: &[u8]) -> Result<dense::DFA<&[u32]>, Error> {
    // SAFETY: every DFA in an index was produced by `to_bytes_native_endian`
    // at compile time and validated there with `DFA::from_bytes`; the header
    // proved the same automata version and endianness, and the caller
    // obtained `bytes` through `Section::get`, which verified each block's
    // checksum before handing them out.
    let (dfa, _) = unsafe { dense::DFA::from_bytes_unchecked(bytes) }
        .map_err(|e| Error::corrupt(format!("DFA: {e}")))?;
    Ok(dfa)
}

impl GlobSet<'_> {
    /// Whether any glob of the set matches the whole of `path`.
    ///
    /// # Errors
    ///
    /// When the DFA cannot be loaded or gives up.
    pub fn is_match(&self, path: &str) -> Result<bool, Error> {
        let dfa = load(self.dfa)?;
        let input = Input::new(path).anchored(Anchored::Yes);
        dfa.try_search_fwd(&input)
            .map(|m| m.is_some())
            .map_err(|e| Error::corrupt(format!("glob DFA: {e}")))
    }
}

impl Finder<'_> {
    /// The spans `[start, end)` of every non-empty match of an inline regex in
    /// `text`; a named finder has none here (it runs as a process).
    ///
    /// # Errors
    ///
    /// When the DFAs cannot be loaded, or the search gives up (a Unicode word
    /// boundary next to non-ASCII text); callers fail open.
    pub fn find_all(&self, text: &str) -> Result<Vec<(usize, usize)>, Error> {
        let Finder::Regex {
            forward, reverse, ..
        } = self
        else {
            return Ok(Vec::new());
        };
        let regex = Regex::builder().build_from_dfas(load(forward)?, load(reverse)?);
        let mut spans = Vec::new();
        let mut input = Input::new(text);
        loop {
            let found = regex.try_search(&input).map_err(|e| {
                Error::new(crate::ErrorKind::Invalid(format!("finder gave up: {e}")))
            })?;
            let Some(m) = found else { break };
            if m.end() > m.start() {
                spans.push((m.start(), m.end()));
            }
            let next = if m.end() > m.start() {
                m.end()
            } else {
                m.end() + 1
            };
            if next > text.len() {
                break;
            }
            input.set_start(next);
        }
        Ok(spans)
    }
}

impl<'a> Index<'a> {
    /// How many filters the index holds.
    pub fn filter_count(&self) -> usize {
        self.filters.records(wire::FILTER_LEN)
    }

    /// The filter of rule `rule`, if that rule is a filter.
    ///
    /// # Errors
    ///
    /// When a block it reads fails its checksum.
    pub fn filter(&self, rule: u32) -> Result<Option<Filter<'a>>, Error> {
        let (mut lo, mut hi) = (0, self.filter_count());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let r = self.filters.record(mid, wire::FILTER_LEN)?;
            match u32_at(r, 0).cmp(&rule) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.read_filter(r).map(Some),
            }
        }
        Ok(None)
    }

    fn read_filter(&self, r: &[u8]) -> Result<Filter<'a>, Error> {
        let bad = |what: &str| Error::corrupt(format!("filter {what}"));
        let mut globs = Vec::new();
        for i in 0..u32_at(r, 44) {
            let g = self
                .globs
                .record((u32_at(r, 40) + i) as usize, wire::GLOB_LEN)?;
            globs.push(GlobSet {
                globs: self.str_at(g, 0)?,
                dfa: self.dfa_at(g, 8)?,
            });
        }
        let mut finders = Vec::new();
        for i in 0..u32_at(r, 52) {
            let f = self
                .finders
                .record((u32_at(r, 48) + i) as usize, wire::FINDER_LEN)?;
            let source = self.str_at(f, 8)?;
            let reason = self.opt_str_at(f, 16)?;
            finders.push(match f[0] {
                0 => Finder::Regex {
                    source,
                    reason,
                    forward: self.dfa_at(f, 24)?,
                    reverse: self.dfa_at(f, 32)?,
                },
                1 => Finder::Script {
                    name: source,
                    reason,
                },
                _ => return Err(bad("finder kind")),
            });
        }
        Ok(Filter {
            rule: u32_at(r, 0),
            mode: FilterMode::from_code(r[4]).ok_or_else(|| bad("mode"))?,
            action: FilterAction::from_code(r[5]).ok_or_else(|| bad("action"))?,
            fields: FilterField::ALL
                .into_iter()
                .filter(|f| r[6] & f.bit() != 0)
                .collect(),
            max_rounds: u32_at(r, 8),
            intent: self.str_at(r, 16)?,
            intent_from: self.opt_str_at(r, 24)?,
            question: self.opt_str_at(r, 32)?,
            globs,
            finders,
        })
    }

    /// The verified bytes of the DFA whose `(offset, len)` is at `at` in `record`.
    fn dfa_at(&self, record: &[u8], at: usize) -> Result<&'a [u8], Error> {
        self.dfa
            .get(u32_at(record, at) as usize, u32_at(record, at + 4) as usize)
    }
}
