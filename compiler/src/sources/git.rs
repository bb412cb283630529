//! Reads a repository's `origin` remote (and, for trust, every remote and
//! the URL it was cloned from: [`evidence`]) from its git config, without
//! running git: `.git` directories and worktree `.git` files (`gitdir:` + `commondir`),
//! the config parsed by `gix-config` with its `[include]` and `[includeIf]`
//! files followed (`gitdir:`, `gitdir/i:`, `onbranch:` against `HEAD`,
//! `hasconfig:remote.*.url:`), and `url.<base>.insteadOf` of the user's global config and
//! the repository's applied, as git does. The URL's owner comes from
//! [`super::owner::owner_of`].
//!
//! Anything that cannot be read or understood makes the origin
//! [`Remote::Unknown`], which is never trusted; only a readable config
//! without a `[remote "origin"]` section is [`Remote::Absent`] (a missing
//! config file reads as empty, as git reads it; a missing include is skipped,
//! as git skips it).

use std::fmt;
use std::path::{Path, PathBuf};

use gix_config::file::includes::{self, conditional};
use gix_config::file::init::Options;
use gix_config::file::Metadata;
use gix_config::path::interpolate;
use gix_config::{File, Source};
use hookdex_index::Stamp;
use hookdex_model::Seen;

use super::confine;
use super::owner::{owner_of, UrlError};

/// What a repository's `origin` is, for trust.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remote {
    /// The config has no `[remote "origin"]`.
    Absent,
    /// `origin`'s owner: forge host and namespace path, lowercased (`github.com/acme`).
    Owner(String),
    /// `origin` could not be read or has no forge owner.
    Unknown(OriginError),
}

/// Why a repository's `origin` is unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OriginError {
    /// A worktree's `.git` file cannot be read, has no `gitdir:` line, or
    /// names no directory.
    GitFile(PathBuf),
    /// A config file (or a file it includes) cannot be read or parsed.
    Config {
        /// The file.
        path: PathBuf,
        /// What the reader or parser said.
        reason: String,
    },
    /// `[remote "origin"]` has no `url`.
    NoUrl,
    /// `origin`'s URL (after `insteadOf`) has no forge owner.
    Url {
        /// The URL.
        url: String,
        /// Why it has no owner.
        kind: UrlError,
    },
}

impl fmt::Display for OriginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OriginError::GitFile(path) => write!(
                f,
                "`{}` has no `gitdir:` line naming a directory",
                path.display()
            ),
            OriginError::Config { path, reason } => {
                write!(f, "git config `{}` unreadable: {reason}", path.display())
            }
            OriginError::NoUrl => write!(f, "remote `origin` has no url"),
            OriginError::Url { url, kind } => write!(f, "origin url `{url}`: {kind}"),
        }
    }
}

impl std::error::Error for OriginError {}

/// The user's side of git configuration: their home (for `~` in include
/// paths) and global config files, in the order git reads them
/// (`$XDG_CONFIG_HOME/git/config`, then `~/.gitconfig`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitUser {
    /// `$HOME`, if set.
    pub home: Option<PathBuf>,
    /// The global config files, present or not.
    pub globals: Vec<PathBuf>,
}

/// What the trust decision of one repository rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The `origin` remote.
    pub remote: Remote,
    /// Files read (or looked for) to decide it, with their stamps, to be
    /// recorded for freshness: the `.git` file, `commondir`, the config, the
    /// global configs and every include path named.
    pub read: Vec<(PathBuf, Stamp)>,
}

/// The `origin` remote of the repository rooted at `root`, with `user`'s
/// global configuration.
pub fn origin(root: &Path, user: &GitUser) -> Origin {
    let mut read = Vec::new();
    let remote = match remote(root, user, &mut read) {
        Ok(remote) => remote,
        Err(e) => Remote::Unknown(e),
    };
    Origin { remote, read }
}

fn record(read: &mut Vec<(PathBuf, Stamp)>, path: &Path) {
    if !read.iter().any(|(p, _)| p == path) {
        read.push((path.to_path_buf(), Stamp::of(path)));
    }
}

fn remote(
    root: &Path,
    user: &GitUser,
    read: &mut Vec<(PathBuf, Stamp)>,
) -> Result<Remote, OriginError> {
    let config = configs(root, user, read)?;
    let Some(url) = origin_url(&config.files)? else {
        return Ok(Remote::Absent);
    };
    Ok(owner_after_rewrite(&config.files, url))
}

