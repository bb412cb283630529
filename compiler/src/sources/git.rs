//! Reads a repository's `origin` owner from its git config, without running
//! git: `.git` directories, worktree `.git` files (`gitdir:` + `commondir`),
//! and https, ssh and scp-style remote URLs.

use std::path::{Path, PathBuf};

use hookdex_index::Stamp;

/// What the trust decision of one repository rests on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The owner of `origin` (second-to-last path part of its URL, lowercased),
    /// or `None` when there is no `origin` remote.
    pub owner: Option<String>,
    /// Files read to decide it, stamped before reading, to be recorded for freshness.
    pub read: Vec<(PathBuf, Stamp)>,
}

/// The `origin` owner of the repository rooted at `root`.
pub fn origin(root: &Path) -> Origin {
    let dot_git = root.join(".git");
    let mut read = Vec::new();
    // A `.git` directory's own mtime moves on every git command, so only a
    // worktree's `.git` file is recorded.
    let git_dir = if dot_git.is_file() {
        read.push((dot_git.clone(), Stamp::of(&dot_git)));
        match std::fs::read_to_string(&dot_git).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("gitdir:").map(|d| d.trim().to_string()))
        }) {
            Some(dir) => root.join(dir),
            None => return Origin { owner: None, read },
        }
    } else {
        dot_git
    };
    let commondir = git_dir.join("commondir");
    let commondir_stamp = Stamp::of(&commondir);
    let common = match std::fs::read_to_string(&commondir) {
        Ok(rel) => {
            read.push((commondir, commondir_stamp));
            git_dir.join(rel.trim())
        }
        Err(_) => git_dir,
    };
    let config = common.join("config");
    read.push((config.clone(), Stamp::of(&config)));
    let owner = std::fs::read_to_string(&config)
        .ok()
        .and_then(|text| origin_url(&text))
        .map(|url| owner_of(&url));
    Origin { owner, read }
}

/// The `url` of `[remote "origin"]` in a git config file.
fn origin_url(config: &str) -> Option<String> {
    let mut in_origin = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let header: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            in_origin = header.to_ascii_lowercase().starts_with("[remote\"")
                && header.contains("\"origin\"");
            continue;
        }
        if !in_origin {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            if key.trim().eq_ignore_ascii_case("url") {
                return Some(value.trim().trim_matches('"').to_string());
            }
        }
    }
    None
}

/// The second-to-last path part of a remote URL, lowercased
/// (`git@host:acme/repo.git`, `https://host/acme/repo`, `ssh://git@host:22/acme/repo`).
pub fn owner_of(url: &str) -> String {
    let parts: Vec<&str> = url
        .trim_end_matches('/')
        .split(['/', ':'])
        .filter(|p| !p.is_empty())
        .collect();
    let owner = if parts.len() >= 2 {
        parts[parts.len() - 2]
    } else {
        url
    };
    owner.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_from_urls() {
        let cases = [
            ("https://github.com/Acme/repo.git", "acme"),
            ("https://github.com/acme/repo/", "acme"),
            ("git@github.com:acme/repo.git", "acme"),
            ("ssh://git@github.com/acme/repo.git", "acme"),
            ("ssh://git@host:2222/acme/repo", "acme"),
            ("https://gitlab.com/group/sub/repo.git", "sub"),
            ("https://user:token@github.com/acme/repo.git", "acme"),
        ];
        for (url, want) in cases {
            assert_eq!(owner_of(url), want, "{url}");
        }
    }

    #[test]
    fn origin_section_is_found() {
        let config = "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@h:up/r.git\n[remote \"origin\"]\n\turl = https://h/Me/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n";
        assert_eq!(origin_url(config).as_deref(), Some("https://h/Me/r.git"));
        assert_eq!(origin_url("[remote \"upstream\"]\nurl = x\n"), None);
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
        assert_eq!(origin(&wt).owner.as_deref(), Some("acme"));
        assert_eq!(origin(&main).owner.as_deref(), Some("acme"));
        let bare = dir.path().join("bare");
        std::fs::create_dir_all(bare.join(".git")).unwrap();
        assert_eq!(origin(&bare).owner, None);
    }
}
