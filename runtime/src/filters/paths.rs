//! A filter's `paths`: its globs matched against the path a text lands in
//! and against that path's file name. With `paths` set, a text that lands
//! in no named file is not the filter's. The hook and `explain` both ask
//! here.

use hookdex_index::{Error, GlobSet, PathMatcher};

/// Some of a filter's `paths` globs with their matcher, owned (it outlives
/// the index mapping).
#[derive(Clone, Debug)]
pub struct Globs {
    /// The globs, one per line.
    pub globs: String,
    /// Matches a path against any of them.
    pub matcher: PathMatcher,
}

impl From<&GlobSet<'_>> for Globs {
    fn from(set: &GlobSet<'_>) -> Globs {
        Globs {
            globs: set.globs.to_string(),
            matcher: set.matcher.clone(),
        }
    }
}

/// Whether a filter's `paths` admit a text landing in `path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathVerdict {
    /// The filter has no `paths`: every text is its.
    Every,
    /// This glob set (its globs, one per line) matched.
    Matched(String),
    /// No glob matched, or there is no path; the reason says which.
    Missed(String),
}

impl PathVerdict {
    /// Whether the text is the filter's.
    pub fn admits(&self) -> bool {
        !matches!(self, PathVerdict::Missed(_))
    }
}

/// The verdict of the glob sets `globs` for a text landing in `path`.
///
/// # Errors
///
/// When a glob DFA gives up.
pub fn verdict(globs: &[Globs], path: Option<&str>) -> Result<PathVerdict, Error> {
    if globs.is_empty() {
        return Ok(PathVerdict::Every);
    }
    let Some(path) = path else {
        return Ok(PathVerdict::Missed(
            "paths: the call names no file".to_string(),
        ));
    };
    let name = path.rsplit('/').next().unwrap_or(path);
    for set in globs {
        if set.matcher.is_match(path)? || set.matcher.is_match(name)? {
            return Ok(PathVerdict::Matched(set.globs.clone()));
        }
    }
    Ok(PathVerdict::Missed(format!(
        "paths: no glob matches `{path}`"
    )))
}
