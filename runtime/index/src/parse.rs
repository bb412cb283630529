//! Parsing an index ([`Index::parse`]: the header checked and the small
//! sections verified up front, every other block when first read) and
//! verifying all of it ([`Index::verify_all`]). The one module that knows
//! every record, so the records need not know each other.

use std::cell::RefCell;
use std::collections::HashMap;

use hookdex_model::{LayerKind, Step};

use crate::error::Error;
use crate::header;
use crate::layer::LayerRecord;
use crate::meta::MetaRecord;
use crate::path::PathRecord;
use crate::section::{Section, SectionId};
use crate::table::StepRecord;
use crate::Index;

impl<'a> Index<'a> {
    /// Parses the header and section table of `bytes` and verifies the small
    /// sections (meta, paths, layers, steps).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated),
    /// [`BadMagic`](crate::ErrorKind::BadMagic),
    /// [`ForeignVersion`](crate::ErrorKind::ForeignVersion) or
    /// [`Corrupt`](crate::ErrorKind::Corrupt) when the bytes are not a
    /// complete index of this version.
    pub fn parse(bytes: &'a [u8]) -> Result<Index<'a>, Error> {
        let mut parts = header::sections(bytes)?.into_iter().zip(SectionId::ALL);
        let mut next = || -> Result<Section<'a>, Error> {
            let ((data, hashes), id) = parts.next().expect("one entry per section id");
            Section::new(id, data, hashes)
        };
        let index = Index {
            meta: next()?,
            strings: next()?,
            paths: next()?,
            layers: next()?,
            rules: next()?,
            alternatives: next()?,
            invalid: next()?,
            steps: next()?,
            names: next()?,
            postings: next()?,
            filters: next()?,
            finders: next()?,
            globs: next()?,
            dfa: next()?,
            finder_scripts: next()?,
            out_filters: next()?,
            out_filter_bytes: next()?,
            enforcements: next()?,
            hooks: next()?,
            pattern_sets: next()?,
            hook_strings: next()?,
            guards: next()?,
            dfas: RefCell::new(HashMap::new()),
        };
        for small in [&index.meta, &index.paths, &index.layers, &index.steps] {
            small.verify_all()?;
        }
        let sized = index.meta.records::<MetaRecord>() == 1
            && index.meta.holds_whole::<MetaRecord>()
            && index.steps.records::<StepRecord>() == Step::ALL.len()
            && index.steps.holds_whole::<StepRecord>()
            && index.paths.holds_whole::<PathRecord>()
            && index.layers.holds_whole::<LayerRecord>();
        if !sized {
            return Err(Error::corrupt("meta, step, path or layer table size"));
        }
        Ok(index)
    }

    /// Verifies every block of every section and every reference between
    /// records: for commands that read the whole index (`list`, `explain`),
    /// so any damage means a recompile rather than an error halfway through.
    ///
    /// # Errors
    ///
    /// [`Corrupt`](crate::ErrorKind::Corrupt) naming the first thing that fails.
    pub fn verify_all(&self) -> Result<(), Error> {
        self.verify_blocks()?;
        self.verify_references()
    }

    /// Reads every record once through its checked accessor: each layer,
    /// rule and alternative, invalid file, table slot and posting, filter
    /// and DFA, and finder script.
    fn verify_references(&self) -> Result<(), Error> {
        let names_only = self.meta()?.directory_names_only;
        for i in 0..self.path_count() {
            self.path(i)?;
        }
        for i in 0..self.layer_count() {
            self.layer(i)?;
        }
        for id in 0..self.rule_count() as u32 {
            let rule = self.rule(id)?;
            self.alternatives(&rule)?;
            // The rule carries its layer's kind for the lookup; it must agree.
            if self.layer(usize::from(rule.layer))?.kind != rule.layer_kind {
                return Err(Error::corrupt(format!("rule {id}: layer kind")));
            }
            // Every filter has its record, except one of a directory layer
            // listed by name only: its file was never read.
            let unread = names_only && rule.layer_kind == LayerKind::Directory;
            let has_filter = self.filter(id)?.is_some();
            if has_filter != (rule.kind == hookdex_model::RuleKind::Filter && !unread) {
                return Err(Error::corrupt(format!("rule {id}: filter record")));
            }
        }
        for i in 0..self.invalid_count() {
            self.invalid(i)?;
        }
        for &step in Step::ALL {
            self.verify_tables(step)?;
        }
        self.verify_filters()?;
        self.verify_finder_scripts()?;
        self.verify_enforcements()?;
        self.verify_hooks()?;
        self.verify_guards()?;
        self.verify_out_filters()
    }

    fn verify_blocks(&self) -> Result<(), Error> {
        for section in [
            &self.meta,
            &self.strings,
            &self.paths,
            &self.layers,
            &self.rules,
            &self.alternatives,
            &self.invalid,
            &self.steps,
            &self.names,
            &self.postings,
            &self.filters,
            &self.finders,
            &self.globs,
            &self.dfa,
            &self.finder_scripts,
            &self.out_filters,
            &self.out_filter_bytes,
            &self.enforcements,
            &self.hooks,
            &self.pattern_sets,
            &self.hook_strings,
            &self.guards,
        ] {
            section.verify_all()?;
        }
        Ok(())
    }
}
