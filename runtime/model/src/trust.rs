//! The two verdicts every rule goes through: whether the repository is
//! trusted ([`Trust`]), and whether a rule runs here ([`RunVerdict`]).
//!
//! The compiler records the owners ([`RecordedOrigin`]); the trust verdict is
//! taken at each call against the current `CONDITIONS_TRUSTED_OWNERS`, so
//! changing that variable takes effect on the next call without a recompile.
//!
//! An owner is a forge host and the full namespace path (`github.com/acme`,
//! `gitlab.com/group/sub`), lowercased. An entry of `CONDITIONS_TRUSTED_OWNERS`
//! names one exactly: `host/owner`, or a bare `owner` on the host of the
//! bundle's origin ([`DEFAULT_FORGE`] when the bundle has no forge origin).
//! `*` trusts every owner, but an origin that is unknown (an unreadable
//! config, a URL of no forge) stays untrusted.

use std::fmt;

use crate::LayerKind;

/// The host a bare `CONDITIONS_TRUSTED_OWNERS` entry (`acme`) names when the
/// bundle has no forge origin to take the host from.
pub const DEFAULT_FORGE: &str = "github.com";

/// How the index records a repository's origin (the meta's directory and
/// bundle owners): no string for no `origin` remote, the owner
/// (`github.com/acme`), or `?` and the reason the origin is unknown (an
/// owner never starts with `?`: it starts with a host).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedOrigin<'a> {
    /// No `origin` remote.
    Absent,
    /// The origin's owner.
    Owner(&'a str),
    /// The origin could not be read or has no owner; the reason.
    Unknown(&'a str),
}

impl<'a> RecordedOrigin<'a> {
    /// The origin a recorded string stands for.
    pub fn parse(recorded: Option<&'a str>) -> RecordedOrigin<'a> {
        match recorded {
            None => RecordedOrigin::Absent,
            Some(s) => match s.strip_prefix('?') {
                Some(why) => RecordedOrigin::Unknown(why),
                None => RecordedOrigin::Owner(s),
            },
        }
    }

    /// The string the index records for this origin.
    pub fn record(&self) -> Option<String> {
        match self {
            RecordedOrigin::Absent => None,
            RecordedOrigin::Owner(o) => Some((*o).to_string()),
            RecordedOrigin::Unknown(why) => Some(format!("?{why}")),
        }
    }
}

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
    /// `origin` could not be read or is not a forge URL (the reason): never run.
    UnknownOrigin(String),
}

impl Trust {
    /// The verdict for a repository whose recorded origin is `owner`, given
    /// the bundle's recorded origin and the `CONDITIONS_TRUSTED_OWNERS` value
    /// (both as [`RecordedOrigin`] strings).
    pub fn decide(owner: Option<&str>, bundle_owner: Option<&str>, trusted_owners: &str) -> Trust {
        let owner = match RecordedOrigin::parse(owner) {
            RecordedOrigin::Absent => return Trust::NoOrigin,
            RecordedOrigin::Unknown(why) => return Trust::UnknownOrigin(why.to_string()),
            RecordedOrigin::Owner(owner) => owner,
        };
        let bundle = match RecordedOrigin::parse(bundle_owner) {
            RecordedOrigin::Owner(b) => Some(b),
            _ => None,
        };
        if bundle.is_some_and(|b| b.eq_ignore_ascii_case(owner)) {
            return Trust::BundleOwner(owner.to_string());
        }
        let bare_host = bundle
            .and_then(|b| b.split('/').next())
            .unwrap_or(DEFAULT_FORGE);
        let listed = trusted_owners
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || names(t, owner, bare_host));
        if listed {
            Trust::Listed(owner.to_string())
        } else {
            Trust::Untrusted(owner.to_string())
        }
    }

    /// Whether the directory layer runs.
    pub fn is_trusted(&self) -> bool {
        !matches!(self, Trust::Untrusted(_) | Trust::UnknownOrigin(_))
    }
}

/// Whether the `CONDITIONS_TRUSTED_OWNERS` entry names `owner`: `host/path`
/// exactly, or a bare name as `bare_host/name`.
fn names(entry: &str, owner: &str, bare_host: &str) -> bool {
    let entry = entry.trim_end_matches('/');
    if entry.is_empty() {
        return false;
    }
    if entry.contains('/') {
        return entry.eq_ignore_ascii_case(owner);
    }
    owner.split_once('/').is_some_and(|(host, path)| {
        host.eq_ignore_ascii_case(bare_host) && path.eq_ignore_ascii_case(entry)
    })
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
            Trust::UnknownOrigin(why) => {
                write!(f, "repository not trusted: origin unknown ({why})")
            }
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
    /// A managed rule of an index the user can write: the managed layer runs
    /// from its administrator's own index instead ([`Switches::managed_apart`]).
    ManagedApart,
}

