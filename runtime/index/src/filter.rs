//! The filter records: a `.filter.yaml` rule's options, its `paths` glob
//! sets and its finders, with the DFAs they search with.

use std::borrow::Cow;

use hookdex_model::{FilterAction, FilterField, FilterMode};
use regex_automata::dfa::Automaton;
use regex_automata::{Anchored, Input};
use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::dfa::{self, Dfa};
use crate::error::Error;
use crate::strings::{Pool, Span, StrRef};
use crate::Index;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct FilterRecord {
    rule: U32,
    mode: u8,
    action: u8,
    fields: u8,
    reserved: u8,
    max_rounds: U32,
    reserved2: U32,
    intent: StrRef,
    intent_from: StrRef,
    question: StrRef,
    globs: Span,
    finders: Span,
}

const _: () = assert!(std::mem::size_of::<FilterRecord>() == 56);

const REGEX: u8 = 0;
const SCRIPT: u8 = 1;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct FinderRecord {
    kind: u8,
    reserved: [u8; 7],
    source: StrRef,
    reason: StrRef,
    forward: Span,
    reverse: Span,
}

const _: () = assert!(std::mem::size_of::<FinderRecord>() == 40);

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct GlobRecord {
    /// The globs, one per line.
    globs: StrRef,
    dfa: Span,
}

const _: () = assert!(std::mem::size_of::<GlobRecord>() == 16);

/// One compiled `.filter.yaml` rule, before serialization.
#[derive(Clone, Debug)]
pub struct FilterData {
    /// The rule id of the filter.
    pub rule: u32,
    /// `mode`.
    pub mode: FilterMode,
    /// `action`.
    pub action: FilterAction,
    /// `fields`, as a [`FilterField`] bit set (0 = every field).
    pub fields: u8,
    /// `max_rounds`.
    pub max_rounds: u32,
    /// `intent`.
    pub intent: String,
    /// `intent_from`.
    pub intent_from: Option<String>,
    /// `question`.
    pub question: Option<String>,
    /// `paths`, compiled into one or more glob sets (empty: every path).
    pub globs: Vec<GlobSetData>,
    /// `finders`, in order.
    pub finders: Vec<FinderData>,
}

/// Some of a filter's `paths` globs compiled into one DFA.
#[derive(Clone, Debug)]
pub struct GlobSetData {
    /// The globs as written.
    pub globs: Vec<String>,
    /// An anchored dense DFA matching any of them, native endianness.
    pub dfa: Vec<u8>,
}

/// One finder of a filter, before serialization.
#[derive(Clone, Debug)]
pub enum FinderData {
    /// An inline regex, compiled into a forward and a reverse dense DFA.
    Regex {
        /// The regex as written.
        source: String,
        /// The reason attached to each finding.
        reason: Option<String>,
        /// Forward DFA, native endianness.
        forward: Vec<u8>,
        /// Reverse DFA, native endianness.
        reverse: Vec<u8>,
    },
    /// A named finder: built in, or a `_finders/<name>` script.
    Script {
        /// The finder's name.
        name: String,
        /// The reason attached to each finding.
        reason: Option<String>,
    },
}

impl FilterData {
    /// The filter as a reader sees it, its DFAs validated from these owned
    /// bytes as an index's are: how a filter file is run without an index
    /// (its inline tests).
    ///
    /// # Errors
    ///
    /// When a DFA does not validate.
    pub fn load(&self) -> Result<Filter<'_>, Error> {
        let globs = self
            .globs
            .iter()
            .map(|set| {
                Ok(GlobSet {
                    globs: Cow::Owned(set.globs.join("\n")),
                    matcher: PathMatcher(dfa::validated_unaligned(&set.dfa)?),
                })
            })
            .collect::<Result<_, Error>>()?;
        let finders = self
            .finders
            .iter()
            .map(|finder| {
                Ok(match finder {
                    FinderData::Regex {
                        source,
                        reason,
                        forward,
                        reverse,
                    } => Finder::Regex {
                        source,
                        reason: reason.as_deref(),
                        search: Search {
                            forward: dfa::validated_unaligned(forward)?,
                            reverse: dfa::validated_unaligned(reverse)?,
                        },
                    },
                    FinderData::Script { name, reason } => Finder::Script {
                        name,
                        reason: reason.as_deref(),
                    },
                })
            })
            .collect::<Result<_, Error>>()?;
        Ok(Filter {
            rule: self.rule,
            mode: self.mode,
            action: self.action,
            fields: FilterField::ALL
                .into_iter()
                .filter(|f| self.fields & f.bit() != 0)
                .collect(),
            max_rounds: self.max_rounds,
            intent: &self.intent,
            intent_from: self.intent_from.as_deref(),
            question: self.question.as_deref(),
            globs,
            finders,
        })
    }
}