/// The owner of `url` once `insteadOf` rewrites it.
fn owner_after_rewrite(files: &[File], url: String) -> Remote {
    let url = rewrite(files, &url);
    match owner_of(&url) {
        Ok(owner) => Remote::Owner(owner),
        Err(kind) => Remote::Unknown(OriginError::Url { url, kind }),
    }
}

/// Where a repository says its code comes from, for trust: each remote
/// (`origin` first) and the URL it was cloned from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// What was seen and where: `Seen::Origin` for `origin`, or for the
    /// whole configuration when it cannot be read.
    pub sightings: Vec<(Seen, Remote)>,
    /// Files read to decide it, with their stamps (as [`Origin::read`]).
    pub read: Vec<(PathBuf, Stamp)>,
    /// The git directory (a worktree's own, under the main one's
    /// `worktrees/`), when its configuration could be read.
    pub git_dir: Option<PathBuf>,
    /// The common git directory (the main repository's for a worktree).
    pub common: Option<PathBuf>,
}

/// Every remote of the repository rooted at `root` (a renamed `origin` is
/// still a stranger), and the clone source from the first line of
/// `logs/HEAD` (`clone: from <url>`), which git writes when it clones and
/// nothing rewrites but the reflog's expiry. `logs/HEAD` moves on every
/// commit, so it is not recorded for freshness: it is read when something
/// else made the index stale, and trust seen is kept by the trust store.
/// A configuration that cannot be read is one unknown `origin`; no remote
/// and no clone source is one absent `origin`.
pub fn evidence(root: &Path, user: &GitUser) -> Evidence {
    let mut read = Vec::new();
    let mut sightings = Vec::new();
    let (mut git_dir, mut common) = (None, None);
    match configs(root, user, &mut read) {
        Err(e) => sightings.push((Seen::Origin, Remote::Unknown(e))),
        Ok(config) => {
            for (name, url) in remote_urls(&config.files) {
                let remote = match url {
                    Some(url) => owner_after_rewrite(&config.files, url),
                    None => Remote::Unknown(OriginError::NoUrl),
                };
                let seen = match name == "origin" {
                    true => Seen::Origin,
                    false => Seen::Remote(name),
                };
                sightings.push((seen, remote));
            }
            if let Some(url) = clone_source(&config.common) {
                sightings.push((Seen::Clone, owner_after_rewrite(&config.files, url)));
            }
            git_dir = Some(config.git_dir);
            common = Some(config.common);
        }
    }
    // `origin` first: it names the repository in messages.
    sightings.sort_by_key(|(seen, _)| *seen != Seen::Origin);
    if sightings.is_empty() {
        sightings.push((Seen::Origin, Remote::Absent));
    }
    Evidence {
        sightings,
        read,
        git_dir,
        common,
    }
}

/// The URL of `clone: from <url>` on the first line of `<common>/logs/HEAD`.
fn clone_source(common: &Path) -> Option<String> {
    use std::io::Read;
    let file = confine::open_regular(&common.join("logs").join("HEAD")).ok()?;
    let mut head = Vec::new();
    file.take(CLONE_LINE_LIMIT).read_to_end(&mut head).ok()?;
    let head = String::from_utf8_lossy(&head);
    let first = head.lines().next()?;
    let (_, message) = first.split_once('\t')?;
    Some(message.strip_prefix("clone: from ")?.trim().to_string())
}

/// The most bytes of `logs/HEAD` read for its first line.
const CLONE_LINE_LIMIT: u64 = 8 << 10;

/// The configuration files of a repository, in the order git reads them.
struct Configs {
    files: Vec<File>,
    /// The common git directory (a worktree's main `.git`).
    common: PathBuf,
    /// The repository's own git directory.
    git_dir: PathBuf,
}

