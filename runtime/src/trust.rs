//! The trust verdict for a repository's own rules (the directory layer).
//!
//! The compiler records the owners; the verdict is taken at lookup against the
//! current `CONDITIONS_TRUSTED_OWNERS`, so changing that variable takes effect
//! on the next call without a recompile.

use std::fmt;

/// Whether the directory layer may run, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trust {
    /// The repository has no `origin` remote: local-only work.
    NoOrigin,
    /// `origin`'s owner is the linked bundle's owner.
    BundleOwner(String),
    /// `origin`'s owner is listed in `CONDITIONS_TRUSTED_OWNERS` (or it is `*`).
    Listed(String),
    /// None of the above: the layer's files are kept but never run.
    Untrusted(String),
}

impl Trust {
    /// The verdict for a repository whose origin owner is `owner`, given the
    /// bundle's origin owner and the `CONDITIONS_TRUSTED_OWNERS` value.
    pub fn decide(owner: Option<&str>, bundle_owner: Option<&str>, trusted_owners: &str) -> Trust {
        let Some(owner) = owner else {
            return Trust::NoOrigin;
        };
        if bundle_owner.is_some_and(|b| b.eq_ignore_ascii_case(owner)) {
            return Trust::BundleOwner(owner.to_string());
        }
        let listed = trusted_owners
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || (!t.is_empty() && t.eq_ignore_ascii_case(owner)));
        if listed {
            Trust::Listed(owner.to_string())
        } else {
            Trust::Untrusted(owner.to_string())
        }
    }

    /// The verdict from the process's `CONDITIONS_TRUSTED_OWNERS`.
    pub fn from_env(owner: Option<&str>, bundle_owner: Option<&str>) -> Trust {
        let listed = std::env::var("CONDITIONS_TRUSTED_OWNERS").unwrap_or_default();
        Trust::decide(owner, bundle_owner, &listed)
    }

    /// Whether the directory layer runs.
    pub fn is_trusted(&self) -> bool {
        !matches!(self, Trust::Untrusted(_))
    }
}

impl fmt::Display for Trust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trust::NoOrigin => write!(f, "trusted: no origin remote"),
            Trust::BundleOwner(o) => write!(f, "trusted: origin owner '{o}' is the bundle's owner"),
            Trust::Listed(o) => write!(
                f,
                "trusted: origin owner '{o}' is in CONDITIONS_TRUSTED_OWNERS"
            ),
            Trust::Untrusted(o) => write!(f, "repository not trusted: origin owner '{o}'"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let cases: &[(Option<&str>, Option<&str>, &str, bool)] = &[
            (None, None, "", true),
            (Some("acme"), Some("acme"), "", true),
            (Some("acme"), Some("ACME"), "", true),
            (Some("stranger"), Some("acme"), "", false),
            (Some("stranger"), None, "acme, stranger", true),
            (Some("stranger"), None, "Stranger", true),
            (Some("stranger"), None, "*", true),
            (Some("stranger"), None, "stranger2,,", false),
        ];
        for (owner, bundle, listed, want) in cases {
            let trust = Trust::decide(*owner, *bundle, listed);
            assert_eq!(
                trust.is_trusted(),
                *want,
                "{owner:?} {bundle:?} {listed:?}: {trust}"
            );
        }
        assert_eq!(
            Trust::decide(Some("stranger"), None, "").to_string(),
            "repository not trusted: origin owner 'stranger'"
        );
    }
}