/// The sections a filter writes into.
pub(crate) struct FilterSections<'w> {
    pub(crate) pool: &'w mut Pool,
    pub(crate) finders: &'w mut Vec<u8>,
    pub(crate) globs: &'w mut Vec<u8>,
    pub(crate) dfas: &'w mut Vec<u8>,
}

impl FilterData {
    pub(crate) fn record(&self, out: &mut FilterSections<'_>) -> FilterRecord {
        let first_glob = out.globs.len() / std::mem::size_of::<GlobRecord>();
        for set in &self.globs {
            let record = GlobRecord {
                globs: out.pool.put(&set.globs.join("\n")),
                dfa: dfa::put(out.dfas, &set.dfa),
            };
            out.globs.extend_from_slice(record.as_bytes());
        }
        let first_finder = out.finders.len() / std::mem::size_of::<FinderRecord>();
        for finder in &self.finders {
            let record = match finder {
                FinderData::Regex {
                    source,
                    reason,
                    forward,
                    reverse,
                } => FinderRecord {
                    kind: REGEX,
                    reserved: [0; 7],
                    source: out.pool.put(source),
                    reason: out.pool.put_opt(reason.as_deref()),
                    forward: dfa::put(out.dfas, forward),
                    reverse: dfa::put(out.dfas, reverse),
                },
                FinderData::Script { name, reason } => FinderRecord {
                    kind: SCRIPT,
                    reserved: [0; 7],
                    source: out.pool.put(name),
                    reason: out.pool.put_opt(reason.as_deref()),
                    forward: Span::default(),
                    reverse: Span::default(),
                },
            };
            out.finders.extend_from_slice(record.as_bytes());
        }
        FilterRecord {
            rule: U32::new(self.rule),
            mode: self.mode.code(),
            action: self.action.code(),
            fields: self.fields,
            reserved: 0,
            max_rounds: U32::new(self.max_rounds),
            reserved2: U32::ZERO,
            intent: out.pool.put(&self.intent),
            intent_from: out.pool.put_opt(self.intent_from.as_deref()),
            question: out.pool.put_opt(self.question.as_deref()),
            globs: Span::new(first_glob, self.globs.len()),
            finders: Span::new(first_finder, self.finders.len()),
        }
    }
}

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
    pub globs: Cow<'a, str>,
    /// Matches a path against them.
    pub matcher: PathMatcher,
}

/// The DFA of a glob set, owned by the reader (it outlives the mapping).
#[derive(Clone, Debug)]
pub struct PathMatcher(Dfa);

/// The automata of an inline finder regex, owned by the reader (they
/// outlive the mapping).
#[derive(Clone, Debug)]
pub struct Search {
    /// Finds where a match ends (validated).
    forward: Dfa,
    /// Finds, from its end, where that match starts (validated).
    reverse: Dfa,
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
        /// Its automata.
        search: Search,
    },
    /// A named finder.
    Script {
        /// The name.
        name: &'a str,
        /// Its reason.
        reason: Option<&'a str>,
    },
}

impl GlobSet<'_> {
    /// Whether any glob of the set matches the whole of `path`.
    ///
    /// # Errors
    ///
    /// When the DFA gives up.
    pub fn is_match(&self, path: &str) -> Result<bool, Error> {
        self.matcher.is_match(path)
    }
}

impl PathMatcher {
    /// Whether any glob of the set matches the whole of `path`.
    ///
    /// # Errors
    ///
    /// When the DFA gives up.
    pub fn is_match(&self, path: &str) -> Result<bool, Error> {
        let input = Input::new(path).anchored(Anchored::Yes);
        self.0
            .try_search_fwd(&input)
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
    /// As [`Search::find_all`].
    pub fn find_all(&self, text: &str) -> Result<Vec<(usize, usize)>, Error> {
        match self {
            Finder::Regex { search, .. } => search.find_all(text),
            Finder::Script { .. } => Ok(Vec::new()),
        }
    }
}

impl Search {
    /// The spans `[start, end)` of every non-empty match in `text`, in
    /// order and not overlapping.
    ///
    /// # Errors
    ///
    /// [`SearchGaveUp`](crate::ErrorKind::SearchGaveUp) when a DFA gives up
    /// (a Unicode word boundary next to non-ASCII text), and
    /// [`Corrupt`](crate::ErrorKind::Corrupt) when the reverse DFA finds no
    /// start for a match the forward one found, which only a damaged index
    /// does (regex-automata's own `Regex` panics there). Callers fail open.
    pub fn find_all(&self, text: &str) -> Result<Vec<(usize, usize)>, Error> {
        let Search { forward, reverse } = self;
        let gave_up = |e: regex_automata::MatchError| {
            Error::new(crate::ErrorKind::SearchGaveUp(e.to_string()))
        };
        let mut spans = Vec::new();
        let mut from = 0;
        while from <= text.len() {
            let input = Input::new(text).range(from..);
            let Some(end) = forward.try_search_fwd(&input).map_err(gave_up)? else {
                break;
            };
            let back = Input::new(text)
                .range(from..end.offset())
                .anchored(Anchored::Yes);
            let start = reverse
                .try_search_rev(&back)
                .map_err(gave_up)?
                .ok_or_else(|| Error::corrupt("finder DFAs disagree"))?
                .offset();
            if end.offset() > start {
                spans.push((start, end.offset()));
                from = end.offset();
            } else {
                from = end.offset() + 1;
            }
        }
        Ok(spans)
    }
}

impl<'a> Index<'a> {
    /// How many filters the index holds.
    pub fn filter_count(&self) -> usize {
        self.filters.records::<FilterRecord>()
    }

