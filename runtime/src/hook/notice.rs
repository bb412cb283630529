//! The session's notice of mistakes in the rules: the first call of a
//! session whose index records invalid files (a missing profile among
//! them) or rules that shadow a shipped rule tells the person once,
//! through the harness's user channel, and points at `hookdex doctor`.
//! The count comes from the index the plan already read
//! ([`hookdex_index::Index::problem_count`]); only when it is not zero is
//! the session's mark touched (one `open`), so a call with nothing to say
//! costs nothing more.

use hookdex_harness::Payload;
use hookdex_index::ProblemCount;

use crate::settings::Settings;
use crate::state::caps::Caps;

/// The mark of the once-per-session notice.
const RULES_NOTICE: &str = "hookdex-rules-notice";

/// The line to tell the person when `problems` is not empty and this is
/// the first call of the session to find them.
pub(super) fn once(
    settings: &Settings,
    payload: &Payload,
    problems: ProblemCount,
) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    let session = payload.session_id.as_deref().unwrap_or_default();
    Caps::new(&settings.view.home)
        .first(session, RULES_NOTICE)
        .then(|| text(problems))
}

/// `hookdex: 2 rule files are invalid and will not run; 1 rule shadows a
/// shipped rule (hookdex doctor)`.
fn text(problems: ProblemCount) -> String {
    let mut parts = Vec::new();
    match problems.invalid {
        0 => {}
        1 => parts.push("1 rule file is invalid and will not run".to_string()),
        n => parts.push(format!("{n} rule files are invalid and will not run")),
    }
    match problems.shadowing {
        0 => {}
        1 => parts.push("1 rule shadows a rule of a profile, bundle or the package".to_string()),
        n => parts.push(format!(
            "{n} rules shadow rules of a profile, bundle or the package"
        )),
    }
    format!("hookdex: {} (hookdex doctor)", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_counts_each_kind() {
        assert_eq!(
            text(ProblemCount {
                invalid: 3,
                shadowing: 0
            }),
            "hookdex: 3 rule files are invalid and will not run (hookdex doctor)"
        );
        assert_eq!(
            text(ProblemCount {
                invalid: 1,
                shadowing: 2
            }),
            "hookdex: 1 rule file is invalid and will not run; 2 rules shadow rules of a \
             profile, bundle or the package (hookdex doctor)"
        );
    }
}
