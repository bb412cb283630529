//! The owner of a git remote URL: the forge host plus the full namespace path
//! (`gitlab.com/acme/sub` for `git@gitlab.com:acme/sub/repo.git`), after the
//! URL is normalized as git and curl would fetch it. A URL of any other shape
//! (a file path, `file://`, garbage) has no owner, and so is never trusted.

use std::fmt;

/// Why a remote URL has no forge owner.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlError {
    /// The URL is empty.
    Empty,
    /// The scheme is not one git fetches from a forge with (`file`, `ext`, …).
    Scheme(String),
    /// A local path or a bundle, not a forge URL.
    Local,
    /// The host is empty or holds characters no host name has.
    Host,
    /// The path has no namespace before the repository name, climbs above
    /// the root with `..`, or decodes to something no forge path holds.
    Path,
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::Empty => write!(f, "the url is empty"),
            UrlError::Scheme(s) => write!(f, "scheme `{s}` is not a forge's"),
            UrlError::Local => write!(f, "a local path, not a forge url"),
            UrlError::Host => write!(f, "no valid host"),
            UrlError::Path => write!(f, "no owner in the path"),
        }
    }
}

impl std::error::Error for UrlError {}

/// The owner of `url`, lowercased: `host/namespace/…` without the repository
/// name. Accepts `https`, `http`, `ssh`, `git`, `git+ssh` and `ssh+git`
/// URLs and scp-style `[user@]host:path`; drops user info, port, query,
/// fragment, a trailing `.git` and `/`, a trailing dot of the host;
/// percent-decodes the path and resolves its `.` and `..` segments.
///
/// # Errors
///
/// [`UrlError`] when the URL is not of a forge: a local path, `file://`, a
/// URL without a host or without a namespace above the repository.
pub fn owner_of(url: &str) -> Result<String, UrlError> {
    let url = url.trim();
    if url.is_empty() {
        return Err(UrlError::Empty);
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UrlError::Host);
    }
    let (authority, path) = if let Some((scheme, rest)) = url.split_once("://") {
        let scheme = scheme.to_ascii_lowercase();
        if !matches!(
            scheme.as_str(),
            "https" | "http" | "ssh" | "git" | "git+ssh" | "ssh+git"
        ) {
            return Err(UrlError::Scheme(scheme));
        }
        let rest = strip_query(rest);
        match rest.find('/') {
            Some(at) => (host_of(&rest[..at], true)?, &rest[at..]),
            None => (host_of(rest, true)?, ""),
        }
    } else {
        // git's rule: scp-style when a colon comes before any slash.
        match url.find(':') {
            Some(colon) if !url[..colon].contains('/') => (
                host_of(&url[..colon], false)?,
                strip_query(&url[colon + 1..]),
            ),
            _ => return Err(UrlError::Local),
        }
    };
    let mut segments: Vec<String> = Vec::new();
    for raw in path.split('/') {
        let segment = percent_decode(raw).ok_or(UrlError::Path)?;
        match segment.as_str() {
            "" | "." => {}
            ".." => {
                segments.pop().ok_or(UrlError::Path)?;
            }
            _ if plausible(&segment) => segments.push(segment),
            _ => return Err(UrlError::Path),
        }
    }
    if segments.len() < 2 {
        return Err(UrlError::Path);
    }
    segments.pop();
    let mut owner = authority;
    for segment in segments {
        owner.push('/');
        owner.push_str(&segment.to_lowercase());
    }
    Ok(owner)
}

/// `rest` without its `?query` and `#fragment`.
fn strip_query(rest: &str) -> &str {
    rest.find(['?', '#']).map_or(rest, |at| &rest[..at])
}

/// The lowercased host of an authority (`user:pw@host:port`); a port is
/// allowed only in a URL (`with_port`), since scp-style has none.
fn host_of(authority: &str, with_port: bool) -> Result<String, UrlError> {
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        let (inner, after) = v6.split_once(']').ok_or(UrlError::Host)?;
        if !(after.is_empty() || with_port && is_port(after)) {
            return Err(UrlError::Host);
        }
        if inner.is_empty() || !inner.chars().all(|c| c.is_ascii_hexdigit() || c == ':') {
            return Err(UrlError::Host);
        }
        return Ok(format!("[{}]", inner.to_ascii_lowercase()));
    } else {
        match host_port.split_once(':') {
            Some((host, port)) if with_port && is_port(&format!(":{port}")) => host,
            Some(_) => return Err(UrlError::Host),
            None => host_port,
        }
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    let valid = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        && !host.starts_with(['.', '-'])
        && !host.contains("..");
    if valid {
        Ok(host.to_ascii_lowercase())
    } else {
        Err(UrlError::Host)
    }
}

/// `:` followed by digits only (or nothing, as URLs allow).
fn is_port(text: &str) -> bool {
    text.strip_prefix(':')
        .is_some_and(|p| p.chars().all(|c| c.is_ascii_digit()))
}

/// A path segment with `%XX` decoded; `None` when the escape is broken or
/// decodes to a slash, a backslash, a control character or invalid UTF-8.
fn percent_decode(segment: &str) -> Option<String> {
    if !segment.contains('%') {
        return (!segment.contains('\\')).then(|| segment.to_string());
    }
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = segment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let text = String::from_utf8(out).ok()?;
    (!text.contains(['/', '\\']) && !text.chars().any(char::is_control)).then_some(text)
}

