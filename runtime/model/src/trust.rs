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
//!
//! What the index records for a repository is a [`TrustRecord`]: for its
//! root and every repository enclosing it, the person's decision
//! (`hookdex trust`, `--revoke`) and every owner ever seen for that root
//! (each remote, the clone source, and the owners seen by earlier
//! compiles). [`Trust::of_record`] trusts a root when the person trusted it,
//! or when every owner seen passes and every enclosing root is trusted, so
//! nothing done inside a repository (a remote renamed or re-pointed, a new
//! `.git`) turns an untrusted verdict into a trusted one.

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
    /// The person ran `hookdex trust` on the repository (its root).
    Explicit(String),
    /// The person ran `hookdex trust --revoke` on the repository (its root).
    Revoked(String),
    /// An owner seen elsewhere than the current `origin` (another remote,
    /// the clone source, an earlier compile) that does not pass.
    Stranger {
        /// The owner (`github.com/stranger`).
        owner: String,
        /// Where it was seen.
        seen: Seen,
    },
    /// A repository enclosing this one is not trusted (its root, and why).
    Enclosing {
        /// The enclosing repository's root.
        root: String,
        /// Its verdict.
        why: Box<Trust>,
    },
}

/// Where an owner of a repository was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// The `origin` remote, now.
    Origin,
    /// Another remote, now (its name).
    Remote(String),
    /// The URL the repository was cloned from (the first line of
    /// `logs/HEAD`).
    Clone,
    /// An earlier compile, no longer in the repository's configuration:
    /// trust once lost stays lost until the person says otherwise.
    Before,
}

impl Seen {
    fn encode(&self) -> String {
        match self {
            Seen::Origin => "origin".into(),
            Seen::Remote(name) => format!("remote:{name}"),
            Seen::Clone => "clone".into(),
            Seen::Before => "before".into(),
        }
    }

    fn parse(text: &str) -> Option<Seen> {
        Some(match text {
            "origin" => Seen::Origin,
            "clone" => Seen::Clone,
            "before" => Seen::Before,
            _ => Seen::Remote(text.strip_prefix("remote:")?.to_string()),
        })
    }
}

impl fmt::Display for Seen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seen::Origin => write!(f, "origin"),
            Seen::Remote(name) => write!(f, "remote `{name}`"),
            Seen::Clone => write!(f, "the clone source"),
            Seen::Before => write!(f, "seen before, no longer configured"),
        }
    }
}

/// The person's decision about one repository root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// None: the owners decide.
    Owners,
    /// `hookdex trust`: its rules run, whatever its owners.
    Trusted,
    /// `hookdex trust --revoke`: its rules never run, whatever its owners.
    Revoked,
}

/// One owner a repository showed, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sighting {
    /// The owner as [`RecordedOrigin`] records it (`None`: no remote).
    pub origin: Option<String>,
    /// Where it was seen.
    pub seen: Seen,
}

/// The trust facts of one repository root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootFacts {
    /// The root, as shown to people.
    pub root: String,
    /// The person's decision.
    pub decision: Decision,
    /// Every owner seen for it, the current ones first.
    pub sightings: Vec<Sighting>,
}

/// What the index records to take a repository's trust verdict at each
/// call: the repository's own root first, then each root enclosing it,
/// innermost first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustRecord {
    /// The roots, the repository's own first.
    pub roots: Vec<RootFacts>,
}