/// What, besides trust, decides whether a rule of an index runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switches {
    /// `CONDITIONS_ENABLED`: off leaves only the managed layer on.
    pub enabled: bool,
    /// The managed layer runs from an index its administrator owns, so this
    /// index's copy of it (in a cache the user, and so the agent, can
    /// write) does not run: a forged copy cannot switch it off.
    pub managed_apart: bool,
}

impl Switches {
    /// Every layer on, the managed one answered by the same index.
    pub const ALL: Switches = Switches {
        enabled: true,
        managed_apart: false,
    };
}

impl RunVerdict {
    /// The verdict for a rule of `standing` under `trust` and `switches`.
    ///
    /// A rule replaced only by a directory rule runs while the repository is
    /// untrusted; a directory rule never runs in an untrusted repository;
    /// the managed layer is never disabled, and runs from one index only.
    pub fn of(standing: &Standing, trust: &Trust, switches: Switches) -> RunVerdict {
        if switches.managed_apart && standing.layer == LayerKind::Managed {
            return RunVerdict::ManagedApart;
        }
        let trusted = trust.is_trusted();
        if let Some(by) = standing.overridden_by {
            if !standing.shadowed_by_directory || trusted {
                return RunVerdict::Overridden { by };
            }
        }
        if standing.layer == LayerKind::Directory && !trusted {
            return RunVerdict::Untrusted;
        }
        if !switches.enabled && standing.layer != LayerKind::Managed {
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
        let gh = Some("github.com/stranger");
        let gl = Some("gitlab.com/stranger");
        let nested = Some("gitlab.com/stranger/sub");
        let unknown = Some("?a local path");
        let cases: &[(Option<&str>, Option<&str>, &str, bool)] = &[
            (None, None, "", true),
            (Some("github.com/acme"), Some("github.com/acme"), "", true),
            (Some("github.com/acme"), Some("GitHub.com/ACME"), "", true),
            (Some("gitlab.com/acme"), Some("github.com/acme"), "", false),
            (gh, Some("github.com/acme"), "", false),
            (gh, None, "acme, stranger", true),
            (gh, None, "Stranger", true),
            (gh, None, "*", true),
            (gh, None, "stranger2,,", false),
            (gh, None, "github.com/stranger", true),
            (gh, None, "GITHUB.COM/stranger/", true),
            (gh, None, "gitlab.com/stranger", false),
            (gl, None, "stranger", false),
            (gl, Some("gitlab.com/acme"), "stranger", true),
            (gl, Some("?unreadable"), "stranger", false),
            (gl, None, "gitlab.com/stranger", true),
            (nested, None, "gitlab.com/stranger", false),
            (nested, None, "gitlab.com/stranger/sub", true),
            (nested, Some("gitlab.com/x"), "stranger/sub", false),
            (unknown, None, "*", false),
            (unknown, Some("?a local path"), "", false),
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
            Trust::decide(gh, None, "").to_string(),
            "repository not trusted: origin owner 'github.com/stranger'"
        );
        assert_eq!(
            Trust::decide(unknown, None, "").to_string(),
            "repository not trusted: origin unknown (a local path)"
        );
    }

    #[test]
    fn recorded_origins_round_trip() {
        for origin in [
            RecordedOrigin::Absent,
            RecordedOrigin::Owner("github.com/acme"),
            RecordedOrigin::Unknown("why"),
        ] {
            let record = origin.record();
            assert_eq!(RecordedOrigin::parse(record.as_deref()), origin);
        }
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
            let switches = Switches {
                enabled,
                managed_apart: false,
            };
            assert_eq!(
                RunVerdict::of(&standing, trust, switches),
                want,
                "{standing:?} {trust} {enabled}"
            );
        }
        let apart = Switches {
            enabled: true,
            managed_apart: true,
        };
        assert_eq!(
            RunVerdict::of(&standing(Managed, None, false), &trusted, apart),
            RunVerdict::ManagedApart
        );
        assert_eq!(
            RunVerdict::of(&standing(Runtime, None, false), &trusted, apart),
            RunVerdict::Runs,
            "only the managed layer is answered elsewhere"
        );
    }
}
