//! Trust of the directory layer: origin owners (forge host and namespace),
//! CONDITIONS_TRUSTED_OWNERS, bundle owners, worktrees, git config read as
//! git reads it (includes, insteadOf), and an untrusted repository's overrides.

mod common;

use common::git::*;
use common::*;

/// A scratch tree whose repository's origin is `url`, with one directory rule
/// (`.hookdex/conditions/pre-bash-repo.sh`) and one runtime rule.
fn repo_with_origin(url: &str) -> Scratch {
    let s = Scratch::new();
    set_origin(&s.repo, url);
    rule(&s.hookdex_dir(), "pre-bash-repo.sh");
    rule(&s.runtime(), "pre-bash-mine.sh");
    s
}

fn assert_untrusted(s: &Scratch, owner: &str) {
    let list = s.list(&[]);
    assert_eq!(layer(&list, "directory")["trusted"], false, "{list:#}");
    assert_eq!(layer(&list, "runtime")["trusted"], true);
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-mine.sh")]));
    let reason = e.skip_reason("directory", "/pre-bash-repo.sh");
    assert!(reason.contains("not trusted"), "{reason}");
    assert!(reason.contains(&format!("'{owner}'")), "{reason}");
    let listed = s.list(&["--tool", "Bash", "--command", "ls"]);
    assert!(!listed["fires"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["layer"] == "directory"));
}

fn assert_trusted(s: &Scratch) -> Explain {
    let list = s.list(&[]);
    assert_eq!(layer(&list, "directory")["trusted"], true, "{list:#}");
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("runtime", "pre-bash-mine.sh"),
            ("directory", "pre-bash-repo.sh")
        ])
    );
    e
}

#[test]
fn a_strangers_repository_never_runs_its_rules() {
    let s = repo_with_origin("git@github.com:stranger/r.git");
    assert_untrusted(&s, "github.com/stranger");
    // Still listed as a file of the layer: kept, not run.
    let list = s.list(&[]);
    assert_eq!(layer(&list, "directory")["count"], 1);
}

/// The verdict is taken at lookup. An index compiled while the repository
/// was untrusted listed its files by name only, so the first call that
/// trusts it compiles their contents, once; from then on no change of the
/// variable recompiles.
#[test]
fn trusted_owners_take_effect_with_one_recompile_at_most() {
    let mut s = repo_with_origin("git@github.com:Stranger/r.git");
    let first = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(first.fire_names() == ["pre-bash-mine.sh"]);
    let warm = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(warm.fresh(), "{:#}", warm.0["index"]);

    s.set_env("CONDITIONS_TRUSTED_OWNERS", "stranger");
    let trusting = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(!trusting.fresh());
    let state = trusting.0["index"]["state"].as_str().unwrap_or_default();
    assert!(state.contains("trusted now"), "{state}");
    for owners in ["stranger", "acme, STRANGER", "*", "github.com/stranger"] {
        s.set_env("CONDITIONS_TRUSTED_OWNERS", owners);
        let e = assert_trusted(&s);
        assert!(e.fresh(), "{owners}: recompiled: {:#}", e.0["index"]);
    }
    for owners in [
        "acme",
        "strange",
        "",
        "gitlab.com/stranger",
        "github.com/stranger/r",
    ] {
        s.set_env("CONDITIONS_TRUSTED_OWNERS", owners);
        assert_untrusted(&s, "github.com/stranger");
        let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
        assert!(e.fresh(), "{owners}: recompiled: {:#}", e.0["index"]);
    }
    assert_eq!(s.index_files("claude").len(), 1);
}

#[test]
fn the_bundles_owner_is_trusted() {
    let mut s = repo_with_origin("https://github.com/stranger/app.git");
    let bundle = s.bundle("bundle");
    set_origin(&bundle, "git@github.com:Stranger/team-bundle.git");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    let e = assert_trusted(&s);
    assert!(e.0["trust"].as_str().unwrap_or("").contains("bundle"));

    // Another owner's bundle does not vouch for it.
    set_origin(&bundle, "git@github.com:acme/team-bundle.git");
    assert_untrusted(&s, "github.com/stranger");
}

