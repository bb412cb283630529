//! The wire form of a compiled [`Filter`]: [`Filter::to_bytes`] and the
//! checked [`Filter::from_bytes`], so an index can carry filters and load
//! them without recompiling their line sets.
//!
//! # Format
//!
//! All integers little-endian. A header, then a body:
//!
//! ```text
//! magic    8 bytes  b"HDXOFLT\0"
//! version  u32      VERSION
//! length   u64      byte length of the body
//! checksum u64      xxh3-64 of the body
//! body:
//!   str name, u32 line, opt<str> description
//!   opt<matcher> match_command, opt<matcher> match_shape
//!   u8 strip_ansi
//!   u32 n, n × (str pattern, str replacement)                  replace
//!   u32 n, n × (matcher pattern, str message, opt<matcher> unless)  match_output
//!   u8 0 none | 1 strip | 2 keep, then the matcher when not 0     line filter
//!   opt<u64> truncate_lines_at, head_lines, tail_lines, max_lines
//!   opt<str> on_empty, u8 filter_stderr, i64 priority, u64 min_size
//! str        = u32 byte length, UTF-8 bytes
//! opt<x>     = u8 0 | u8 1 then x
//! matcher    = u8 multi_line, u32 n, n × str source, engine,
//!              opt<u32 length, a sparse DFA with Unicode classes>
//! engine     = u8 0 (meta: compile the sources at load)
//!            | u8 1, u32 length, zero bytes to a multiple of 4 from the
//!              start of the header, a dense DFA
//! ```
//!
//! DFAs are regex-automata's `to_bytes_little_endian`. A dense DFA starts at
//! a multiple of 4 bytes, so bytes that start 4-aligned in memory hold it
//! where it can be read in place.
//!
//! # What is checked on load, and what is compiled
//!
//! Every length against the bytes left, every tag and flag against its
//! values, every string for UTF-8, the body against its checksum (so a
//! corrupted file is refused before any automaton is read), and no byte may
//! remain. A DFA is copied to a 4-byte-aligned buffer and read by
//! regex-automata's checked `DFA::from_bytes` (which validates every
//! transition, start state and match state), then must have as many
//! patterns as its sources and an unanchored start. A set's Unicode DFA is
//! read the same way, but only the first time text with a byte above 0x7F
//! needs it (its checked load costs more than the search it serves on ASCII
//! text); one that does not load leaves the answer to the set's
//! `meta::Regex`. Nothing untrusted reaches unchecked code.
//!
//! # The binary's own filters
//!
//! [`Filter::from_own_bytes`] and [`Claim::from_own_bytes`] read bytes the
//! binary was built with (the shipped filters, compiled by a build script
//! that loads each through the checked loader first): every length and tag
//! is still bounds-checked, but the checksum is not computed and the dense
//! DFAs are read in place, unvalidated. Checking and copying the 28 shipped
//! claims' 2.6 MB of DFAs cost 0.7 ms (warm) to 2.7 ms (cold) of every
//! output no filter claims; read in place, only the pages a search visits
//! are touched. Both are `unsafe`: given any other bytes, a search could
//! read out of bounds.
//!
//! Patterns that are kept as source and compiled to a `meta::Regex` at load:
//! every `replace` pattern (replacement needs match positions and capture
//! groups, which a lone forward DFA does not give), and any set whose DFA
//! could not be built at compile time (Unicode `\b`, which a DFA cannot
//! express, or a set above the DFA size limit). Everything else — the strip
//! or keep set, `match_command`, `match_shape`, each `match_output` pattern
//! and `unless` — loads as a DFA. The sources of DFA sets are kept too, for
//! diagnostics ([`Filter::match_command`], [`Filter::match_shape`]).
//!
//! Big-endian hosts refuse the DFAs (regex-automata checks the endianness).
//!
//! # Size and load cost
//!
//! Measured by `tests/load_cost.rs` (release, this 2-core machine, best of
//! 200) on a typical filter — a command, two shapes, a guarded collapse, a
//! replace, a seven-pattern strip list: 127 KB of bytes; `from_bytes` 0.3 ms
//! against 3.5 ms to compile it from TOML. Dense DFAs of Unicode classes
//! (`\s`, `\d`, `\S`) dominate the size: the strip set alone is 77 KB, and
//! would be 3.5 KB as a sparse DFA (slower to search); minimising the dense
//! DFAs saves about 1%.