fn configs(
    root: &Path,
    user: &GitUser,
    read: &mut Vec<(PathBuf, Stamp)>,
) -> Result<Configs, OriginError> {
    let dot_git = root.join(".git");
    // A `.git` directory's own mtime moves on every git command, so only a
    // worktree's `.git` file is recorded.
    let git_dir = if dot_git.is_file() {
        record(read, &dot_git);
        let dir = read_text(&dot_git).and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("gitdir:").map(|d| d.trim().to_string()))
        });
        // A `gitdir:` that leads nowhere is no repository to git: unknown,
        // not "no origin".
        match dir.filter(|d| !d.is_empty()).map(|d| root.join(d)) {
            Some(dir) if dir.is_dir() => dir,
            _ => return Err(OriginError::GitFile(dot_git)),
        }
    } else {
        dot_git
    };
    let commondir = git_dir.join("commondir");
    let common = match read_text(&commondir) {
        Some(rel) => {
            record(read, &commondir);
            git_dir.join(rel.trim())
        }
        None => git_dir.clone(),
    };
    let head = git_dir.join("HEAD");
    let branch = read_text(&head).and_then(|text| {
        let name = text.strip_prefix("ref:")?.trim();
        gix_ref::FullName::try_from(name).ok()
    });
    let at = Place {
        git_dir: &git_dir,
        branch: branch.as_ref().map(|b| b.as_ref()),
    };
    let mut files = Vec::new();
    for global in &user.globals {
        record(read, global);
        files.extend(load(global, Source::User, at, user, read)?);
    }
    let config = common.join("config");
    record(read, &config);
    files.extend(load(&config, Source::Local, at, user, read)?);
    // `HEAD` moves on every checkout: recorded only when a branch decides
    // an include.
    let on_branch = files.iter().flat_map(File::sections).any(|section| {
        let header = section.header();
        header.name().eq_ignore_ascii_case(b"includeIf")
            && header
                .subsection_name()
                .is_some_and(|c| c.starts_with(b"onbranch:"))
    });
    if on_branch {
        record(read, &head);
    }
    Ok(Configs {
        files,
        common,
        git_dir,
    })
}

/// What conditional includes are matched against: the git directory and
/// the branch `HEAD` names.
#[derive(Clone, Copy)]
struct Place<'a> {
    git_dir: &'a Path,
    branch: Option<&'a gix_ref::FullNameRef>,
}

/// One config file with its includes, or `None` when it does not exist. The
/// include paths it names are recorded whether they exist or not.
fn load(
    path: &Path,
    source: Source,
    at: Place<'_>,
    user: &GitUser,
    read: &mut Vec<(PathBuf, Stamp)>,
) -> Result<Option<File>, OriginError> {
    let unreadable = |path: &Path, reason: String| OriginError::Config {
        path: path.to_path_buf(),
        reason,
    };
    let mut bytes = match confine::read_regular(path, CONFIG_LIMIT) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(path, e.to_string())),
    };
    let interpolate = interpolate::Context {
        git_install_dir: None,
        home_dir: user.home.as_deref(),
        home_for_user: None,
    };
    // The parser opens included files itself, with a blocking open: each is
    // checked first to be a regular file, so a FIFO there cannot hang it.
    refuse_special_includes(&bytes, path, interpolate, 0)?;
    let options = Options {
        includes: includes::Options::follow(
            interpolate,
            conditional::Context {
                git_dir: Some(at.git_dir),
                branch_name: at.branch,
            },
        )
        .strict(),
        lossy: true,
        ignore_io_errors: false,
    };
    let file = File::from_bytes_owned(&mut bytes, Metadata::from(source).at(path), options)
        .map_err(|e| unreadable(path, e.to_string()))?;
    for section in file.sections() {
        if let Some(from) = &section.meta().path {
            record(read, from);
        }
        let name = section.header().name();
        if !(name.eq_ignore_ascii_case(b"include") || name.eq_ignore_ascii_case(b"includeIf")) {
            continue;
        }
        let from = section.meta().path.as_deref().unwrap_or(path);
        for value in section.values("path") {
            let named = gix_config::Path::from(std::borrow::Cow::Owned(value));
            if let Ok(named) = named.interpolate(interpolate) {
                let dir = from.parent().unwrap_or(Path::new("/"));
                record(read, &dir.join(named));
            }
        }
    }
    Ok(Some(file))
}

/// The most bytes read of one git file: far past any real config.
const CONFIG_LIMIT: u64 = 1 << 20;

/// The deepest include chain followed, as git's own limit.
const INCLUDE_DEPTH: u32 = 10;

