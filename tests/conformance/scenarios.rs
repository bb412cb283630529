//! The scenarios: rules in the runtime layer, the command the model asks
//! for, and what the harness must then have done, judged only by what can
//! be seen from outside: whether the command (or its rewrite) ran, what the
//! next request to the model carried, and hookdex's own hook log.
//!
//! Every check must fail against a hook that does nothing and against one
//! that denies everything; the suite runs both controls to prove it.

use serde_json::Value;

use crate::harnesses::{Client, Run};
use crate::server::Request;
use crate::world::World;

/// What one harness run showed.
pub struct Seen<'w> {
    /// The world it ran in.
    pub world: &'w World,
    /// The client process.
    pub run: Run,
    /// Every request the model server got.
    pub requests: Vec<Request>,
}

impl Seen<'_> {
    /// The last tool result the model got, and that request's whole body.
    fn tool_result(&self) -> Result<(String, String), String> {
        self.requests
            .iter()
            .rev()
            .find_map(|r| {
                let text = crate::server::tool_result_text(&r.body)?;
                Some((text, r.body.to_string()))
            })
            .ok_or_else(|| {
                let paths: Vec<&str> = self.requests.iter().map(|r| r.path.as_str()).collect();
                format!(
                    "the model never got a tool result (requests {paths:?}; exit {:?}; stdout: {}; stderr: {})",
                    self.run.exit,
                    tail(&self.run.stdout),
                    tail(&self.run.stderr)
                )
            })
    }

    /// The request that carried the tool result contains `text`.
    fn model_got(&self, text: &str) -> Result<(), String> {
        let (result, body) = self.tool_result()?;
        if body.contains(text) {
            Ok(())
        } else {
            Err(format!(
                "the model was not told {text:?}; its tool result: {result:?}"
            ))
        }
    }

    /// The tool result the model got does not contain `text` (the rest of
    /// the request repeats the model's own command).
    fn result_lacks(&self, text: &str) -> Result<(), String> {
        let (result, _) = self.tool_result()?;
        if result.contains(text) {
            Err(format!("the model's tool result has {text:?}: {result:?}"))
        } else {
            Ok(())
        }
    }

    /// The request that carried the tool result does not contain `text`.
    fn request_lacks(&self, text: &str) -> Result<(), String> {
        let (result, body) = self.tool_result()?;
        match body.find(text) {
            Some(at) => Err(format!(
                "the model got {text:?} (…{}…); its tool result: {result:?}",
                body.get(at.saturating_sub(80)..(at + 80).min(body.len()))
                    .unwrap_or(text)
            )),
            None => Ok(()),
        }
    }

    /// Some request the model got (the first carries the person's prompt)
    /// contains `text`.
    fn any_request_has(&self, text: &str) -> Result<(), String> {
        if self
            .requests
            .iter()
            .any(|r| r.body.to_string().contains(text))
        {
            Ok(())
        } else {
            Err(format!(
                "no request to the model had {text:?} ({} requests)",
                self.requests.len()
            ))
        }
    }

    fn ran(&self, marker: &str) -> Result<(), String> {
        if self.world.ran(marker) {
            Ok(())
        } else {
            Err(format!("the command did not run ({marker} is missing)"))
        }
    }

    fn did_not_run(&self, marker: &str) -> Result<(), String> {
        if self.world.ran(marker) {
            Err(format!("the command ran ({marker} exists)"))
        } else {
            Ok(())
        }
    }

    /// The person running the session was shown `text`, where the client
    /// shows hook messages headless: Claude Code's stream-json `system`
    /// messages, Gemini CLI's "Hook system message" on stderr. Codex 0.171.0
    /// `exec --json` has no item for them, and Copilot CLI no channel.
    fn user_saw(&self, client: Client, text: &str) -> Result<(), String> {
        if matches!(client, Client::Codex | Client::Copilot) {
            return Ok(());
        }
        let shown = match client {
            Client::Claude => self
                .run
                .stdout
                .lines()
                .any(|l| l.contains("\"type\":\"system\"") && l.contains(text)),
            _ => self
                .run
                .stderr
                .lines()
                .any(|l| l.starts_with("Hook system message:") && l.contains(text)),
        };
        if shown {
            Ok(())
        } else {
            Err(format!("the person was not shown {text:?}"))
        }
    }

    fn finished(&self) -> Result<(), String> {
        match self.run.exit {
            Some(_) => Ok(()),
            None => Err("the harness was still running at the deadline".into()),
        }
    }

    /// hookdex's hook log has a note containing `text`.
    fn logged(&self, text: &str) -> Result<(), String> {
        let log = self.world.hook_log();
        let found = log.iter().any(|line| {
            line.get("notes")
                .and_then(Value::as_array)
                .is_some_and(|notes| {
                    notes
                        .iter()
                        .any(|n| n.as_str().is_some_and(|n| n.contains(text)))
                })
        });
        if found {
            Ok(())
        } else {
            Err(format!(
                "the hook log has no note containing {text:?}: {log:?}"
            ))
        }
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
}