use std::borrow::Cow;

use regex_automata::dfa::{dense, Automaton};

use crate::error::{DecodeError, DecodeErrorKind};
use crate::filter::{Claim, Filter, LineFilter, OutputRule, ReplaceRule};
use crate::matcher::{build_meta, meta_builder, unanchored, Engine, Matcher};

/// The format version [`Filter::from_bytes`] reads and [`Filter::to_bytes`] writes.
pub const VERSION: u32 = 5;

const MAGIC: &[u8; 8] = b"HDXOFLT\0";
const HEADER: usize = 8 + 4 + 8 + 8;

/// The alignment a dense DFA's table needs to be read in place.
const DFA_ALIGN: usize = 4;

impl Filter {
    /// The compiled filter as bytes, for [`Filter::from_bytes`].
    ///
    /// ```
    /// let src = "schema_version = 1\n[filters.f]\nmatch_command = '^f'\nstrip_lines_matching = ['^x']\n";
    /// let file = hookdex_outfilter::parse(src).into_result().unwrap();
    /// let bytes = file.filters[0].to_bytes();
    /// let back = hookdex_outfilter::Filter::from_bytes(&bytes).unwrap();
    /// assert_eq!(hookdex_outfilter::apply(&back, "x\ny").text, "y");
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Writer(Vec::new());
        body.str(&self.name);
        body.u32(u32::try_from(self.line).unwrap_or(0));
        body.opt(self.description.as_ref(), |w, s| w.str(s));
        body.opt(self.match_command.as_ref(), Writer::matcher);
        body.opt(self.match_shape.as_ref(), Writer::matcher);
        body.flag(self.strip_ansi);
        body.len(self.replace.len());
        for rule in &self.replace {
            body.str(&rule.pattern);
            body.str(&rule.replacement);
        }
        body.len(self.match_output.len());
        for rule in &self.match_output {
            body.matcher(&rule.pattern);
            body.str(&rule.message);
            body.opt(rule.unless.as_ref(), Writer::matcher);
        }
        match &self.lines {
            LineFilter::None => body.0.push(0),
            LineFilter::Strip(m) => {
                body.0.push(1);
                body.matcher(m);
            }
            LineFilter::Keep(m) => {
                body.0.push(2);
                body.matcher(m);
            }
        }
        for n in [
            self.truncate_lines_at,
            self.head_lines,
            self.tail_lines,
            self.max_lines,
        ] {
            body.opt(n.as_ref(), |w, n| w.u64(*n as u64));
        }
        body.opt(self.on_empty.as_ref(), |w, s| w.str(s));
        body.flag(self.filter_stderr);
        body.0.extend_from_slice(&self.priority.to_le_bytes());
        body.u64(self.min_size as u64);

