//! The rule record and its matcher alternatives: every rule that parsed,
//! active or overridden, in execution order (a rule's position is its id).

use hookdex_model::{Alternative, LayerKind, RuleKind, Runner, Standing, Step};
use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::strings::{Pool, Span, StrRef};
use crate::Index;

const ASYNC: u8 = 1;
const SHADOWED_BY_DIRECTORY: u8 = 2;
const NOT_OVERRIDDEN: u32 = u32::MAX;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct RuleRecord {
    file: StrRef,
    key: StrRef,
    matcher: StrRef,
    name: StrRef,
    ext: StrRef,
    layer: U16,
    layer_kind: u8,
    step: u8,
    kind: u8,
    runner: u8,
    flags: u8,
    reserved: u8,
    overridden_by: U32,
    /// Records of the alternatives section.
    alternatives: Span,
    reserved2: U32,
}

const _: () = assert!(std::mem::size_of::<RuleRecord>() == 64);

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct AlternativeRecord {
    kind: u8,
    reserved: [u8; 3],
    text: StrRef,
}

const _: () = assert!(std::mem::size_of::<AlternativeRecord>() == 12);

/// One rule file that parsed, before serialization.
#[derive(Clone, Debug)]
pub struct RuleData {
    /// The path of the file (package rules: where they were materialized).
    pub file: String,
    /// Index into the layers.
    pub layer: u16,
    /// The kind of that layer.
    pub layer_kind: LayerKind,
    /// The step.
    pub step: Step,
    /// Condition or filter.
    pub kind: RuleKind,
    /// The override key `<step>-<matcher>-<name>`, lowercased.
    pub key: String,
    /// The matcher as written, lowercased (empty for `prompt` and `stop`).
    pub matcher: String,
    /// The matcher's alternatives (empty for `prompt` and `stop`).
    pub alternatives: Vec<Alternative>,
    /// The name part.
    pub name: String,
    /// The extension (`sh`, `py`, `filter.yaml`, …).
    pub ext: String,
    /// Whether the file is `.async`.
    pub is_async: bool,
    /// How the script is started.
    pub runner: Runner,
    /// The rule that replaces this one, if it is overridden.
    pub overridden_by: Option<u32>,
    /// Replaced only by a directory-layer rule, so active while the repository is untrusted.
    pub shadowed_by_directory: bool,
}

/// One rule, read in place.
#[derive(Clone, Debug)]
pub struct Rule<'a> {
    /// Rule id: its position in execution order.
    pub id: u32,
    /// The file.
    pub file: &'a str,
    /// Override key.
    pub key: &'a str,
    /// Matcher, lowercased.
    pub matcher: &'a str,
    /// Name part.
    pub name: &'a str,
    /// Extension.
    pub ext: &'a str,
    /// Index of its layer (checked against the layer count).
    pub layer: u16,
    /// The kind of its layer.
    pub layer_kind: LayerKind,
    /// Step.
    pub step: Step,
    /// Condition or filter.
    pub kind: RuleKind,
    /// Whether it runs detached.
    pub is_async: bool,
    /// How it is started.
    pub runner: Runner,
    /// The rule that replaces it, if any (checked against the rule count).
    pub overridden_by: Option<u32>,
    /// Replaced only by a directory-layer rule: runs while the repository is untrusted.
    pub shadowed_by_directory: bool,
    alternatives: Span,
}

impl Rule<'_> {
    /// The file name alone.
    pub fn file_name(&self) -> &str {
        self.file.rsplit('/').next().unwrap_or(self.file)
    }

    /// What decides whether the rule runs (see [`hookdex_model::RunVerdict`]).
    pub fn standing(&self) -> Standing {
        Standing {
            layer: self.layer_kind,
            overridden_by: self.overridden_by,
            shadowed_by_directory: self.shadowed_by_directory,
        }
    }
}

