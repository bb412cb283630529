//! Serializes an [`IndexData`] into the bytes of an index file (see the
//! layout in [`crate::index`]).

use std::collections::HashMap;

use crate::index::data::{FinderData, IndexData, StepData};
use crate::index::wire::{self, SectionId};
use crate::rule::Step;

/// Accumulates the string pool, deduplicating equal strings.
#[derive(Default)]
struct Pool {
    bytes: Vec<u8>,
    seen: HashMap<Vec<u8>, u32>,
}

impl Pool {
    /// Appends `s` (or finds it) and writes its reference into `out`.
    fn put(&mut self, out: &mut Vec<u8>, s: &[u8]) {
        let offset = match self.seen.get(s) {
            Some(&offset) => offset,
            None => {
                let offset = self.bytes.len() as u32;
                self.bytes.extend_from_slice(s);
                self.seen.insert(s.to_vec(), offset);
                offset
            }
        };
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    }

    fn put_opt(&mut self, out: &mut Vec<u8>, s: Option<&str>) {
        match s {
            Some(s) => self.put(out, s.as_bytes()),
            None => {
                out.extend_from_slice(&0u32.to_le_bytes());
                out.extend_from_slice(&wire::NONE_LEN.to_le_bytes());
            }
        }
    }
}

/// Appends a posting list to `postings` and writes its `(offset, len)` into `out`.
fn put_posting(out: &mut Vec<u8>, postings: &mut Vec<u8>, ids: &[u32]) {
    let offset = (postings.len() / 4) as u32;
    for id in ids {
        postings.extend_from_slice(&id.to_le_bytes());
    }
    push_u32(out, offset);
    push_u32(out, ids.len() as u32);
}

fn push_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn push_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn pad8(out: &mut Vec<u8>) {
    out.resize(wire::align8(out.len()), 0);
}

/// Appends a serialized DFA to `dfas` at an 8-aligned offset and writes its
/// `(offset, len)` into `out`.
fn put_dfa(out: &mut Vec<u8>, dfas: &mut Vec<u8>, dfa: &[u8]) {
    pad8(dfas);
    push_u32(out, dfas.len() as u32);
    push_u32(out, dfa.len() as u32);
    dfas.extend_from_slice(dfa);
}

/// Writes an open-addressing hash table of `entries` into `names`; returns
/// `(first slot, capacity)`. Capacity is a power of two at least twice the
/// entry count, so a probe sequence is short and always ends at an empty slot.
fn put_table(
    names: &mut Vec<u8>,
    pool: &mut Pool,
    postings: &mut Vec<u8>,
    entries: &[(String, Vec<u32>)],
) -> (u32, u32) {
    let first = (names.len() / wire::SLOT_LEN) as u32;
    if entries.is_empty() {
        return (first, 0);
    }
    let cap = (entries.len() * 2).next_power_of_two();
    let mut slots: Vec<Option<&(String, Vec<u32>)>> = vec![None; cap];
    for entry in entries {
        let mut at = (wire::hash(entry.0.as_bytes()) as usize) & (cap - 1);
        while slots[at].is_some() {
            at = (at + 1) & (cap - 1);
        }
        slots[at] = Some(entry);
    }
    for slot in slots {
        match slot {
            None => names.extend_from_slice(&[0u8; wire::SLOT_LEN]),
            Some((name, ids)) => {
                push_u64(names, wire::hash(name.as_bytes()));
                pool.put(names, name.as_bytes());
                put_posting(names, postings, ids);
            }
        }
    }
    (first, cap as u32)
}

impl IndexData {
    /// The bytes of the index file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut pool = Pool::default();
        let mut postings = Vec::new();