        seal(MAGIC, body.0)
    }

    /// Loads a filter written by [`Filter::to_bytes`], checking everything
    /// (see the module documentation of the format).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when the bytes are not a compiled filter of this
    /// format version, are corrupt, or hold a DFA regex-automata refuses.
    pub fn from_bytes(bytes: &[u8]) -> Result<Filter, DecodeError> {
        Filter::read(Reader::<Checked>::open(bytes, MAGIC)?)
    }

    /// Loads a filter the binary was built with, in place and unchecked
    /// (see the module documentation): for the shipped filters.
    ///
    /// # Errors
    ///
    /// As [`Filter::from_bytes`], but for what is no longer checked: the
    /// checksum and the DFAs' tables.
    ///
    /// # Safety
    ///
    /// `bytes` must be exactly what [`Filter::to_bytes`] wrote, and every
    /// dense DFA in them must have passed the checked `DFA::from_bytes` of
    /// the same regex-automata version (the build script that embeds them
    /// loads them with [`Filter::from_bytes`] first). Any other bytes can
    /// make a search read out of bounds.
    pub unsafe fn from_own_bytes(bytes: &'static [u8]) -> Result<Filter, DecodeError> {
        // SAFETY: the caller vouches for the bytes.
        Filter::read(unsafe { Reader::<Own>::open_own(bytes, MAGIC)? })
    }

    fn read<'a, S: Source<'a>>(mut r: Reader<'a, S>) -> Result<Filter, DecodeError> {
        let bytes = r.bytes;
        let name = r.str()?;
        let line = r.u32()? as usize;
        let description = r.opt(Reader::str)?;
        let match_command = r.opt(Reader::matcher)?;
        let match_shape = r.opt(Reader::matcher)?;
        let strip_ansi = r.flag()?;
        let mut replace = Vec::new();
        for _ in 0..r.count()? {
            let at = r.at;
            let pattern = r.str()?;
            let replacement = r.str()?;
            let regex = meta_builder(false)
                .build(&pattern)
                .map_err(|e| r.fail(at, DecodeErrorKind::Regex(Box::new(e))))?;
            replace.push(ReplaceRule {
                regex,
                pattern,
                replacement,
            });
        }
        let mut match_output = Vec::new();
        for _ in 0..r.count()? {
            let pattern = r.matcher()?;
            let message = r.str()?;
            let unless = r.opt(Reader::matcher)?;
            match_output.push(OutputRule {
                pattern,
                message,
                unless,
            });
        }
        let at = r.at;
        let lines = match r.u8()? {
            0 => LineFilter::None,
            1 => LineFilter::Strip(r.matcher()?),
            2 => LineFilter::Keep(r.matcher()?),
            _ => {
                return Err(r.fail(
                    at,
                    DecodeErrorKind::Invalid {
                        what: "line filter tag",
                    },
                ))
            }
        };
        let mut counts = [None; 4];
        for slot in &mut counts {
            *slot = r.opt(Reader::usize)?;
        }
        let [truncate_lines_at, head_lines, tail_lines, max_lines] = counts;
        let on_empty = r.opt(Reader::str)?;
        let filter_stderr = r.flag()?;
        let priority = i64::from_le_bytes(r.array()?);
        let min_size = r.usize()?;
        if r.at != bytes.len() {
            return Err(r.fail(r.at, DecodeErrorKind::TrailingBytes));
        }
        if match_command.is_none() && match_shape.is_none() {
            return Err(r.fail(
                HEADER,
                DecodeErrorKind::Invalid {
                    what: "filter without selector",
                },
            ));
        }
        Ok(Filter {
            name,
            line,
            description,
            match_command,
            match_shape,
            strip_ansi,
            replace,
            match_output,
            lines,
            truncate_lines_at,
            head_lines,
            tail_lines,
            max_lines,
            on_empty,
            filter_stderr,
            priority,
            min_size,
        })
    }
}

impl Claim {
    /// The claim as bytes, for [`Claim::from_bytes`]: what an index keeps
    /// to choose a filter without loading every filter whole.
    ///
    /// ```
    /// use hookdex_outfilter::{Claim, Selector};
    /// let src = "schema_version = 1\n[filters.f]\nmatch_command = '^make'\nstrip_lines_matching = ['^x']\n";
    /// let file = hookdex_outfilter::parse(src).into_result().unwrap();
    /// let claim = Claim::from_bytes(&file.filters[0].claim().to_bytes()).unwrap();
    /// assert!(Selector::new(Some("make -j4"), "").claims(&claim));
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Writer(Vec::new());
        body.str(&self.name);
        body.opt(self.match_command.as_ref(), Writer::matcher);
        body.opt(self.match_shape.as_ref(), Writer::matcher);
        body.0.extend_from_slice(&self.priority.to_le_bytes());
        body.u64(self.min_size as u64);
        seal(CLAIM_MAGIC, body.0)
    }

    /// Loads a claim written by [`Claim::to_bytes`], checked as
    /// [`Filter::from_bytes`] checks a filter.
    ///
    /// # Errors
    ///
    /// As [`Filter::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Claim, DecodeError> {
        Claim::read(Reader::<Checked>::open(bytes, CLAIM_MAGIC)?)
    }

    /// Loads a claim the binary was built with, in place and unchecked, as
    /// [`Filter::from_own_bytes`] loads a filter.
    ///
    /// # Errors
    ///
    /// As [`Filter::from_own_bytes`].
    ///
    /// # Safety
    ///
    /// `bytes` must be exactly what [`Claim::to_bytes`] wrote, checked as
    /// [`Filter::from_own_bytes`] asks. Any other bytes can make a search
    /// read out of bounds.
    pub unsafe fn from_own_bytes(bytes: &'static [u8]) -> Result<Claim, DecodeError> {
        // SAFETY: the caller vouches for the bytes.
        Claim::read(unsafe { Reader::<Own>::open_own(bytes, CLAIM_MAGIC)? })
    }

    fn read<'a, S: Source<'a>>(mut r: Reader<'a, S>) -> Result<Claim, DecodeError> {
        let bytes = r.bytes;
        let name = r.str()?;
        let match_command = r.opt(Reader::matcher)?;
        let match_shape = r.opt(Reader::matcher)?;
        let priority = i64::from_le_bytes(r.array()?);
        let min_size = r.usize()?;
        if r.at != bytes.len() {
            return Err(r.fail(r.at, DecodeErrorKind::TrailingBytes));
        }
        Ok(Claim {
            name,
            match_command,
            match_shape,
            priority,
            min_size,
        })
    }
}

