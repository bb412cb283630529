//! `hookdex exec --guard` (SPEC §15): a command run under the kernel's
//! guard ([`hookdex_enforce`]), and the engine's side of it: the judge that
//! answers each exec of a guarded program with the `bash.<cli>` rules that
//! name it, run as the hook runs them (a PreToolUse payload whose command
//! is the exec's argv), and each write while the session's gate is closed
//! with the rule sources ([`RuleSources::with_wiring`]).
//!
//! Fail open as the hook does: an exec that cannot be judged continues,
//! unless a managed rule guards a program, in which case it is refused; a
//! managed rule that fails (crashes, times out) refuses the exec it judged.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hookdex_enforce::{ExecCall, Judge, Verdict, View, WriteCall, WriteKind};
use hookdex_harness::Payload;
use hookdex_model::{LayerKind, Permission, RuleKind, Step, Target};
use serde_json::json;

use crate::call::Call;
use crate::exec::{Deadline, Stdin};
use crate::fired::Fired;
use crate::gate::sources::{Named, RuleSources};
use crate::guards::Use;
use crate::hook::conditions::{run_rules, Judge as RuleJudge, Ran};
use crate::load::Verify;
use crate::rules::fired_rules;
use crate::settings::{Enforce, Settings};
use crate::state::gate::{GateState, Gates};
use crate::state::Store;

/// The extension of the file, beside the index of the rules it serves,
/// where the guard keeps which guarded programs each search-path folder
/// holds: one per set of layers, so sessions in two repositories whose
/// rules guard different programs do not rewrite one another's.
const LISTING_EXTENSION: &str = "search-path-listing";

/// The largest listing file read (a larger one is not this wrapper's): a
/// few `PATH` values' worth is a few KiB.
const MAX_LISTING: u64 = 1 << 20;

/// The session a guarded command belongs to: what its exec-time payloads
/// carry.
#[derive(Clone, Debug)]
pub struct Session {
    /// The harness.
    pub target: Target,
    /// The session id, when the harness named one.
    pub id: Option<String>,
}

/// What the guard watches for a session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Watched {
    /// Programs an active `bash.<cli>` rule names (lowercase).
    pub programs: Vec<String>,
    /// Those of them a managed rule names.
    pub managed: Vec<String>,
    /// Whether the session's gate is closed, so writes into rule sources
    /// are refused.
    pub write_gate: bool,
}

impl Watched {
    /// Whether there is anything to guard.
    pub fn matters(&self) -> bool {
        !self.programs.is_empty() || self.write_gate
    }
}

/// What the guard watches for `session`: the programs the running
/// `bash.<cli>` rules name (the user's index and the administrator's), and
/// whether its gate is closed.
///
/// # Errors
///
/// Which index could not be read, and why.
pub fn watched(settings: &Settings, session: Option<&str>) -> Result<Watched, crate::Error> {
    let mut found = Vec::new();
    for source in crate::rules::sources(settings) {
        let programs = crate::load::with_index(&source.view, Verify::Lazy, |index| {
            crate::rules::guarded_programs(index, settings, source.switches)
        })?;
        found.extend(programs);
    }
    Ok(Watched::of(found, gate_closed(settings, session)))
}

impl Watched {
    /// What the guard watches: the programs `found` (each with whether a
    /// managed rule names it, `crate::rules::guarded_programs`), and the
    /// write gate when `write_gate`.
    pub fn of(found: Vec<(String, bool)>, write_gate: bool) -> Watched {
        let mut watched = Watched {
            write_gate,
            ..Watched::default()
        };
        for (cli, managed) in found {
            if managed {
                watched.managed.push(cli.clone());
            }
            watched.programs.push(cli);
        }
        // A rule per program is a few; a tree may have a thousand.
        for list in [&mut watched.programs, &mut watched.managed] {
            list.sort();
            list.dedup();
        }
        watched
    }
}

/// Whether the write gate is on for `session`: the gate is enabled and
/// closed.
pub(crate) fn gate_closed(settings: &Settings, session: Option<&str>) -> bool {
    settings.gate_enabled
        && Gates::new(&settings.view.home).state(session.unwrap_or_default()) == GateState::Closed
}

