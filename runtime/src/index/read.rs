//! Reading an index in place: header checks, record accessors, freshness and
//! the lookup that answers "what fires" for one call.

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind};
use crate::index::stamp::Stamp;
use crate::index::wire::{self, u16_at, u32_at, u64_at, Section, SectionId};
use crate::rule::{LayerKind, RuleKind, Runner, Step};
use crate::trust::Trust;

/// A parsed view over the bytes of an index file. Cheap to create: only the
/// header and the small sections are verified up front.
pub struct Index<'a> {
    meta: Section<'a>,
    strings: Section<'a>,
    paths: Section<'a>,
    layers: Section<'a>,
    rules: Section<'a>,
    invalid: Section<'a>,
    steps: Section<'a>,
    names: Section<'a>,
    postings: Section<'a>,
    pub(super) filters: Section<'a>,
    pub(super) finders: Section<'a>,
    pub(super) globs: Section<'a>,
    pub(super) dfa: Section<'a>,
}

impl std::fmt::Debug for Index<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("rules", &self.rule_count())
            .field("layers", &self.layer_count())
            .field("paths", &self.path_count())
            .field("invalid", &self.invalid_count())
            .finish_non_exhaustive()
    }
}

/// The view and trust facts recorded with the index.
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
    /// The repository's `origin` owner.
    pub directory_owner: Option<&'a str>,
    /// The bundle's `origin` owner.
    pub bundle_owner: Option<&'a str>,
    /// Rule ids of the directory layer, `[start, end)`.
    pub directory_rules: (u32, u32),
    /// When the index was compiled, ms since the epoch.
    pub compiled_at_ms: u64,
}

impl Meta<'_> {
    /// The directory layer's trust verdict under `CONDITIONS_TRUSTED_OWNERS` now.
    pub fn trust(&self) -> Trust {
        Trust::from_env(self.directory_owner, self.bundle_owner)
    }
}

/// One layer.
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

/// One rule, active or overridden.
#[derive(Clone, Debug)]
pub struct Rule<'a> {
    /// Rule id: its position in execution order.
    pub id: u32,
    /// The file.
    pub file: &'a str,
    /// Override key.
    pub key: &'a str,
    /// Matcher, lowercased.
    pub matcher: &'a str,
    /// Name part.
    pub name: &'a str,
    /// Extension.
    pub ext: &'a str,
    /// Index of its layer.
    pub layer: u16,
    /// Step.
    pub step: Step,
    /// Condition or filter.
    pub kind: RuleKind,
    /// Whether it runs detached.
    pub is_async: bool,
    /// How it is started.
    pub runner: Runner,
    /// The rule that replaces it, if any.
    pub overridden_by: Option<u32>,
    /// Replaced only by a directory-layer rule: runs while the repository is untrusted.
    pub shadowed_by_directory: bool,
}

impl Rule<'_> {
    /// Whether the rule runs under `trust`.
    pub fn is_active(&self, trust: &Trust) -> bool {
        self.overridden_by.is_none() || (self.shadowed_by_directory && !trust.is_trusted())
    }
}

impl Rule<'_> {
    /// The file name alone.
    pub fn file_name(&self) -> &str {
        self.file.rsplit('/').next().unwrap_or(self.file)
    }
}

/// A file that did not parse.
#[derive(Clone, Debug)]
pub struct Invalid<'a> {
    /// The file.
    pub file: &'a str,
    /// Why.
    pub reason: &'a str,
    /// Index of its layer.
    pub layer: u16,
}

/// A recorded path and its stamp at compile time.
#[derive(Clone, Debug)]
pub struct PathEntry<'a> {
    /// The path.
    pub path: &'a str,
    /// Its stamp at compile time.
    pub stamp: Stamp,
}

/// Whether the index still describes the files on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Every recorded path stats the same.
    Fresh {
        /// How many paths were checked.
        checked: usize,
    },
    /// A recorded path changed.
    Stale {
        /// The first path that changed.
        path: PathBuf,
        /// Its stamp at compile time.
        was: Stamp,
        /// Its stamp now.
        now: Stamp,
    },
}