/// The magic of a compiled [`Claim`].
const CLAIM_MAGIC: &[u8; 8] = b"HDXOCLM\0";

/// `body` behind a header: `magic`, [`VERSION`], its length and checksum.
fn seal(magic: &[u8; 8], body: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// Appends the body's fields.
struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, n: u32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    fn len(&mut self, n: usize) {
        // Every length is of something held in memory and written by this
        // crate: strings from TOML, DFAs capped far below 4 GiB.
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    fn flag(&mut self, yes: bool) {
        self.0.push(u8::from(yes));
    }

    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    fn opt<T: ?Sized>(&mut self, value: Option<&T>, write: impl FnOnce(&mut Writer, &T)) {
        match value {
            None => self.0.push(0),
            Some(v) => {
                self.0.push(1);
                write(self, v);
            }
        }
    }

    fn matcher(&mut self, m: &Matcher) {
        self.flag(m.multi_line());
        self.len(m.sources().len());
        for s in m.sources() {
            self.str(s);
        }
        let dense = match m.engine() {
            Engine::Meta(_) => None,
            Engine::Dense(dfa) => Some(dfa.to_bytes_little_endian()),
            Engine::Own(dfa) => Some(dfa.to_bytes_little_endian()),
        };
        match dense {
            None => self.0.push(0),
            Some((bytes, pad)) => {
                self.0.push(1);
                self.len(bytes.len() - pad);
                while !(HEADER + self.0.len()).is_multiple_of(DFA_ALIGN) {
                    self.0.push(0);
                }
                self.0.extend_from_slice(&bytes[pad..]);
            }
        }
        self.opt(m.unicode(), |w, bytes| {
            w.len(bytes.len());
            w.0.extend_from_slice(bytes);
        });
    }
}

/// Where a [`Reader`]'s bytes come from, and so how much of them is
/// checked: [`Checked`] or [`Own`].
trait Source<'a> {
    /// Whether the body's checksum is computed.
    const CHECKSUM: bool;

    /// A dense DFA of `patterns` patterns from its bytes.
    ///
    /// # Safety
    ///
    /// For [`Own`], `bytes` must be a dense DFA written by
    /// `to_bytes_little_endian` of this build's regex-automata.
    unsafe fn dense(bytes: &'a [u8], patterns: usize) -> Result<Engine, DecodeErrorKind>;

    /// Bytes kept as they are, to be checked when first needed (a set's
    /// Unicode DFA): copied, or where they are the binary's, borrowed.
    fn keep(bytes: &'a [u8]) -> Cow<'static, [u8]>;
}

/// Bytes from anywhere (an index file): everything checked, DFAs copied.
struct Checked;

impl<'a> Source<'a> for Checked {
    const CHECKSUM: bool = true;

    unsafe fn dense(bytes: &'a [u8], patterns: usize) -> Result<Engine, DecodeErrorKind> {
        let dfa = load_dense(bytes)?;
        pattern_count(dfa.pattern_len(), patterns)?;
        Ok(Engine::Dense(Box::new(dfa)))
    }

    fn keep(bytes: &'a [u8]) -> Cow<'static, [u8]> {
        Cow::Owned(bytes.to_vec())
    }
}

/// The binary's own bytes: DFAs read in place, unvalidated.
struct Own;

impl Source<'static> for Own {
    const CHECKSUM: bool = false;

    unsafe fn dense(bytes: &'static [u8], patterns: usize) -> Result<Engine, DecodeErrorKind> {
        // SAFETY: the caller vouches that the bytes are a DFA this build
        // wrote; regex-automata still checks their header, endianness and
        // alignment.
        let (dfa, read) = unsafe { dense::DFA::from_bytes_unchecked(bytes) }
            .map_err(|e| DecodeErrorKind::Dfa(Box::new(e)))?;
        if read != bytes.len() {
            return Err(DecodeErrorKind::Invalid { what: "DFA length" });
        }
        unanchored(dfa.start_kind())?;
        pattern_count(dfa.pattern_len(), patterns)?;
        Ok(Engine::Own(Box::new(dfa)))
    }

    fn keep(bytes: &'static [u8]) -> Cow<'static, [u8]> {
        Cow::Borrowed(bytes)
    }
}

/// A DFA answers for exactly the patterns its set has.
fn pattern_count(found: usize, patterns: usize) -> Result<(), DecodeErrorKind> {
    match found == patterns {
        true => Ok(()),
        false => Err(DecodeErrorKind::Invalid {
            what: "DFA for its patterns",
        }),
    }
}

/// Reads the body's fields, every read bounds-checked.
struct Reader<'a, S> {
    bytes: &'a [u8],
    at: usize,
    source: std::marker::PhantomData<S>,
}

impl<'a> Reader<'a, Checked> {
    /// A reader of the body of `bytes`, once their header says `magic` and
    /// [`VERSION`] and the body's length and checksum hold.
    fn open(bytes: &'a [u8], magic: &[u8; 8]) -> Result<Reader<'a, Checked>, DecodeError> {
        // SAFETY: a `Checked` reader reads nothing unchecked.
        unsafe { Reader::header(bytes, magic) }
    }
}

impl Reader<'static, Own> {
    /// [`Reader::open`] for the binary's own bytes: the checksum is not
    /// computed, and DFAs are read in place.
    ///
    /// # Safety
    ///
    /// As [`Filter::from_own_bytes`].
    unsafe fn open_own(
        bytes: &'static [u8],
        magic: &[u8; 8],
    ) -> Result<Reader<'static, Own>, DecodeError> {
        // SAFETY: the caller vouches for the bytes.
        unsafe { Reader::header(bytes, magic) }
    }
}

impl<'a, S: Source<'a>> Reader<'a, S> {
    /// The reader past the header of `bytes`.
    ///
    /// # Safety
    ///
    /// For [`Own`], as [`Filter::from_own_bytes`]: a reader of [`Own`]
    /// bytes is made only where a caller vouched for them.
    unsafe fn header(bytes: &'a [u8], magic: &[u8; 8]) -> Result<Reader<'a, S>, DecodeError> {
        let mut r = Reader {
            bytes,
            at: 0,
            source: std::marker::PhantomData,
        };
        if r.take(magic.len())? != magic {
            return Err(r.fail(0, DecodeErrorKind::BadMagic));
        }
        let version = r.u32()?;
        if version != VERSION {
            return Err(r.fail(
                8,
                DecodeErrorKind::Version {
                    found: version,
                    expected: VERSION,
                },
            ));
        }
        let length = r.u64()?;
        let checksum = r.u64()?;
        if usize::try_from(length).ok() != Some(bytes.len() - HEADER) {
            return Err(r.fail(
                12,
                DecodeErrorKind::Invalid {
                    what: "body length",
                },
            ));
        }
        if S::CHECKSUM && xxhash_rust::xxh3::xxh3_64(&bytes[HEADER..]) != checksum {
            return Err(r.fail(20, DecodeErrorKind::Checksum));
        }
        Ok(r)
    }

    fn fail(&self, offset: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError { offset, kind }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.fail(self.at, DecodeErrorKind::Truncated));
        };
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn usize(&mut self) -> Result<usize, DecodeError> {
        let at = self.at;
        let n = self.u64()?;
        usize::try_from(n).map_err(|_| self.fail(at, DecodeErrorKind::Invalid { what: "count" }))
    }

    /// A count of items that follow, each at least one byte: bounded by the
    /// bytes left so a forged count cannot make a loop or an allocation huge.
    fn count(&mut self) -> Result<usize, DecodeError> {
        let at = self.at;
        let n = self.u32()? as usize;
        if n > self.bytes.len() - self.at {
            return Err(self.fail(at, DecodeErrorKind::Truncated));
        }
        Ok(n)
    }

    fn flag(&mut self) -> Result<bool, DecodeError> {
        let at = self.at;
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.fail(at, DecodeErrorKind::Invalid { what: "flag" })),
        }
    }

    fn str(&mut self) -> Result<String, DecodeError> {
        let n = self.u32()? as usize;
        let at = self.at;
        let bytes = self.take(n)?;
        std::str::from_utf8(bytes)
            .map(str::to_string)
            .map_err(|_| self.fail(at, DecodeErrorKind::Utf8))
    }

    fn opt<T>(
        &mut self,
        read: impl FnOnce(&mut Reader<'a, S>) -> Result<T, DecodeError>,
    ) -> Result<Option<T>, DecodeError> {
        if self.flag()? {
            read(self).map(Some)
        } else {
            Ok(None)
        }
    }

    fn matcher(&mut self) -> Result<Matcher, DecodeError> {
        let multi_line = self.flag()?;
        let at = self.at;
        let n = self.count()?;
        if n == 0 {
            return Err(self.fail(
                at,
                DecodeErrorKind::Invalid {
                    what: "empty pattern set",
                },
            ));
        }
        let sources = (0..n).map(|_| self.str()).collect::<Result<Vec<_>, _>>()?;
        let at = self.at;
        let engine = match self.u8()? {
            0 => Engine::Meta(
                build_meta(&sources, multi_line)
                    .map_err(|e| self.fail(at, DecodeErrorKind::Regex(e)))?,
            ),
            1 => {
                let n = self.u32()? as usize;
                let pad = self.at.next_multiple_of(DFA_ALIGN) - self.at;
                let at = self.at;
                if self.take(pad)?.iter().any(|&b| b != 0) {
                    return Err(self.fail(
                        at,
                        DecodeErrorKind::Invalid {
                            what: "DFA padding",
                        },
                    ));
                }
                let at = self.at;
                let table = self.take(n)?;
                // SAFETY: a reader of `Own` bytes is made only by
                // `open_own`, whose caller vouches for them.
                unsafe { S::dense(table, sources.len()) }.map_err(|kind| self.fail(at, kind))?
            }
            _ => {
                return Err(self.fail(
                    at,
                    DecodeErrorKind::Invalid {
                        what: "matcher engine tag",
                    },
                ))
            }
        };
        // Checked when first needed (see `Matcher`).
        let unicode = self.opt(|r| {
            let n = r.u32()? as usize;
            r.take(n).map(S::keep)
        })?;
        Ok(Matcher::from_parts(sources, multi_line, engine, unicode))
    }
}

