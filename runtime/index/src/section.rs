//! One section of a mapped index, handed out only through verified slices:
//! a section is cut into [`BLOCK`]-byte blocks, each with its own xxh3, and a
//! reader verifies a block the first time it reads from it.

use std::cell::Cell;

use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::error::Error;

/// Verification granularity.
pub const BLOCK: usize = 1024;

/// Section ids, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum SectionId {
    /// The view and trust facts ([`crate::meta`]).
    Meta = 1,
    /// The string pool every record refers into.
    Strings = 2,
    /// Recorded paths and their stamps.
    Paths = 3,
    /// Layers.
    Layers = 4,
    /// Rules.
    Rules = 5,
    /// Matcher alternatives of the rules.
    Alternatives = 6,
    /// Files that did not parse.
    Invalid = 7,
    /// One table set per step.
    Steps = 8,
    /// Hash-table slots of every step's tables.
    Names = 9,
    /// Posting lists of rule ids.
    Postings = 10,
    /// Compiled filters.
    Filters = 11,
    /// Filter finders.
    Finders = 12,
    /// Filter glob sets.
    Globs = 13,
    /// Serialized DFAs.
    Dfa = 14,
    /// The scripts of every layer's `_finders` folder.
    FinderScripts = 15,
    /// Output filters.
    OutFilters = 16,
    /// The compiled bytes of output filters.
    OutFilterBytes = 17,
    /// `enforcements.json` entries.
    Enforcements = 18,
    /// `hooks.yaml` and `HOOK.md` hooks.
    Hooks = 19,
    /// The regex matcher sets of every step's `hooks.yaml` groups.
    PatternSets = 20,
    /// The string lists of hook and guard records (each a run of string
    /// references).
    HookStrings = 21,
    /// `.guard.yaml` guards.
    Guards = 22,
}

impl SectionId {
    /// Every section, in file order.
    pub const ALL: [SectionId; 22] = [
        SectionId::Meta,
        SectionId::Strings,
        SectionId::Paths,
        SectionId::Layers,
        SectionId::Rules,
        SectionId::Alternatives,
        SectionId::Invalid,
        SectionId::Steps,
        SectionId::Names,
        SectionId::Postings,
        SectionId::Filters,
        SectionId::Finders,
        SectionId::Globs,
        SectionId::Dfa,
        SectionId::FinderScripts,
        SectionId::OutFilters,
        SectionId::OutFilterBytes,
        SectionId::Enforcements,
        SectionId::Hooks,
        SectionId::PatternSets,
        SectionId::HookStrings,
        SectionId::Guards,
    ];
}

/// The hash of one block (and of the header).
pub fn hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The block hashes of `data`, 8 little-endian bytes each.
pub fn block_hashes(data: &[u8]) -> Vec<u8> {
    data.chunks(BLOCK)
        .flat_map(|block| hash(block).to_le_bytes())
        .collect()
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
    ///
    /// # Errors
    ///
    /// When `hashes` does not hold one hash per block.
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

    /// `len` bytes at `offset`, after verifying every block they touch.
    ///
    /// # Errors
    ///
    /// When the range is out of bounds or a block fails its checksum.
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

    /// Verifies every block.
    ///
    /// # Errors
    ///
    /// When a block fails its checksum.
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
        let want = u64::from_le_bytes(self.hashes[block * 8..block * 8 + 8].try_into().unwrap());
        if hash(&self.data[start..end]) != want {
            return Err(Error::corrupt(format!(
                "section {:?}: checksum mismatch in block {block}",
                self.id
            )));
        }
        word.set(word.get() | bit);
        Ok(())
    }

    /// The `index`-th record of type `T`, verified.
    ///
    /// # Errors
    ///
    /// When the record is out of bounds or its blocks fail their checksums.
    pub fn record<T>(&self, index: usize) -> Result<&'a T, Error>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let size = std::mem::size_of::<T>();
        let offset = index
            .checked_mul(size)
            .ok_or_else(|| Error::corrupt(format!("section {:?}: record index", self.id)))?;
        let bytes = self.get(offset, size)?;
        T::ref_from_bytes(bytes)
            .map_err(|_| Error::corrupt(format!("section {:?}: record size", self.id)))
    }

    /// How many records of type `T` the section holds.
    pub fn records<T>(&self) -> usize {
        self.data.len() / std::mem::size_of::<T>()
    }

    /// Whether the section is a whole number of `T` records.
    pub fn holds_whole<T>(&self) -> bool {
        self.data.len().is_multiple_of(std::mem::size_of::<T>())
    }
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