/// Whether a decoded segment could name a forge namespace: no `:`, `@`,
/// `[` or `]`, which no forge allows in a name and which only show up when
/// a URL was mistaken for another shape (`git@host:22:acme/r`).
fn plausible(segment: &str) -> bool {
    !segment.contains([':', '@', '[', ']'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_of_forge_urls() {
        let cases = [
            ("https://github.com/acme/repo.git", "github.com/acme"),
            ("https://github.com/Acme/Repo", "github.com/acme"),
            ("https://GitHub.COM/acme/repo/", "github.com/acme"),
            ("http://github.com/acme/repo", "github.com/acme"),
            ("HTTPS://github.com/acme/repo", "github.com/acme"),
            ("https://user:tok@github.com/acme/r.git", "github.com/acme"),
            ("https://user:p@ss@github.com/acme/r.git", "github.com/acme"),
            ("https://github.com:8443/acme/r", "github.com/acme"),
            ("https://github.com:/acme/r", "github.com/acme"),
            ("https://github.com./acme/r", "github.com/acme"),
            (
                "https://github.com/acme/../stranger/r.git",
                "github.com/stranger",
            ),
            ("https://github.com/acme/./r.git", "github.com/acme"),
            ("https://github.com/acme/x/../r.git", "github.com/acme"),
            ("https://github.com//acme//r.git//", "github.com/acme"),
            ("https://github.com/acme/r.git?ref=x", "github.com/acme"),
            ("https://github.com/acme/r.git#frag", "github.com/acme"),
            (
                "https://github.com/stranger/r?/acme/x",
                "github.com/stranger",
            ),
            ("https://github.com/%61cme/r", "github.com/acme"),
            (
                "https://github.com/acme/%2e%2e/stranger/r",
                "github.com/stranger",
            ),
            ("https://gitlab.com/acme/sub/repo", "gitlab.com/acme/sub"),
            (
                "https://gitlab.com/acme/sub/deep/repo.git",
                "gitlab.com/acme/sub/deep",
            ),
            ("ssh://git@github.com/acme/r.git", "github.com/acme"),
            ("ssh://git@host:2222/a/b.git", "host/a"),
            ("ssh://git@[::1]:22/a/b.git", "[::1]/a"),
            ("git+ssh://git@github.com/acme/r", "github.com/acme"),
            ("ssh+git://github.com/acme/r", "github.com/acme"),
            ("git://github.com/acme/r.git", "github.com/acme"),
            ("git@github.com:acme/r.git", "github.com/acme"),
            ("git@github.com:Acme/r", "github.com/acme"),
            ("github.com:acme/r.git", "github.com/acme"),
            ("git@github.com:/acme/r.git", "github.com/acme"),
            ("git@gitlab.com:group/sub/repo.git", "gitlab.com/group/sub"),
            (
                "git@github.com:acme/../stranger/r.git",
                "github.com/stranger",
            ),
            ("  https://github.com/acme/r.git\n", "github.com/acme"),
            ("https://github.com/acme/r.git.git", "github.com/acme"),
        ];
        for (url, want) in cases {
            assert_eq!(owner_of(url).as_deref(), Ok(want), "{url}");
        }
    }

    #[test]
    fn urls_without_a_forge_owner() {
        let cases = [
            ("", UrlError::Empty),
            ("   ", UrlError::Empty),
            ("/srv/git/acme/r.git", UrlError::Local),
            ("./acme/r", UrlError::Local),
            ("../acme/r.git", UrlError::Local),
            ("acme/r", UrlError::Local),
            ("repo.bundle", UrlError::Local),
            ("file:///srv/acme/r.git", UrlError::Scheme("file".into())),
            ("FILE://host/acme/r", UrlError::Scheme("file".into())),
            ("ext::ssh -p 22 host %S acme/r", UrlError::Host),
            ("ftp://host/acme/r", UrlError::Scheme("ftp".into())),
            ("https://github.com/r.git", UrlError::Path),
            ("https://github.com/", UrlError::Path),
            ("https://github.com", UrlError::Path),
            ("https://github.com/../r", UrlError::Path),
            ("https://github.com/acme/../../x/r", UrlError::Path),
            ("https://github.com/a%2fb/r", UrlError::Path),
            ("https://github.com/a%zz/r", UrlError::Path),
            ("https:///acme/r", UrlError::Host),
            ("https://user@/acme/r", UrlError::Host),
            ("https://github.com:22x/acme/r", UrlError::Host),
            ("https://git hub.com/acme/r", UrlError::Host),
            ("https://github.com\\acme\\r", UrlError::Host),
            ("https://gith%75b.com/acme/r", UrlError::Host),
            ("git@:acme/r.git", UrlError::Host),
            ("garbage", UrlError::Local),
            ("git@host:22:acme/r", UrlError::Path),
            ("[git@host:22]:acme/r", UrlError::Path),
            ("https://github.com/a@b/r", UrlError::Path),
        ];
        for (url, want) in cases {
            assert_eq!(owner_of(url), Err(want), "{url:?}");
        }
    }
}
