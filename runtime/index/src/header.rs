//! The fixed header and the section table: what identifies a hookdex index
//! and where each section and its block hashes are.

use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::{Error, ErrorKind};
use crate::section::{self, SectionId, BLOCK};

/// The first eight bytes of every index file.
pub const MAGIC: [u8; 8] = *b"HOOKDEX\0";
/// Bumped whenever the layout or the meaning of a record changes (3: owners
/// are `host/path` or `?reason`; path stamps carry the ctime; 4: the meta
/// says whether the directory layer was read by name only, and a path may
/// be stamped as a link; 5: the finder-script section; 6: the output-filter
/// sections, paths as bytes; 9: the meta records the trust evidence; 10: and
/// the rule interpreters; 11: a hook's spec as a record, its lists in the
/// hook strings section, not JSON; 12: the meta counts the rules that
/// shadow a shipped rule and the person's invalid files; 15: output filters'
/// bytes are version 5, their DFAs 4-aligned); another value means recompile.
pub const FORMAT_VERSION: u32 = 15;
/// Written in native order; reads back differently on another endianness.
const ENDIAN_MARK: u32 = 0x0102_0304;
/// Names the serialization of the embedded DFAs: the regex-automata version
/// this crate was built against (see `build.rs`).
pub const AUTOMATA_TAG: &str = env!("HOOKDEX_AUTOMATA_TAG");
/// The version of hookdex that writes and reads the file.
const HOOKDEX_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The fixed header.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct Header {
    magic: [u8; 8],
    format_version: U32,
    /// [`ENDIAN_MARK`] in the writer's native order.
    endian: [u8; 4],
    total_len: U64,
    section_count: U32,
    reserved: U32,
    /// xxh3 of everything after this field up to the end of the section table.
    header_hash: U64,
    automata_tag: [u8; 32],
    hookdex_version: [u8; 32],
}

const _: () = assert!(std::mem::size_of::<Header>() == 104);

/// Where one section and its block hashes are.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct SectionEntry {
    id: U32,
    reserved: U32,
    offset: U64,
    len: U64,
    hashes_offset: U64,
}

const _: () = assert!(std::mem::size_of::<SectionEntry>() == 32);

const HEADER_LEN: usize = std::mem::size_of::<Header>();
const ENTRY_LEN: usize = std::mem::size_of::<SectionEntry>();
/// Where the hashed part of the header starts (after `header_hash`).
const HASHED_FROM: usize = 40;

/// One section's data and its block hashes.
pub(crate) type SectionBytes<'a> = (&'a [u8], &'a [u8]);

