//! `hookdex hook` and `hookdex init` on hostile or odd input, from an attack
//! on the harness work: non-UTF-8 arguments and variables, a symlinked or
//! `..`-laden `CODEX_HOME`, a CRLF or non-UTF-8 `config.toml`, and
//! variables that must not be copied into a harness's settings.

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::process::Stdio;

use common::*;

/// `hookdex hook` with a non-UTF-8 argument: clap reports the usage error,
/// then `cmd::hook::usage_error` (and `main`'s check of argv[1]) call
/// `std::env::args()`, which panics on non-UTF-8; the panic cannot unwind
/// out of the `extern "C" fn main` and the process aborts (exit 134,
/// SIGABRT). Copilot CLI reads that as a deny, Codex and Gemini as a failure.
#[test]
fn a_non_utf8_hook_argument_exits_0() {
    let s = Scratch::new();
    let bad = OsStr::from_bytes(b"\xff");
    let bad_target = OsStr::from_bytes(b"cl\xffaude");
    let cases: [Vec<&OsStr>; 3] = [
        vec!["hook".as_ref(), "--target".as_ref(), "codex".as_ref(), bad],
        vec!["hook".as_ref(), "--target".as_ref(), bad_target],
        vec![
            "hook".as_ref(),
            "--target".as_ref(),
            "codex".as_ref(),
            "--event".as_ref(),
            bad,
        ],
    ];
    for args in cases {
        let out = s
            .cmd(&[])
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("run hookdex");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: a harness reads non-zero (here {:?}) as a deny; stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `hookdex init` with any non-UTF-8 variable in its environment (one that
/// has nothing to do with hookdex): `configuration_in_force` calls
/// `std::env::vars()`, which panics, and the process aborts (exit 134).
#[test]
fn init_survives_an_unrelated_non_utf8_variable() {
    let s = Scratch::new();
    for target in ["claude", "gemini"] {
        let out = s
            .cmd(&["init", "--target", target])
            .env("SOME_OTHER_VAR", OsStr::from_bytes(b"caf\xe9"))
            .output()
            .expect("run hookdex");
        assert!(
            out.status.success(),
            "init --target {target}: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Codex 0.171.0 canonicalizes `CODEX_HOME` and names its trust records by
/// the canonical hooks.json path (`codex app-server`, `hooks/list`: key
/// `<real>/hooks.json:pre_tool_use:0:0`, trustStatus "untrusted" for what
/// init wrote). `init` writes the key with the path as given (symlink, or
/// `..` left in by `std::path::absolute`), so Codex finds no record and
/// silently skips every hookdex hook while init said it trusted them.
#[test]
fn codex_trust_records_name_the_canonical_hooks_json() {
    for how in ["symlink", "dotdot"] {
        let mut s = Scratch::new();
        let real = s.path("real-codex-home");
        std::fs::create_dir_all(&real).unwrap();
        let given = match how {
            "symlink" => {
                let link = s.path("codex-home-link");
                symlink(&real, &link).unwrap();
                link
            }
            _ => {
                std::fs::create_dir_all(s.path("elsewhere")).unwrap();
                s.path("elsewhere/../real-codex-home")
            }
        };
        s.set_env("CODEX_HOME", given.display().to_string());
        let out = s.run(&["init", "--target", "codex"]);
        assert_success(&out, &["init", "--target", "codex"]);
        let text = std::fs::read_to_string(real.join("config.toml")).unwrap();
        for event in ["pre_tool_use", "post_tool_use"] {
            let key = format!(
                "[hooks.state.\"{}:{event}:0:0\"]",
                real.join("hooks.json").display()
            );
            assert!(text.contains(&key), "{how}: {key} missing in\n{text}");
        }
    }
}

/// `init --target codex` rewrites the user's config.toml: CRLF line endings
/// come back as LF, and a byte that is not UTF-8 (`String::from_utf8_lossy`
/// in `TomlDoc::load`) comes back as U+FFFD; only the trust records should
/// have changed.
#[test]
fn codex_config_keeps_the_users_bytes() {
    for (name, mine) in [
        ("crlf", &b"# mine\r\nmodel = \"o3\"\r\n"[..]),
        ("latin-1", &b"# caf\xe9\nmodel = \"o3\"\n"[..]),
    ] {
        let s = Scratch::new();
        let config = s.path("home/.codex/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(&config, mine).unwrap();
        let out = s.run(&["init", "--target", "codex"]);
        if !out.status.success() {
            // Refusing a file it cannot keep is fine too.
            continue;
        }
        let after = std::fs::read(&config).unwrap();
        assert!(
            after.starts_with(mine),
            "{name}: the user's text changed:\n{:?}",
            String::from_utf8_lossy(&after)
        );
    }
}

/// `init --target gemini` copies every `CONDITIONS_*` and `HOOKDEX_*`
/// variable in its environment, whatever it is, into the handler's `env`
/// in plain text: at `--scope project` that is `<repo>/.gemini/settings.json`,
/// a file meant to be committed (mode 0644). A variable hookdex does not
/// read (here a token the user exported for their own conditions) should
/// not be written there.
#[test]
fn gemini_init_does_not_copy_unknown_variables_into_the_repository() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_API_TOKEN", "s3cret-token");
    let out = s.run(&["init", "--target", "gemini", "--scope", "project"]);
    assert_success(&out, &["init", "--target", "gemini", "--scope", "project"]);
    let text = std::fs::read_to_string(s.repo.join(".gemini/settings.json")).unwrap();
    assert!(!text.contains("s3cret-token"), "{text}");
}
