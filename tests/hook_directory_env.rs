//! A repository's own rules (the directory layer) run with an allow-listed
//! environment: no API keys or tokens of the user's unless
//! `HOOKDEX_DIRECTORY_ENV` passes them; the user's own layers inherit all.

mod common;

use common::hook::*;
use common::*;

const PRINT_ENV: &str = "echo \"token=${SECRET_TOKEN:-unset} path=${PATH:+set} step=$AH_STEP\"\n";

fn context(s: &Scratch) -> String {
    context_of(&hook(
        s,
        "claude",
        &pre_bash(s, "claude", "kubectl get pods"),
    ))
}

#[test]
fn repository_rules_do_not_see_the_users_secrets() {
    let mut s = Scratch::new();
    set_origin(&s.repo, "https://github.com/acme/r.git");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    s.set_env("SECRET_TOKEN", "s3cret");
    condition(&s.hookdex_dir(), "pre-bash.kubectl-repo.sh", PRINT_ENV);
    let seen = context(&s);
    assert!(seen.contains("token=unset path=set step=pre"), "{seen}");
    // The user's own layer is the user's: it inherits everything.
    condition(&s.runtime(), "pre-bash.kubectl-mine.sh", PRINT_ENV);
    let seen = context(&s);
    assert!(seen.contains("token=s3cret"), "{seen}");
    assert!(
        seen.contains("token=unset"),
        "the repository's rule still does not: {seen}"
    );
    // A setting passes a name on purpose.
    s.set_env("HOOKDEX_DIRECTORY_ENV", "SECRET_TOKEN");
    let seen = context(&s);
    assert!(!seen.contains("token=unset"), "{seen}");
}
