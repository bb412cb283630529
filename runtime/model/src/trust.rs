//! The two verdicts every rule goes through: whether the repository is
//! trusted ([`Trust`]), and whether a rule runs here ([`RunVerdict`]).
//!
//! The compiler records the owners; the trust verdict is taken at each call
//! against the current `CONDITIONS_TRUSTED_OWNERS`, so changing that variable
//! takes effect on the next call without a recompile.

use std::fmt;

use crate::LayerKind;

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

/// What the index knows about a rule that decides whether it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    /// The kind of layer the rule comes from.
    pub layer: LayerKind,
    /// The id of the rule that replaces it, if any.
    pub overridden_by: Option<u32>,
    /// Replaced only by a directory-layer rule, so it still runs while the
    /// repository is untrusted (a stranger cannot switch a guard off by
    /// reusing its key).
    pub shadowed_by_directory: bool,
}

/// Whether a rule runs for a call, and if not, why. This is the one answer
/// to "does this rule run here?": the hook, `list`, `explain` and `show` all ask it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunVerdict {
    /// The rule runs.
    Runs,
    /// A rule of a higher layer (or a later file) with the same key replaces it.
    Overridden {
        /// The replacing rule's id.
        by: u32,
    },
    /// The rule is the repository's own and the repository is not trusted.
    Untrusted,
    /// `CONDITIONS_ENABLED=false` turned every layer but `managed` off.
    Disabled,
}

impl RunVerdict {
    /// The verdict for a rule of `standing` under `trust`, with conditions
    /// `enabled` or not.
    ///
    /// A rule replaced only by a directory rule runs while the repository is
    /// untrusted; a directory rule never runs in an untrusted repository;
    /// the managed layer is never disabled.
    pub fn of(standing: &Standing, trust: &Trust, enabled: bool) -> RunVerdict {
        let trusted = trust.is_trusted();
        if let Some(by) = standing.overridden_by {
            if !standing.shadowed_by_directory || trusted {
                return RunVerdict::Overridden { by };
            }
        }
        if standing.layer == LayerKind::Directory && !trusted {
            return RunVerdict::Untrusted;
        }
        if !enabled && standing.layer != LayerKind::Managed {
            return RunVerdict::Disabled;
        }
        RunVerdict::Runs
    }

    /// Whether the rule runs.
    pub fn runs(self) -> bool {
        self == RunVerdict::Runs
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

    #[test]
    fn run_verdicts() {
        use LayerKind::*;
        let trusted = Trust::NoOrigin;
        let stranger = Trust::Untrusted("stranger".into());
        let standing = |layer, overridden_by, shadowed_by_directory| Standing {
            layer,
            overridden_by,
            shadowed_by_directory,
        };
        // (standing, trust, enabled, verdict)
        let cases = [
            (
                standing(Bundle, None, false),
                &trusted,
                true,
                RunVerdict::Runs,
            ),
            (
                standing(Bundle, Some(3), false),
                &trusted,
                true,
                RunVerdict::Overridden { by: 3 },
            ),
            (
                standing(Bundle, Some(3), false),
                &stranger,
                true,
                RunVerdict::Overridden { by: 3 },
            ),
            (
                standing(Bundle, Some(3), true),
                &trusted,
                true,
                RunVerdict::Overridden { by: 3 },
            ),
            (
                standing(Bundle, Some(3), true),
                &stranger,
                true,
                RunVerdict::Runs,
            ),
            (
                standing(Directory, None, false),
                &trusted,
                true,
                RunVerdict::Runs,
            ),
            (
                standing(Directory, None, false),
                &stranger,
                true,
                RunVerdict::Untrusted,
            ),
            (
                standing(Directory, Some(9), false),
                &stranger,
                true,
                RunVerdict::Overridden { by: 9 },
            ),
            (
                standing(Runtime, None, false),
                &trusted,
                false,
                RunVerdict::Disabled,
            ),
            (
                standing(Directory, None, false),
                &stranger,
                false,
                RunVerdict::Untrusted,
            ),
            (
                standing(Managed, None, false),
                &trusted,
                false,
                RunVerdict::Runs,
            ),
        ];
        for (standing, trust, enabled, want) in cases {
            assert_eq!(
                RunVerdict::of(&standing, trust, enabled),
                want,
                "{standing:?} {trust} {enabled}"
            );
        }
    }
}