#[test]
fn a_repository_without_origin_is_trusted() {
    let s = Scratch::new();
    rule(&s.hookdex_dir(), "pre-bash-repo.sh");
    rule(&s.runtime(), "pre-bash-mine.sh");
    assert_trusted(&s);

    // Every remote is judged, not only `origin`: a renamed origin is
    // still a stranger.
    std::fs::write(
        s.repo.join(".git/config"),
        "[remote \"upstream\"]\n\turl = git@github.com:stranger/r.git\n",
    )
    .unwrap();
    assert_untrusted(&s, "github.com/stranger");
}

#[test]
fn owner_is_read_from_every_url_form() {
    // (url, owner, an entry that trusts it)
    let urls = [
        (
            "https://github.com/stranger/r.git",
            "github.com/stranger",
            "stranger",
        ),
        (
            "https://github.com/Stranger/r",
            "github.com/stranger",
            "stranger",
        ),
        (
            "https://user:token@github.com/stranger/r.git",
            "github.com/stranger",
            "stranger",
        ),
        (
            "ssh://git@github.com/stranger/r.git",
            "github.com/stranger",
            "github.com/stranger",
        ),
        (
            "ssh://git@git.example.com:2222/stranger/r.git",
            "git.example.com/stranger",
            "git.example.com/stranger",
        ),
        (
            "https://git.example.com:8443/stranger/r",
            "git.example.com/stranger",
            "GIT.example.com/Stranger",
        ),
        (
            "git@github.com:stranger/r.git",
            "github.com/stranger",
            "stranger",
        ),
        (
            "git@github.com:stranger/r",
            "github.com/stranger",
            "stranger",
        ),
        (
            "git@gitlab.com:group/sub/r.git",
            "gitlab.com/group/sub",
            "gitlab.com/group/sub",
        ),
    ];
    for (url, owner, entry) in urls {
        let mut s = repo_with_origin(url);
        assert_untrusted(&s, owner);
        s.set_env("CONDITIONS_TRUSTED_OWNERS", entry);
        assert_trusted(&s);
    }
}

#[test]
fn rules_are_found_from_a_subdirectory_of_the_repository() {
    let mut s = repo_with_origin("git@github.com:stranger/r.git");
    s.cwd = s.repo.join("src/deep/er");
    std::fs::create_dir_all(&s.cwd).unwrap();
    assert_untrusted(&s, "github.com/stranger");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "stranger");
    assert_trusted(&s);
}

fn worktree(gitdir_line: impl Fn(&std::path::Path) -> String) {
    let mut s = Scratch::new();
    let main = s.path("main");
    set_origin(&main, "git@github.com:stranger/r.git");
    let admin = main.join(".git/worktrees/x");
    std::fs::create_dir_all(&admin).unwrap();
    std::fs::write(admin.join("commondir"), "../..\n").unwrap();
    std::fs::write(admin.join("HEAD"), "ref: refs/heads/x\n").unwrap();
    let wt = s.path("wt");
    std::fs::create_dir_all(&wt).unwrap();
    std::fs::write(wt.join(".git"), gitdir_line(&admin)).unwrap();
    rule(&wt.join(".hookdex/conditions"), "pre-bash-repo.sh");
    rule(&s.runtime(), "pre-bash-mine.sh");
    s.repo = wt.clone();
    s.cwd = wt;

    assert_untrusted(&s, "github.com/stranger");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "stranger");
    assert_trusted(&s);
}

#[test]
fn a_worktree_follows_its_gitdir_to_the_main_config() {
    worktree(|admin| format!("gitdir: {}\n", admin.display()));
}

#[test]
fn a_worktree_with_a_relative_gitdir() {
    worktree(|_| "gitdir: ../main/.git/worktrees/x\n".to_string());
}