impl TrustRecord {
    /// The text the index holds: a line per root (`R`, root, decision) and
    /// one per sighting (`S`, where, owner), tab-separated, with `\\`,
    /// `\t` and `\n` escaped.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        for root in &self.roots {
            let decision = match root.decision {
                Decision::Owners => "",
                Decision::Trusted => "trust",
                Decision::Revoked => "revoke",
            };
            out.push_str(&format!("R\t{}\t{decision}\n", escape(&root.root)));
            for s in &root.sightings {
                let origin = s
                    .origin
                    .as_deref()
                    .map_or("-".to_string(), |o| format!("={}", escape(o)));
                out.push_str(&format!("S\t{}\t{origin}\n", escape(&s.seen.encode())));
            }
        }
        out
    }

    /// The record `text` encodes, or `None` when it is not one.
    pub fn parse(text: &str) -> Option<TrustRecord> {
        let mut roots: Vec<RootFacts> = Vec::new();
        for line in text.lines() {
            let fields: Vec<String> = line.split('\t').map(unescape).collect();
            match fields.as_slice() {
                [r, root, decision] if r == "R" => roots.push(RootFacts {
                    root: root.clone(),
                    decision: match decision.as_str() {
                        "" => Decision::Owners,
                        "trust" => Decision::Trusted,
                        "revoke" => Decision::Revoked,
                        _ => return None,
                    },
                    sightings: Vec::new(),
                }),
                [s, seen, origin] if s == "S" => roots.last_mut()?.sightings.push(Sighting {
                    seen: Seen::parse(seen)?,
                    origin: match origin.as_str() {
                        "-" => None,
                        o => Some(o.strip_prefix('=')?.to_string()),
                    },
                }),
                _ => return None,
            }
        }
        Some(TrustRecord { roots })
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
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

    /// The verdict for the repository `record` describes (a
    /// [`TrustRecord`]'s text; `None` outside a repository), given the
    /// bundle's recorded origin and `CONDITIONS_TRUSTED_OWNERS`.
    ///
    /// The person's decision on the root stands; otherwise every owner seen
    /// for the root must pass (the first that does not is the reason), and
    /// then every enclosing root must be trusted by the same rule.
    pub fn of_record(
        record: Option<&str>,
        bundle_owner: Option<&str>,
        trusted_owners: &str,
    ) -> Trust {
        let Some(text) = record else {
            return Trust::NoOrigin;
        };
        let Some(record) = TrustRecord::parse(text) else {
            return Trust::UnknownOrigin("the index's trust record is unreadable".into());
        };
        let mut roots = record.roots.iter();
        let Some(own) = roots.next() else {
            return Trust::NoOrigin;
        };
        let verdict = Trust::of_root(own, bundle_owner, trusted_owners);
        if !verdict.is_trusted() || own.decision == Decision::Trusted {
            return verdict;
        }
        for outer in roots {
            let why = Trust::of_root(outer, bundle_owner, trusted_owners);
            if !why.is_trusted() {
                return Trust::Enclosing {
                    root: outer.root.clone(),
                    why: Box::new(why),
                };
            }
        }
        verdict
    }

    /// One root's verdict: its decision, else its owners'.
    fn of_root(root: &RootFacts, bundle_owner: Option<&str>, trusted_owners: &str) -> Trust {
        match root.decision {
            Decision::Trusted => return Trust::Explicit(root.root.clone()),
            Decision::Revoked => return Trust::Revoked(root.root.clone()),
            Decision::Owners => {}
        }
        let mut trusted = Trust::NoOrigin;
        for sighting in &root.sightings {
            let verdict = Trust::decide(sighting.origin.as_deref(), bundle_owner, trusted_owners);
            let verdict = match (verdict, &sighting.seen) {
                (verdict, Seen::Origin) => verdict,
                (Trust::Untrusted(owner), seen) => Trust::Stranger {
                    owner,
                    seen: seen.clone(),
                },
                (Trust::UnknownOrigin(why), seen) => Trust::UnknownOrigin(format!("{seen}: {why}")),
                (verdict, _) => verdict,
            };
            if !verdict.is_trusted() {
                return verdict;
            }
            if trusted == Trust::NoOrigin {
                trusted = verdict;
            }
        }
        trusted
    }

    /// Whether the directory layer runs.
    pub fn is_trusted(&self) -> bool {
        !matches!(
            self,
            Trust::Untrusted(_)
                | Trust::UnknownOrigin(_)
                | Trust::Stranger { .. }
                | Trust::Revoked(_)
                | Trust::Enclosing { .. }
        )
    }

    /// What kind of reason this is, for machines: `no-origin`,
    /// `bundle-owner`, `listed`, `explicit` (trusted by the person),
    /// `owner` (origin's owner is not trusted), `unknown`, `remote`,
    /// `clone`, `sticky` (an owner seen before), `revoked`, `enclosing`.
    pub fn kind(&self) -> &'static str {
        match self {
            Trust::NoOrigin => "no-origin",
            Trust::BundleOwner(_) => "bundle-owner",
            Trust::Listed(_) => "listed",
            Trust::Explicit(_) => "explicit",
            Trust::Untrusted(_) => "owner",
            Trust::UnknownOrigin(_) => "unknown",
            Trust::Stranger { seen, .. } => match seen {
                Seen::Remote(_) | Seen::Origin => "remote",
                Seen::Clone => "clone",
                Seen::Before => "sticky",
            },
            Trust::Revoked(_) => "revoked",
            Trust::Enclosing { .. } => "enclosing",
        }
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
            Trust::Explicit(root) => write!(f, "trusted: `hookdex trust` on {root}"),
            Trust::Revoked(root) => write!(
                f,
                "repository not trusted: `hookdex trust --revoke` on {root}"
            ),
            Trust::Stranger { owner, seen } => write!(
                f,
                "repository not trusted: owner '{owner}' ({seen}); `hookdex trust` trusts it"
            ),
            Trust::Enclosing { root, why } => {
                write!(f, "repository not trusted: it lies inside {root} ({why})")
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

    fn root(root: &str, decision: Decision, sightings: &[(Option<&str>, Seen)]) -> RootFacts {
        RootFacts {
            root: root.into(),
            decision,
            sightings: sightings
                .iter()
                .map(|(origin, seen)| Sighting {
                    origin: origin.map(String::from),
                    seen: seen.clone(),
                })
                .collect(),
        }
    }

    #[test]
    fn records_round_trip_with_any_text() {
        let record = TrustRecord {
            roots: vec![
                root(
                    "/r\tab\nline\\x",
                    Decision::Trusted,
                    &[
                        (None, Seen::Origin),
                        (Some("?why\there"), Seen::Remote("up\nstream".into())),
                        (Some("github.com/acme"), Seen::Clone),
                    ],
                ),
                root("/", Decision::Revoked, &[(Some("h/x"), Seen::Before)]),
            ],
        };
        let text = record.encode();
        assert_eq!(TrustRecord::parse(&text), Some(record));
        for bad in [
            "X\t/\t\n",
            "S\torigin\t-\n",
            "R\t/\tmaybe\n",
            "R\t/\t\nS\tx\t-\n",
        ] {
            assert_eq!(TrustRecord::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn record_verdicts() {
        use Decision::*;
        let stranger = Some("github.com/stranger");
        let acme = Some("github.com/acme");
        let own = |decision, sightings: &[(Option<&str>, Seen)]| root("/r", decision, sightings);
        let outer = |decision, sightings: &[(Option<&str>, Seen)]| root("/", decision, sightings);
        // (roots, CONDITIONS_TRUSTED_OWNERS, kind of the verdict)
        let cases: Vec<(Vec<RootFacts>, &str, &str)> = vec![
            (vec![own(Owners, &[])], "", "no-origin"),
            (vec![own(Owners, &[(None, Seen::Origin)])], "", "no-origin"),
            (vec![own(Owners, &[(acme, Seen::Origin)])], "acme", "listed"),
            (vec![own(Owners, &[(stranger, Seen::Origin)])], "", "owner"),
            // A renamed or removed origin is still seen.
            (
                vec![own(
                    Owners,
                    &[
                        (None, Seen::Origin),
                        (stranger, Seen::Remote("upstream".into())),
                    ],
                )],
                "",
                "remote",
            ),
            (
                vec![own(
                    Owners,
                    &[(None, Seen::Origin), (stranger, Seen::Before)],
                )],
                "",
                "sticky",
            ),
            (
                vec![own(
                    Owners,
                    &[(acme, Seen::Origin), (stranger, Seen::Before)],
                )],
                "acme",
                "sticky",
            ),
            (
                vec![own(
                    Owners,
                    &[(acme, Seen::Origin), (stranger, Seen::Before)],
                )],
                "acme,stranger",
                "listed",
            ),
            (
                vec![own(
                    Owners,
                    &[(None, Seen::Origin), (stranger, Seen::Clone)],
                )],
                "",
                "clone",
            ),
            (
                vec![own(Owners, &[(Some("?a path"), Seen::Clone)])],
                "*",
                "unknown",
            ),
            // The person decides over the owners.
            (
                vec![own(Trusted, &[(stranger, Seen::Origin)])],
                "",
                "explicit",
            ),
            (
                vec![own(Revoked, &[(acme, Seen::Origin)])],
                "acme",
                "revoked",
            ),
            // An enclosing root caps a nested one, unless the person trusted the nested one.
            (
                vec![
                    own(Owners, &[(None, Seen::Origin)]),
                    outer(Owners, &[(stranger, Seen::Origin)]),
                ],
                "",
                "enclosing",
            ),
            (
                vec![
                    own(Owners, &[(None, Seen::Origin)]),
                    outer(Trusted, &[(stranger, Seen::Origin)]),
                ],
                "",
                "no-origin",
            ),
            (
                vec![
                    own(Owners, &[(acme, Seen::Origin)]),
                    outer(Owners, &[(acme, Seen::Origin)]),
                ],
                "acme",
                "listed",
            ),
            (
                vec![own(Trusted, &[(None, Seen::Origin)]), outer(Revoked, &[])],
                "",
                "explicit",
            ),
        ];
        for (roots, listed, kind) in cases {
            let text = TrustRecord {
                roots: roots.clone(),
            }
            .encode();
            let trust = Trust::of_record(Some(&text), None, listed);
            assert_eq!(trust.kind(), kind, "{roots:?} {listed:?}: {trust}");
            let trusted = matches!(kind, "no-origin" | "listed" | "explicit" | "bundle-owner");
            assert_eq!(trust.is_trusted(), trusted, "{trust}");
        }
        assert_eq!(Trust::of_record(None, None, ""), Trust::NoOrigin);
        assert!(!Trust::of_record(Some("garbage"), None, "*").is_trusted());
        let text = TrustRecord {
            roots: vec![own(Owners, &[(stranger, Seen::Before)])],
        }
        .encode();
        let said = Trust::of_record(Some(&text), None, "").to_string();
        assert!(
            said.contains("'github.com/stranger'") && said.contains("seen before"),
            "{said}"
        );
    }
}
