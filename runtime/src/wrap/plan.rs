//! Whether a shell call runs under the guard (SPEC §15), and the command
//! line that makes it so: one answer for the hook (which rewrites the
//! call), `list` and `explain`.
//!
//! A call is wrapped when `HOOKDEX_ENFORCE` is not `off`, an active
//! `bash.<cli>` rule or the session's closed gate gives the guard something
//! to watch, the kernel can supervise, and the harness's reply can carry the
//! rewrite without widening a permission: with the decision the rules
//! already gave (`allow`, or `ask` where the harness takes a rewrite with
//! it), with none where the harness applies a rewrite and then decides as
//! it would have, or with `allow` where the session allows every call
//! anyway (`bypassPermissions`). A call the person would have been asked
//! about is never turned into an allowed one: where none of these holds
//! the text stays the guard, and `require` denies instead. Where the
//! harness runs every shell command behind hookdex's guard itself (Claude
//! Code's shell prefix, which `init` sets), nothing is rewritten: its
//! permission rules then see the command as the model wrote it.

use std::path::PathBuf;

use hookdex_harness::Payload;
use hookdex_model::{Event, Permission, Target};
use serde_json::Value;

use super::guard::{watched, Watched};
use crate::call::Call;
use crate::settings::{Enforce, Settings};

/// Whether enforcement is on for a session, and why.
#[derive(Clone, Debug)]
pub struct Status {
    /// `HOOKDEX_ENFORCE`.
    pub mode: Enforce,
    /// What the guard watches.
    pub watched: Watched,
    /// Why the kernel cannot supervise here, if it cannot.
    pub kernel: Option<String>,
}

impl Status {
    /// Whether shell calls run under the guard.
    pub fn on(&self) -> bool {
        self.mode != Enforce::Off && self.kernel.is_none() && self.watched.matters()
    }

    /// One line: on or off, and why.
    pub fn why(&self) -> String {
        if self.mode == Enforce::Off {
            return "off: HOOKDEX_ENFORCE=off (the command text is the only guard)".into();
        }
        if let Some(kernel) = &self.kernel {
            let then = match self.mode {
                Enforce::Require => "shell calls are denied (HOOKDEX_ENFORCE=require)",
                _ => "the command text is the only guard",
            };
            return format!("off: {kernel}; {then}");
        }
        if !self.watched.matters() {
            return "idle: no active bash.<cli> rule and the gate is open or off".into();
        }
        let mut what = Vec::new();
        if !self.watched.programs.is_empty() {
            what.push(format!("execs of {}", self.watched.programs.join(", ")));
        }
        if self.watched.write_gate {
            what.push("writes into rule sources (gate closed)".into());
        }
        format!("on (kernel): {}", what.join("; "))
    }
}

/// Whether enforcement is on for `session`.
pub fn status(settings: &Settings, session: Option<&str>) -> Status {
    let watched = watched(settings, session).unwrap_or_default();
    let kernel = match settings.enforce {
        Enforce::Off => None,
        _ => hookdex_enforce::available()
            .err()
            .map(|why| why.to_string()),
    };
    Status {
        mode: settings.enforce,
        watched,
        kernel,
    }
}

/// How the wrapper is started: the hookdex binary, and the configuration
/// the hook runs with ([`crate::settings::VARIABLES`] that are set), carried
/// in the command since a harness may strip it from a shell's environment
/// (Gemini CLI does), or keep what the agent exported there (Copilot CLI's
/// one shell).
#[derive(Clone, Debug)]
pub struct Wrapper {
    /// The hookdex binary.
    pub exe: PathBuf,
    /// `NAME=value` assignments put before it.
    pub env: Vec<(String, String)>,
}

/// What the hook does with one shell call.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// It runs as it is.
    AsIs,
    /// It runs as this input (the wrapped command), with `allow` where
    /// `allow` is true and otherwise with the rules' own decision.
    Wrap {
        /// The input, its command wrapped.
        input: Value,
        /// Send `allow` (the session allows every call anyway).
        allow: bool,
    },
    /// It runs as it is, and the harness runs it under the guard (its
    /// shell prefix, [`Settings::harness_guards`]).
    ByHarness,
    /// `HOOKDEX_ENFORCE=require` and it cannot be enforced: denied, with
    /// this reason.
    Deny(String),
}

