//! The finder-script records: each script a layer's `conditions/_finders/`
//! folder holds (`<name>.py` or `<name>.sh`), found when the index is
//! compiled, so the hook resolves a filter's `script:` finder by a binary
//! search here instead of listing folders. Records are sorted by name, then
//! by layer (lowest priority first); which of a name's scripts runs is the
//! engine's to decide, since it depends on the trust verdict of the call.

use hookdex_model::Runner;
use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::strings::{Pool, StrRef};
use crate::Index;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct FinderScriptRecord {
    name: StrRef,
    file: StrRef,
    layer: U16,
    runner: u8,
    reserved: u8,
    reserved2: U32,
}

const _: () = assert!(std::mem::size_of::<FinderScriptRecord>() == 24);

/// One finder script, before serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinderScriptData {
    /// The finder's name: the file name without its extension.
    pub name: String,
    /// The script's path (a package script: its materialized copy).
    pub file: String,
    /// Index of its layer.
    pub layer: u16,
    /// How it runs (`.sh` with bash, `.py` with python3).
    pub runner: Runner,
}

/// One finder script, read in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinderScript<'a> {
    /// The finder's name.
    pub name: &'a str,
    /// The script's path.
    pub file: &'a str,
    /// Index of its layer.
    pub layer: u16,
    /// How it runs.
    pub runner: Runner,
}

impl FinderScriptData {
    pub(crate) fn record(&self, pool: &mut Pool) -> FinderScriptRecord {
        FinderScriptRecord {
            name: pool.put(&self.name),
            file: pool.put(&self.file),
            layer: U16::new(self.layer),
            runner: self.runner.code(),
            reserved: 0,
            reserved2: U32::ZERO,
        }
    }
}

impl<'a> Index<'a> {
    /// How many finder scripts the index records.
    pub fn finder_script_count(&self) -> usize {
        self.finder_scripts.records::<FinderScriptRecord>()
    }

    /// The finder script at `i`.
    ///
    /// # Errors
    ///
    /// When `i` is out of range, the record is damaged, or it names a layer
    /// or a runner the index does not have.
    pub fn finder_script(&self, i: usize) -> Result<FinderScript<'a>, Error> {
        let r: &FinderScriptRecord = self.finder_scripts.record(i)?;
        let layer = r.layer.get();
        if usize::from(layer) >= self.layer_count() {
            return Err(Error::corrupt(format!("finder script {i}: layer {layer}")));
        }
        let runner = Runner::from_code(r.runner)
            .filter(|runner| matches!(runner, Runner::Bash | Runner::Python))
            .ok_or_else(|| Error::corrupt(format!("finder script {i}: runner")))?;
        Ok(FinderScript {
            name: self.str(&r.name)?,
            file: self.str(&r.file)?,
            layer,
            runner,
        })
    }

    /// Every script of the finder `name`, lowest layer first.
    ///
    /// # Errors
    ///
    /// When a record it reads is damaged.
    pub fn finder_scripts(&self, name: &str) -> Result<Vec<FinderScript<'a>>, Error> {
        // The first record whose name is not below `name`.
        let (mut lo, mut hi) = (0, self.finder_script_count());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.finder_script(mid)?.name < name {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut found = Vec::new();
        for i in lo..self.finder_script_count() {
            let script = self.finder_script(i)?;
            if script.name != name {
                break;
            }
            found.push(script);
        }
        Ok(found)
    }

    /// Checks that the records are sorted by name, then layer, and read whole.
    pub(crate) fn verify_finder_scripts(&self) -> Result<(), Error> {
        let mut last: Option<FinderScript<'_>> = None;
        for i in 0..self.finder_script_count() {
            let script = self.finder_script(i)?;
            if last.is_some_and(|l| (l.name, l.layer) > (script.name, script.layer)) {
                return Err(Error::corrupt(format!("finder script {i}: out of order")));
            }
            last = Some(script);
        }
        Ok(())
    }
}