/// One scenario.
pub struct Scenario {
    /// Its name (also in the scratch directory's name).
    pub name: &'static str,
    /// The shell command the model asks for, run in the work directory.
    pub command: &'static str,
    /// Rule files for the runtime layer: (file name, body).
    pub rules: &'static [(&'static str, &'static str)],
    /// Arguments for `hookdex init` beyond `--target` (none: user scope).
    pub init: &'static [&'static str],
    /// Extra environment for the client and `init`.
    pub env: &'static [(&'static str, &'static str)],
    /// A shell snippet standing between the harness and hookdex (`$HOOKDEX`
    /// is the real binary).
    pub wrap: Option<&'static str>,
    /// What must have happened.
    pub check: fn(Client, &Seen) -> Result<(), String>,
}

/// The command of most scenarios: it marks that it ran and prints a line.
const COMMAND: &str = "echo conformance-original > ran-original; echo conformance-output";

const DENY: &str = "#!/bin/sh\necho '{\"decision\": \"deny\", \"reason\": \"CONF-DENY-REASON: echo is not allowed here\"}'\n";
const PRE_CONTEXT: &str = "#!/bin/sh\necho 'CONF-PRE-CONTEXT from a pre rule'\n";
const POST_CONTEXT: &str = "#!/bin/sh\necho 'CONF-POST-CONTEXT from a post rule'\n";

/// A stub `kubectl` that marks that it ran, first on PATH; made by the
/// command itself, so the text shows no `kubectl` program.
macro_rules! stub {
    () => {
        "mkdir -p stub && printf '#!/bin/sh\\necho \"$*\" >> kubectl-ran\\n' > stub/kubectl && chmod +x stub/kubectl && export PATH=\"$PWD/stub:$PATH\""
    };
}

/// kubectl hidden behind a variable, where the command text cannot see it.
const GUARD_HIDDEN: &str = concat!(
    stub!(),
    "; c=xubectl; ${c/x/k} delete pod x; echo guard-done"
);

/// kubectl run by make, from a Makefile the command writes.
const GUARD_MAKE: &str = concat!(
    stub!(),
    "; printf 'all:\\n\\tkubectl delete pod y\\n' > Makefile; make -s; echo guard-done"
);

/// The guard's check: kubectl did not run, the rest of the command did,
/// and the model got the rule's reason.
fn guarded(_: Client, seen: &Seen) -> Result<(), String> {
    seen.did_not_run("kubectl-ran")?;
    seen.model_got("guard-done")?;
    seen.model_got("hookdex: pre-bash.kubectl-readonly.sh: kubectl is read-only here")
}

/// Denies `kubectl delete`, at the hook and when kubectl runs.
const KUBECTL_READONLY: &str = "#!/bin/sh\nif grep -q 'kubectl delete'; then echo 'kubectl is read-only here' >&2; exit 2; fi\nexit 0\n";

/// Why `client` cannot show `scenario` at all, when it cannot: the event
/// never reaches a hook there, so no check could tell hookdex from a
/// control.
pub fn not_shown(client: Client, scenario: &str) -> Option<&'static str> {
    match (client, scenario) {
        // Seen with a wrapper recording every call: `codex exec` 0.171.0
        // runs the PreToolUse and PostToolUse hooks and no other, though
        // `init` wires UserPromptSubmit and Stop and trusts them.
        (Client::Codex, "prompt-context" | "stop-block") => {
            Some("codex exec 0.171.0 sends no UserPromptSubmit or Stop hook")
        }
        (Client::Claude | Client::Codex | Client::Gemini, "project-trust") => {
            Some("the scenario proves Copilot CLI's folder trust")
        }
        _ => None,
    }
}

/// The repository's hooks with no folder trust recorded: the deny rule's
/// command runs, and its reason never reaches the model.
pub fn untrusted_project() -> Scenario {
    Scenario {
        name: "project-untrusted",
        command: COMMAND,
        rules: &[("pre-bash.echo-deny.sh", DENY)],
        init: &["--scope", "project", "--no-trust"],
        env: &[],
        wrap: None,
        check: |_, seen| {
            seen.ran("ran-original")?;
            seen.model_got("conformance-output")?;
            seen.request_lacks("CONF-DENY-REASON")
        },
    }
}

