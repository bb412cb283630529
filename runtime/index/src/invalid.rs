//! The invalid-file record: a rule file that did not parse, with where and why.

use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::strings::{Pool, StrRef};
use crate::Index;

/// The layer index of a problem that belongs to no layer (`state.json`, a missing profile).
pub const NO_LAYER: u16 = u16::MAX;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct InvalidRecord {
    file: StrRef,
    reason: StrRef,
    layer: U16,
    reserved: U16,
    line: U32,
    column: U32,
    reserved2: U32,
}

const _: () = assert!(std::mem::size_of::<InvalidRecord>() == 32);

/// A rule file that did not parse, before serialization.
#[derive(Clone, Debug)]
pub struct InvalidData {
    /// The path of the file.
    pub file: String,
    /// Index into the layers, or [`NO_LAYER`].
    pub layer: u16,
    /// Where in the file, 1-based `(line, column)`, when the reason has a place.
    pub at: Option<(u32, u32)>,
    /// Why it is invalid, one line.
    pub reason: String,
}

/// A file that did not parse, read in place.
#[derive(Clone, Debug)]
pub struct Invalid<'a> {
    /// The file.
    pub file: &'a str,
    /// Why.
    pub reason: &'a str,
    /// Where in the file, 1-based `(line, column)`, when known.
    pub at: Option<(u32, u32)>,
    /// Index of its layer, or [`NO_LAYER`].
    pub layer: u16,
}

/// `file: line:col: reason`, or `file: reason` without a place: the file
/// stays apart at the first `: `, as `compile --check` promises its readers.
fn message(file: &str, at: Option<(u32, u32)>, reason: &str) -> String {
    match at {
        Some((line, column)) => format!("{file}: {line}:{column}: {reason}"),
        None => format!("{file}: {reason}"),
    }
}

impl Invalid<'_> {
    /// `file: line:col: reason`, or `file: reason` without a place.
    pub fn message(&self) -> String {
        message(self.file, self.at, self.reason)
    }
}

impl InvalidData {
    /// `file: line:col: reason`, or `file: reason` without a place.
    pub fn message(&self) -> String {
        message(&self.file, self.at, &self.reason)
    }
}

impl InvalidData {
    pub(crate) fn record(&self, pool: &mut Pool) -> InvalidRecord {
        let (line, column) = self.at.unwrap_or((0, 0));
        InvalidRecord {
            file: pool.put(&self.file),
            reason: pool.put(&self.reason),
            layer: U16::new(self.layer),
            reserved: U16::ZERO,
            line: U32::new(line),
            column: U32::new(column),
            reserved2: U32::ZERO,
        }
    }
}

impl<'a> Index<'a> {
    /// How many invalid files were recorded.
    pub fn invalid_count(&self) -> usize {
        self.invalid.records::<InvalidRecord>()
    }

    /// The invalid file at `i`.
    ///
    /// # Errors
    ///
    /// When `i` is out of range, the record is damaged, or it names a layer
    /// the index does not have.
    pub fn invalid(&self, i: usize) -> Result<Invalid<'a>, Error> {
        let r: &InvalidRecord = self.invalid.record(i)?;
        let layer = r.layer.get();
        if layer != NO_LAYER && usize::from(layer) >= self.layer_count() {
            return Err(Error::corrupt("invalid file names a missing layer"));
        }
        let (line, column) = (r.line.get(), r.column.get());
        Ok(Invalid {
            file: self.str(&r.file)?,
            reason: self.str(&r.reason)?,
            at: (line > 0).then_some((line, column)),
            layer,
        })
    }
}
