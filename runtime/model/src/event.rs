//! Lifecycle events and the rule-file steps that answer them.
//!
//! An [`Event`] is what happened in the harness, named as Claude Code names
//! it; each harness module maps its own spelling onto these. A [`Step`] is
//! the filename token a rule is written for (`pre-…`, `stop-…`).

use std::str::FromStr;

use crate::error::{Error, ErrorKind};

/// Declares `Event` and `Step` from one table, so the two cannot drift:
/// (event, Claude's name, step, step token, the payload field its matcher
/// reads); then the events that answer to a step of the table without
/// being its own event (PostCompact runs the `compact` rules).
macro_rules! lifecycle {
    ($( $event:ident $name:literal => $step:ident $token:literal $field:expr; )*
     ; $( $more:ident $more_name:literal => $more_step:ident $more_field:expr; )*) => {
        /// A lifecycle event of an agent session.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Event {
            $(
                #[doc = concat!("`", $name, "`.")]
                $event,
            )*
            $(
                #[doc = concat!("`", $more_name, "`.")]
                $more,
            )*
        }

        /// The hook step a rule runs at (the part of a filename before the first `-`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Step {
            $(
                #[doc = concat!("`", $token, "`: ", $name, ".")]
                $step,
            )*
        }

        impl Event {
            /// Every event, in code order.
            pub const ALL: &'static [Event] = &[$(Event::$event,)* $(Event::$more,)*];

            /// The event's name (Claude Code's spelling, which scripts see).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Event::$event => $name,)*
                    $(Event::$more => $more_name,)*
                }
            }

            /// The step whose rules answer this event.
            pub fn step(self) -> Step {
                match self {
                    $(Event::$event => Step::$step,)*
                    $(Event::$more => Step::$more_step,)*
                }
            }

            /// The payload field an event step's matcher is compared with
            /// (`source` of SessionStart, …); `None` for tool events, which
            /// match the tool name, and for events without a matcher.
            pub fn matched_field(self) -> Option<&'static str> {
                match self {
                    $(Event::$event => $field,)*
                    $(Event::$more => $more_field,)*
                }
            }
        }

        impl Step {
            /// Every step, in code order.
            pub const ALL: &'static [Step] = &[$(Step::$step),*];

            /// The filename token of this step.
            pub fn as_str(self) -> &'static str {
                match self { $(Step::$step => $token,)* }
            }

            /// The event this step answers.
            pub fn event(self) -> Event {
                match self { $(Step::$step => Event::$event,)* }
            }
        }
    };
}

lifecycle! {
    PreToolUse "PreToolUse" => Pre "pre" None;
    PostToolUse "PostToolUse" => Post "post" None;
    PostToolUseFailure "PostToolUseFailure" => Fail "fail" None;
    PermissionRequest "PermissionRequest" => Permission "permission" None;
    SessionStart "SessionStart" => Start "start" Some("source");
    SessionEnd "SessionEnd" => End "end" Some("reason");
    SubagentStart "SubagentStart" => Substart "substart" Some("agent_type");
    SubagentStop "SubagentStop" => Substop "substop" Some("agent_type");
    PreCompact "PreCompact" => Compact "compact" Some("trigger");
    Notification "Notification" => Notify "notify" Some("notification_type");
    UserPromptSubmit "UserPromptSubmit" => Prompt "prompt" None;
    Stop "Stop" => Stop "stop" None;
    ;
    PostCompact "PostCompact" => Compact Some("trigger");
}

impl Event {
    /// The event named `name` in Claude Code's spelling.
    pub fn from_name(name: &str) -> Option<Event> {
        Event::ALL.iter().copied().find(|e| e.as_str() == name)
    }

    /// Whether the event is about one tool call (its matcher reads the tool name).
    pub fn is_tool_event(self) -> bool {
        matches!(
            self.step(),
            Step::Pre | Step::Post | Step::Fail | Step::Permission
        )
    }

    /// Whether the harness only reports the event: a rule there may act
    /// (log, notify, back up) but its decision, block, rewrite or context
    /// is never sent (SPEC §9: Notification, SessionEnd, PreCompact,
    /// PostCompact, SubagentStart and SubagentStop never block).
    pub fn observe_only(self) -> bool {
        matches!(
            self,
            Event::Notification
                | Event::SessionEnd
                | Event::PreCompact
                | Event::PostCompact
                | Event::SubagentStart
                | Event::SubagentStop
        )
    }

    /// The steps whose rules run on this event, in order: its own step,
    /// and for a failed tool call (Claude Code's `PostToolUseFailure`) the
    /// `post` rules too, since a failed command ran all the same; a `post`
    /// rule that wants only successes reads `AH_EVENT`, and a `fail` rule
    /// sees only failures.
    pub fn rule_steps(self) -> &'static [Step] {
        match self.step() {
            Step::Fail => &[Step::Post, Step::Fail],
            step => std::slice::from_ref(&Step::ALL[usize::from(step.code())]),
        }
    }
}

impl Step {
    /// Whether filenames of this step carry a matcher (`prompt` and `stop` do not).
    pub fn has_matcher(self) -> bool {
        !matches!(self, Step::Prompt | Step::Stop)
    }

    /// Whether a condition's exit 2 at this step is a permission decision
    /// (deny) rather than a block after the fact.
    pub fn decides_permission(self) -> bool {
        matches!(self, Step::Pre | Step::Permission)
    }

    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The step stored under `code`.
    pub fn from_code(code: u8) -> Option<Step> {
        Step::ALL.get(usize::from(code)).copied()
    }
}

impl FromStr for Step {
    type Err = Error;

    /// The step named by a filename token, case-insensitively.
    fn from_str(token: &str) -> Result<Step, Error> {
        Step::ALL
            .iter()
            .copied()
            .find(|step| step.as_str().eq_ignore_ascii_case(token))
            .ok_or_else(|| {
                let names = Step::ALL.iter().map(|s| s.as_str());
                Error::new(ErrorKind::UnknownStep, token, names)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for &step in Step::ALL {
            assert_eq!(Step::from_code(step.code()), Some(step));
            assert_eq!(step.as_str().parse::<Step>(), Ok(step));
            assert_eq!(step.event().step(), step);
            assert_eq!(Event::from_name(step.event().as_str()), Some(step.event()));
        }
        assert_eq!("PRE".parse::<Step>(), Ok(Step::Pre));
        let err = "preflight".parse::<Step>().unwrap_err().to_string();
        assert!(
            err.starts_with("unknown step `preflight`: expected one of pre, post"),
            "{err}"
        );
        assert_eq!(Event::SessionStart.matched_field(), Some("source"));
        assert!(Event::PostToolUseFailure.is_tool_event());
        assert!(!Event::Stop.is_tool_event());
    }
}