#[test]
fn an_untrusted_repository_cannot_disable_a_bundle_rule() {
    let mut s = Scratch::new();
    set_origin(&s.repo, "git@github.com:stranger/r.git");
    let bundle = s.bundle("bundle");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    rule(&bundle.join(".claude/conditions"), "pre-bash-guard.sh");
    rule(&s.hookdex_dir(), "pre-bash-guard.sh");
    // A chain: bundle < runtime < directory for another key.
    rule(&bundle.join(".claude/conditions"), "pre-bash-chain.sh");
    rule(&s.runtime(), "pre-bash-chain.sh");
    rule(&s.agentihooks_dir(), "pre-bash-chain.sh");

    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("bundle", "pre-bash-guard.sh"),
            ("runtime", "pre-bash-chain.sh")
        ])
    );
    let reason = e.skip_reason("directory", "/pre-bash-guard.sh");
    assert!(reason.contains("not trusted"), "{reason}");
    let reason = e.skip_reason("bundle", "/pre-bash-chain.sh");
    assert!(reason.contains("overridden by"), "{reason}");
    let listed = s.list(&["--tool", "Bash", "--command", "ls"]);
    let fired: Vec<(String, String)> = listed["fires"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] != "package")
        .map(|f| {
            (
                f["layer"].as_str().unwrap().to_string(),
                base(f["file"].as_str().unwrap()).to_string(),
            )
        })
        .collect();
    assert_eq!(fired, e.fires());

    // Once trusted, the repository's rules replace both.
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "stranger");
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert_eq!(
        e.fires(),
        pairs(&[
            ("directory", "pre-bash-chain.sh"),
            ("directory", "pre-bash-guard.sh")
        ])
    );
    assert!(e
        .skip_reason("bundle", "/pre-bash-guard.sh")
        .contains("overridden by directory/pre-bash-guard.sh"));
    assert!(e
        .skip_reason("runtime", "/pre-bash-chain.sh")
        .contains("overridden by directory/pre-bash-chain.sh"));
}

/// `show` prints "the body of one active rule". In an untrusted repository the
/// rule that runs for a shared key is the lower layer's, not the directory's.
#[test]
fn show_prints_the_rule_that_runs_in_an_untrusted_repository() {
    let s = Scratch::new();
    set_origin(&s.repo, "git@github.com:stranger/r.git");
    rule_with(&s.runtime(), "pre-bash-x.sh", "echo runtime\n");
    rule_with(&s.hookdex_dir(), "pre-bash-x.sh", "echo directory\n");
    let e = s.explain(&["--tool", "Bash"]);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-x.sh")]));
    let out = s.run(&["show", "pre-bash-x"]);
    assert_success(&out, &["show", "pre-bash-x"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "echo runtime\n");
}

/// SPEC §10's example shows `skip pre-bash.npm-x.sh directory repository not
/// trusted: origin owner 'stranger'` for a `git push` call: in an untrusted
/// repository, trust is the reason a directory rule does not run, whether or
/// not its matcher would have matched.
#[test]
fn untrusted_reason_comes_before_the_matcher_miss() {
    let s = Scratch::new();
    set_origin(&s.repo, "git@github.com:stranger/r.git");
    rule(&s.hookdex_dir(), "pre-bash.npm-x.sh");
    let e = s.explain(&[
        "--tool",
        "Bash",
        "--command",
        "cd x && sudo -u bob git push",
    ]);
    let reason = e.skip_reason("directory", "/pre-bash.npm-x.sh");
    assert!(reason.contains("not trusted"), "{reason}");
    assert!(reason.contains("'github.com/stranger'"), "{reason}");
}

#[test]
fn a_submodule_reads_its_own_origin() {
    let mut s = Scratch::new();
    set_origin(&s.repo, "git@github.com:me/super.git");
    let modules = s.repo.join(".git/modules/sub");
    std::fs::create_dir_all(&modules).unwrap();
    std::fs::write(
        modules.join("config"),
        "[core]\n\tworktree = ../../../sub\n[remote \"origin\"]\n\turl = https://github.com/stranger/lib.git\n",
    )
    .unwrap();
    let sub = s.repo.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join(".git"), "gitdir: ../.git/modules/sub\n").unwrap();
    rule(&sub.join(".hookdex/conditions"), "pre-bash-repo.sh");
    rule(&s.runtime(), "pre-bash-mine.sh");
    s.repo = sub.clone();
    s.cwd = sub;
    assert_untrusted(&s, "github.com/stranger");
}