/// Runs `argv` under the guard for `session` and returns the exit code a
/// shell would report (128 + the signal). Where the kernel cannot guard
/// it, the command runs unguarded with a note on stderr, or, with
/// `HOOKDEX_ENFORCE=require`, does not run (exit 126).
pub fn run(
    settings: &Settings,
    session: &Session,
    argv: &[String],
    var: &(dyn Fn(&str) -> Option<OsString> + Sync),
    started: &dyn Fn(u32),
) -> i32 {
    let watched = match settings.enforce {
        Enforce::Off => Watched::default(),
        _ => match watched(settings, session.id.as_deref()) {
            Ok(watched) => watched,
            Err(reason) => {
                eprintln!("hookdex: the guard could not read its rules ({reason}); the command runs unguarded");
                Watched::default()
            }
        },
    };
    if !watched.matters() {
        // Nothing to watch: the command takes this process's place.
        return replaced_by(argv);
    }
    let mut guard = hookdex_enforce::Guard::builder()
        .programs(&watched.programs)
        .write_gate(watched.write_gate);
    // Kept beside the index, in the cache folder the write gate guards as
    // well; a managed guard trusts no file its user can write.
    let cache = Store::new(settings.view.cache_dir.clone());
    let listing = watched.managed.is_empty().then(|| {
        let index = settings.view.index_path().with_extension(LISTING_EXTENSION);
        PathBuf::from(index.file_name().unwrap_or_default())
    });
    if let Some(text) = listing
        .as_ref()
        .and_then(|name| cache.read(name, MAX_LISTING))
    {
        guard = guard.remembered_listing(text);
    }
    let guard = guard.build();
    if let (Some(name), Some(text)) = (&listing, guard.listing()) {
        // Best effort: a listing not kept is made again next time.
        let _ = cache.replace(name, text.as_bytes());
    }
    let judge = ExecJudge {
        settings,
        session,
        var,
        managed: &watched.managed,
        sources: crate::gate::rule_sources(&settings.view),
    };
    match guard.run(argv, &judge, started) {
        Ok(status) => super::exit_code(status),
        Err(hookdex_enforce::Error::Start(err)) => super::not_started(&argv[0], &err).code,
        Err(hookdex_enforce::Error::Unavailable(why)) => {
            if settings.enforce == Enforce::Require {
                eprintln!("hookdex: enforcement unavailable ({why}); HOOKDEX_ENFORCE=require, so the command was not run");
                return 126;
            }
            eprintln!("hookdex: enforcement unavailable ({why}); the command runs unguarded");
            unguarded(argv, started)
        }
    }
}

/// Runs `argv` in this process's place (`exec`); returns only when it
/// cannot start.
fn replaced_by(argv: &[String]) -> i32 {
    use std::os::unix::process::CommandExt;
    let (program, args) = argv.split_first().expect("a command");
    let err = std::process::Command::new(program).args(args).exec();
    super::not_started(program, &err).code
}

/// Runs `argv` as it is, standard streams inherited.
fn unguarded(argv: &[String], started: &dyn Fn(u32)) -> i32 {
    let (program, args) = argv.split_first().expect("a command");
    match std::process::Command::new(program).args(args).spawn() {
        Ok(mut child) => {
            started(child.id());
            child.wait().map_or(1, super::exit_code)
        }
        Err(err) => super::not_started(program, &err).code,
    }
}

/// The engine's judge at exec time.
struct ExecJudge<'s> {
    settings: &'s Settings,
    session: &'s Session,
    var: &'s (dyn Fn(&str) -> Option<OsString> + Sync),
    managed: &'s [String],
    sources: RuleSources,
}

impl Judge for ExecJudge<'_> {
    fn exec(&self, call: &ExecCall<'_>) -> Verdict {
        for view in call.views {
            if let Verdict::Deny { message } = self.judge_view(call.cwd, view) {
                return Verdict::Deny { message };
            }
        }
        Verdict::Continue
    }

    fn write(&self, call: &WriteCall<'_>) -> Verdict {
        if call.kind == WriteKind::Unchecked {
            return Verdict::deny(format!(
                "hookdex: gate closed: {} is refused while rule sources are closed",
                call.call
            ));
        }
        for target in call.paths {
            let named = Named {
                lexical: target.lexical.clone(),
                real: target.real.clone(),
            };
            let hit = match call.kind {
                WriteKind::Move => self.sources.holds(&named),
                _ => self.sources.touches(&named),
            };
            if hit {
                return Verdict::deny(format!("hookdex: gate closed: {}", named.display()));
            }
        }
        Verdict::Continue
    }

    fn unjudged(&self, why: &str) -> Verdict {
        match self.managed.is_empty() {
            true => Verdict::Continue,
            false => Verdict::deny(format!(
                "hookdex: a managed guard could not judge this exec ({why}), so it is refused"
            )),
        }
    }
}

