//! The guard records: each `.guard.yaml` compiled to a rule (its matcher in
//! the step tables like a condition's), with what the rule carries here:
//! what it judges, its reason, its decisions, the programs and options of a
//! program guard, each entry as written, and one DFA with one anchored
//! pattern per entry. Nothing of a guard is parsed at run time: the hook
//! walks the words, paths or fields it judges through the DFA
//! ([`GuardPatterns::prefix`]). Records are sorted by rule id, so the hook
//! finds a fired rule's record by a binary search.

use hookdex_model::Permission;
use regex_automata::dfa::Automaton;
use regex_automata::util::start;
use regex_automata::{Anchored, PatternID};
use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::dfa::Dfa;
use crate::error::Error;
use crate::strings::{Pool, Span, StrRef};
use crate::Index;

/// Ends each word of a program guard's text (and of its patterns); a word
/// never holds it (neither an argv string nor a bash word can).
pub const WORD_END: u8 = 0;
/// Opens one field of a fields guard's text.
pub const FIELD_START: u8 = 1;
/// Separates a field's name from its value.
pub const FIELD_VALUE: u8 = 0;
/// Closes one field of a fields guard's text.
pub const FIELD_END: u8 = 2;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct GuardRecord {
    rule: U32,
    /// The most words one entry of a program guard has.
    depth: U32,
    /// [`GuardKind::code`].
    kind: u8,
    /// [`permission_code`] of what a use no `allow` entry matches gets;
    /// [`NONE`] when the guard has no `allow` entry.
    otherwise: u8,
    /// [`permission_code`] of what a use the text cannot tell gets.
    cannot_tell: u8,
    reserved: u8,
    reason: StrRef,
    /// One [`permission_code`] byte per entry, as a string.
    decisions: StrRef,
    /// Runs of string references in the hook strings section.
    programs: Span,
    valued: Span,
    flags: Span,
    entries: Span,
    /// The entries' DFA in the DFA section.
    dfa: Span,
}

const _: () = assert!(std::mem::size_of::<GuardRecord>() == 68);

/// `GuardRecord::otherwise` of a guard with no `allow` entry.
const NONE: u8 = b'-';

fn permission_code(permission: Permission) -> u8 {
    match permission {
        Permission::Allow => b'a',
        Permission::Ask => b'k',
        Permission::Deny => b'd',
    }
}

fn permission_of(code: u8) -> Option<Permission> {
    match code {
        b'a' => Some(Permission::Allow),
        b'k' => Some(Permission::Ask),
        b'd' => Some(Permission::Deny),
        _ => None,
    }
}

/// What a guard judges, as its file name's matcher decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardKind {
    /// The subcommand words of the programs its `bash.<cli>` alternatives
    /// name, past the options it knows.
    Program,
    /// The file a file tool touches.
    Path,
    /// The tool input's top-level fields.
    Fields,
}

impl GuardKind {
    /// Its spelling in `list` and `explain`.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardKind::Program => "program",
            GuardKind::Path => "path",
            GuardKind::Fields => "fields",
        }
    }

    fn code(self) -> u8 {
        match self {
            GuardKind::Program => 0,
            GuardKind::Path => 1,
            GuardKind::Fields => 2,
        }
    }

    fn from_code(code: u8) -> Option<GuardKind> {
        match code {
            0 => Some(GuardKind::Program),
            1 => Some(GuardKind::Path),
            2 => Some(GuardKind::Fields),
            _ => None,
        }
    }
}

/// One entry of a guard: what it decides, and how it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardEntry {
    /// `deny`, `ask` or `allow`.
    pub decision: Permission,
    /// The entry as the file writes it (`rollout restart`, `**/.env`,
    /// `repo=prod/*`).
    pub text: String,
}

/// One guard, before serialization and as read back (the DFA then
/// validated and owned by the reader).
#[derive(Clone, Debug)]
pub struct GuardData {
    /// The rule id of the guard.
    pub rule: u32,
    /// What it judges.
    pub kind: GuardKind,
    /// The reason the agent and the person are given.
    pub reason: String,
    /// What a use no `allow` entry matches gets (`None`: the guard has no
    /// `allow` entry, and only its `deny` and `ask` entries fire).
    pub otherwise: Option<Permission>,
    /// What a use the text cannot tell gets.
    pub cannot_tell: Permission,
    /// The programs of a program guard (lowercased basenames).
    pub programs: Vec<String>,
    /// A program guard's options that take a value, sorted.
    pub valued: Vec<String>,
    /// A program guard's options that take none, sorted.
    pub flags: Vec<String>,
    /// The most words one entry of a program guard has.
    pub depth: u32,
    /// The entries, in the file's order (entry `i` is DFA pattern `i`).
    pub entries: Vec<GuardEntry>,
    /// The entries' DFA (native-endian serialized, one anchored pattern
    /// per entry) as the compiler built it.
    pub dfa: Vec<u8>,
}

/// A guard read from the index: its data, with its DFA validated.
#[derive(Clone, Debug)]
pub struct Guard {
    /// Its data (`dfa` left empty: the patterns hold the automaton).
    pub data: GuardData,
    /// The entries' patterns.
    pub patterns: GuardPatterns,
}

/// How far a text got through one entry's pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefix {
    /// The pattern matched (a program entry: its words start the text).
    Matched,
    /// No match yet, but more text could still make one.
    Open,
    /// No text that starts like this one can match.
    Closed,
}

/// The DFA of a guard's entries (validated, owned by the reader).
#[derive(Clone, Debug)]
pub struct GuardPatterns(Dfa);

