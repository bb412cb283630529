//! Load-or-recompile: opens the index for a view, recompiling in process
//! when it is missing, stale, truncated, corrupt or from another version
//! (or listed an untrusted repository by name while this view trusts it),
//! and writing the new one atomically. This is the one place the read path
//! meets the compiler, and it recompiles only for damage or staleness —
//! never because a reader's own work failed on a sound index.

use hookdex_compiler::{Scope, View};
use hookdex_index::{current_user, Freshness, Index, IndexFile};

use crate::error::Error;

/// How the index in hand came to be.
#[derive(Clone, Debug)]
pub enum IndexState {
    /// Mapped from disk; every recorded path stats the same.
    Fresh {
        /// Paths checked.
        checked: usize,
    },
    /// Recompiled in process and written to disk.
    Recompiled {
        /// Why the file on disk could not be used.
        why: String,
    },
    /// Recompiled in process but not written (the cache is not writable).
    InMemory {
        /// Why the file on disk could not be used.
        why: String,
        /// Why it could not be written.
        write_error: String,
    },
}

impl IndexState {
    /// Whether the file on disk was used as it was.
    pub fn is_fresh(&self) -> bool {
        matches!(self, IndexState::Fresh { .. })
    }

    /// One line for `explain`.
    pub fn describe(&self) -> String {
        match self {
            IndexState::Fresh { checked } => format!("fresh ({checked} paths checked)"),
            IndexState::Recompiled { why } => format!("recompiled ({why})"),
            IndexState::InMemory { why, write_error } => {
                format!("compiled in memory ({why}; not written: {write_error})")
            }
        }
    }
}

/// Whether the repository of `settings`' view is trusted (its directory
/// layer runs): the index's recorded owners judged by
/// [`Settings::trust`](crate::settings::Settings::trust), the one verdict
/// every reader takes. An index that cannot be read trusts nothing.
pub fn repository_trusted(settings: &crate::settings::Settings) -> bool {
    with_index(&settings.view, Verify::Lazy, |index| {
        Ok(settings.trust(&index.meta()?).is_trusted())
    })
    .unwrap_or(false)
}

/// How much of an index on disk to verify before using it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Header and small sections now; other blocks as a lookup reads them
    /// (the hook path: cost does not grow with the index).
    Lazy,
    /// Every block now (commands that read the whole index).
    Full,
    /// None: the index is known to be out of date (a rule file it names
    /// vanished), whatever its stamps say, so it is compiled again. A
    /// change within the filesystem's timestamp tick can leave every stamp
    /// equal.
    Rebuild,
}

/// The index for `view`, from disk when fresh, else freshly compiled.
pub fn load(view: &View, verify: Verify) -> (IndexFile, IndexState) {
    let path = view.index_path();
    let why = match IndexFile::open(&path, owner_of(view)) {
        Err(err) => err.to_string(),
        Ok(file) => match file.index().and_then(|index| check(&index, view, verify)) {
            Ok(Checked::Fresh { checked }) => return (file, IndexState::Fresh { checked }),
            Ok(Checked::Stale(why)) => why,
            Err(err) => err.to_string(),
        },
    };
    recompile(view, why)
}