/// A small git file (`.git`, `commondir`, `HEAD`) as text, when it is a
/// regular file: read without blocking, so a FIFO there reads as absent.
fn read_text(path: &Path) -> Option<String> {
    let bytes = confine::read_regular(path, CONFIG_LIMIT).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Fails when a file the config at `path` includes, directly or through
/// other includes (every condition taken as met), exists and is not a
/// regular file of at most [`CONFIG_LIMIT`] bytes.
fn refuse_special_includes(
    bytes: &[u8],
    path: &Path,
    interpolate: interpolate::Context<'_>,
    depth: u32,
) -> Result<(), OriginError> {
    if depth >= INCLUDE_DEPTH {
        return Ok(());
    }
    let options = Options {
        includes: includes::Options::no_follow(),
        lossy: true,
        ignore_io_errors: false,
    };
    let unreadable = |path: &Path, reason: String| OriginError::Config {
        path: path.to_path_buf(),
        reason,
    };
    let file = File::from_bytes_no_includes(bytes, Metadata::from(Source::Local).at(path), options)
        .map_err(|e| unreadable(path, e.to_string()))?;
    let dir = path.parent().unwrap_or(Path::new("/"));
    for section in file.sections() {
        let name = section.header().name();
        if !(name.eq_ignore_ascii_case(b"include") || name.eq_ignore_ascii_case(b"includeIf")) {
            continue;
        }
        for value in section.values("path") {
            let named = gix_config::Path::from(std::borrow::Cow::Owned(value));
            let Ok(named) = named.interpolate(interpolate) else {
                continue;
            };
            let included = dir.join(named);
            match confine::read_regular(&included, CONFIG_LIMIT) {
                Ok(inner) => refuse_special_includes(&inner, &included, interpolate, depth + 1)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(unreadable(&included, e.to_string())),
            }
        }
    }
    Ok(())
}

/// The URL git fetches `origin` from: the first `remote.origin.url` over
/// every file in reading order, an empty value clearing the ones before it.
/// `None` when no file has a `[remote "origin"]` section.
fn origin_url(files: &[File]) -> Result<Option<String>, OriginError> {
    match remote_urls(files)
        .into_iter()
        .find(|(name, _)| name == "origin")
    {
        Some((_, Some(url))) => Ok(Some(url)),
        Some((_, None)) => Err(OriginError::NoUrl),
        None => Ok(None),
    }
}

/// Every remote named in `files`, in the order first met, with the URL git
/// fetches it from (the first `url` over every file in reading order, an
/// empty value clearing the ones before it), `None` when it has none.
/// The legacy `[remote.NAME]` spelling is lowercased, as git does.
fn remote_urls(files: &[File]) -> Vec<(String, Option<String>)> {
    let mut remotes: Vec<(String, Vec<String>)> = Vec::new();
    for file in files {
        for section in file.sections() {
            let header = section.header();
            if !header.name().eq_ignore_ascii_case(b"remote") {
                continue;
            }
            let Some(name) = header.subsection_name() else {
                continue;
            };
            let mut name = String::from_utf8_lossy(name).into_owned();
            if header.is_legacy() {
                name = name.to_ascii_lowercase();
            }
            let at = match remotes.iter().position(|(n, _)| *n == name) {
                Some(at) => at,
                None => {
                    remotes.push((name, Vec::new()));
                    remotes.len() - 1
                }
            };
            let urls = &mut remotes[at].1;
            for url in section.values("url") {
                if url.is_empty() {
                    urls.clear();
                } else {
                    urls.push(String::from_utf8_lossy(&url).into_owned());
                }
            }
        }
    }
    remotes
        .into_iter()
        .map(|(name, urls)| (name, urls.into_iter().next()))
        .collect()
}

/// `url` after the longest matching `url.<base>.insteadOf` prefix (the
/// first one read among equals) is replaced by its base.
fn rewrite(files: &[File], url: &str) -> String {
    let mut best: Option<(usize, String)> = None;
    for file in files {
        for section in file.sections() {
            let header = section.header();
            let (true, Some(base)) = (
                header.name().eq_ignore_ascii_case(b"url"),
                header.subsection_name(),
            ) else {
                continue;
            };
            for prefix in section.values("insteadOf") {
                let prefix = String::from_utf8_lossy(&prefix);
                let longer = best.as_ref().is_none_or(|(len, _)| prefix.len() > *len);
                if url.starts_with(prefix.as_ref()) && longer {
                    let new = format!("{}{}", base, &url[prefix.len()..]);
                    best = Some((prefix.len(), new));
                }
            }
        }
    }
    best.map_or_else(|| url.to_string(), |(_, new)| new)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(remote: &Remote) -> Option<&str> {
        match remote {
            Remote::Owner(o) => Some(o),
            _ => None,
        }
    }

    fn repo_with(config: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(repo.join(".git/config"), config).unwrap();
        (dir, repo)
    }

    #[test]
    fn configs_as_git_reads_them() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "[remote \"origin\"]\n\turl = https://h/Me/r.git\n",
                Some("h/me"),
            ),
            (
                "\u{feff}[remote \"origin\"]\nurl = git@h:a/r\n",
                Some("h/a"),
            ),
            (
                "# c\n; c\n[Remote \"origin\"] # c\n\tURL = \"git@h:a/r\" ; c\n",
                Some("h/a"),
            ),
            (
                "[remote \"origin\"]\nurl = git@h:first/r\nurl = git@h:second/r\n",
                Some("h/first"),
            ),
            (
                "[remote \"origin\"]\nurl = git@h:a/r\nurl =\nurl = git@h:b/r\n",
                Some("h/b"),
            ),
            (
                "[remote \"origin\"]\npushurl = git@h:mine/r\nurl = git@h:theirs/r\n",
                Some("h/theirs"),
            ),
            (
                "[remote \"upstream\"]\nurl = git@h:up/r\n[remote \"origin\"]\nurl = git@h:o/r\n",
                Some("h/o"),
            ),
            ("[remote.ORIGIN]\nurl = git@h:legacy/r\n", Some("h/legacy")),
            ("[remote \"Origin\"]\nurl = git@h:other/r\n", None),
            (
                "[url \"https://h/acme/\"]\ninsteadOf = gh:\n[remote \"origin\"]\nurl = gh:r\n",
                Some("h/acme"),
            ),
        ];
        for (config, want) in cases {
            let (_dir, repo) = repo_with(config);
            let got = origin(&repo, &GitUser::default());
            assert_eq!(owner(&got.remote), *want, "{config:?}: {:?}", got.remote);
        }
    }

    fn mkfifo(path: &Path) -> bool {
        let made = std::process::Command::new("mkfifo").arg(path).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return false;
        }
        true
    }

    #[test]
    fn a_fifo_among_the_git_files_is_unknown_not_a_hang() {
        // Each read below would block on a plain open until a writer came.
        let (dir, repo) = repo_with("[include]\n\tpath = ../inc\n");
        let inc = repo.join("inc");
        std::fs::write(&inc, "[include]\n\tpath = deeper\n").unwrap();
        if !mkfifo(&repo.join("deeper")) {
            return;
        }
        let got = origin(&repo, &GitUser::default());
        assert!(matches!(got.remote, Remote::Unknown(_)), "{:?}", got.remote);
        let config = repo.join(".git/config");
        std::fs::remove_file(&config).unwrap();
        assert!(mkfifo(&config));
        let got = origin(&repo, &GitUser::default());
        assert!(matches!(got.remote, Remote::Unknown(_)), "{:?}", got.remote);
        drop(dir);
    }

    #[test]
    fn unknown_origins() {
        let cases = [
            "[remote \"origin\"\nurl = x\n",
            "[remote \"origin\"]\nfetch = +refs/heads/*:refs/remotes/origin/*\n",
            "[remote \"origin\"]\nurl = /srv/r.git\n",
            "[remote \"origin\"]\nurl = file:///srv/a/r.git\n",
            "[remote \"origin\"]\n\turl = https://h/a/r\n[remote \"origin\"]\nurl =\n",
        ];
        for config in cases {
            let (_dir, repo) = repo_with(config);
            let got = origin(&repo, &GitUser::default());
            assert!(
                matches!(got.remote, Remote::Unknown(_)),
                "{config:?}: {:?}",
                got.remote
            );
        }
        let (_dir, repo) = repo_with("[core]\n\tbare = false\n");
        assert_eq!(origin(&repo, &GitUser::default()).remote, Remote::Absent);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        assert_eq!(
            origin(dir.path(), &GitUser::default()).remote,
            Remote::Absent
        );
        std::fs::remove_dir(dir.path().join(".git")).unwrap();
        for text in ["nothing here\n", "gitdir: nowhere\n", "gitdir:\n"] {
            std::fs::write(dir.path().join(".git"), text).unwrap();
            assert!(
                matches!(
                    origin(dir.path(), &GitUser::default()).remote,
                    Remote::Unknown(OriginError::GitFile(_))
                ),
                "{text:?}"
            );
        }
    }

    #[test]
    fn includes_and_global_rewrites_are_followed_and_recorded() {
        let (dir, repo) = repo_with(
            "[include]\n\tpath = ../extra.inc\n\tpath = missing.inc\n[includeIf \"gitdir:~/nowhere/\"]\n\tpath = ~/never.inc\n",
        );
        std::fs::write(
            repo.join("extra.inc"),
            "[remote \"origin\"]\n\turl = work:r.git\n",
        )
        .unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".config/git")).unwrap();
        std::fs::write(
            home.join(".gitconfig"),
            "[url \"git@github.com:acme/\"]\n\tinsteadOf = work:\n",
        )
        .unwrap();
        let user = GitUser {
            home: Some(home.clone()),
            globals: vec![home.join(".config/git/config"), home.join(".gitconfig")],
        };
        let got = origin(&repo, &user);
        assert_eq!(owner(&got.remote), Some("github.com/acme"));
        let read: Vec<&Path> = got.read.iter().map(|(p, _)| p.as_path()).collect();
        for want in [
            home.join(".config/git/config"),
            home.join(".gitconfig"),
            repo.join(".git/config"),
            repo.join(".git/../extra.inc"),
            repo.join(".git/missing.inc"),
            home.join("never.inc"),
        ] {
            assert!(read.contains(&want.as_path()), "{want:?} not in {read:?}");
        }
    }

    #[test]
    fn evidence_is_every_remote_and_the_clone_source() {
        let owners = |e: &Evidence| -> Vec<(Seen, Option<String>)> {
            e.sightings
                .iter()
                .map(|(seen, remote)| (seen.clone(), owner(remote).map(String::from)))
                .collect()
        };
        let (_dir, repo) = repo_with(
            "[remote \"up\"]\nurl = git@h:up/r\n[remote.FORK]\nurl = git@h:fork/r\n[remote \"origin\"]\nurl = git@h:o/r\n",
        );
        std::fs::create_dir_all(repo.join(".git/logs")).unwrap();
        std::fs::write(
            repo.join(".git/logs/HEAD"),
            "0000 1111 A <a@b> 1 +0000\tclone: from https://h/cloned/r.git\n2 3 A <a@b> 2 +0000\tclone: from https://h/later/r\n",
        )
        .unwrap();
        let got = evidence(&repo, &GitUser::default());
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            owners(&got),
            [
                (Seen::Origin, some("h/o")),
                (Seen::Remote("up".into()), some("h/up")),
                (Seen::Remote("fork".into()), some("h/fork")),
                (Seen::Clone, some("h/cloned")),
            ]
        );
        // Not a clone: nothing but the absent origin.
        let (_dir, repo) = repo_with("[core]\n");
        std::fs::create_dir_all(repo.join(".git/logs")).unwrap();
        std::fs::write(
            repo.join(".git/logs/HEAD"),
            "0 1 A <a@b> 1 +0000\tcommit (initial): x\n",
        )
        .unwrap();
        let got = evidence(&repo, &GitUser::default());
        assert_eq!(got.sightings, [(Seen::Origin, Remote::Absent)]);
        // A remote without a url is unknown, whatever its name.
        let (_dir, repo) = repo_with("[remote \"up\"]\nfetch = x\n");
        let got = evidence(&repo, &GitUser::default());
        assert!(
            matches!(
                got.sightings[..],
                [(Seen::Remote(_), Remote::Unknown(OriginError::NoUrl))]
            ),
            "{got:?}"
        );
    }

    #[test]
    fn worktree_files_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::write(
            main.join(".git/config"),
            "[remote \"origin\"]\n url = git@h:acme/r.git\n",
        )
        .unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        let wt = dir.path().join("wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()),
        )
        .unwrap();
        let user = GitUser::default();
        assert_eq!(owner(&origin(&wt, &user).remote), Some("h/acme"));
        assert_eq!(owner(&origin(&main, &user).remote), Some("h/acme"));
    }
}