impl GuardPatterns {
    /// The patterns of `dfa` (serialized bytes of any alignment), for a
    /// guard that was never written to an index (a compiler's own output).
    ///
    /// # Errors
    ///
    /// When the bytes do not validate.
    pub fn from_compiled(dfa: &[u8]) -> Result<GuardPatterns, Error> {
        crate::dfa::validated_unaligned(dfa).map(GuardPatterns)
    }

    /// How far `text` gets through the pattern of `entry`: matched when a
    /// match ends anywhere in it (entries that must match whole end with
    /// `$`), else whether more text could still make one.
    ///
    /// # Errors
    ///
    /// When `entry` is not a pattern of the DFA.
    pub fn prefix(&self, entry: usize, text: &[u8]) -> Result<Prefix, Error> {
        let dfa = &self.0;
        if entry >= dfa.pattern_len() {
            return Err(Error::corrupt(format!("guard pattern {entry}")));
        }
        let id = PatternID::new(entry).map_err(|_| Error::corrupt("guard pattern id"))?;
        let config = start::Config::new().anchored(Anchored::Pattern(id));
        let mut state = dfa
            .start_state(&config)
            .map_err(|e| Error::corrupt(format!("guard start state: {e}")))?;
        for &byte in text {
            state = dfa.next_state(state, byte);
            if dfa.is_match_state(state) {
                return Ok(Prefix::Matched);
            }
            if dfa.is_dead_state(state) || dfa.is_quit_state(state) {
                return Ok(Prefix::Closed);
            }
        }
        Ok(match dfa.is_match_state(dfa.next_eoi_state(state)) {
            true => Prefix::Matched,
            false => Prefix::Open,
        })
    }
}

impl GuardData {
    pub(crate) fn record(
        &self,
        pool: &mut Pool,
        strings: &mut Vec<StrRef>,
        dfas: &mut Vec<u8>,
    ) -> GuardRecord {
        let mut list = |items: &[String]| {
            let start = strings.len();
            strings.extend(items.iter().map(|s| pool.put(s)));
            Span::new(start, strings.len() - start)
        };
        let programs = list(&self.programs);
        let valued = list(&self.valued);
        let flags = list(&self.flags);
        let texts: Vec<String> = self.entries.iter().map(|e| e.text.clone()).collect();
        let entries = list(&texts);
        let decisions: String = self
            .entries
            .iter()
            .map(|e| char::from(permission_code(e.decision)))
            .collect();
        GuardRecord {
            rule: U32::new(self.rule),
            depth: U32::new(self.depth),
            kind: self.kind.code(),
            otherwise: self.otherwise.map_or(NONE, permission_code),
            cannot_tell: permission_code(self.cannot_tell),
            reserved: 0,
            reason: pool.put(&self.reason),
            decisions: pool.put(&decisions),
            programs,
            valued,
            flags,
            entries,
            dfa: crate::dfa::put(dfas, &self.dfa),
        }
    }
}

impl<'a> Index<'a> {
    /// The guard rule `rule` carries, if it is one.
    ///
    /// # Errors
    ///
    /// When a record or its DFA is damaged.
    pub fn guard(&self, rule: u32) -> Result<Option<Guard>, Error> {
        let count = self.guards.records::<GuardRecord>();
        let (mut low, mut high) = (0, count);
        while low < high {
            let mid = (low + high) / 2;
            let r: &GuardRecord = self.guards.record(mid)?;
            match r.rule.get().cmp(&rule) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return self.guard_record(rule, r).map(Some),
            }
        }
        Ok(None)
    }

    fn guard_record(&self, rule: u32, r: &GuardRecord) -> Result<Guard, Error> {
        let corrupt = |what: &str| Error::corrupt(format!("guard of rule {rule}: {what}"));
        let strings = |span: Span| -> Result<Vec<String>, Error> {
            let (start, len) = span.range();
            (start..start + len)
                .map(|i| {
                    self.str(self.hook_strings.record::<StrRef>(i)?)
                        .map(str::to_string)
                })
                .collect()
        };
        let texts = strings(r.entries)?;
        let decisions = self.str(&r.decisions)?.as_bytes();
        if decisions.len() != texts.len() {
            return Err(corrupt("entry lists differ"));
        }
        let entries = texts
            .into_iter()
            .zip(decisions)
            .map(|(text, &code)| {
                let decision = permission_of(code).ok_or_else(|| corrupt("entry decision"))?;
                Ok(GuardEntry { decision, text })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let patterns = GuardPatterns(self.dfa(r.dfa)?);
        if patterns.0.pattern_len() != entries.len() {
            return Err(corrupt("pattern count"));
        }
        let data = GuardData {
            rule,
            kind: GuardKind::from_code(r.kind).ok_or_else(|| corrupt("kind"))?,
            reason: self.str(&r.reason)?.to_string(),
            otherwise: match r.otherwise {
                NONE => None,
                code => Some(permission_of(code).ok_or_else(|| corrupt("otherwise"))?),
            },
            cannot_tell: permission_of(r.cannot_tell).ok_or_else(|| corrupt("cannot_tell"))?,
            programs: strings(r.programs)?,
            valued: strings(r.valued)?,
            flags: strings(r.flags)?,
            depth: r.depth.get(),
            entries,
            dfa: Vec::new(),
        };
        Ok(Guard { data, patterns })
    }

    /// Reads every record whole, its DFA included.
    pub(crate) fn verify_guards(&self) -> Result<(), Error> {
        let mut last = None;
        for i in 0..self.guards.records::<GuardRecord>() {
            let r: &GuardRecord = self.guards.record(i)?;
            let rule = r.rule.get();
            if last.is_some_and(|l| l >= rule) || rule as usize >= self.rule_count() {
                return Err(Error::corrupt(format!("guard {i}: rule {rule}")));
            }
            last = Some(rule);
            self.guard(rule)?;
        }
        Ok(())
    }
}