impl RuleData {
    /// The record, with its alternatives appended to `alternatives`.
    pub(crate) fn record(&self, pool: &mut Pool, alternatives: &mut Vec<u8>) -> RuleRecord {
        let first = alternatives.len() / std::mem::size_of::<AlternativeRecord>();
        for alternative in &self.alternatives {
            let record = AlternativeRecord {
                kind: alternative.code(),
                reserved: [0; 3],
                text: pool.put(alternative.text()),
            };
            alternatives.extend_from_slice(record.as_bytes());
        }
        let flags = if self.is_async { ASYNC } else { 0 }
            | if self.shadowed_by_directory {
                SHADOWED_BY_DIRECTORY
            } else {
                0
            };
        RuleRecord {
            file: pool.put(&self.file),
            key: pool.put(&self.key),
            matcher: pool.put(&self.matcher),
            name: pool.put(&self.name),
            ext: pool.put(&self.ext),
            layer: U16::new(self.layer),
            layer_kind: self.layer_kind.code(),
            step: self.step.code(),
            kind: self.kind.code(),
            runner: self.runner.code(),
            flags,
            reserved: 0,
            overridden_by: U32::new(self.overridden_by.unwrap_or(NOT_OVERRIDDEN)),
            alternatives: Span::new(first, self.alternatives.len()),
            reserved2: U32::ZERO,
        }
    }
}

impl<'a> Index<'a> {
    /// How many rules there are, active and overridden.
    pub fn rule_count(&self) -> usize {
        self.rules.records::<RuleRecord>()
    }

    /// The rule with id `id`.
    ///
    /// # Errors
    ///
    /// When `id` is out of range, the record is damaged, or it refers to a
    /// layer or rule the index does not have.
    pub fn rule(&self, id: u32) -> Result<Rule<'a>, Error> {
        let r: &RuleRecord = self.rules.record(id as usize)?;
        let bad = |what: &str| Error::corrupt(format!("rule {id}: {what}"));
        let standing = self.standing_of(id, r)?;
        Ok(Rule {
            id,
            file: self.str(&r.file)?,
            key: self.str(&r.key)?,
            matcher: self.str(&r.matcher)?,
            name: self.str(&r.name)?,
            ext: self.str(&r.ext)?,
            layer: r.layer.get(),
            layer_kind: standing.layer,
            step: Step::from_code(r.step).ok_or_else(|| bad("step"))?,
            kind: RuleKind::from_code(r.kind).ok_or_else(|| bad("kind"))?,
            is_async: r.flags & ASYNC != 0,
            shadowed_by_directory: standing.shadowed_by_directory,
            runner: Runner::from_code(r.runner).ok_or_else(|| bad("runner"))?,
            overridden_by: standing.overridden_by,
            alternatives: r.alternatives,
        })
    }

    /// What decides whether rule `id` runs, read without its strings (the
    /// lookup's hot path; [`Index::rule`] reads the rest).
    ///
    /// # Errors
    ///
    /// As [`Index::rule`].
    pub fn standing(&self, id: u32) -> Result<Standing, Error> {
        self.standing_of(id, self.rules.record(id as usize)?)
    }

    fn standing_of(&self, id: u32, r: &RuleRecord) -> Result<Standing, Error> {
        let bad = |what: &str| Error::corrupt(format!("rule {id}: {what}"));
        if usize::from(r.layer.get()) >= self.layer_count() {
            return Err(bad("layer out of range"));
        }
        let overridden = r.overridden_by.get();
        if overridden != NOT_OVERRIDDEN && overridden as usize >= self.rule_count() {
            return Err(bad("overriding rule out of range"));
        }
        Ok(Standing {
            layer: LayerKind::from_code(r.layer_kind).ok_or_else(|| bad("layer kind"))?,
            overridden_by: (overridden != NOT_OVERRIDDEN).then_some(overridden),
            shadowed_by_directory: r.flags & SHADOWED_BY_DIRECTORY != 0,
        })
    }

    /// The matcher alternatives of `rule`, as the compiler parsed them.
    ///
    /// # Errors
    ///
    /// When an alternative record is out of range or damaged.
    pub fn alternatives(&self, rule: &Rule<'_>) -> Result<Vec<Alternative>, Error> {
        let (start, len) = rule.alternatives.range();
        (start..start.saturating_add(len))
            .map(|i| {
                let r: &AlternativeRecord = self.alternatives.record(i)?;
                Alternative::from_code(r.kind, self.str(&r.text)?)
                    .ok_or_else(|| Error::corrupt("alternative kind"))
            })
            .collect()
    }
}