        let mut meta = Vec::with_capacity(wire::META_LEN);
        let m = &self.meta;
        pool.put(&mut meta, m.target.as_bytes());
        pool.put(&mut meta, m.home.as_bytes());
        pool.put_opt(&mut meta, m.bundle.as_deref());
        pool.put(&mut meta, m.profiles.join("\n").as_bytes());
        pool.put_opt(&mut meta, m.repo_root.as_deref());
        pool.put(&mut meta, m.managed_dir.as_bytes());
        pool.put_opt(&mut meta, m.directory_owner.as_deref());
        pool.put_opt(&mut meta, m.bundle_owner.as_deref());
        push_u32(&mut meta, m.directory_rules.0);
        push_u32(&mut meta, m.directory_rules.1);
        push_u64(&mut meta, m.compiled_at_ms);

        let mut paths = Vec::with_capacity(self.paths.len() * wire::PATH_LEN);
        for (path, stamp) in &self.paths {
            pool.put(&mut paths, path.as_bytes());
            paths.push(stamp.kind_code());
            paths.extend_from_slice(&[0; 3]);
            push_u32(&mut paths, stamp.mtime_nsec);
            paths.extend_from_slice(&stamp.mtime_sec.to_le_bytes());
            push_u64(&mut paths, stamp.size);
            push_u64(&mut paths, stamp.ino);
            push_u32(&mut paths, stamp.mode);
            push_u32(&mut paths, 0);
        }

        let mut layers = Vec::with_capacity(self.layers.len() * wire::LAYER_LEN);
        for layer in &self.layers {
            pool.put(&mut layers, layer.label.as_bytes());
            pool.put(&mut layers, layer.dir.as_bytes());
            layers.push(layer.kind.code());
            layers.extend_from_slice(&[0; 3]);
            push_u32(&mut layers, layer.count);
        }

        let mut rules = Vec::with_capacity(self.rules.len() * wire::RULE_LEN);
        for rule in &self.rules {
            pool.put(&mut rules, rule.file.as_bytes());
            pool.put(&mut rules, rule.key.as_bytes());
            pool.put(&mut rules, rule.matcher.as_bytes());
            pool.put(&mut rules, rule.name.as_bytes());
            pool.put(&mut rules, rule.ext.as_bytes());
            rules.extend_from_slice(&rule.layer.to_le_bytes());
            rules.push(rule.step.code());
            rules.push(rule.kind.code());
            rules.push(u8::from(rule.is_async) | (u8::from(rule.shadowed_by_directory) << 1));
            rules.push(rule.runner.code());
            rules.extend_from_slice(&[0; 2]);
            push_u32(&mut rules, rule.overridden_by.unwrap_or(u32::MAX));
            rules.extend_from_slice(&[0; 4]);
        }

        let mut invalid = Vec::with_capacity(self.invalid.len() * wire::INVALID_LEN);
        for bad in &self.invalid {
            pool.put(&mut invalid, bad.file.as_bytes());
            pool.put(&mut invalid, bad.reason.as_bytes());
            push_u32(&mut invalid, u32::from(bad.layer));
            push_u32(&mut invalid, 0);
        }

        let mut steps = Vec::with_capacity(Step::ALL.len() * wire::STEP_LEN);
        let mut names = Vec::new();
        let empty = StepData::default();
        for step in Step::ALL {
            let data = self.steps.get(usize::from(step.code())).unwrap_or(&empty);
            put_posting(&mut steps, &mut postings, &data.any);
            for table in [&data.names, &data.programs, &data.prefixes] {
                let (first, cap) = put_table(&mut names, &mut pool, &mut postings, table);
                push_u32(&mut steps, first);
                push_u32(&mut steps, cap);
            }
        }