/// Checks the header of `bytes` and returns each section's bytes, in file order.
pub(crate) fn sections(bytes: &[u8]) -> Result<Vec<SectionBytes<'_>>, Error> {
    let Ok((header, _)) = Header::ref_from_prefix(bytes) else {
        return Err(Error::new(
            if bytes.starts_with(&MAGIC) || bytes.is_empty() {
                ErrorKind::Truncated
            } else {
                ErrorKind::BadMagic
            },
        ));
    };
    if header.magic != MAGIC {
        return Err(Error::new(ErrorKind::BadMagic));
    }
    let version = header.format_version.get();
    if version != FORMAT_VERSION {
        return Err(Error::new(ErrorKind::ForeignVersion(format!(
            "format {version}, this binary reads {FORMAT_VERSION}"
        ))));
    }
    if header.endian != ENDIAN_MARK.to_ne_bytes() {
        return Err(Error::new(ErrorKind::ForeignVersion(
            "other endianness".into(),
        )));
    }
    let total = header.total_len.get();
    if (bytes.len() as u64) < total {
        return Err(Error::new(ErrorKind::Truncated));
    }
    if bytes.len() as u64 != total {
        return Err(Error::corrupt("trailing bytes after the last section"));
    }
    let count = header.section_count.get() as usize;
    if count != SectionId::ALL.len() {
        return Err(Error::corrupt(format!("{count} sections")));
    }
    let table_end = HEADER_LEN + count * ENTRY_LEN;
    if table_end > bytes.len()
        || section::hash(&bytes[HASHED_FROM..table_end]) != header.header_hash.get()
    {
        return Err(Error::corrupt("header checksum mismatch"));
    }
    check_tag(&header.automata_tag, AUTOMATA_TAG, "automata")?;
    check_tag(&header.hookdex_version, HOOKDEX_VERSION, "hookdex")?;
    let entries = <[SectionEntry]>::ref_from_bytes(&bytes[HEADER_LEN..table_end])
        .map_err(|_| Error::corrupt("section table"))?;
    let in_bounds = |start: usize, n: usize| start.checked_add(n).is_some_and(|e| e <= bytes.len());
    let mut out = Vec::with_capacity(count);
    for (entry, id) in entries.iter().zip(SectionId::ALL) {
        if entry.id.get() != id as u32 {
            return Err(Error::corrupt(format!("section table entry is not {id:?}")));
        }
        let offset = entry.offset.get() as usize;
        let len = entry.len.get() as usize;
        let hashes = entry.hashes_offset.get() as usize;
        let hashes_len = len.div_ceil(BLOCK) * 8;
        if !in_bounds(offset, len) || !in_bounds(hashes, hashes_len) || !offset.is_multiple_of(8) {
            return Err(Error::corrupt(format!("section {id:?} out of bounds")));
        }
        out.push((
            &bytes[offset..offset + len],
            &bytes[hashes..hashes + hashes_len],
        ));
    }
    Ok(out)
}

/// Lays out the header, the section table and the sections (each 8-aligned,
/// followed by its block hashes).
pub(crate) fn assemble(sections: &[(SectionId, &[u8])]) -> Vec<u8> {
    let table_end = HEADER_LEN + sections.len() * ENTRY_LEN;
    let mut out = vec![0u8; align8(table_end)];
    let mut table = Vec::with_capacity(sections.len() * ENTRY_LEN);
    for (id, data) in sections {
        out.resize(align8(out.len()), 0);
        let offset = out.len();
        out.extend_from_slice(data);
        out.resize(align8(out.len()), 0);
        let hashes_offset = out.len();
        out.extend_from_slice(&section::block_hashes(data));
        let entry = SectionEntry {
            id: U32::new(*id as u32),
            reserved: U32::ZERO,
            offset: U64::new(offset as u64),
            len: U64::new(data.len() as u64),
            hashes_offset: U64::new(hashes_offset as u64),
        };
        table.extend_from_slice(entry.as_bytes());
    }
    let mut header = Header {
        magic: MAGIC,
        format_version: U32::new(FORMAT_VERSION),
        endian: ENDIAN_MARK.to_ne_bytes(),
        total_len: U64::new(out.len() as u64),
        section_count: U32::new(sections.len() as u32),
        reserved: U32::ZERO,
        header_hash: U64::ZERO,
        automata_tag: tag(AUTOMATA_TAG),
        hookdex_version: tag(HOOKDEX_VERSION),
    };
    out[..HEADER_LEN].copy_from_slice(header.as_bytes());
    out[HEADER_LEN..table_end].copy_from_slice(&table);
    header.header_hash = U64::new(section::hash(&out[HASHED_FROM..table_end]));
    out[..HEADER_LEN].copy_from_slice(header.as_bytes());
    out
}

/// Rounds `n` up to a multiple of 8.
pub(crate) fn align8(n: usize) -> usize {
    (n + 7) & !7
}

fn tag(text: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    let n = text.len().min(out.len());
    out[..n].copy_from_slice(&text.as_bytes()[..n]);
    out
}

fn check_tag(field: &[u8; 32], want: &str, what: &str) -> Result<(), Error> {
    if *field != tag(want) {
        let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
        return Err(Error::new(ErrorKind::ForeignVersion(format!(
            "{what} `{}`, this binary is `{want}`",
            String::from_utf8_lossy(&field[..end])
        ))));
    }
    Ok(())
}
