//! The matching tables: per step, the `any` posting and four
//! open-addressing hash tables (exact names, `bash.<cli>` programs, MCP
//! prefixes, and the case-sensitive names of `hooks.yaml` matchers) whose
//! slots point at posting lists of rule ids in execution order. A lookup is
//! a few probes whatever the number of rules.
//!
//! What is not a literal, a `hooks.yaml` matcher that is a real regex, is
//! the second phase: a few DFAs per step over such matchers (as many as
//! fit, usually one), each behind a gate of the literal prefixes its
//! matches start with, run on the tool's names only when one has such a
//! prefix, so a call pays for them only when they could match.

use hookdex_model::{Step, ToolName};
use regex_automata::dfa::Automaton;
use regex_automata::{Anchored, Input, PatternSet};
use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::section::hash;
use crate::strings::{Pool, Span, StrRef};
use crate::Index;

/// One table: `(first slot, capacity)` in the names section.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct TableRef {
    first: U32,
    capacity: U32,
}

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct StepRecord {
    any: Span,
    names: TableRef,
    programs: TableRef,
    prefixes: TableRef,
    /// `hooks.yaml` matcher names, compared case-sensitively with both the
    /// harness's tool name and the normalized one.
    exact: TableRef,
    /// Records of the pattern-sets section.
    pattern_sets: Span,
}

const _: () = assert!(std::mem::size_of::<StepRecord>() == 48);

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct PatternSetRecord {
    /// The rules of the DFA's patterns, in pattern order.
    rules: Span,
    /// The DFA.
    dfa: Span,
    /// The literal prefixes one of which every match of the set's regexes
    /// starts with, `\n`-separated; none when some regex has none.
    gate: StrRef,
}

const _: () = assert!(std::mem::size_of::<PatternSetRecord>() == 24);

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct SlotRecord {
    hash: U64,
    /// An empty slot has `name.len == 0` (every key is non-empty).
    name: StrRef,
    posting: Span,
}

const _: () = assert!(std::mem::size_of::<SlotRecord>() == 24);

/// The matching tables of one step, before serialization. Every posting is
/// a sorted list of rule ids.
#[derive(Clone, Debug, Default)]
pub struct StepData {
    /// Rules whose matcher has `any`.
    pub any: Vec<u32>,
    /// Exact normalized names (tools, `mcp__s__t`, event field values) and their rules.
    pub names: Vec<(String, Vec<u32>)>,
    /// `bash.<cli>` program names and their rules.
    pub programs: Vec<(String, Vec<u32>)>,
    /// Prefix alternatives (`mcp`, `mcp__server`) and their rules.
    pub prefixes: Vec<(String, Vec<u32>)>,
    /// Literal `hooks.yaml` matcher names, case-sensitive, and their rules.
    pub exact: Vec<(String, Vec<u32>)>,
    /// The step's regex matchers, in as many sets as their DFAs need.
    pub pattern_sets: Vec<PatternSetData>,
}

/// Some of a step's regex matchers, under one DFA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatternSetData {
    /// The rule of each pattern of the DFA, in pattern order.
    pub rules: Vec<u32>,
    /// An anchored DFA (native-endian serialized, `MatchKind::All`) over
    /// the regexes, each `(?:regex)$`.
    pub dfa: Vec<u8>,
    /// The literal prefixes one of which every name those regexes match
    /// starts with (`mcp__github__` of `mcp__github__.*`): a name that has
    /// none of them skips the DFA, so its load is paid only by calls it may
    /// match. `None` when some regex has no such prefix.
    pub gate: Option<Vec<String>>,
}

/// Where a step's tables are written.
pub(crate) struct TableSections<'s> {
    pub(crate) pool: &'s mut Pool,
    pub(crate) names: &'s mut Vec<u8>,
    pub(crate) postings: &'s mut Vec<u8>,
    pub(crate) dfas: &'s mut Vec<u8>,
    pub(crate) pattern_sets: &'s mut Vec<u8>,
}