/// Every scenario.
pub fn all() -> Vec<Scenario> {
    vec![
        Scenario {
            // The repository's hooks (`init --scope project`, which records
            // the folder as trusted) run `hookdex` from PATH, and hold.
            name: "project-trust",
            command: COMMAND,
            rules: &[("pre-bash.echo-deny.sh", DENY)],
            init: &["--scope", "project"],
            env: &[],
            wrap: None,
            check: |_, seen| {
                seen.did_not_run("ran-original")?;
                seen.model_got("CONF-DENY-REASON")
            },
        },
        Scenario {
            name: "deny",
            command: COMMAND,
            rules: &[("pre-bash.echo-deny.sh", DENY)],
            init: &[],
            env: &[],
            wrap: None,
            check: |_, seen| {
                seen.did_not_run("ran-original")?;
                seen.model_got("CONF-DENY-REASON")
            },
        },
        Scenario {
            name: "rewrite",
            command: COMMAND,
            rules: &[(
                "pre-bash.echo-rewrite.sh",
                "#!/bin/sh\necho '{\"decision\": \"allow\", \"tool_input\": {\"command\": \"echo conformance-rewritten > ran-rewritten; echo conformance-rewritten-output\"}}'\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |client, seen| {
                seen.ran("ran-rewritten")?;
                seen.did_not_run("ran-original")?;
                seen.model_got("conformance-rewritten-output")?;
                if has_pre_context(client) {
                    seen.model_got("input was rewritten")?;
                }
                Ok(())
            },
        },
        Scenario {
            name: "context",
            command: COMMAND,
            rules: &[
                ("pre-bash.echo-note.sh", PRE_CONTEXT),
                ("post-bash.echo-note.sh", POST_CONTEXT),
            ],
            init: &[],
            env: &[],
            wrap: None,
            check: |client, seen| {
                seen.ran("ran-original")?;
                seen.model_got("conformance-output")?;
                seen.model_got("CONF-POST-CONTEXT")?;
                if has_pre_context(client) {
                    seen.model_got("CONF-PRE-CONTEXT")?;
                }
                Ok(())
            },
        },
        Scenario {
            // UserPromptSubmit is wired by `init` on every harness: its
            // context reaches the model where the harness reads it, and the
            // rule runs (the log says the context had no channel) where not.
            name: "prompt-context",
            command: COMMAND,
            rules: &[(
                "prompt-note.sh",
                "#!/bin/sh\necho 'CONF-PROMPT-CONTEXT from a prompt rule'\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |client, seen| {
                seen.ran("ran-original")?;
                match client {
                    Client::Copilot => seen.logged("CONF-PROMPT-CONTEXT"),
                    _ => seen.any_request_has("CONF-PROMPT-CONTEXT"),
                }
            },
        },
        Scenario {
            // A Stop rule blocks the first stop: the harness goes on, and
            // the model is told why.
            name: "stop-block",
            command: COMMAND,
            rules: &[(
                "stop-once.sh",
                "#!/bin/sh\n[ -e \"$HOME/stopped-once\" ] && exit 0\ntouch \"$HOME/stopped-once\"\necho 'CONF-STOP-REASON: run the tests before you finish' >&2\nexit 2\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |_, seen| {
                seen.ran("ran-original")?;
                seen.any_request_has("CONF-STOP-REASON")
            },
        },
        Scenario {
            name: "post-block",
            command: COMMAND,
            rules: &[(
                "post-bash.echo-block.sh",
                "#!/bin/sh\necho 'CONF-BLOCK-REASON: that output is not for you' >&2\nexit 2\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |client, seen| {
                seen.ran("ran-original")?;
                seen.model_got("CONF-BLOCK-REASON")?;
                // Claude Code keeps the output in front of the model on a
                // block; the others withhold it.
                if client != Client::Claude {
                    seen.result_lacks("conformance-output")?;
                }
                Ok(())
            },
        },
        Scenario {
            name: "replace-output",
            command: COMMAND,
            rules: &[(
                "post-bash.echo-replace.sh",
                "#!/bin/sh\necho '{\"tool_output\": \"CONF-REPLACED output\"}'\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |_, seen| {
                seen.ran("ran-original")?;
                seen.model_got("CONF-REPLACED")?;
                seen.result_lacks("conformance-output")
            },
        },
        Scenario {
            name: "guard-hidden",
            command: GUARD_HIDDEN,
            rules: &[("pre-bash.kubectl-readonly.sh", KUBECTL_READONLY)],
            init: &[],
            env: &[("HOOKDEX_ENFORCE", "auto")],
            wrap: None,
            check: guarded,
        },
        Scenario {
            name: "guard-make",
            command: GUARD_MAKE,
            rules: &[("pre-bash.kubectl-readonly.sh", KUBECTL_READONLY)],
            init: &[],
            env: &[("HOOKDEX_ENFORCE", "auto")],
            wrap: None,
            check: guarded,
        },
        Scenario {
            name: "nothing-fires",
            command: COMMAND,
            rules: &[("pre-bash.kubectl-deny.sh", DENY)],
            init: &[],
            env: &[],
            wrap: None,
            check: |_, seen| {
                seen.ran("ran-original")?;
                seen.model_got("conformance-output")?;
                seen.result_lacks("hookdex")?;
                seen.request_lacks("hookdex:")?;
                seen.request_lacks("CONF-")?;
                if !seen.world.hook_log().is_empty() {
                    return Err(format!("the hook log has lines: {:?}", seen.world.hook_log()));
                }
                if !seen.world.index_built() {
                    return Err("no index was built: hookdex never ran".into());
                }
                Ok(())
            },
        },
        Scenario {
            name: "ask",
            command: COMMAND,
            rules: &[(
                "pre-bash.echo-ask.sh",
                "#!/bin/sh\necho '{\"decision\": \"ask\", \"reason\": \"CONF-ASK-REASON: please confirm\"}'\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |_, seen| {
                seen.finished()?;
                seen.did_not_run("ran-original")?;
                seen.model_got("CONF-ASK-REASON")
            },
        },
        Scenario {
            name: "failed-command",
            command: "echo conformance-output; exit 3",
            rules: &[(
                "post-bash.echo-note.sh",
                "#!/bin/sh\necho 'CONF-FAILED-CONTEXT: the post rule saw the failure'\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |_, seen| seen.model_got("CONF-FAILED-CONTEXT"),
        },
        Scenario {
            name: "crashing-rule",
            command: COMMAND,
            rules: &[(
                "pre-bash.echo-crash.sh",
                "#!/bin/sh\necho 'Traceback: CONF-CRASH' >&2\nexit 1\n",
            )],
            init: &[],
            env: &[],
            wrap: None,
            check: |client, seen| {
                seen.ran("ran-original")?;
                seen.model_got("conformance-output")?;
                seen.user_saw(client, "condition pre-bash.echo-crash.sh skipped")?;
                seen.logged("echo-crash.sh")
            },
        },
        Scenario {
            name: "hanging-rule",
            command: COMMAND,
            rules: &[("pre-bash.echo-hang.sh", "#!/bin/sh\nsleep 30\n")],
            init: &[],
            env: &[("CONDITIONS_TIMEOUT_SEC", "2")],
            wrap: None,
            check: |client, seen| {
                seen.ran("ran-original")?;
                seen.model_got("conformance-output")?;
                seen.user_saw(client, "timed out")?;
                seen.logged("timed out")
            },
        },
        Scenario {
            name: "unwritable-cache",
            command: COMMAND,
            rules: &[("post-bash.echo-note.sh", POST_CONTEXT)],
            // A regular file where the cache's parent should be: not even
            // root can create the cache.
            init: &[],
            env: &[("HOOKDEX_CACHE_DIR", "/dev/null/hookdex-cache")],
            wrap: None,
            check: |_, seen| {
                seen.ran("ran-original")?;
                seen.model_got("conformance-output")?;
                seen.model_got("CONF-POST-CONTEXT")
            },
        },
        Scenario {
            name: "usage-error",
            command: COMMAND,
            rules: &[("pre-bash.echo-deny.sh", DENY)],
            init: &[],
            env: &[],
            wrap: Some("exec \"$HOOKDEX\" \"$@\" --frobnicate"),
            check: |client, seen| {
                seen.ran("ran-original")?;
                seen.model_got("conformance-output")?;
                seen.user_saw(client, "hook command is broken")?;
                seen.logged("--frobnicate")
            },
        },
        Scenario {
            name: "bad-payload",
            command: COMMAND,
            rules: &[("pre-bash.echo-deny.sh", DENY)],
            init: &[],
            env: &[],
            wrap: Some("head -c 16 | \"$HOOKDEX\" \"$@\""),
            check: |client, seen| {
                seen.ran("ran-original")?;
                seen.model_got("conformance-output")?;
                seen.user_saw(client, "could not read this call")?;
                seen.logged("payload ignored")
            },
        },
    ]
}

/// Whether the harness has a pre-tool context channel hookdex uses.
fn has_pre_context(client: Client) -> bool {
    client != Client::Gemini
}
