//! [`Index`]: a parsed view over the bytes of an index file, and the reads
//! every record shares (strings, DFAs). Each record's module adds its own
//! accessors; parsing and whole-file verification are in [`crate::parse`],
//! which knows every record, so this module knows none of them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::dfa::{self, Dfa};
use crate::error::Error;
use crate::section::Section;
use crate::strings::{Span, StrRef};

/// A parsed view over the bytes of an index file.
pub struct Index<'a> {
    pub(crate) meta: Section<'a>,
    pub(crate) strings: Section<'a>,
    pub(crate) paths: Section<'a>,
    pub(crate) layers: Section<'a>,
    pub(crate) rules: Section<'a>,
    pub(crate) alternatives: Section<'a>,
    pub(crate) invalid: Section<'a>,
    pub(crate) steps: Section<'a>,
    pub(crate) names: Section<'a>,
    pub(crate) postings: Section<'a>,
    pub(crate) filters: Section<'a>,
    pub(crate) finders: Section<'a>,
    pub(crate) globs: Section<'a>,
    pub(crate) dfa: Section<'a>,
    pub(crate) finder_scripts: Section<'a>,
    pub(crate) out_filters: Section<'a>,
    pub(crate) out_filter_bytes: Section<'a>,
    pub(crate) enforcements: Section<'a>,
    pub(crate) hooks: Section<'a>,
    pub(crate) pattern_sets: Section<'a>,
    pub(crate) hook_strings: Section<'a>,
    pub(crate) guards: Section<'a>,
    /// DFAs validated so far, by offset in the DFA section.
    pub(crate) dfas: RefCell<HashMap<usize, Dfa>>,
}

impl std::fmt::Debug for Index<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("rules", &self.rule_count())
            .field("layers", &self.layer_count())
            .field("paths", &self.path_count())
            .field("invalid", &self.invalid_count())
            .finish_non_exhaustive()
    }
}

impl<'a> Index<'a> {
    /// The string `r` refers to; a missing string is corruption.
    pub(crate) fn str(&self, r: &StrRef) -> Result<&'a str, Error> {
        self.opt_str(r)?
            .ok_or_else(|| Error::corrupt("missing string"))
    }

    /// The string `r` refers to, or `None`.
    pub(crate) fn opt_str(&self, r: &StrRef) -> Result<Option<&'a str>, Error> {
        if r.is_none() {
            return Ok(None);
        }
        std::str::from_utf8(self.bytes(r)?)
            .map(Some)
            .map_err(|_| Error::corrupt("string is not UTF-8"))
    }

    /// The bytes `r` refers to (a path's, which need not be UTF-8).
    pub(crate) fn bytes(&self, r: &StrRef) -> Result<&'a [u8], Error> {
        let (offset, len) = r.range();
        self.strings.get(offset, len)
    }
}

impl Index<'_> {
    /// The DFA at `span`: its blocks verified, then validated in full and
    /// copied the first time it is asked for.
    ///
    /// # Errors
    ///
    /// When the bytes fail their checksums or do not validate as a DFA.
    pub(crate) fn dfa(&self, span: Span) -> Result<Dfa, Error> {
        let (start, len) = span.range();
        if let Some(dfa) = self.dfas.borrow().get(&start) {
            return Ok(Rc::clone(dfa));
        }
        let dfa = dfa::validated(self.dfa.get(start, len)?)?;
        self.dfas.borrow_mut().insert(start, Rc::clone(&dfa));
        Ok(dfa)
    }
}