/// Appends `ids` to the postings section.
fn put_posting(postings: &mut Vec<u8>, ids: &[u32]) -> Span {
    let start = postings.len() / 4;
    for id in ids {
        postings.extend_from_slice(&id.to_le_bytes());
    }
    Span::new(start, ids.len())
}

/// Writes an open-addressing table of `entries` into `names`. Capacity is a
/// power of two at least twice the entry count, so a probe sequence is short
/// and always ends at an empty slot.
fn put_table(
    names: &mut Vec<u8>,
    pool: &mut Pool,
    postings: &mut Vec<u8>,
    entries: &[(String, Vec<u32>)],
) -> TableRef {
    let first = names.len() / std::mem::size_of::<SlotRecord>();
    let capacity = if entries.is_empty() {
        0
    } else {
        (entries.len() * 2).next_power_of_two()
    };
    let mut slots: Vec<Option<&(String, Vec<u32>)>> = vec![None; capacity];
    for entry in entries {
        let mut at = (hash(entry.0.as_bytes()) as usize) & (capacity - 1);
        while slots[at].is_some() {
            at = (at + 1) & (capacity - 1);
        }
        slots[at] = Some(entry);
    }
    for slot in slots {
        let record = match slot {
            None => SlotRecord {
                hash: U64::ZERO,
                name: StrRef::default(),
                posting: Span::default(),
            },
            Some((name, ids)) => SlotRecord {
                hash: U64::new(hash(name.as_bytes())),
                name: pool.put(name),
                posting: put_posting(postings, ids),
            },
        };
        names.extend_from_slice(record.as_bytes());
    }
    TableRef {
        first: U32::new(first as u32),
        capacity: U32::new(capacity as u32),
    }
}

impl StepData {
    pub(crate) fn record(&self, out: &mut TableSections<'_>) -> StepRecord {
        let TableSections {
            pool,
            names,
            postings,
            dfas,
            pattern_sets,
        } = out;
        let first = pattern_sets.len() / std::mem::size_of::<PatternSetRecord>();
        for set in &self.pattern_sets {
            let record = PatternSetRecord {
                rules: put_posting(postings, &set.rules),
                dfa: crate::dfa::put(dfas, &set.dfa),
                gate: pool.put_opt(set.gate.as_ref().map(|g| g.join("\n")).as_deref()),
            };
            pattern_sets.extend_from_slice(record.as_bytes());
        }
        StepRecord {
            any: put_posting(postings, &self.any),
            names: put_table(names, pool, postings, &self.names),
            programs: put_table(names, pool, postings, &self.programs),
            prefixes: put_table(names, pool, postings, &self.prefixes),
            exact: put_table(names, pool, postings, &self.exact),
            pattern_sets: Span::new(first, self.pattern_sets.len()),
        }
    }
}

/// One call to answer: the step, the normalized tool name (or, for event
/// steps, the matched field value) and the programs of a bash command.
#[derive(Clone, Copy, Debug)]
pub struct Query<'q> {
    /// The step.
    pub step: Step,
    /// The normalized tool name.
    pub tool: &'q ToolName,
    /// The tool name as the harness sent it (for event steps, the matched
    /// field value), which `hooks.yaml` matchers also try.
    pub raw_tool: &'q str,
    /// Programs of the shell command when the tool is `bash`.
    pub programs: &'q [String],
    /// Every `bash.<cli>` alternative matches, whatever its cli: the command may run a
    /// program its text cannot name and the caller asked to assume the worst
    /// (`HOOKDEX_SHELL_STRICT`).
    pub any_program: bool,
}