fn trust_line(s: &Scratch) -> String {
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    e.0["trust"].as_str().unwrap_or_default().to_string()
}

#[test]
fn real_git_a_strangers_repository_never_runs_its_rules() {
    let mut s = git_repo("https://github.com/stranger/r.git");
    assert_untrusted(&s, "github.com/stranger");
    assert!(!hook_denies(&s));
    // Another host's owner of the same name, and a bare name on another
    // host, do not vouch for it.
    for owners in ["gitlab.com/stranger", "github.com/stranger/r", "acme"] {
        s.set_env("CONDITIONS_TRUSTED_OWNERS", owners);
        assert_untrusted(&s, "github.com/stranger");
        assert!(!hook_denies(&s), "{owners}");
    }
}

#[test]
fn real_git_a_trusted_host_and_owner_runs_its_rules() {
    let mut s = git_repo("git@gitlab.com:acme/sub/r.git");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "gitlab.com/acme");
    assert_untrusted(&s, "gitlab.com/acme/sub");
    assert!(!hook_denies(&s));
    s.set_env(
        "CONDITIONS_TRUSTED_OWNERS",
        "github.com/x, GitLab.com/acme/sub",
    );
    assert_trusted(&s);
    assert!(hook_denies(&s));
    assert!(trust_line(&s).contains("'gitlab.com/acme/sub'"));
}

#[test]
fn real_git_a_dot_dot_url_is_its_real_owners() {
    let mut s = git_repo("https://github.com/acme/../stranger/r.git");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme,github.com/acme");
    assert_untrusted(&s, "github.com/stranger");
    assert!(!hook_denies(&s));
    // The bundle's owner is acme: still not stranger's.
    let bundle = s.bundle("bundle");
    set_origin(&bundle, "git@github.com:acme/team-bundle.git");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    assert_untrusted(&s, "github.com/stranger");
}

#[test]
fn real_git_an_unparseable_or_unknown_origin_is_untrusted() {
    let mut s = git_repo("https://github.com/acme/r.git");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "*");
    assert_trusted(&s);
    let config = s.repo.join(".git/config");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}[remote \"origin\"\n\turl = x\n")).unwrap();
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(!e.fresh(), "the config change is noticed");
    let trust = trust_line(&s);
    assert!(trust.contains("not trusted: origin unknown"), "{trust}");
    assert!(trust.contains(".git/config"), "{trust}");
    assert!(!hook_denies(&s));

    // Shapes with no forge owner: untrusted even under `*`, never "no origin".
    for url in [
        "/srv/git/r.git",
        "file:///srv/git/acme/r.git",
        "../r.bundle",
    ] {
        let mut s = git_repo(url);
        s.set_env("CONDITIONS_TRUSTED_OWNERS", "*");
        let trust = trust_line(&s);
        assert!(
            trust.contains("not trusted: origin unknown"),
            "{url}: {trust}"
        );
        assert!(!hook_denies(&s), "{url}");
    }
    // No origin at all is local work: trusted.
    let s = git_repo("");
    assert_trusted(&s);
    assert!(hook_denies(&s));
}

