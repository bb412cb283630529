//! The output-filter records: every `*.outfilter.toml` / `filters.toml`
//! filter of every layer, each with its claim (what choosing it needs) and
//! its body (the whole compiled filter), as `hookdex-outfilter` serializes
//! them. Records are in choosing order: descending priority, then name,
//! then layer from the highest; which of a name's records stands is the
//! engine's to decide, since it depends on the trust verdict of the call.
//! The bytes are opaque here and checked by `hookdex-outfilter` on load.
//! A shipped filter (the package's) carries none: the binary compiled it at
//! build time and holds its bytes, so an index does not copy them.

/// `OutFilterRecord::flags`: the filter is shipped, its bytes are the binary's.
const SHIPPED: u16 = 1;

use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::strings::{Pool, Span, StrRef};
use crate::Index;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct OutFilterRecord {
    name: StrRef,
    file: StrRef,
    layer: U16,
    /// [`SHIPPED`], or 0.
    flags: U16,
    line: U32,
    min_size: U32,
    reserved2: U32,
    claim: Span,
    body: Span,
}

const _: () = assert!(std::mem::size_of::<OutFilterRecord>() == 48);

/// One output filter, before serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutFilterData {
    /// The filter's name (`[filters.<name>]`).
    pub name: String,
    /// The file it is in, as shown (`package:rules/...` for a package file).
    pub file: String,
    /// Its line in that file.
    pub line: u32,
    /// Index of its layer.
    pub layer: u16,
    /// Its `min_size` (saturated to `u32::MAX`): an output shorter than
    /// every standing filter's needs no claim loaded.
    pub min_size: u32,
    /// Its claim's bytes (none for a shipped filter).
    pub claim: Vec<u8>,
    /// The whole filter's bytes (none for a shipped filter).
    pub body: Vec<u8>,
    /// Whether it is shipped: its bytes are the binary's, not the index's.
    pub shipped: bool,
}

/// One output filter, read in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutFilter<'a> {
    /// The filter's name.
    pub name: &'a str,
    /// Its file, as shown.
    pub file: &'a str,
    /// Its line in that file.
    pub line: u32,
    /// Index of its layer.
    pub layer: u16,
    /// Its `min_size`.
    pub min_size: u32,
    /// Whether it is shipped: its claim and body are the binary's own
    /// (the index holds none).
    pub shipped: bool,
}

impl OutFilterData {
    pub(crate) fn record(&self, pool: &mut Pool, blobs: &mut Vec<u8>) -> OutFilterRecord {
        let mut put = |bytes: &[u8]| {
            let start = blobs.len();
            blobs.extend_from_slice(bytes);
            Span::new(start, bytes.len())
        };
        OutFilterRecord {
            name: pool.put(&self.name),
            file: pool.put(&self.file),
            layer: U16::new(self.layer),
            flags: U16::new(if self.shipped { SHIPPED } else { 0 }),
            line: U32::new(self.line),
            min_size: U32::new(self.min_size),
            reserved2: U32::ZERO,
            claim: put(&self.claim),
            body: put(&self.body),
        }
    }
}

impl<'a> Index<'a> {
    /// How many output filters the index records.
    pub fn out_filter_count(&self) -> usize {
        self.out_filters.records::<OutFilterRecord>()
    }

    /// The output filter at `i` (in choosing order), without its bytes:
    /// what standing and the size floor need reads no claim or body.
    ///
    /// # Errors
    ///
    /// When `i` is out of range, a record is damaged, or it names a layer
    /// the index does not have.
    pub fn out_filter(&self, i: usize) -> Result<OutFilter<'a>, Error> {
        let r = self.out_filter_record(i)?;
        Ok(OutFilter {
            name: self.str(&r.name)?,
            file: self.str(&r.file)?,
            line: r.line.get(),
            layer: r.layer.get(),
            min_size: r.min_size.get(),
            shipped: r.flags.get() & SHIPPED != 0,
        })
    }

    /// The claim bytes of output filter `i` (verified blocks, contents
    /// unchecked).
    ///
    /// # Errors
    ///
    /// As [`Index::out_filter`], and when the bytes are damaged.
    pub fn out_filter_claim(&self, i: usize) -> Result<&'a [u8], Error> {
        let r = self.out_filter_record(i)?;
        self.out_filter_blob(r.claim)
    }

    /// The whole compiled bytes of output filter `i` (verified blocks,
    /// contents unchecked).
    ///
    /// # Errors
    ///
    /// As [`Index::out_filter`], and when the bytes are damaged.
    pub fn out_filter_body(&self, i: usize) -> Result<&'a [u8], Error> {
        let r = self.out_filter_record(i)?;
        self.out_filter_blob(r.body)
    }

    fn out_filter_record(&self, i: usize) -> Result<&'a OutFilterRecord, Error> {
        let r: &OutFilterRecord = self.out_filters.record(i)?;
        let layer = r.layer.get();
        if usize::from(layer) >= self.layer_count() {
            return Err(Error::corrupt(format!("output filter {i}: layer {layer}")));
        }
        Ok(r)
    }

    fn out_filter_blob(&self, span: Span) -> Result<&'a [u8], Error> {
        let (start, len) = span.range();
        self.out_filter_bytes.get(start, len)
    }

    /// Reads every record whole.
    pub(crate) fn verify_out_filters(&self) -> Result<(), Error> {
        for i in 0..self.out_filter_count() {
            self.out_filter(i)?;
            self.out_filter_claim(i)?;
            self.out_filter_body(i)?;
        }
        Ok(())
    }
}
