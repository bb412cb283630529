//! What a `hooks.yaml` or `HOOK.md` hook is once compiled: the part of it
//! the hook reads only when the rule fires (its command or prompt, its
//! timeout, the events it answers, its input matcher's texts and its
//! requirements). The compiler writes it into the index as a record beside
//! the rule (`hookdex_index::HookData`), read back field by field with no
//! parsing: it has no serialized form on purpose, so the hook path cannot
//! parse a hook's meaning; the matchers themselves are automata in the
//! index.

use crate::Event;

/// A hook of a `hooks.yaml` group or a `HOOK.md` folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookSpec {
    /// How `list`, `explain` and the log name it: `PreToolUse[0].hooks[1]`
    /// for a `hooks.yaml` hook, the front matter's `name` for `HOOK.md`.
    pub label: String,
    /// The line of its group (`hooks.yaml`) or of the front matter.
    pub line: u32,
    /// The events it answers, in Claude Code's spelling: a step's rules
    /// also run on a neighbour event (PostCompact runs `compact` rules,
    /// PostToolUseFailure `post` rules), and a hook runs on its own only.
    pub events: Vec<String>,
    /// The source's own name of its event (`BeforeToolCall`), sent to a
    /// `HOOK.md` handler as `event`.
    pub source_event: String,
    /// What it runs.
    pub action: HookAction,
    /// How long it may take, in milliseconds.
    pub timeout_ms: u64,
    /// Where it runs: the hook's folder (`HOOK.md`); `None` is the call's
    /// working directory.
    pub cwd: Option<String>,
    /// Variables added to its environment (`HOOK.md`'s `env` table).
    pub env: Vec<(String, String)>,
    /// The group's `matcher` as written (shown by `explain`).
    pub matcher: Option<String>,
    /// The group's `input_matcher`: every entry must match.
    pub input: Vec<InputPattern>,
    /// What must hold for it to run (`HOOK.md`'s `[requires]`).
    pub requires: Requires,
}

/// What a hook runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookAction {
    /// `sh -c <command>`.
    Command {
        /// The command line.
        command: String,
    },
    /// A rule judged by the classifier providers.
    Prompt {
        /// The rule.
        prompt: String,
        /// The model asked for, if the hook names one.
        model: Option<String>,
    },
}

impl Default for HookAction {
    fn default() -> HookAction {
        HookAction::Command {
            command: String::new(),
        }
    }
}

/// One `input_matcher` entry: a regex searched in the tool input's JSON
/// text, or in one field of it. Its automaton is pattern `n` of the rule's
/// input DFA, `n` its position here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputPattern {
    /// The dotted field path (`params.path`, `edits.0.new_string`); `None`
    /// searches the whole input.
    pub field: Option<String>,
    /// The regex as written.
    pub regex: String,
}

/// A `HOOK.md` hook's `[requires]`: it runs only where every one holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requires {
    /// Operating systems, in Rust's names (`linux`, `macos`); empty is any.
    pub os: Vec<String>,
    /// Programs that must be on `PATH`.
    pub bins: Vec<String>,
    /// Variables that must be set (an empty value counts).
    pub env: Vec<String>,
}

impl HookSpec {
    /// Whether it answers `event`.
    pub fn answers(&self, event: Event) -> bool {
        self.events.iter().any(|e| e == event.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::HookSpec;

    /// Resolves only when `T` has no serialized form: were it
    /// `Deserialize` (or `Serialize`), both impls would apply and the
    /// call below would not compile.
    trait NoSerializedForm<Marker> {
        fn check() {}
    }
    impl<T> NoSerializedForm<()> for T {}
    struct Readable;
    impl<T: serde::de::DeserializeOwned> NoSerializedForm<Readable> for T {}
    struct Writable;
    impl<T: serde::Serialize> NoSerializedForm<Writable> for T {}

    #[test]
    fn a_hook_spec_cannot_be_parsed_only_read_from_its_record() {
        <HookSpec as NoSerializedForm<_>>::check();
    }
}
