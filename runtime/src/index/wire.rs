//! Byte-level layout of the index: header fields, section ids, record sizes,
//! and [`Section`], which hands out verified slices of one section.
//!
//! Every record is fixed-size and little-endian; strings live in one pool and
//! are referenced as `(offset u32, length u32)`, with length `u32::MAX`
//! meaning "none". A section is cut into [`BLOCK`]-byte blocks, each with its
//! own xxh3; a reader verifies a block the first time it reads from it.

use std::cell::Cell;

use crate::error::Error;

/// The first eight bytes of every index file.
pub const MAGIC: &[u8; 8] = b"HOOKDEX\0";
/// Bumped whenever the layout changes; another value means recompile.
pub const FORMAT_VERSION: u32 = 1;
/// Written in native order; reads back differently on another endianness.
pub const ENDIAN_MARK: u32 = 0x0102_0304;
/// Names the serialization of the embedded DFAs.
pub const AUTOMATA_TAG: &str = "regex-automata 0.4 dense";
/// Size of the fixed header before the section table.
pub const HEADER_LEN: usize = 104;
/// Size of one section table entry.
pub const SECTION_ENTRY_LEN: usize = 32;
/// Verification granularity.
pub const BLOCK: usize = 1024;
/// A string reference meaning "no string".
pub const NONE_LEN: u32 = u32::MAX;

/// Section ids, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum SectionId {
    Meta = 1,
    Strings = 2,
    Paths = 3,
    Layers = 4,
    Rules = 5,
    Invalid = 6,
    Steps = 7,
    Names = 8,
    Postings = 9,
    Filters = 10,
    Finders = 11,
    Globs = 12,
    Dfa = 13,
}

impl SectionId {
    pub const ALL: [SectionId; 13] = [
        SectionId::Meta,
        SectionId::Strings,
        SectionId::Paths,
        SectionId::Layers,
        SectionId::Rules,
        SectionId::Invalid,
        SectionId::Steps,
        SectionId::Names,
        SectionId::Postings,
        SectionId::Filters,
        SectionId::Finders,
        SectionId::Globs,
        SectionId::Dfa,
    ];
}

/// Record sizes, in bytes.
pub const META_LEN: usize = 80;
pub const PATH_LEN: usize = 48;
pub const LAYER_LEN: usize = 24;
pub const RULE_LEN: usize = 56;
pub const INVALID_LEN: usize = 24;
pub const STEP_LEN: usize = 32;
pub const SLOT_LEN: usize = 24;
pub const FILTER_LEN: usize = 56;
pub const FINDER_LEN: usize = 40;
pub const GLOB_LEN: usize = 16;

/// Reads a little-endian `u32` at `at`; the caller has bounds-checked `bytes`.
pub fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Reads a little-endian `u64` at `at`.
pub fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// Reads a little-endian `u16` at `at`.
pub fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap())
}

/// The hash of one block.
pub fn hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Rounds `n` up to a multiple of 8.
pub fn align8(n: usize) -> usize {
    (n + 7) & !7
}

/// One section of a mapped index, verified block by block on first use.
pub struct Section<'a> {
    id: SectionId,
    data: &'a [u8],
    hashes: &'a [u8],
    verified: Vec<Cell<u64>>,
}

impl<'a> Section<'a> {
    /// A section over `data` whose block hashes are `hashes` (8 bytes per block).
    pub fn new(id: SectionId, data: &'a [u8], hashes: &'a [u8]) -> Result<Section<'a>, Error> {
        let blocks = data.len().div_ceil(BLOCK);
        if hashes.len() != blocks * 8 {
            return Err(Error::corrupt(format!(
                "section {id:?}: block hash table size"
            )));
        }
        Ok(Section {
            id,
            data,
            hashes,
            verified: (0..blocks.div_ceil(64)).map(|_| Cell::new(0)).collect(),
        })
    }

    /// The section's length in bytes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// `len` bytes at `offset`, after verifying every block they touch.
    pub fn get(&self, offset: usize, len: usize) -> Result<&'a [u8], Error> {
        let end = offset
            .checked_add(len)
            .filter(|&end| end <= self.data.len())
            .ok_or_else(|| Error::corrupt(format!("section {:?}: read out of bounds", self.id)))?;
        if len > 0 {
            for block in offset / BLOCK..=(end - 1) / BLOCK {
                self.verify_block(block)?;
            }
        }
        Ok(&self.data[offset..end])
    }

    /// Verifies every block (done up front for the small sections).
    pub fn verify_all(&self) -> Result<(), Error> {
        self.get(0, self.data.len()).map(|_| ())
    }

    fn verify_block(&self, block: usize) -> Result<(), Error> {
        let word = &self.verified[block / 64];
        let bit = 1u64 << (block % 64);
        if word.get() & bit != 0 {
            return Ok(());
        }
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.data.len());
        if hash(&self.data[start..end]) != u64_at(self.hashes, block * 8) {
            return Err(Error::corrupt(format!(
                "section {:?}: checksum mismatch in block {block}",
                self.id
            )));
        }
        word.set(word.get() | bit);
        Ok(())
    }

    /// The record of `size` bytes at position `index`.
    pub fn record(&self, index: usize, size: usize) -> Result<&'a [u8], Error> {
        let offset = index
            .checked_mul(size)
            .ok_or_else(|| Error::corrupt(format!("section {:?}: record index", self.id)))?;
        self.get(offset, size)
    }

    /// How many `size`-byte records the section holds.
    pub fn records(&self, size: usize) -> usize {
        self.data.len() / size
    }
}

/// The block hashes of `data`, 8 bytes each.
pub fn block_hashes(data: &[u8]) -> Vec<u8> {
    data.chunks(BLOCK)
        .flat_map(|block| hash(block).to_le_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flipped_bit_fails_only_its_block() {
        let mut data = vec![7u8; BLOCK * 3 + 10];
        let hashes = block_hashes(&data);
        data[BLOCK + 5] ^= 1;
        let section = Section::new(SectionId::Strings, &data, &hashes).unwrap();
        assert!(section.get(0, 10).is_ok());
        assert!(section.get(BLOCK * 2, BLOCK + 10).is_ok());
        assert!(section.get(BLOCK - 1, 2).is_err());
        assert!(section.get(data.len() - 1, 2).is_err(), "out of bounds");
        assert!(section.verify_all().is_err());
    }

    #[test]
    fn hash_table_size_must_match() {
        let data = vec![0u8; BLOCK + 1];
        assert!(Section::new(SectionId::Strings, &data, &[0u8; 8]).is_err());
        assert!(Section::new(SectionId::Strings, &[], &[]).is_ok());
    }
}