impl ExecJudge<'_> {
    /// Runs the rules that name `view`'s program on its command line.
    fn judge_view(&self, cwd: &Path, view: &View) -> Verdict {
        let started = Instant::now();
        let command = view
            .argv
            .iter()
            .map(|word| hookdex_shell::quote(word))
            .collect::<Vec<_>>()
            .join(" ");
        let mut raw = json!({
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": cwd.display().to_string(),
        });
        if let Some(id) = &self.session.id {
            raw["session_id"] = json!(id);
        }
        let managed = self.managed.contains(&view.name);
        let payload = match Payload::parse(Target::Claude, raw.to_string().as_bytes(), None) {
            Ok(payload) => payload,
            Err(err) => return self.unjudged(&err.to_string()),
        };
        let mut call = Call::new(self.session.target, Step::Pre, "Bash", &payload.tool_input);
        call.programs = vec![view.name.clone()];
        call.dynamic.clear();
        let settings = Settings {
            exec: crate::settings::ExecConfig {
                cwd: cwd.to_path_buf(),
                ..self.settings.exec.clone()
            },
            ..self.settings.clone()
        };
        let fired = match fired_rules(&settings, &[(&payload, &call)], Verify::Lazy) {
            Ok(mut fired) => fired.pop().unwrap_or_default(),
            Err(reason) => {
                return match managed {
                    true => self.unjudged(&reason.to_string()),
                    false => Verdict::Continue,
                }
            }
        };
        let rules: Vec<&Fired> = fired
            .iter()
            .filter(|r| r.kind == RuleKind::Condition && r.program.as_deref() == Some(&view.name))
            .collect();
        let guards: Vec<&Fired> = fired.iter().filter(|r| r.guard.is_some()).collect();
        if rules.is_empty() && guards.is_empty() {
            return Verdict::Continue;
        }
        let mut ran = Ran::default();
        let mut verdict = Verdict::Continue;
        // Guards first: decided here, with every word of the argv known.
        let use_ = Use {
            program: &view.name,
            args: view.argv.get(1..).unwrap_or_default(),
            unknown: &[],
            more: false,
        };
        for rule in &guards {
            let Some(guard) = &rule.guard else { continue };
            ran.fired.push(rule.file_name.clone());
            let judged = crate::guards::judge_uses(guard, std::slice::from_ref(&use_), &[]);
            // An ask cannot be put to anyone at exec time: only a deny stops it.
            if let Some(judged) = judged.filter(|j| j.decision == Permission::Deny) {
                verdict = Verdict::deny(format!("hookdex: {}: {}", rule.file_name, judged.reason));
                break;
            }
        }
        if matches!(verdict, Verdict::Continue) && !rules.is_empty() {
            verdict = self.run_conditions(&settings, &payload, &call, &rules, started, &mut ran);
        }
        let entry = json!({
            "ts_ms": crate::log::now_ms(),
            "target": self.session.target.as_str(),
            "event": "Exec",
            "tool": "bash",
            "session_id": self.session.id,
            "command": payload.tool_input["command"],
            "fired": ran.fired,
            "decision": matches!(verdict, Verdict::Deny { .. }).then_some("deny"),
            "notes": ran.notes,
            "ms": started.elapsed().as_secs_f64() * 1000.0,
        });
        crate::log::append(&self.settings.view.home, &entry);
        verdict
    }

    /// Runs the conditions `rules` for the exec's call: the first that
    /// denies (or a managed one that fails) refuses it.
    fn run_conditions(
        &self,
        settings: &Settings,
        payload: &Payload,
        call: &Call,
        rules: &[&Fired],
        started: Instant,
        ran: &mut Ran,
    ) -> Verdict {
        let judge = RuleJudge {
            target: self.session.target,
            settings,
            deadline: Deadline::after(started, settings.exec.hook_timeout),
            var: self.var,
            awaits_async: false,
        };
        let stdin = Stdin::new(
            crate::contract::stdin(payload, call)
                .to_string()
                .into_bytes(),
        );
        let done = run_rules(&judge, payload, call, rules, &stdin, ran);
        for (rule, outcome) in &done {
            let denied = outcome.decision == Some(Permission::Deny);
            let failed_managed = rule.layer_kind == LayerKind::Managed && outcome.failure.is_some();
            if denied || failed_managed {
                let reason = match (denied, &outcome.failure) {
                    (true, _) => outcome.reason.clone().unwrap_or_default(),
                    (false, failure) => format!(
                        "a managed guard failed ({}), so the exec is refused",
                        failure.as_deref().unwrap_or_default()
                    ),
                };
                let reason = reason.lines().next().unwrap_or_default().to_string();
                return Verdict::deny(format!("hookdex: {}: {reason}", rule.file_name));
            }
        }
        Verdict::Continue
    }
}