        let mut filters = Vec::with_capacity(self.filters.len() * wire::FILTER_LEN);
        let mut finders = Vec::new();
        let mut globs = Vec::new();
        let mut dfas = Vec::new();
        for filter in &self.filters {
            push_u32(&mut filters, filter.rule);
            filters.extend_from_slice(&[
                filter.mode.code(),
                filter.action.code(),
                filter.fields,
                0,
            ]);
            push_u32(&mut filters, filter.max_rounds);
            push_u32(&mut filters, 0);
            pool.put(&mut filters, filter.intent.as_bytes());
            pool.put_opt(&mut filters, filter.intent_from.as_deref());
            pool.put_opt(&mut filters, filter.question.as_deref());
            push_u32(&mut filters, (globs.len() / wire::GLOB_LEN) as u32);
            push_u32(&mut filters, filter.globs.len() as u32);
            push_u32(&mut filters, (finders.len() / wire::FINDER_LEN) as u32);
            push_u32(&mut filters, filter.finders.len() as u32);
            for set in &filter.globs {
                pool.put(&mut globs, set.globs.join("\n").as_bytes());
                put_dfa(&mut globs, &mut dfas, &set.dfa);
            }
            for finder in &filter.finders {
                let (kind, source, reason, forward, reverse): (u8, &str, _, &[u8], &[u8]) =
                    match finder {
                        FinderData::Regex {
                            source,
                            reason,
                            forward,
                            reverse,
                        } => (0, source, reason, forward, reverse),
                        FinderData::Script { name, reason } => (1, name, reason, &[], &[]),
                    };
                finders.extend_from_slice(&[kind, 0, 0, 0]);
                push_u32(&mut finders, 0);
                pool.put(&mut finders, source.as_bytes());
                pool.put_opt(&mut finders, reason.as_deref());
                put_dfa(&mut finders, &mut dfas, forward);
                put_dfa(&mut finders, &mut dfas, reverse);
            }
        }

        let sections: [(SectionId, &[u8]); 13] = [
            (SectionId::Meta, &meta),
            (SectionId::Strings, &pool.bytes),
            (SectionId::Paths, &paths),
            (SectionId::Layers, &layers),
            (SectionId::Rules, &rules),
            (SectionId::Invalid, &invalid),
            (SectionId::Steps, &steps),
            (SectionId::Names, &names),
            (SectionId::Postings, &postings),
            (SectionId::Filters, &filters),
            (SectionId::Finders, &finders),
            (SectionId::Globs, &globs),
            (SectionId::Dfa, &dfas),
        ];
        assemble(&sections)
    }
}

/// Lays out the header, the section table and the sections with their hashes.
fn assemble(sections: &[(SectionId, &[u8])]) -> Vec<u8> {
    let table_end = wire::HEADER_LEN + sections.len() * wire::SECTION_ENTRY_LEN;
    let mut out = vec![0u8; wire::align8(table_end)];
    let mut table = Vec::with_capacity(sections.len() * wire::SECTION_ENTRY_LEN);
    for (id, data) in sections {
        pad8(&mut out);
        let offset = out.len();
        out.extend_from_slice(data);
        pad8(&mut out);
        let hashes_offset = out.len();
        out.extend_from_slice(&wire::block_hashes(data));
        push_u32(&mut table, *id as u32);
        push_u32(&mut table, 0);
        push_u64(&mut table, offset as u64);
        push_u64(&mut table, data.len() as u64);
        push_u64(&mut table, hashes_offset as u64);
    }
    out[..8].copy_from_slice(wire::MAGIC);
    out[8..12].copy_from_slice(&wire::FORMAT_VERSION.to_le_bytes());
    out[12..16].copy_from_slice(&wire::ENDIAN_MARK.to_ne_bytes());
    let total = out.len() as u64;
    out[16..24].copy_from_slice(&total.to_le_bytes());
    out[24..28].copy_from_slice(&(sections.len() as u32).to_le_bytes());
    put_tag(&mut out[40..72], wire::AUTOMATA_TAG);
    put_tag(&mut out[72..104], env!("CARGO_PKG_VERSION"));
    out[wire::HEADER_LEN..table_end].copy_from_slice(&table);
    let header_hash = wire::hash(&out[40..table_end]);
    out[32..40].copy_from_slice(&header_hash.to_le_bytes());
    out
}

fn put_tag(out: &mut [u8], tag: &str) {
    let n = tag.len().min(out.len());
    out[..n].copy_from_slice(&tag.as_bytes()[..n]);
}
