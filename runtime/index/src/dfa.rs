//! The DFA section: serialized regex-automata dense DFAs, loaded only with
//! full validation (`DFA::from_bytes`), once per DFA per opened index, and
//! copied out of the mapping when loaded.
//!
//! A damaged or crafted cache file can therefore make a DFA fail to load,
//! never make a search read out of bounds: there is no unchecked load, and
//! the bytes a search walks are the bytes that were validated, even if the
//! mapped file were rewritten in place afterwards.

use std::rc::Rc;

use regex_automata::dfa::dense;

use crate::error::Error;
use crate::strings::Span;
use crate::Index;

/// A dense DFA validated from the index and owned by the reader.
pub type Dfa = Rc<dense::DFA<Vec<u32>>>;

/// Appends `dfa` (native-endian serialized bytes) to the DFA section at an
/// 8-aligned offset.
pub(crate) fn put(dfas: &mut Vec<u8>, dfa: &[u8]) -> Span {
    dfas.resize(crate::header::align8(dfas.len()), 0);
    let start = dfas.len();
    dfas.extend_from_slice(dfa);
    Span::new(start, dfa.len())
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
        let dfa = validated(self.dfa.get(start, len)?)?;
        self.dfas.borrow_mut().insert(start, Rc::clone(&dfa));
        Ok(dfa)
    }
}

/// `bytes` validated in full as a serialized DFA and copied out.
///
/// # Errors
///
/// When they do not validate.
pub(crate) fn validated(bytes: &[u8]) -> Result<Dfa, Error> {
    let (dfa, _) =
        dense::DFA::from_bytes(bytes).map_err(|e| Error::corrupt(format!("DFA: {e}")))?;
    Ok(Rc::new(dfa.to_owned()))
}

/// [`validated`] for bytes of any alignment (a compiler's owned `Vec<u8>`):
/// copied to a `u32`-aligned buffer first, as `from_bytes` requires.
///
/// # Errors
///
/// When they do not validate.
pub(crate) fn validated_unaligned(bytes: &[u8]) -> Result<Dfa, Error> {
    let mut words = vec![0u32; bytes.len().div_ceil(4)];
    zerocopy::IntoBytes::as_mut_bytes(words.as_mut_slice())[..bytes.len()].copy_from_slice(bytes);
    validated(&zerocopy::IntoBytes::as_bytes(words.as_slice())[..bytes.len()])
}