#[test]
fn real_git_an_include_that_sets_the_url_is_followed() {
    let mut s = git_repo("");
    let inc = s.path("origin.inc");
    std::fs::write(
        &inc,
        "[remote \"origin\"]\n\turl = git@github.com:acme/r.git\n",
    )
    .unwrap();
    git(&s, &s.repo, &["config", "include.path", "../../origin.inc"]);
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    assert_trusted(&s);
    assert!(trust_line(&s).contains("'github.com/acme'"));
    assert!(hook_denies(&s));

    // The included file decides freshness too: a change to it recompiles.
    std::fs::write(
        &inc,
        "[remote \"origin\"]\n\turl = git@github.com:stranger/r.git\n",
    )
    .unwrap();
    assert_untrusted(&s, "github.com/stranger");
    assert!(!hook_denies(&s));

    // A conditional include for this repository's git dir, with `~`.
    let mut s = git_repo("");
    let home = s.path("home");
    std::fs::write(
        home.join("work.inc"),
        "[remote \"origin\"]\n\turl = https://gitlab.com/team/r\n",
    )
    .unwrap();
    let cond = format!("includeIf.gitdir:{}/.path", s.repo.display());
    git(&s, &s.repo, &["config", &cond, "~/work.inc"]);
    assert_untrusted(&s, "gitlab.com/team");
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "gitlab.com/team");
    assert_trusted(&s);

    // A branch include, matched against HEAD, which is then recorded.
    let s = git_repo("");
    git(&s, &s.repo, &["symbolic-ref", "HEAD", "refs/heads/work"]);
    std::fs::write(
        s.path("home").join("branch.inc"),
        "[remote \"origin\"]\n\turl = https://github.com/stranger/r\n",
    )
    .unwrap();
    git(
        &s,
        &s.repo,
        &["config", "includeIf.onbranch:work.path", "~/branch.inc"],
    );
    assert_untrusted(&s, "github.com/stranger");
    assert!(!hook_denies(&s));
    // Switching the branch away from the include leaves no origin, but the
    // stranger was seen: trust stays lost.
    git(&s, &s.repo, &["symbolic-ref", "HEAD", "refs/heads/other"]);
    assert_untrusted(&s, "github.com/stranger");
    assert!(trust_line(&s).contains("seen before"), "{}", trust_line(&s));
}

#[test]
fn real_git_insteadof_in_the_users_gitconfig_is_applied() {
    let mut s = git_repo("work:r.git");
    git(
        &s,
        &s.repo,
        &[
            "config",
            "--global",
            "url.git@github.com:acme/.insteadOf",
            "work:",
        ],
    );
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    assert_trusted(&s);
    assert!(hook_denies(&s));

    // Rewriting the global config is noticed: the longest prefix now wins.
    git(
        &s,
        &s.repo,
        &[
            "config",
            "--global",
            "url.https://github.com/stranger/.insteadOf",
            "work:r",
        ],
    );
    assert_untrusted(&s, "github.com/stranger");

    // `$XDG_CONFIG_HOME/git/config` is read as well.
    let mut s = git_repo("corp:r.git");
    let xdg = s.path("xdg");
    std::fs::create_dir_all(xdg.join("git")).unwrap();
    std::fs::write(
        xdg.join("git/config"),
        "[url \"https://gitlab.com/corp/\"]\n\tinsteadOf = corp:\n",
    )
    .unwrap();
    s.set_env("XDG_CONFIG_HOME", xdg.display().to_string());
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "gitlab.com/corp");
    assert_trusted(&s);
}

#[test]
fn real_git_the_first_fetch_url_counts_and_pushurl_does_not() {
    let mut s = git_repo("https://github.com/stranger/r.git");
    git(
        &s,
        &s.repo,
        &[
            "remote",
            "set-url",
            "--push",
            "origin",
            "git@github.com:acme/r.git",
        ],
    );
    git(
        &s,
        &s.repo,
        &[
            "config",
            "--add",
            "remote.origin.url",
            "git@github.com:acme/r.git",
        ],
    );
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme");
    assert_untrusted(&s, "github.com/stranger");
    // An empty url clears the list before it, as in git: origin is acme's
    // now, but the stranger was seen and still counts.
    git(&s, &s.repo, &["config", "--add", "remote.origin.url", ""]);
    git(
        &s,
        &s.repo,
        &[
            "config",
            "--add",
            "remote.origin.url",
            "git@github.com:acme/r2.git",
        ],
    );
    assert_untrusted(&s, "github.com/stranger");
    assert!(trust_line(&s).contains("seen before"), "{}", trust_line(&s));
    s.set_env("CONDITIONS_TRUSTED_OWNERS", "acme, stranger");
    assert_trusted(&s);
}
