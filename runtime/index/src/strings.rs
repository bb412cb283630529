//! The string pool and the two reference records every other record uses:
//! [`StrRef`] (a string in the pool, or none) and [`Span`] (a run of records
//! or bytes in another section).

use std::collections::HashMap;

use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// A string in the pool: `(offset, length)`, length `u32::MAX` meaning none.
#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct StrRef {
    offset: U32,
    len: U32,
}

const _: () = assert!(std::mem::size_of::<StrRef>() == 8);

const NONE_LEN: u32 = u32::MAX;

impl StrRef {
    /// The reference meaning "no string".
    pub(crate) const NONE: StrRef = StrRef {
        offset: U32::ZERO,
        len: U32::MAX_VALUE,
    };

    /// Whether this is the reference meaning "no string".
    pub(crate) fn is_none(&self) -> bool {
        self.len.get() == NONE_LEN
    }

    /// `(offset, len)` in the pool as `usize`s.
    pub(crate) fn range(&self) -> (usize, usize) {
        (self.offset.get() as usize, self.len.get() as usize)
    }

    /// Whether this is the empty string (an unused table slot).
    pub(crate) fn is_empty(&self) -> bool {
        self.len.get() == 0
    }
}

/// `len` records (or bytes, or ids) starting at `start` of another section.
#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct Span {
    pub(crate) start: U32,
    pub(crate) len: U32,
}

const _: () = assert!(std::mem::size_of::<Span>() == 8);

impl Span {
    pub(crate) fn new(start: usize, len: usize) -> Span {
        Span {
            start: U32::new(start as u32),
            len: U32::new(len as u32),
        }
    }

    /// `(start, len)` as `usize`s.
    pub(crate) fn range(self) -> (usize, usize) {
        (self.start.get() as usize, self.len.get() as usize)
    }
}

/// Accumulates the string pool, deduplicating equal strings.
#[derive(Default)]
pub(crate) struct Pool {
    pub(crate) bytes: Vec<u8>,
    /// The offset of a string put, by the xxh3 of its bytes: no copy of
    /// each string to hash again (a 100,000-rule index puts ~500,000).
    seen: HashMap<u64, u32>,
}

impl Pool {
    /// Appends `s` (or finds it) and returns its reference.
    pub(crate) fn put(&mut self, s: &str) -> StrRef {
        self.put_bytes(s.as_bytes())
    }

    /// Appends `bytes` (or finds them) and returns their reference: a path,
    /// which need not be UTF-8.
    pub(crate) fn put_bytes(&mut self, bytes: &[u8]) -> StrRef {
        let hash = xxhash_rust::xxh3::xxh3_64(bytes);
        let found = self.seen.get(&hash).map(|&offset| offset as usize);
        // Another string of the same hash is only not shared.
        let same = found.filter(|&at| self.bytes.get(at..at + bytes.len()) == Some(bytes));
        let offset = match same {
            Some(at) => at as u32,
            None => {
                let offset = self.bytes.len() as u32;
                self.bytes.extend_from_slice(bytes);
                self.seen.entry(hash).or_insert(offset);
                offset
            }
        };
        StrRef {
            offset: U32::new(offset),
            len: U32::new(bytes.len() as u32),
        }
    }

    /// Like [`Pool::put`], with `None` as [`StrRef::NONE`].
    pub(crate) fn put_opt(&mut self, s: Option<&str>) -> StrRef {
        s.map_or(StrRef::NONE, |s| self.put(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_share_one_place_and_others_get_their_own() {
        let mut pool = Pool::default();
        let refs: Vec<(usize, usize)> = ["a/b.sh", "", "a/b.sh", "a/c.sh", "", "a/c.sh"]
            .iter()
            .map(|s| pool.put(s).range())
            .collect();
        assert_eq!(refs, [(0, 6), (6, 0), (0, 6), (6, 6), (6, 0), (6, 6)]);
        assert_eq!(pool.bytes, b"a/b.sha/c.sh");
    }
}