/// One call to answer: the step, the normalized name and the programs of a bash command.
#[derive(Clone, Copy, Debug)]
pub struct Query<'q> {
    /// The step.
    pub step: Step,
    /// The normalized tool name (or, for event steps, the matched field value).
    pub name: &'q str,
    /// Programs of the shell command when the tool is `bash`.
    pub programs: &'q [String],
}

/// Which matcher alternative made a rule fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via<'a> {
    /// `any`.
    Any,
    /// An exact name.
    Name(&'a str),
    /// `bash.<cli>`: the program name.
    Program(&'a str),
    /// A prefix alternative: `mcp` or `mcp__<server>`.
    Prefix(&'a str),
}

/// A rule that fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit<'a> {
    /// The rule id; hits come sorted by it, which is execution order.
    pub rule: u32,
    /// The alternative that matched.
    pub via: Via<'a>,
}

/// The answer to a [`Query`].
#[derive(Clone, Debug)]
pub struct Lookup<'a> {
    /// Rules that fire, in execution order.
    pub hits: Vec<Hit<'a>>,
    /// Rules that matched but belong to an untrusted directory layer.
    pub untrusted: Vec<Hit<'a>>,
}

/// An `(offset, length)` pair: a posting list, a table, a pattern run or a DFA.
type Span = (u32, u32);

struct StepTables {
    any: Span,
    names: Span,
    programs: Span,
    prefixes: Span,
}

impl<'a> Index<'a> {
    /// Parses the header and section table of `bytes` and verifies the small sections.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Truncated`], [`ErrorKind::BadMagic`],
    /// [`ErrorKind::ForeignVersion`] or [`ErrorKind::Corrupt`] when the bytes
    /// are not a complete index of this version.
    pub fn parse(bytes: &'a [u8]) -> Result<Index<'a>, Error> {
        if bytes.len() < wire::HEADER_LEN {
            return Err(Error::new(
                if bytes.starts_with(wire::MAGIC) || bytes.is_empty() {
                    ErrorKind::Truncated
                } else {
                    ErrorKind::BadMagic
                },
            ));
        }
        if &bytes[..8] != wire::MAGIC {
            return Err(Error::new(ErrorKind::BadMagic));
        }
        let version = u32_at(bytes, 8);
        if version != wire::FORMAT_VERSION {
            return Err(Error::new(ErrorKind::ForeignVersion(format!(
                "format {version}, this binary reads {}",
                wire::FORMAT_VERSION
            ))));
        }
        if u32::from_ne_bytes(bytes[12..16].try_into().unwrap()) != wire::ENDIAN_MARK {
            return Err(Error::new(ErrorKind::ForeignVersion(
                "other endianness".into(),
            )));
        }
        let total = u64_at(bytes, 16);
        if (bytes.len() as u64) < total {
            return Err(Error::new(ErrorKind::Truncated));
        }
        if bytes.len() as u64 != total {
            return Err(Error::corrupt("trailing bytes after the last section"));
        }
        let count = u32_at(bytes, 24) as usize;
        if count != SectionId::ALL.len() {
            return Err(Error::corrupt(format!("{count} sections")));
        }
        let table_end = wire::HEADER_LEN + count * wire::SECTION_ENTRY_LEN;
        if table_end > bytes.len() || wire::hash(&bytes[40..table_end]) != u64_at(bytes, 32) {
            return Err(Error::corrupt("header checksum mismatch"));
        }
        check_tag(&bytes[40..72], wire::AUTOMATA_TAG, "automata")?;
        check_tag(&bytes[72..104], env!("CARGO_PKG_VERSION"), "hookdex")?;
        let section = |i: usize| -> Result<Section<'a>, Error> {
            let entry = &bytes[wire::HEADER_LEN + i * wire::SECTION_ENTRY_LEN..];
            let id = SectionId::ALL[i];
            if u32_at(entry, 0) != id as u32 {
                return Err(Error::corrupt(format!("section {i} is not {id:?}")));
            }
            let offset = u64_at(entry, 8) as usize;
            let len = u64_at(entry, 16) as usize;
            let hashes = u64_at(entry, 24) as usize;
            let hashes_len = len.div_ceil(wire::BLOCK) * 8;
            let in_bounds =
                |start: usize, n: usize| start.checked_add(n).is_some_and(|e| e <= bytes.len());
            if !in_bounds(offset, len) || !in_bounds(hashes, hashes_len) || offset % 8 != 0 {
                return Err(Error::corrupt(format!("section {id:?} out of bounds")));
            }
            Section::new(
                id,
                &bytes[offset..offset + len],
                &bytes[hashes..hashes + hashes_len],
            )
        };
        let index = Index {
            meta: section(0)?,
            strings: section(1)?,
            paths: section(2)?,
            layers: section(3)?,
            rules: section(4)?,
            invalid: section(5)?,
            steps: section(6)?,
            names: section(7)?,
            postings: section(8)?,
            filters: section(9)?,
            finders: section(10)?,
            globs: section(11)?,
            dfa: section(12)?,
        };
        for small in [&index.meta, &index.paths, &index.layers, &index.steps] {
            small.verify_all()?;
        }
        if index.meta.len() != wire::META_LEN
            || index.steps.len() != Step::ALL.len() * wire::STEP_LEN
        {
            return Err(Error::corrupt("meta or step table size"));
        }
        Ok(index)
    }