/// Runs `read` on the index for `view`, parsing it once: from disk when
/// fresh, else freshly compiled. When `read` finds the file on disk damaged
/// where it reads (lazy verification), the index is recompiled and `read`
/// runs again on the new one; an error of `read` that is not damage is
/// returned as it is, with no recompile.
///
/// # Errors
///
/// What `read` returned that is not damage of the file on disk, or any
/// error on a freshly compiled index.
pub fn with_index<T>(
    view: &View,
    verify: Verify,
    read: impl Fn(&Index<'_>) -> Result<T, hookdex_index::Error>,
) -> Result<T, Error> {
    let path = view.index_path();
    READS.with(|reads| reads.borrow_mut().push(path.clone()));
    let opened = match verify {
        Verify::Rebuild => Err("a rule file it names vanished".to_string()),
        _ => IndexFile::open(&path, owner_of(view)).map_err(|e| e.to_string()),
    };
    let why = match opened {
        Err(why) => why,
        Ok(file) => match file.index() {
            Err(err) => err.to_string(),
            Ok(index) => match check(&index, view, verify) {
                Err(err) => err.to_string(),
                Ok(Checked::Stale(why)) => why,
                Ok(Checked::Fresh { .. }) => match read(&index) {
                    Err(err) if err.is_damage() => err.to_string(),
                    answer => return answer.map_err(|err| Error::index(&path, err)),
                },
            },
        },
    };
    let (file, _) = recompile(view, why);
    let index = file.index().map_err(|err| Error::index(&path, err))?;
    read(&index).map_err(|err| Error::index(&path, err))
}

thread_local! {
    /// The index files [`with_index`] read on this thread, one entry a read.
    static READS: std::cell::RefCell<Vec<std::path::PathBuf>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The index files [`with_index`] read on this thread since the last call,
/// one entry a read (each a lookup, its own opening and checks of the
/// file): what the test that holds the hook to one lookup per index per
/// stage counts.
pub fn take_reads() -> Vec<std::path::PathBuf> {
    READS.with(|reads| std::mem::take(&mut *reads.borrow_mut()))
}

/// What checking an index on disk found.
enum Checked {
    /// Every recorded path stats the same.
    Fresh {
        /// Paths checked.
        checked: usize,
    },
    /// It is out of date, and why (the recorded path that changed, or the
    /// view it was built for).
    Stale(String),
}

/// Verifies `index` as asked and stats its recorded paths.
fn check(index: &Index<'_>, view: &View, verify: Verify) -> Result<Checked, hookdex_index::Error> {
    if verify == Verify::Full {
        index.verify_all()?;
    }
    let meta = index.meta()?;
    if let Some(other) = built_for_another_view(&meta, view) {
        return Ok(Checked::Stale(format!(
            "index was built for another view ({other})"
        )));
    }
    if withheld_from_a_trusted_repository(&meta, view) {
        return Ok(Checked::Stale(
            "the repository is trusted now, and its rule files were listed by name only".into(),
        ));
    }
    Ok(match index.freshness()? {
        Freshness::Fresh { checked } => Checked::Fresh { checked },
        Freshness::Stale { path, was, now } => Checked::Stale(format!(
            "{} changed: {} -> {}",
            path.display(),
            was.describe(),
            now.describe()
        )),
    })
}

/// What differs between the view an index records and `view`, if anything:
/// an index copied in from another home, managed directory, repository or
/// bundle is not this view's, however sound its bytes.
fn built_for_another_view(meta: &hookdex_index::Meta<'_>, view: &View) -> Option<&'static str> {
    // The compiler records paths as `display()` writes them; the lossy
    // conversion is the same text, and borrows for a UTF-8 path (no
    // allocation on the hook path).
    let same = |recorded: &str, path: &std::path::Path| recorded == path.to_string_lossy();
    if meta.target != view.target.as_str() {
        return Some("target");
    }
    if !same(meta.home, &view.home) {
        return Some("HOOKDEX_HOME");
    }
    if !same(meta.managed_dir, &view.managed_dir) {
        return Some("managed directory");
    }
    match (meta.repo_root, view.repo_root.as_deref()) {
        (None, None) => {}
        (Some(recorded), Some(root)) if same(recorded, root) => {}
        _ => return Some("repository"),
    }
    if let Some(bundle) = &view.bundle_override {
        if !meta.bundle.is_some_and(|recorded| same(recorded, bundle)) {
            return Some("bundle");
        }
    }
    None
}

/// Who must own the index file of `view`: the user for their own cache; for
/// the managed layer alone, the managed directory's owner (the
/// administrator), so no file the user wrote can stand in for it.
fn owner_of(view: &View) -> u32 {
    match view.scope {
        Scope::Every => current_user(),
        Scope::Managed => view.managed_dir_owner.unwrap_or_else(current_user),
    }
}

/// Whether the index listed the directory layer by file name only (the
/// repository was untrusted when it was compiled, so nothing in it was
/// read) while this view trusts the repository: its rules must run now,
/// from their compiled contents, so the index cannot answer. The compile
/// decides with the same verdict, so the recompiled index answers.
fn withheld_from_a_trusted_repository(meta: &hookdex_index::Meta<'_>, view: &View) -> bool {
    meta.directory_names_only
        && view
            .trust(meta.trust_record, meta.bundle_owner)
            .is_trusted()
}

/// Compiles `view` in process and writes the index atomically; `why` says
/// what was wrong with the one on disk. An index only someone else may own
/// is held in memory: a file written by this user would be refused.
pub fn recompile(view: &View, why: String) -> (IndexFile, IndexState) {
    let path = view.index_path();
    let compiled = hookdex_compiler::compile(view);
    let written = match owner_of(view) == current_user() {
        true => IndexFile::write_atomic(&path, &compiled.bytes, view.index_mode())
            .map_err(|e| e.to_string()),
        false => Err(format!(
            "{} belongs to its owner: `hookdex compile --managed` run by them writes it",
            path.display()
        )),
    };
    let state = match written {
        Ok(()) => IndexState::Recompiled { why },
        Err(write_error) => IndexState::InMemory { why, write_error },
    };
    (IndexFile::from_bytes(&path, &compiled.bytes), state)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::ffi::OsString;
    use std::path::Path;

    use hookdex_model::Target;

    use super::*;

    fn view(root: &Path) -> View {
        view_in(root, root, "")
    }

    /// The view of a call made in `cwd`, trusting `owners`.
    fn view_in(root: &Path, cwd: &Path, owners: &str) -> View {
        View::from_vars(Target::Claude, cwd, |name| {
            Some(OsString::from(match name {
                "HOME" => root.to_path_buf(),
                "HOOKDEX_HOME" => root.join("home"),
                "HOOKDEX_CACHE_DIR" => root.join("cache"),
                "HOOKDEX_MANAGED_DIR" => root.join("managed"),
                "CONDITIONS_TRUSTED_OWNERS" => owners.into(),
                _ => return None,
            }))
        })
    }

    #[test]
    fn an_index_that_listed_a_repository_by_name_is_stale_once_it_is_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(
            repo.join(".git/config"),
            "[remote \"origin\"]\n\turl = git@github.com:stranger/r.git\n",
        )
        .unwrap();
        let untrusted = view_in(dir.path(), &repo, "");
        let trusting = view_in(dir.path(), &repo, "stranger");
        assert_eq!(untrusted.index_path(), trusting.index_path());
        let state = |view: &View| load(view, Verify::Full).1;
        // (view, fresh afterwards): the first trusting call compiles the
        // contents; from then on the index answers both.
        let steps = [
            (&untrusted, false),
            (&untrusted, true),
            (&trusting, false),
            (&trusting, true),
            (&untrusted, true),
        ];
        for (i, (view, fresh)) in steps.into_iter().enumerate() {
            let got = state(view);
            assert_eq!(got.is_fresh(), fresh, "step {i}: {got:?}");
            if i == 2 {
                assert!(got.describe().contains("trusted now"), "{got:?}");
            }
        }
    }

    #[test]
    fn a_reader_error_that_is_not_damage_does_not_recompile() {
        let dir = tempfile::tempdir().unwrap();
        let view = view(dir.path());
        let (_, state) = load(&view, Verify::Full);
        assert!(matches!(state, IndexState::Recompiled { .. }), "{state:?}");
        let written = std::fs::metadata(view.index_path())
            .unwrap()
            .modified()
            .unwrap();
        let calls = Cell::new(0);
        let result: Result<(), Error> = with_index(&view, Verify::Lazy, |_| {
            calls.set(calls.get() + 1);
            Err(hookdex_index::Error::from(std::io::Error::other(
                "the reader's own failure",
            )))
        });
        assert!(result.is_err());
        assert_eq!(calls.get(), 1, "read once, not again after a recompile");
        let now = std::fs::metadata(view.index_path())
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(written, now, "the index on disk was not rewritten");
    }

    #[test]
    fn a_view_whose_paths_are_not_utf8_finds_its_own_index_fresh() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
        std::fs::create_dir_all(&root).unwrap();
        let view = view(&root);
        let (_, first) = load(&view, Verify::Lazy);
        assert!(matches!(first, IndexState::Recompiled { .. }), "{first:?}");
        let (_, second) = load(&view, Verify::Lazy);
        assert!(second.is_fresh(), "{second:?}");
    }

    #[test]
    fn damage_found_by_the_reader_recompiles_once() {
        let dir = tempfile::tempdir().unwrap();
        let view = view(dir.path());
        load(&view, Verify::Full);
        let calls = Cell::new(0);
        let answer = with_index(&view, Verify::Lazy, |_| {
            calls.set(calls.get() + 1);
            if calls.get() == 1 {
                // What a reader meets in a damaged block: a corrupt-index error.
                Index::parse(b"garbage, not an index").map(|_| 0)
            } else {
                Ok(7)
            }
        });
        assert_eq!(answer.unwrap(), 7);
        assert_eq!(calls.get(), 2, "read, recompile, read again");
    }
}
