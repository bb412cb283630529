//! The hook records: each `hooks.yaml` or `HOOK.md` hook compiled to a
//! rule (its name matcher in the step tables), with what the rule carries
//! here: its [`HookSpec`](hookdex_model::HookSpec) as JSON, read only when
//! it fires, and the DFA of its `input_matcher`, one pattern per entry.
//! Records are sorted by rule id, so the hook finds a fired rule's record
//! by a binary search.

use regex_automata::dfa::Automaton;
use regex_automata::{Anchored, Input, PatternID};
use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::dfa::Dfa;
use crate::error::Error;
use crate::strings::{Pool, Span, StrRef};
use crate::Index;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct HookRecord {
    rule: U32,
    reserved: U32,
    spec: StrRef,
    /// The input matcher's DFA in the DFA section; empty when it has none.
    input: Span,
}

const _: () = assert!(std::mem::size_of::<HookRecord>() == 24);

/// One hook, before serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookData {
    /// The rule id of the hook.
    pub rule: u32,
    /// Its [`HookSpec`](hookdex_model::HookSpec), as JSON.
    pub spec: String,
    /// Its input matcher's DFA (native-endian serialized, one pattern per
    /// entry, each with its own anchored start); empty when it has none.
    pub input: Vec<u8>,
}

/// One hook, read in place.
#[derive(Clone, Debug)]
pub struct Hook<'a> {
    /// Its spec, as JSON.
    pub spec: &'a str,
    /// Its input matcher, when it has one.
    pub input: Option<InputMatcher>,
}

/// The DFA of a hook's `input_matcher` (validated, owned by the reader).
#[derive(Clone, Debug)]
pub struct InputMatcher(Dfa);

impl InputMatcher {
    /// Whether entry `pattern` of the matcher finds a match in `text`.
    ///
    /// # Errors
    ///
    /// [`SearchGaveUp`](crate::ErrorKind::SearchGaveUp) when the DFA gives
    /// up (a Unicode word boundary next to non-ASCII text); callers treat
    /// it as no match.
    pub fn is_match(&self, pattern: usize, text: &str) -> Result<bool, Error> {
        let id = PatternID::new(pattern).map_err(|_| Error::corrupt("input pattern id"))?;
        if pattern >= self.0.pattern_len() {
            return Err(Error::corrupt(format!("input pattern {pattern}")));
        }
        let input = Input::new(text).anchored(Anchored::Pattern(id));
        self.0
            .try_search_fwd(&input)
            .map(|m| m.is_some())
            .map_err(|e| Error::new(crate::ErrorKind::SearchGaveUp(e.to_string())))
    }
}

impl HookData {
    pub(crate) fn record(&self, pool: &mut Pool, dfas: &mut Vec<u8>) -> HookRecord {
        let input = match self.input.is_empty() {
            true => Span::default(),
            false => crate::dfa::put(dfas, &self.input),
        };
        HookRecord {
            rule: U32::new(self.rule),
            reserved: U32::ZERO,
            spec: pool.put(&self.spec),
            input,
        }
    }
}

impl<'a> Index<'a> {
    /// The hook rule `rule` carries, if it is one.
    ///
    /// # Errors
    ///
    /// When a record or its DFA is damaged.
    pub fn hook(&self, rule: u32) -> Result<Option<Hook<'a>>, Error> {
        let count = self.hooks.records::<HookRecord>();
        let (mut low, mut high) = (0, count);
        while low < high {
            let mid = (low + high) / 2;
            let r: &HookRecord = self.hooks.record(mid)?;
            match r.rule.get().cmp(&rule) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => {
                    let input = match r.input.range() {
                        (_, 0) => None,
                        _ => Some(InputMatcher(self.dfa(r.input)?)),
                    };
                    return Ok(Some(Hook {
                        spec: self.str(&r.spec)?,
                        input,
                    }));
                }
            }
        }
        Ok(None)
    }

    /// Reads every record whole, its DFA included.
    pub(crate) fn verify_hooks(&self) -> Result<(), Error> {
        let mut last = None;
        for i in 0..self.hooks.records::<HookRecord>() {
            let r: &HookRecord = self.hooks.record(i)?;
            let rule = r.rule.get();
            if last.is_some_and(|l| l >= rule) || rule as usize >= self.rule_count() {
                return Err(Error::corrupt(format!("hook {i}: rule {rule}")));
            }
            last = Some(rule);
            self.hook(rule)?;
        }
        Ok(())
    }
}
