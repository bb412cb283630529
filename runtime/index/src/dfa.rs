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