    /// Checks that every filter record names a rule, in increasing order
    /// (the lookup is a binary search), and reads it whole.
    pub(crate) fn verify_filters(&self) -> Result<(), Error> {
        let mut last = None;
        for i in 0..self.filter_count() {
            let r: &FilterRecord = self.filters.record(i)?;
            let rule = r.rule.get();
            if rule as usize >= self.rule_count() || last.is_some_and(|l| l >= rule) {
                return Err(Error::corrupt(format!("filter {i}: rule {rule}")));
            }
            last = Some(rule);
            self.read_filter(r)?;
        }
        Ok(())
    }

    /// The filter of rule `rule`, if that rule is a filter whose file was
    /// read (a directory layer listed by name only has none: see
    /// [`MetaData::directory_names_only`](crate::MetaData::directory_names_only)).
    ///
    /// # Errors
    ///
    /// When a block it reads fails its checksum, a reference is out of
    /// range, or a DFA does not validate.
    pub fn filter(&self, rule: u32) -> Result<Option<Filter<'a>>, Error> {
        match self.filter_record(rule)? {
            Some(r) => self.read_filter(r).map(Some),
            None => Ok(None),
        }
    }

    /// The `paths` glob sets of rule `rule`'s filter, read without its
    /// finders (whose automata the hook needs only when a path matches);
    /// `None` when the rule has no filter record.
    ///
    /// # Errors
    ///
    /// As [`Index::filter`].
    pub fn filter_paths(&self, rule: u32) -> Result<Option<Vec<GlobSet<'a>>>, Error> {
        match self.filter_record(rule)? {
            Some(r) => self.read_globs(r).map(Some),
            None => Ok(None),
        }
    }

    fn filter_record(&self, rule: u32) -> Result<Option<&'a FilterRecord>, Error> {
        let (mut lo, mut hi) = (0, self.filter_count());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let r: &FilterRecord = self.filters.record(mid)?;
            match r.rule.get().cmp(&rule) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some(r)),
            }
        }
        Ok(None)
    }

    fn read_globs(&self, r: &FilterRecord) -> Result<Vec<GlobSet<'a>>, Error> {
        let (first, count) = r.globs.range();
        let mut globs = Vec::new();
        for i in first..first.saturating_add(count) {
            let g: &GlobRecord = self.globs.record(i)?;
            globs.push(GlobSet {
                globs: Cow::Borrowed(self.str(&g.globs)?),
                matcher: PathMatcher(self.dfa(g.dfa)?),
            });
        }
        Ok(globs)
    }

    fn read_filter(&self, r: &FilterRecord) -> Result<Filter<'a>, Error> {
        let bad = |what: &str| Error::corrupt(format!("filter {what}"));
        let globs = self.read_globs(r)?;
        let (first, count) = r.finders.range();
        let mut finders = Vec::new();
        for i in first..first.saturating_add(count) {
            let f: &FinderRecord = self.finders.record(i)?;
            let source = self.str(&f.source)?;
            let reason = self.opt_str(&f.reason)?;
            finders.push(match f.kind {
                REGEX => Finder::Regex {
                    source,
                    reason,
                    search: Search {
                        forward: self.dfa(f.forward)?,
                        reverse: self.dfa(f.reverse)?,
                    },
                },
                SCRIPT => Finder::Script {
                    name: source,
                    reason,
                },
                _ => return Err(bad("finder kind")),
            });
        }
        Ok(Filter {
            rule: r.rule.get(),
            mode: FilterMode::from_code(r.mode).ok_or_else(|| bad("mode"))?,
            action: FilterAction::from_code(r.action).ok_or_else(|| bad("action"))?,
            fields: FilterField::ALL
                .into_iter()
                .filter(|f| r.fields & f.bit() != 0)
                .collect(),
            max_rounds: r.max_rounds.get(),
            intent: self.str(&r.intent)?,
            intent_from: self.opt_str(&r.intent_from)?,
            question: self.opt_str(&r.question)?,
            globs,
            finders,
        })
    }
}