/// Whether, and how, the shell call `call` of `payload` runs under the
/// guard, given the decision the rules gave and the input they left
/// (`decision`, `input`), and whether the guard has anything to watch for
/// the session (`watching`: [`Watched::matters`]); `wrapper` says how the
/// wrapper starts, asked only once the call is to be wrapped.
pub fn plan(
    settings: &Settings,
    payload: &Payload,
    call: &Call,
    decision: Option<Permission>,
    input: &Value,
    watching: bool,
    wrapper: &dyn Fn() -> Option<Wrapper>,
) -> Plan {
    if settings.enforce == Enforce::Off
        || payload.event != Event::PreToolUse
        || !call.tool.name.is_bash()
        || decision == Some(Permission::Deny)
    {
        return Plan::AsIs;
    }
    let Some(command) = crate::call::command_of(input) else {
        return Plan::AsIs;
    };
    if settings.harness_guards && settings.enforce == Enforce::Auto {
        // The harness's shell prefix runs the wrapper, which decides for
        // itself what to watch and whether the kernel lets it.
        return Plan::ByHarness;
    }
    let session = payload.session_id.as_deref();
    if !watching {
        return Plan::AsIs;
    }
    let refuse = |why: String| match settings.enforce {
        Enforce::Require => Plan::Deny(format!(
            "hookdex: HOOKDEX_ENFORCE=require and this shell call cannot run under the guard: {why}"
        )),
        _ => Plan::AsIs,
    };
    if let Err(why) = hookdex_enforce::available() {
        return refuse(why.to_string());
    }
    if settings.harness_guards {
        return Plan::ByHarness;
    }
    let target = call.target;
    if !rewrites_shell(target) {
        return refuse(format!("{} cannot rewrite a shell call", target.as_str()));
    }
    let caps = hookdex_harness::harness(target).capabilities(payload.shape);
    let bypass = payload.permission_mode.as_deref() == Some("bypassPermissions");
    let (carried, allow) = match decision {
        Some(Permission::Allow) => (true, false),
        Some(Permission::Ask) => (caps.rewrite_without_allow, false),
        _ if caps.rewrite_alone => (true, false),
        _ => (bypass, bypass),
    };
    if !carried {
        return refuse(format!(
            "{} takes a rewrite only with an allow, which would skip the person's approval",
            target.as_str()
        ));
    }
    let mut input = input.clone();
    let Some(wrapper) = wrapper() else {
        return refuse("hookdex cannot find its own binary".into());
    };
    let wrapped = wrapped_command(&wrapper, target, session, &command);
    if let Some(object) = input.as_object_mut() {
        let key = match object.contains_key("command") {
            true => "command",
            false => "cmd",
        };
        object.insert(key.into(), Value::String(wrapped));
    }
    Plan::Wrap { input, allow }
}

/// The harnesses whose hook can rewrite a shell call.
fn rewrites_shell(target: Target) -> bool {
    matches!(
        target,
        Target::Claude | Target::Codex | Target::Gemini | Target::Copilot
    )
}

/// `command` run through the wrapper, which runs it with `bash -c` and
/// exits with its status. Where the harness keeps one shell from call to
/// call (Claude Code, Copilot CLI), the command's working directory at exit
/// is written to a file of the session, which the harness's shell then
/// changes to, so a `cd` still holds in the next call. The words around it
/// use no command substitution and no `rm`, which some harnesses refuse in
/// a command (Gemini CLI's injection check, Codex's `rm -f` check).
pub fn wrapped_command(
    wrapper: &Wrapper,
    target: Target,
    session: Option<&str>,
    command: &str,
) -> String {
    use hookdex_shell::quote;
    // The hook's configuration, exactly: what it did not set is unset, so
    // nothing the agent exported in a shell the harness keeps
    // (`HOOKDEX_ENFORCE=off`, `CONDITIONS_ENABLED=false`) reaches the guard.
    // Sized for the command, which is most of it, so a long one is copied
    // once more rather than at every growth.
    let mut line = String::with_capacity(command.len() + 4096);
    line.push_str("env");
    for name in crate::settings::VARIABLES {
        if !wrapper.env.iter().any(|(set, _)| set == name) {
            line.push_str(&format!(" -u {name}"));
        }
    }
    for (name, value) in &wrapper.env {
        line.push_str(&format!(" {name}={}", quote(value)));
    }
    line.push(' ');
    line.push_str(&format!(
        "{} exec --guard --target {}",
        quote(&wrapper.exe.display().to_string()),
        target.as_str()
    ));
    if let Some(session) = session {
        line.push_str(&format!(" --session {}", quote(session)));
    }
    if !matches!(target, Target::Claude | Target::Copilot) {
        line.push_str(" -- bash -c ");
        line.push_str(&quote(command));
        return line;
    }
    let name = format!(
        "hookdex-cwd-{}",
        crate::state::hex_name(&[session.unwrap_or_default()])
    );
    let cwd_file = quote(&std::env::temp_dir().join(name).display().to_string());
    let mut inner = String::with_capacity(command.len() + 256);
    inner.push_str(&format!("trap \"pwd -P >| {cwd_file} 2>/dev/null\" EXIT\n"));
    inner.push_str(command);
    line.push_str(" -- bash -c ");
    line.push_str(&quote(&inner));
    line.push_str(&format!(
        "; set -- \"$?\" {cwd_file}; if [ -s \"$2\" ] && IFS= read -r __hookdex_cwd < \"$2\"; then cd -- \"$__hookdex_cwd\"; : > \"$2\"; fi; (exit \"$1\")"
    ));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_command_keeps_status_and_directory() {
        if std::process::Command::new("bash")
            .arg("-c")
            .arg("true")
            .status()
            .is_err()
        {
            eprintln!("skipped: no bash");
            return;
        }
        // A stand-in script takes the wrapper's place: it runs what follows
        // `--`, and says what it was given in the environment.
        let dir = tempfile::tempdir().unwrap();
        let stand_in = dir.path().join("wrapper");
        hookdex_test_support::write_executable(
            &stand_in,
            "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n",
        );
        let sub = dir.path().join("sub dir");
        std::fs::create_dir(&sub).unwrap();
        let env = [("HOOKDEX_HOME".to_string(), "/a b".to_string())];
        let wrapper = Wrapper {
            exe: stand_in.clone(),
            env: env.to_vec(),
        };
        let line = wrapped_command(
            &wrapper,
            Target::Claude,
            Some("s'1"),
            "cd 'sub dir' && echo \"in $HOOKDEX_HOME\"; exit 3",
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("{line}\necho \"status=$? pwd=$PWD\""))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let real = sub.canonicalize().unwrap();
        assert_eq!(text, format!("in /a b\nstatus=3 pwd={}\n", real.display()));
    }
}
