//! The meta record: the view an index was compiled for, the owners its
//! trust verdict is taken from, and whether the directory layer was read
//! by file name only (an untrusted repository's files are never opened),
//! the interpreters its rules run with, and how many rules shadow a rule
//! shipped in a lower layer (with the invalid files, what the hook's
//! once-per-session notice counts without reading more than this record).

use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use hookdex_model::Interpreters;

use crate::error::Error;
use crate::strings::{Pool, StrRef};
use crate::Index;

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct MetaRecord {
    target: StrRef,
    home: StrRef,
    bundle: StrRef,
    /// Profile names joined by `\n`.
    profiles: StrRef,
    repo_root: StrRef,
    managed_dir: StrRef,
    directory_owner: StrRef,
    bundle_owner: StrRef,
    compiled_at_ms: U64,
    trust_record: StrRef,
    /// 1 when the directory layer's files were listed by name only.
    directory_names_only: u8,
    reserved: [u8; 7],
    bash: StrRef,
    python: StrRef,
    sh: StrRef,
    shadowing: U32,
    invalid_persons: U32,
}

const _: () = assert!(std::mem::size_of::<MetaRecord>() == 120);

/// The view and trust facts recorded with an index, before serialization.
#[derive(Clone, Debug, Default)]
pub struct MetaData {
    /// Target name.
    pub target: String,
    /// `$HOOKDEX_HOME`.
    pub home: String,
    /// The bundle directory, if one is linked.
    pub bundle: Option<String>,
    /// Profile names of the chain, in order.
    pub profiles: Vec<String>,
    /// The repository root, if the view is inside one.
    pub repo_root: Option<String>,
    /// The managed directory.
    pub managed_dir: String,
    /// The repository's `origin`: `None` without one, else its owner
    /// (`github.com/acme`, lowercased) or `?` and why it is unknown
    /// (`hookdex_model::RecordedOrigin`).
    pub directory_owner: Option<String>,
    /// The bundle's `origin`, recorded the same way.
    pub bundle_owner: Option<String>,
    /// The repository's trust facts, as `hookdex_model::TrustRecord`
    /// encodes them: every root's decision and owners seen.
    pub trust_record: Option<String>,
    /// Compile time, milliseconds since the epoch.
    pub compiled_at_ms: u64,
    /// The repository was not trusted at compile time, so its rule files
    /// were listed by name and never opened: such an index cannot answer
    /// for a call that trusts the repository (it is stale for that call).
    pub directory_names_only: bool,
    /// The interpreters found in system locations at compile time.
    pub interpreters: Interpreters,
    /// How many rules shadow a rule shipped in a lower layer
    /// ([`hookdex_model::LayerKind::shadows`]).
    pub shadowing: u32,
    /// How many invalid files are the person's: in a layer they write
    /// ([`hookdex_model::LayerKind::is_persons`]) or of the selection
    /// itself (a missing profile, a bad `state.json`).
    pub invalid_persons: u32,
}

/// The view and trust facts, read in place.
#[derive(Clone, Debug)]
pub struct Meta<'a> {
    /// Target name.
    pub target: &'a str,
    /// `$HOOKDEX_HOME`.
    pub home: &'a str,
    /// The linked bundle.
    pub bundle: Option<&'a str>,
    /// The profile chain.
    pub profiles: Vec<&'a str>,
    /// The repository root.
    pub repo_root: Option<&'a str>,
    /// The managed directory.
    pub managed_dir: &'a str,
    /// The repository's recorded `origin` (see [`MetaData::directory_owner`]).
    pub directory_owner: Option<&'a str>,
    /// The bundle's recorded `origin`.
    pub bundle_owner: Option<&'a str>,
    /// The repository's trust facts (see [`MetaData::trust_record`]).
    pub trust_record: Option<&'a str>,
    /// When the index was compiled, ms since the epoch.
    pub compiled_at_ms: u64,
    /// The directory layer's files were listed by name only
    /// (see [`MetaData::directory_names_only`]).
    pub directory_names_only: bool,
    /// The interpreters rules run with (see [`MetaData::interpreters`]).
    pub interpreters: Interpreters,
    /// How many rules shadow a shipped rule (see [`MetaData::shadowing`]).
    pub shadowing: u32,
    /// How many invalid files are the person's (see [`MetaData::invalid_persons`]).
    pub invalid_persons: u32,
}

