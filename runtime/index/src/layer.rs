//! The layer record: one labelled directory (or pair) of rules.

use hookdex_model::LayerKind;
use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::strings::{Pool, StrRef};
use crate::Index;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct LayerRecord {
    label: StrRef,
    dir: StrRef,
    kind: u8,
    reserved: [u8; 3],
    count: U32,
}

const _: () = assert!(std::mem::size_of::<LayerRecord>() == 24);

/// One layer, before serialization.
#[derive(Clone, Debug)]
pub struct LayerData {
    /// Which kind of layer.
    pub kind: LayerKind,
    /// `package`, `bundle`, `profile:<name>`, `runtime`, `directory` or `managed`.
    pub label: String,
    /// The directory read (for the package layer, `package:rules/...`).
    pub dir: String,
    /// Rule files found (active or overridden).
    pub count: u32,
}

/// One layer, read in place.
#[derive(Clone, Debug)]
pub struct Layer<'a> {
    /// Kind of layer.
    pub kind: LayerKind,
    /// Source label (`bundle`, `profile:x`, …).
    pub label: &'a str,
    /// Directory read.
    pub dir: &'a str,
    /// Rule files found there.
    pub count: u32,
}

impl LayerData {
    pub(crate) fn record(&self, pool: &mut Pool) -> LayerRecord {
        LayerRecord {
            label: pool.put(&self.label),
            dir: pool.put(&self.dir),
            kind: self.kind.code(),
            reserved: [0; 3],
            count: U32::new(self.count),
        }
    }
}

impl<'a> Index<'a> {
    /// How many layers there are.
    pub fn layer_count(&self) -> usize {
        self.layers.records::<LayerRecord>()
    }

    /// The layer at `i`.
    ///
    /// # Errors
    ///
    /// When `i` is out of range or the record is damaged.
    pub fn layer(&self, i: usize) -> Result<Layer<'a>, Error> {
        let r: &LayerRecord = self.layers.record(i)?;
        Ok(Layer {
            label: self.str(&r.label)?,
            dir: self.str(&r.dir)?,
            kind: LayerKind::from_code(r.kind).ok_or_else(|| Error::corrupt("layer kind"))?,
            count: r.count.get(),
        })
    }
}