/// Which matcher alternative made a rule a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via<'a> {
    /// `any`.
    Any,
    /// An exact name.
    Name(&'a str),
    /// `bash.<cli>`: the program name.
    Program(&'a str),
    /// `bash.<cli>` matched by [`Query::any_program`]: the cli.
    AnyProgram(&'a str),
    /// A prefix alternative: `mcp` or `mcp__<server>`.
    Prefix(&'a str),
    /// A literal `hooks.yaml` matcher name.
    Exact(&'a str),
    /// A `hooks.yaml` matcher regex.
    Pattern,
}

/// A rule whose matcher matches a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit<'a> {
    /// The rule id (checked against the rule count); hits come sorted by it,
    /// which is execution order.
    pub rule: u32,
    /// The alternative that matched.
    pub via: Via<'a>,
}

impl<'a> Index<'a> {
    fn push_posting(
        &self,
        posting: Span,
        via: Via<'a>,
        out: &mut Vec<Hit<'a>>,
    ) -> Result<(), Error> {
        let (start, len) = posting.range();
        let bytes = self.postings.get(
            start
                .checked_mul(4)
                .ok_or_else(|| Error::corrupt("posting offset"))?,
            len.checked_mul(4)
                .ok_or_else(|| Error::corrupt("posting length"))?,
        )?;
        let rules = self.rule_count();
        for id in bytes.chunks_exact(4) {
            let rule = u32::from_le_bytes(id.try_into().unwrap());
            if rule as usize >= rules {
                return Err(Error::corrupt(format!(
                    "posting names rule {rule} of {rules}"
                )));
            }
            out.push(Hit { rule, via });
        }
        Ok(())
    }

    /// Finds `name` in `table`.
    fn table_get(&self, table: TableRef, name: &str) -> Result<Option<(&'a str, Span)>, Error> {
        let (first, capacity) = (table.first.get() as usize, table.capacity.get() as usize);
        if capacity == 0 {
            return Ok(None);
        }
        if !capacity.is_power_of_two() {
            return Err(Error::corrupt("table capacity"));
        }
        let hash = hash(name.as_bytes());
        let mut at = (hash as usize) & (capacity - 1);
        for _ in 0..capacity {
            let slot: &SlotRecord = self.names.record(first + at)?;
            if slot.name.is_empty() {
                return Ok(None);
            }
            if slot.hash.get() == hash {
                let label = self.str(&slot.name)?;
                if label == name {
                    return Ok(Some((label, slot.posting)));
                }
            }
            at = (at + 1) & (capacity - 1);
        }
        Ok(None)
    }

    /// The pattern sets of `tables`.
    fn pattern_sets(&self, tables: &StepRecord) -> Result<Vec<&'a PatternSetRecord>, Error> {
        let (first, count) = tables.pattern_sets.range();
        (first..first.saturating_add(count))
            .map(|i| self.pattern_sets.record(i))
            .collect()
    }

    /// Whether one of `names` starts with a prefix of the set's gate (or
    /// the set has no gate): only then can one of its regexes match.
    fn may_match(&self, set: &PatternSetRecord, names: &[&str]) -> Result<bool, Error> {
        Ok(match self.opt_str(&set.gate)? {
            None => true,
            Some(gate) => gate
                .split('\n')
                .any(|prefix| names.iter().any(|name| name.starts_with(prefix))),
        })
    }

    /// The second phase: the rules whose regex matcher matches one of
    /// `names` whole.
    fn push_patterns(
        &self,
        set: &PatternSetRecord,
        names: &[&str],
        hits: &mut Vec<Hit<'a>>,
    ) -> Result<(), Error> {
        let dfa = self.dfa(set.dfa)?;
        let mut rules = Vec::new();
        self.push_posting(set.rules, Via::Pattern, &mut rules)?;
        if dfa.pattern_len() != rules.len() {
            return Err(Error::corrupt("pattern DFA and its rules differ"));
        }
        let mut matched = PatternSet::new(dfa.pattern_len());
        for name in names {
            let input = Input::new(name).anchored(Anchored::Yes);
            dfa.try_which_overlapping_matches(&input, &mut matched)
                .map_err(|e| Error::corrupt(format!("pattern DFA: {e}")))?;
        }
        hits.extend(matched.iter().map(|id| rules[id.as_usize()]));
        Ok(())
    }

    /// Pushes the posting of every name in `table`, as [`Via::AnyProgram`].
    fn push_every(&self, table: TableRef, hits: &mut Vec<Hit<'a>>) -> Result<(), Error> {
        let (first, capacity) = (table.first.get() as usize, table.capacity.get() as usize);
        for at in first..first.saturating_add(capacity) {
            let slot: &SlotRecord = self.names.record(at)?;
            if !slot.name.is_empty() {
                let label = self.str(&slot.name)?;
                self.push_posting(slot.posting, Via::AnyProgram(label), hits)?;
            }
        }
        Ok(())
    }

    /// Checks every slot and posting of `step`'s tables.
    pub(crate) fn verify_tables(&self, step: Step) -> Result<(), Error> {
        let tables: &StepRecord = self.steps.record(usize::from(step.code()))?;
        let mut hits = Vec::new();
        self.push_posting(tables.any, Via::Any, &mut hits)?;
        for set in self.pattern_sets(tables)? {
            self.push_posting(set.rules, Via::Pattern, &mut hits)?;
            if self.dfa(set.dfa)?.pattern_len() != set.rules.range().1 {
                return Err(Error::corrupt("pattern DFA and its rules differ"));
            }
            self.opt_str(&set.gate)?;
        }
        for table in [tables.names, tables.programs, tables.prefixes, tables.exact] {
            let (first, capacity) = (table.first.get() as usize, table.capacity.get() as usize);
            if capacity != 0 && !capacity.is_power_of_two() {
                return Err(Error::corrupt("table capacity"));
            }
            for at in first..first.saturating_add(capacity) {
                let slot: &SlotRecord = self.names.record(at)?;
                if !slot.name.is_empty() {
                    let name = self.str(&slot.name)?;
                    if hash(name.as_bytes()) != slot.hash.get() {
                        return Err(Error::corrupt(format!("table slot `{name}`: hash")));
                    }
                    self.push_posting(slot.posting, Via::Any, &mut hits)?;
                }
            }
        }
        Ok(())
    }

    /// Every rule whose matcher matches `query`, in execution order, whether
    /// or not it runs here: which of them run is
    /// [`hookdex_model::RunVerdict`]'s to say.
    ///
    /// # Errors
    ///
    /// When a block the lookup reads fails its checksum or a reference in it
    /// is out of range.
    pub fn candidates(&self, query: &Query<'_>) -> Result<Vec<Hit<'a>>, Error> {
        let tables: &StepRecord = self.steps.record(usize::from(query.step.code()))?;
        let mut hits = Vec::new();
        self.push_posting(tables.any, Via::Any, &mut hits)?;
        let name = query.tool.as_str();
        if let Some((label, posting)) = self.table_get(tables.names, name)? {
            self.push_posting(posting, Via::Name(label), &mut hits)?;
        }
        if query.tool.is_bash() && query.any_program {
            self.push_every(tables.programs, &mut hits)?;
        } else if query.tool.is_bash() {
            for program in query.programs {
                if let Some((label, posting)) = self.table_get(tables.programs, program)? {
                    self.push_posting(posting, Via::Program(label), &mut hits)?;
                }
            }
        }
        for prefix in query.tool.mcp_prefixes() {
            if let Some((label, posting)) = self.table_get(tables.prefixes, prefix)? {
                self.push_posting(posting, Via::Prefix(label), &mut hits)?;
            }
        }
        let names = [query.raw_tool, name];
        let names = match query.raw_tool == name {
            true => &names[..1],
            false => &names[..],
        };
        for name in names {
            if let Some((label, posting)) = self.table_get(tables.exact, name)? {
                self.push_posting(posting, Via::Exact(label), &mut hits)?;
            }
        }
        for set in self.pattern_sets(tables)? {
            if self.may_match(set, names)? {
                self.push_patterns(set, names, &mut hits)?;
            }
        }
        hits.sort_by_key(|hit| hit.rule);
        hits.dedup_by_key(|hit| hit.rule);
        Ok(hits)
    }
}
