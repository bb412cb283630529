//! The enforcement records: each `enforcements.json` entry compiled to a
//! rule (its matcher in the step tables like a condition's), with what the
//! rule carries here: its id, its message and its cadence. Records are
//! sorted by rule id, so the hook finds a fired rule's entry by a binary
//! search.

use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::Error;
use crate::strings::{Pool, StrRef};
use crate::Index;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct EnforcementRecord {
    rule: U32,
    cadence: U32,
    id: StrRef,
    message: StrRef,
}

const _: () = assert!(std::mem::size_of::<EnforcementRecord>() == 24);

/// One enforcement, before serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnforcementData {
    /// The rule id of the enforcement.
    pub rule: u32,
    /// Its `id`.
    pub id: String,
    /// Its `message`, added as context.
    pub message: String,
    /// Its `cadence` (at least 1): context on matching call n when n = 1
    /// or n is a multiple of it.
    pub cadence: u32,
}

/// One enforcement, read in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enforcement<'a> {
    /// Its `id`.
    pub id: &'a str,
    /// Its `message`.
    pub message: &'a str,
    /// Its `cadence`.
    pub cadence: u32,
}

impl EnforcementData {
    pub(crate) fn record(&self, pool: &mut Pool) -> EnforcementRecord {
        EnforcementRecord {
            rule: U32::new(self.rule),
            cadence: U32::new(self.cadence),
            id: pool.put(&self.id),
            message: pool.put(&self.message),
        }
    }
}

impl<'a> Index<'a> {
    /// The enforcement rule `rule` carries, if it is one.
    ///
    /// # Errors
    ///
    /// When a record is damaged or its cadence is 0.
    pub fn enforcement(&self, rule: u32) -> Result<Option<Enforcement<'a>>, Error> {
        let count = self.enforcements.records::<EnforcementRecord>();
        let (mut low, mut high) = (0, count);
        while low < high {
            let mid = (low + high) / 2;
            let r: &EnforcementRecord = self.enforcements.record(mid)?;
            match r.rule.get().cmp(&rule) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => {
                    let cadence = r.cadence.get();
                    if cadence == 0 {
                        return Err(Error::corrupt(format!(
                            "enforcement of rule {rule}: cadence 0"
                        )));
                    }
                    return Ok(Some(Enforcement {
                        id: self.str(&r.id)?,
                        message: self.str(&r.message)?,
                        cadence,
                    }));
                }
            }
        }
        Ok(None)
    }

    /// Reads every record whole.
    pub(crate) fn verify_enforcements(&self) -> Result<(), Error> {
        let mut last = None;
        for i in 0..self.enforcements.records::<EnforcementRecord>() {
            let r: &EnforcementRecord = self.enforcements.record(i)?;
            let rule = r.rule.get();
            if last.is_some_and(|l| l >= rule) || rule as usize >= self.rule_count() {
                return Err(Error::corrupt(format!("enforcement {i}: rule {rule}")));
            }
            last = Some(rule);
            self.enforcement(rule)?;
        }
        Ok(())
    }
}
