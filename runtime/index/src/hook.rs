//! The hook records: each `hooks.yaml` or `HOOK.md` hook compiled to a
//! rule (its name matcher in the step tables), with what the rule carries
//! here: its [`HookSpec`] field by field (strings in the string pool, each
//! list a run of string references in the hook strings section), read in
//! place only when it fires, and the DFA of its `input_matcher`, one
//! pattern per entry. Nothing of a hook's meaning is parsed at run time.
//! Records are sorted by rule id, so the hook finds a fired rule's record
//! by a binary search.

use hookdex_model::{HookAction, HookSpec, InputPattern, Requires};
use regex_automata::dfa::Automaton;
use regex_automata::{Anchored, Input, PatternID};
use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::dfa::Dfa;
use crate::error::Error;
use crate::strings::{Pool, Span, StrRef};
use crate::Index;

/// `HookRecord::action`: `sh -c <run>`.
const COMMAND: u8 = 0;
/// `HookRecord::action`: the prompt `run`, judged by the classifier.
const PROMPT: u8 = 1;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct HookRecord {
    rule: U32,
    line: U32,
    timeout_ms: U64,
    /// [`COMMAND`] or [`PROMPT`].
    action: u8,
    reserved: [u8; 7],
    label: StrRef,
    source_event: StrRef,
    /// The command line or the prompt.
    run: StrRef,
    model: StrRef,
    cwd: StrRef,
    matcher: StrRef,
    /// Runs of string references in the hook strings section.
    events: Span,
    /// Name, value, name, value …
    env: Span,
    /// Each entry's field ([`StrRef::NONE`] for the whole input).
    input_fields: Span,
    input_regexes: Span,
    requires_os: Span,
    requires_bins: Span,
    requires_env: Span,
    /// The input matcher's DFA in the DFA section; empty when it has none.
    input: Span,
}

const _: () = assert!(std::mem::size_of::<HookRecord>() == 136);

/// One hook, before serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookData {
    /// The rule id of the hook.
    pub rule: u32,
    /// Its spec.
    pub spec: HookSpec,
    /// Its input matcher's DFA (native-endian serialized, one pattern per
    /// entry, each with its own anchored start); empty when it has none.
    pub input: Vec<u8>,
}

/// One hook, read in place and copied out.
#[derive(Clone, Debug)]
pub struct Hook {
    /// Its spec.
    pub spec: HookSpec,
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
    pub(crate) fn record(
        &self,
        pool: &mut Pool,
        strings: &mut Vec<StrRef>,
        dfas: &mut Vec<u8>,
    ) -> HookRecord {
        let input = match self.input.is_empty() {
            true => Span::default(),
            false => crate::dfa::put(dfas, &self.input),
        };
        let spec = &self.spec;
        let mut list = |items: Vec<Option<&str>>| put_list(pool, strings, items);
        let events = list(all(&spec.events));
        let env = list(
            spec.env
                .iter()
                .flat_map(|(name, value)| [Some(name.as_str()), Some(value.as_str())])
                .collect(),
        );
        let input_fields = list(spec.input.iter().map(|p| p.field.as_deref()).collect());
        let input_regexes = list(spec.input.iter().map(|p| Some(p.regex.as_str())).collect());
        let requires_os = list(all(&spec.requires.os));
        let requires_bins = list(all(&spec.requires.bins));
        let requires_env = list(all(&spec.requires.env));
        let (action, run, model) = match &spec.action {
            HookAction::Command { command } => (COMMAND, command.as_str(), None),
            HookAction::Prompt { prompt, model } => (PROMPT, prompt.as_str(), model.as_deref()),
        };
        HookRecord {
            rule: U32::new(self.rule),
            line: U32::new(spec.line),
            timeout_ms: U64::new(spec.timeout_ms),
            action,
            reserved: [0; 7],
            label: pool.put(&spec.label),
            source_event: pool.put(&spec.source_event),
            run: pool.put(run),
            model: pool.put_opt(model),
            cwd: pool.put_opt(spec.cwd.as_deref()),
            matcher: pool.put_opt(spec.matcher.as_deref()),
            events,
            env,
            input_fields,
            input_regexes,
            requires_os,
            requires_bins,
            requires_env,
            input,
        }
    }
}

/// Every one of `items`, present.
fn all(items: &[String]) -> Vec<Option<&str>> {
    items.iter().map(|s| Some(s.as_str())).collect()
}

/// Puts `items` in the pool and their references in `strings`, in order:
/// the run they make.
fn put_list(pool: &mut Pool, strings: &mut Vec<StrRef>, items: Vec<Option<&str>>) -> Span {
    let start = strings.len();
    strings.extend(items.into_iter().map(|item| pool.put_opt(item)));
    Span::new(start, strings.len() - start)
}

impl<'a> Index<'a> {
    /// The hook rule `rule` carries, if it is one.
    ///
    /// # Errors
    ///
    /// When a record or its DFA is damaged.
    pub fn hook(&self, rule: u32) -> Result<Option<Hook>, Error> {
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
                        spec: self.hook_spec(rule, r)?,
                        input,
                    }));
                }
            }
        }
        Ok(None)
    }

    /// The spec record `r` of rule `rule` holds.
    fn hook_spec(&self, rule: u32, r: &HookRecord) -> Result<HookSpec, Error> {
        let owned = |r: &StrRef| self.str(r).map(str::to_string);
        let optional = |r: &StrRef| Ok::<_, Error>(self.opt_str(r)?.map(str::to_string));
        let list = |span: Span| -> Result<Vec<Option<String>>, Error> {
            let (start, len) = span.range();
            (start..start + len)
                .map(|i| optional(self.hook_strings.record::<StrRef>(i)?))
                .collect()
        };
        let strings = |span: Span| -> Result<Vec<String>, Error> {
            list(span)?
                .into_iter()
                .map(|s| {
                    s.ok_or_else(|| Error::corrupt(format!("hook rule {rule}: a missing string")))
                })
                .collect()
        };
        let env = strings(r.env)?;
        if env.len() % 2 != 0 {
            return Err(Error::corrupt(format!("hook rule {rule}: an odd env list")));
        }
        let fields = list(r.input_fields)?;
        let regexes = strings(r.input_regexes)?;
        if fields.len() != regexes.len() {
            return Err(Error::corrupt(format!(
                "hook rule {rule}: input lists differ"
            )));
        }
        let run = owned(&r.run)?;
        let action = match r.action {
            COMMAND => HookAction::Command { command: run },
            PROMPT => HookAction::Prompt {
                prompt: run,
                model: optional(&r.model)?,
            },
            other => {
                return Err(Error::corrupt(format!("hook rule {rule}: action {other}")));
            }
        };
        Ok(HookSpec {
            label: owned(&r.label)?,
            line: r.line.get(),
            events: strings(r.events)?,
            source_event: owned(&r.source_event)?,
            action,
            timeout_ms: r.timeout_ms.get(),
            cwd: optional(&r.cwd)?,
            env: env
                .chunks_exact(2)
                .map(|pair| (pair[0].clone(), pair[1].clone()))
                .collect(),
            matcher: optional(&r.matcher)?,
            input: fields
                .into_iter()
                .zip(regexes)
                .map(|(field, regex)| InputPattern { field, regex })
                .collect(),
            requires: Requires {
                os: strings(r.requires_os)?,
                bins: strings(r.requires_bins)?,
                env: strings(r.requires_env)?,
            },
        })
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
