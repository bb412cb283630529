//! The conformance suite: hookdex proven in the real harnesses. Each test
//! installs one client from the npm registry at a pinned version (cached),
//! runs it headless against a model server this test owns on 127.0.0.1,
//! with hookdex wired by `hookdex init` alone in a scratch HOME, and asserts
//! on what the harness did (see `scenarios.rs`). Each scenario is also run
//! with two controls in hookdex's place, one that does nothing and one that
//! denies everything, and must fail with both: a check that passes for a
//! control proves nothing.
//!
//! Without node and npm the tests fail in CI (`.ci/run` installs them) and
//! skip elsewhere; without the registry they skip, saying so on the terminal.
//! `HOOKDEX_CONFORMANCE_<TARGET>=<version>` proves another version;
//! `HOOKDEX_CONFORMANCE_ONLY=<scenario,…>` narrows the run;
//! `HOOKDEX_CONFORMANCE_KEEP=1` keeps each hookdex run's scratch world (and
//! the requests the model got) for a look.

mod harnesses;
mod install;
mod scenarios;
mod server;
mod world;

use std::io::Write;

use harnesses::Client;
use install::Unavailable;
use scenarios::{Scenario, Seen};
use server::ModelServer;
use world::{HookUnderTest, World};

/// Seconds a harness run may take before it counts as hung.
const DEADLINE_SEC: u32 = 90;

/// Says on the terminal (outside the test harness's capture) that `test` skipped.
fn skip(client: Client, why: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "tests/conformance: {} SKIPPED: {why}",
        client.target()
    );
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// One run of `scenario` on `client` with `hook` answering.
fn attempt(
    client: Client,
    bin: &std::path::Path,
    scenario: &Scenario,
    hook: HookUnderTest,
) -> Result<(), String> {
    let server = ModelServer::start(scenario.command);
    let mut world = World::new(client, scenario.name);
    world.extra_env = scenario
        .env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for (name, body) in scenario.rules {
        world.rule(name, body);
    }
    client.configure(&world, server.port);
    world.init(client, server.port, scenario.init)?;
    world.install_hook(hook, scenario.wrap);
    let run = client.run(bin, &world, server.port, DEADLINE_SEC);
    let requests = server.requests();
    let seen = Seen {
        world: &world,
        run,
        requests: requests.clone(),
    };
    let verdict = (scenario.check)(client, &seen);
    if hook == HookUnderTest::Hookdex && std::env::var_os("HOOKDEX_CONFORMANCE_KEEP").is_some() {
        let _ = std::fs::write(world.root.join("client.stdout"), &seen.run.stdout);
        let _ = std::fs::write(world.root.join("client.stderr"), &seen.run.stderr);
        world.keep(&requests.iter().map(|r| r.body.clone()).collect::<Vec<_>>());
    }
    verdict
}

/// The installed `client`, or `None` when it is skipped (said on the terminal).
fn installed(client: Client) -> Option<std::path::PathBuf> {
    match install::ensure(&client.package()) {
        Ok(bin) => Some(bin),
        Err(Unavailable::Skip(why)) => {
            skip(client, &why);
            None
        }
        Err(Unavailable::Missing(why)) if in_ci() => panic!("in CI this suite must run, but {why}"),
        Err(Unavailable::Missing(why)) => {
            skip(client, &why);
            None
        }
    }
}

/// Every scenario on `client`: hookdex must pass, both controls must fail.
fn suite(client: Client) {
    let package = client.package();
    let Some(bin) = installed(client) else {
        return;
    };
    let only: Option<Vec<String>> = std::env::var("HOOKDEX_CONFORMANCE_ONLY")
        .ok()
        .map(|s| s.split(',').map(String::from).collect());
    let mut failures = Vec::new();
    for scenario in scenarios::all() {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == scenario.name))
        {
            continue;
        }
        if let Some(why) = scenarios::not_shown(client, scenario.name) {
            skip(client, &format!("scenario {}: {why}", scenario.name));
            continue;
        }
        if let Err(why) = attempt(client, &bin, &scenario, HookUnderTest::Hookdex) {
            failures.push(format!("{}: {why}", scenario.name));
        }
        for control in [HookUnderTest::DoesNothing, HookUnderTest::DeniesEverything] {
            if attempt(client, &bin, &scenario, control).is_ok() {
                failures.push(format!(
                    "{}: the check also passes with a hook that {}",
                    scenario.name,
                    match control {
                        HookUnderTest::DoesNothing => "does nothing",
                        _ => "denies everything",
                    }
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} {}: {} failure(s):\n{}",
        package.name,
        package.version,
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn claude_code() {
    suite(Client::Claude);
}

#[test]
fn codex() {
    suite(Client::Codex);
}

#[test]
fn gemini_cli() {
    suite(Client::Gemini);
}

#[test]
fn copilot_cli() {
    suite(Client::Copilot);
}

/// The other side of the `project-trust` scenario: with `init --no-trust`
/// no folder trust is recorded, and Copilot CLI skips the repository's
/// hooks silently, so hookdex's deny rule does not hold. The record `init`
/// writes is what makes the difference.
#[test]
fn copilot_cli_skips_untrusted_project_hooks() {
    let Some(bin) = installed(Client::Copilot) else {
        return;
    };
    let scenario = scenarios::untrusted_project();
    if let Err(why) = attempt(Client::Copilot, &bin, &scenario, HookUnderTest::Hookdex) {
        panic!("{}: {why}", scenario.name);
    }
}