    pub(super) fn str_at(&self, record: &[u8], at: usize) -> Result<&'a str, Error> {
        self.opt_str_at(record, at)?
            .ok_or_else(|| Error::corrupt("missing string"))
    }

    pub(super) fn opt_str_at(&self, record: &[u8], at: usize) -> Result<Option<&'a str>, Error> {
        let offset = u32_at(record, at) as usize;
        let len = u32_at(record, at + 4);
        if len == wire::NONE_LEN {
            return Ok(None);
        }
        let bytes = self.strings.get(offset, len as usize)?;
        std::str::from_utf8(bytes)
            .map(Some)
            .map_err(|_| Error::corrupt("string is not UTF-8"))
    }

    /// The recorded view and trust facts.
    pub fn meta(&self) -> Result<Meta<'a>, Error> {
        let r = self.meta.get(0, wire::META_LEN)?;
        let profiles = self.str_at(r, 24)?;
        Ok(Meta {
            target: self.str_at(r, 0)?,
            home: self.str_at(r, 8)?,
            bundle: self.opt_str_at(r, 16)?,
            profiles: profiles.split('\n').filter(|p| !p.is_empty()).collect(),
            repo_root: self.opt_str_at(r, 32)?,
            managed_dir: self.str_at(r, 40)?,
            directory_owner: self.opt_str_at(r, 48)?,
            bundle_owner: self.opt_str_at(r, 56)?,
            directory_rules: (u32_at(r, 64), u32_at(r, 68)),
            compiled_at_ms: u64_at(r, 72),
        })
    }

    /// How many paths are recorded.
    pub fn path_count(&self) -> usize {
        self.paths.records(wire::PATH_LEN)
    }

    /// The recorded path at `i`.
    pub fn path(&self, i: usize) -> Result<PathEntry<'a>, Error> {
        let r = self.paths.record(i, wire::PATH_LEN)?;
        let kind = Stamp::kind_from_code(r[8]).ok_or_else(|| Error::corrupt("path kind"))?;
        Ok(PathEntry {
            path: self.str_at(r, 0)?,
            stamp: Stamp {
                kind,
                mtime_nsec: u32_at(r, 12),
                mtime_sec: u64_at(r, 16) as i64,
                size: u64_at(r, 24),
                ino: u64_at(r, 32),
                mode: u32_at(r, 40),
            },
        })
    }

    /// Verifies every block of every section: for commands that read the
    /// whole index (`list`, `explain`), so a bad block means a recompile
    /// rather than an error halfway through.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Corrupt`] naming the first section that fails.
    pub fn verify_all(&self) -> Result<(), Error> {
        for section in [
            &self.meta,
            &self.strings,
            &self.paths,
            &self.layers,
            &self.rules,
            &self.invalid,
            &self.steps,
            &self.names,
            &self.postings,
            &self.filters,
            &self.finders,
            &self.globs,
            &self.dfa,
        ] {
            section.verify_all()?;
        }
        Ok(())
    }

    /// Stats every recorded path; fresh when all still match.
    pub fn freshness(&self) -> Result<Freshness, Error> {
        let count = self.path_count();
        for i in 0..count {
            let entry = self.path(i)?;
            let now = Stamp::of(Path::new(entry.path));
            if now != entry.stamp {
                return Ok(Freshness::Stale {
                    path: PathBuf::from(entry.path),
                    was: entry.stamp,
                    now,
                });
            }
        }
        Ok(Freshness::Fresh { checked: count })
    }

    /// How many layers there are.
    pub fn layer_count(&self) -> usize {
        self.layers.records(wire::LAYER_LEN)
    }

    /// The layer at `i`.
    pub fn layer(&self, i: usize) -> Result<Layer<'a>, Error> {
        let r = self.layers.record(i, wire::LAYER_LEN)?;
        Ok(Layer {
            label: self.str_at(r, 0)?,
            dir: self.str_at(r, 8)?,
            kind: LayerKind::from_code(r[16]).ok_or_else(|| Error::corrupt("layer kind"))?,
            count: u32_at(r, 20),
        })
    }

    /// How many rules there are, active and overridden.
    pub fn rule_count(&self) -> usize {
        self.rules.records(wire::RULE_LEN)
    }

    /// The rule with id `id`.
    pub fn rule(&self, id: u32) -> Result<Rule<'a>, Error> {
        let r = self.rules.record(id as usize, wire::RULE_LEN)?;
        let overridden = u32_at(r, 48);
        Ok(Rule {
            id,
            file: self.str_at(r, 0)?,
            key: self.str_at(r, 8)?,
            matcher: self.str_at(r, 16)?,
            name: self.str_at(r, 24)?,
            ext: self.str_at(r, 32)?,
            layer: u16_at(r, 40),
            step: Step::from_code(r[42]).ok_or_else(|| Error::corrupt("rule step"))?,
            kind: RuleKind::from_code(r[43]).ok_or_else(|| Error::corrupt("rule kind"))?,
            is_async: r[44] & 1 != 0,
            shadowed_by_directory: r[44] & 2 != 0,
            runner: Runner::from_code(r[45]).ok_or_else(|| Error::corrupt("rule runner"))?,
            overridden_by: (overridden != u32::MAX).then_some(overridden),
        })
    }

    /// How many invalid files were recorded.
    pub fn invalid_count(&self) -> usize {
        self.invalid.records(wire::INVALID_LEN)
    }

    /// The invalid file at `i`.
    pub fn invalid(&self, i: usize) -> Result<Invalid<'a>, Error> {
        let r = self.invalid.record(i, wire::INVALID_LEN)?;
        Ok(Invalid {
            file: self.str_at(r, 0)?,
            reason: self.str_at(r, 8)?,
            layer: u32_at(r, 16) as u16,
        })
    }

    fn step_tables(&self, step: Step) -> Result<StepTables, Error> {
        let r = self
            .steps
            .record(usize::from(step.code()), wire::STEP_LEN)?;
        let pair = |at| (u32_at(r, at), u32_at(r, at + 4));
        Ok(StepTables {
            any: pair(0),
            names: pair(8),
            programs: pair(16),
            prefixes: pair(24),
        })
    }

    fn push_posting(
        &self,
        posting: (u32, u32),
        via: Via<'a>,
        out: &mut Vec<Hit<'a>>,
    ) -> Result<(), Error> {
        let bytes = self
            .postings
            .get(posting.0 as usize * 4, posting.1 as usize * 4)?;
        out.extend(bytes.chunks_exact(4).map(|id| Hit {
            rule: u32::from_le_bytes(id.try_into().unwrap()),
            via,
        }));
        Ok(())
    }

    /// Finds `name` in the hash table `(first slot, capacity)`.
    fn table_get(&self, table: (u32, u32), name: &str) -> Result<Option<(&'a str, Span)>, Error> {
        let (first, cap) = (table.0 as usize, table.1 as usize);
        if cap == 0 {
            return Ok(None);
        }
        if !cap.is_power_of_two() {
            return Err(Error::corrupt("table capacity"));
        }
        let hash = wire::hash(name.as_bytes());
        let mut at = (hash as usize) & (cap - 1);
        for _ in 0..cap {
            let slot = self.names.record(first + at, wire::SLOT_LEN)?;
            if u32_at(slot, 12) == 0 {
                return Ok(None);
            }
            if u64_at(slot, 0) == hash {
                let label = self.str_at(slot, 8)?;
                if label == name {
                    return Ok(Some((label, (u32_at(slot, 16), u32_at(slot, 20)))));
                }
            }
            at = (at + 1) & (cap - 1);
        }
        Ok(None)
    }

    /// Rules that fire for `query`, in execution order, with the directory
    /// layer held back when `trust` says so.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Corrupt`] when a block the lookup reads fails its checksum.
    pub fn lookup(&self, query: &Query<'_>, trust: &Trust) -> Result<Lookup<'a>, Error> {
        let tables = self.step_tables(query.step)?;
        let mut hits = Vec::new();
        self.push_posting(tables.any, Via::Any, &mut hits)?;
        if let Some((label, posting)) = self.table_get(tables.names, query.name)? {
            self.push_posting(posting, Via::Name(label), &mut hits)?;
        }
        if query.name == "bash" {
            for program in query.programs {
                if let Some((label, posting)) = self.table_get(tables.programs, program)? {
                    self.push_posting(posting, Via::Program(label), &mut hits)?;
                }
            }
        }
        for prefix in prefixes_of(query.name) {
            if let Some((label, posting)) = self.table_get(tables.prefixes, prefix)? {
                self.push_posting(posting, Via::Prefix(label), &mut hits)?;
            }
        }
        hits.sort_by_key(|hit| hit.rule);
        hits.dedup_by_key(|hit| hit.rule);
        let meta = self.meta.get(0, wire::META_LEN)?;
        let directory = u32_at(meta, 64)..u32_at(meta, 68);
        let mut untrusted = Vec::new();
        if directory.is_empty() {
            // No directory rules: nothing is held back or shadowed.
        } else if trust.is_trusted() {
            // Rules shadowed by a directory rule are in the postings for the
            // untrusted case only.
            let mut kept = Vec::with_capacity(hits.len());
            for hit in hits {
                let record = self.rules.record(hit.rule as usize, wire::RULE_LEN)?;
                if u32_at(record, 48) == u32::MAX {
                    kept.push(hit);
                }
            }
            hits = kept;
        } else {
            let (held, kept): (Vec<_>, Vec<_>) = hits
                .into_iter()
                .partition(|hit| directory.contains(&hit.rule));
            untrusted = held;
            hits = kept;
        }
        Ok(Lookup { hits, untrusted })
    }
}

/// The prefix alternatives a normalized name falls under: `mcp` for every
/// MCP tool (and Cursor's bare `mcp`), and `mcp__<server>` for a server's tools.
fn prefixes_of(name: &str) -> impl Iterator<Item = &str> {
    let server = name.strip_prefix("mcp__").map(|rest| {
        let end = rest.find("__").unwrap_or(rest.len());
        &name[..5 + end]
    });
    let mcp = (name == "mcp" || server.is_some()).then_some("mcp");
    mcp.into_iter().chain(server)
}

fn check_tag(field: &[u8], want: &str, what: &str) -> Result<(), Error> {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    if &field[..end] != want.as_bytes() {
        return Err(Error::new(ErrorKind::ForeignVersion(format!(
            "{what} `{}`, this binary is `{want}`",
            String::from_utf8_lossy(&field[..end])
        ))));
    }
    Ok(())
}