/// A dense DFA from its little-endian bytes through regex-automata's checked
/// loader, after copying them to a 4-byte-aligned place.
fn load_dense(bytes: &[u8]) -> Result<dense::DFA<Vec<u32>>, DecodeErrorKind> {
    let mut buffer = vec![0u8; bytes.len() + 3];
    let pad = buffer.as_ptr().align_offset(4).min(3);
    buffer[pad..pad + bytes.len()].copy_from_slice(bytes);
    let (dfa, read) = dense::DFA::from_bytes(&buffer[pad..pad + bytes.len()])
        .map_err(|e| DecodeErrorKind::Dfa(Box::new(e)))?;
    if read != bytes.len() {
        return Err(DecodeErrorKind::Invalid { what: "DFA length" });
    }
    unanchored(dfa.start_kind())?;
    Ok(dfa.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{apply, parse};

    const SRC: &str = r#"
schema_version = 1
[filters.full]
description = "every key"
match_command = "^full\\b"
match_shape = ["^=+ FULL", "\\bunicode\\b"]
strip_ansi = true
replace = [{pattern = "(\\d+)ms", replacement = "${1} ms"}]
match_output = [{pattern = "ALL OK", message = "ok", unless = "warn"}]
strip_lines_matching = ["^\\s*$", "^noise"]
truncate_lines_at = 20
head_lines = 3
tail_lines = 2
max_lines = 4
on_empty = "empty"
filter_stderr = true
priority = -3
min_size = 10
"#;

    fn full() -> Filter {
        parse(SRC).into_result().unwrap().filters.remove(0)
    }

    #[test]
    fn round_trip_keeps_behaviour() {
        let f = full();
        let back = Filter::from_bytes(&f.to_bytes()).unwrap();
        assert_eq!(back.to_bytes(), f.to_bytes());
        let inputs = [
            "",
            "ALL OK",
            "ALL OK\nwarn",
            "noise\n\n",
            "\x1b[1ma\x1b[0m 12ms\nb\nc\nd\ne\nf\ng",
            "a very long line indeed, longer than twenty",
        ];
        for input in inputs {
            assert_eq!(apply(&back, input), apply(&f, input), "{input:?}");
        }
        assert_eq!(
            (
                back.name(),
                back.description(),
                back.priority(),
                back.min_size(),
                back.filter_stderr()
            ),
            ("full", Some("every key"), -3, 10, true)
        );
        assert_eq!(back.match_shape(), f.match_shape());
        // A Unicode `\b` set is a DFA too (ASCII text), as is the strip set.
        assert!(matches!(
            back.match_shape.as_ref().unwrap().engine(),
            Engine::Dense(_)
        ));
        assert!(
            matches!(&back.lines, LineFilter::Strip(m) if matches!(m.engine(), Engine::Dense(_)))
        );
    }

    /// `bytes` copied to a leaked place that starts 4-aligned, or 1 past it.
    fn leaked(bytes: &[u8], off_by_one: bool) -> &'static [u8] {
        let buffer: &'static mut [u8] = Box::leak(vec![0u8; bytes.len() + 4].into_boxed_slice());
        let start = buffer.as_ptr().align_offset(4) + usize::from(off_by_one);
        buffer[start..start + bytes.len()].copy_from_slice(bytes);
        &buffer[start..start + bytes.len()]
    }

    #[test]
    fn own_bytes_read_in_place_answer_as_checked_ones() {
        let f = full();
        // SAFETY: the bytes are what `to_bytes` of this build wrote.
        let own = unsafe { Filter::from_own_bytes(leaked(&f.to_bytes(), false)) }.unwrap();
        assert!(matches!(
            own.match_shape.as_ref().unwrap().engine(),
            Engine::Own(_)
        ));
        assert!(matches!(&own.lines, LineFilter::Strip(m) if matches!(m.engine(), Engine::Own(_))));
        assert_eq!(own.to_bytes(), f.to_bytes());
        for input in [
            "ALL OK",
            "noise\n\nkept 3ms",
            "ünïcode\nnoise",
            "a\nb\nc\nd\ne",
        ] {
            assert_eq!(apply(&own, input), apply(&f, input), "{input:?}");
        }
        // SAFETY: as above.
        let claim = unsafe { Claim::from_own_bytes(leaked(&f.claim().to_bytes(), false)) }.unwrap();
        for (command, output, claimed) in [
            (Some("full -x"), "", true),
            (None, "== FULL\n", true),
            (None, "a unicode line", true),
            (Some("partial"), "nothing", false),
        ] {
            let selector = crate::Selector::new(command, output);
            assert_eq!(selector.claims(&claim), claimed, "{command:?} {output:?}");
        }
    }

    #[test]
    fn own_bytes_out_of_place_are_refused_not_read() {
        // The DFAs' tables land 1 byte past a multiple of 4: regex-automata
        // checks the alignment even unchecked, so this is an error.
        let bytes = full().to_bytes();
        // SAFETY: the bytes are what `to_bytes` of this build wrote; only
        // where they sit is wrong, which the loader checks.
        let err = unsafe { Filter::from_own_bytes(leaked(&bytes, true)) }.unwrap_err();
        assert!(matches!(err.kind, DecodeErrorKind::Dfa(_)), "{err}");
    }

    #[test]
    fn every_corruption_is_refused() {
        let bytes = full().to_bytes();
        for len in 0..bytes.len() {
            assert!(
                Filter::from_bytes(&bytes[..len]).is_err(),
                "truncated to {len}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Filter::from_bytes(&longer).is_err());
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x10;
            assert!(Filter::from_bytes(&flipped).is_err(), "flipped byte {i}");
        }
    }

    #[test]
    fn forged_bodies_are_checked_past_the_checksum() {
        // A body with a valid checksum but nonsense inside: a bad flag.
        let mut body = Vec::new();
        body.extend_from_slice(&1u32.to_le_bytes());
        body.push(b'x');
        body.extend_from_slice(&0u32.to_le_bytes());
        body.push(7);
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        let err = Filter::from_bytes(&bytes).unwrap_err();
        assert!(
            matches!(err.kind, DecodeErrorKind::Invalid { what: "flag" }),
            "{err}"
        );
    }
}