/// What [`Index::problem_count`] counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProblemCount {
    /// The person's invalid files ([`MetaData::invalid_persons`]).
    pub invalid: u32,
    /// Rules that shadow a shipped rule.
    pub shadowing: u32,
}

impl ProblemCount {
    /// Whether there is nothing to tell.
    pub fn is_empty(&self) -> bool {
        self.invalid == 0 && self.shadowing == 0
    }
}

impl std::ops::AddAssign for ProblemCount {
    fn add_assign(&mut self, more: ProblemCount) {
        self.invalid = self.invalid.saturating_add(more.invalid);
        self.shadowing = self.shadowing.saturating_add(more.shadowing);
    }
}

impl MetaData {
    pub(crate) fn record(&self, pool: &mut Pool) -> MetaRecord {
        MetaRecord {
            target: pool.put(&self.target),
            home: pool.put(&self.home),
            bundle: pool.put_opt(self.bundle.as_deref()),
            profiles: pool.put(&self.profiles.join("\n")),
            repo_root: pool.put_opt(self.repo_root.as_deref()),
            managed_dir: pool.put(&self.managed_dir),
            directory_owner: pool.put_opt(self.directory_owner.as_deref()),
            bundle_owner: pool.put_opt(self.bundle_owner.as_deref()),
            compiled_at_ms: U64::new(self.compiled_at_ms),
            trust_record: pool.put_opt(self.trust_record.as_deref()),
            directory_names_only: u8::from(self.directory_names_only),
            reserved: [0; 7],
            bash: pool.put_opt(self.interpreters.bash.as_deref()),
            python: pool.put_opt(self.interpreters.python.as_deref()),
            sh: pool.put_opt(self.interpreters.sh.as_deref()),
            shadowing: U32::new(self.shadowing),
            invalid_persons: U32::new(self.invalid_persons),
        }
    }
}

impl<'a> Index<'a> {
    /// The recorded view and trust facts.
    ///
    /// # Errors
    ///
    /// When the record or a string it names is damaged.
    pub fn meta(&self) -> Result<Meta<'a>, Error> {
        let r: &MetaRecord = self.meta.record(0)?;
        Ok(Meta {
            target: self.str(&r.target)?,
            home: self.str(&r.home)?,
            bundle: self.opt_str(&r.bundle)?,
            profiles: self
                .str(&r.profiles)?
                .split('\n')
                .filter(|p| !p.is_empty())
                .collect(),
            repo_root: self.opt_str(&r.repo_root)?,
            managed_dir: self.str(&r.managed_dir)?,
            directory_owner: self.opt_str(&r.directory_owner)?,
            bundle_owner: self.opt_str(&r.bundle_owner)?,
            compiled_at_ms: r.compiled_at_ms.get(),
            trust_record: self.opt_str(&r.trust_record)?,
            directory_names_only: match r.directory_names_only {
                0 => false,
                1 => true,
                _ => return Err(Error::corrupt("meta directory flag")),
            },
            interpreters: Interpreters {
                bash: self.opt_str(&r.bash)?.map(str::to_string),
                python: self.opt_str(&r.python)?.map(str::to_string),
                sh: self.opt_str(&r.sh)?.map(str::to_string),
            },
            shadowing: r.shadowing.get(),
            invalid_persons: r.invalid_persons.get(),
        })
    }

    /// How many problems a person should hear of: their invalid files (a
    /// missing profile among them) and the rules that shadow a shipped
    /// rule. Reads the meta record's counters, no string: the hook asks it
    /// on every call.
    ///
    /// # Errors
    ///
    /// When the meta record is damaged.
    pub fn problem_count(&self) -> Result<ProblemCount, Error> {
        let r: &MetaRecord = self.meta.record(0)?;
        Ok(ProblemCount {
            invalid: r.invalid_persons.get(),
            shadowing: r.shadowing.get(),
        })
    }
}
