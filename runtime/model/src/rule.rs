//! What a rule is and how it runs: rule kinds, runners, and the options of
//! a `.filter.yaml` rule, with their stable on-disk codes.

/// What a rule file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// A script run as a process (agentihooks condition contract).
    Condition,
    /// A `.filter.yaml` text filter, run inside the hook process.
    Filter,
    /// An `enforcements.json` entry: a message added as context on a
    /// cadence of matching calls, inside the hook process.
    Enforcement,
    /// A hook of a `hooks.yaml` group: a shell command (Claude Code's
    /// contract) or a prompt judged by the classifier.
    HooksYaml,
    /// A `HOOK.md` hook: its command run with the moltis contract.
    HookMd,
    /// A `.guard.yaml` declarative guard: a deny or ask on a program's
    /// subcommands, a file tool's paths or a tool's fields, decided inside
    /// the hook process (and the exec-time guard) with no script started.
    Guard,
}

impl RuleKind {
    /// The name used in `list` and `explain` output.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Condition => "condition",
            RuleKind::Filter => "filter",
            RuleKind::Enforcement => "enforcement",
            RuleKind::HooksYaml => "hook",
            RuleKind::HookMd => "hook",
            RuleKind::Guard => "guard",
        }
    }

    /// The rule format it was read from, as `list` and `explain` name it
    /// (**contract**, SPEC §9): `conditions`, `filter`, `hooks.yaml`,
    /// `HOOK.md`, `enforcement`, `guard`.
    pub fn format(self) -> &'static str {
        match self {
            RuleKind::Condition => "conditions",
            RuleKind::Filter => "filter",
            RuleKind::Enforcement => "enforcement",
            RuleKind::HooksYaml => "hooks.yaml",
            RuleKind::HookMd => "HOOK.md",
            RuleKind::Guard => "guard",
        }
    }

    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind stored under `code`.
    pub fn from_code(code: u8) -> Option<RuleKind> {
        match code {
            0 => Some(RuleKind::Condition),
            1 => Some(RuleKind::Filter),
            2 => Some(RuleKind::Enforcement),
            3 => Some(RuleKind::HooksYaml),
            4 => Some(RuleKind::HookMd),
            5 => Some(RuleKind::Guard),
            _ => None,
        }
    }
}

/// How a condition script is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// `.sh` and `.bash`: `bash FILE`.
    Bash,
    /// `.py`: `python3 FILE`.
    Python,
    /// Any other executable file: run directly (its shebang decides).
    Direct,
    /// Not a process (filters).
    None,
    /// A command line: `sh -c <command>` (hooks.yaml and `HOOK.md` hooks).
    Shell,
}

impl Runner {
    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The runner stored under `code`.
    pub fn from_code(code: u8) -> Option<Runner> {
        match code {
            0 => Some(Runner::Bash),
            1 => Some(Runner::Python),
            2 => Some(Runner::Direct),
            3 => Some(Runner::None),
            4 => Some(Runner::Shell),
            _ => None,
        }
    }

    /// The interpreter it starts by name (`bash`, `python3`, `sh`), or
    /// `None` when the file or nothing runs.
    pub fn program(self) -> Option<&'static str> {
        match self {
            Runner::Bash => Some("bash"),
            Runner::Python => Some("python3"),
            Runner::Shell => Some("sh"),
            Runner::Direct | Runner::None => None,
        }
    }
}

/// The absolute paths of the interpreters rules run with, found in system
/// locations when the index was compiled and recorded in it (`None`: none
/// was found there, and a rule that needs it does not run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interpreters {
    /// `bash`, for `.sh` and `.bash` rules.
    pub bash: Option<String>,
    /// `python3`, for `.py` rules.
    pub python: Option<String>,
    /// `sh`, for `hooks.yaml` and `HOOK.md` command lines.
    pub sh: Option<String>,
}

impl Interpreters {
    /// The recorded interpreter of `runner` (`None` for a runner that
    /// needs none, or when none was found).
    pub fn get(&self, runner: Runner) -> Option<&str> {
        match runner {
            Runner::Bash => self.bash.as_deref(),
            Runner::Python => self.python.as_deref(),
            Runner::Shell => self.sh.as_deref(),
            Runner::Direct | Runner::None => None,
        }
    }
}

/// A filter's `mode`: how findings are judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterMode {
    /// Findings stand without the classifier.
    Finders,
    /// Each whole text unit is one finding for the classifier.
    Classifier,
    /// Finders flag, the classifier confirms.
    #[default]
    Both,
}

/// A filter's `action` on confirmed findings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FilterAction {
    /// Deny with the findings listed.
    #[default]
    SendBack,
    /// Remove the spans and allow.
    Strip,
    /// Allow, noting the findings.
    Flag,
}

/// An input key a filter may limit its text to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterField {
    /// `text`.
    Text,
    /// `evidence`.
    Evidence,
    /// `case`.
    Case,
    /// `content`.
    Content,
    /// `new_string`.
    NewString,
    /// `new_source`.
    NewSource,
    /// `edits`.
    Edits,
}

impl FilterMode {
    /// The name a filter file spells it with.
    pub fn as_str(self) -> &'static str {
        match self {
            FilterMode::Finders => "finders",
            FilterMode::Classifier => "classifier",
            FilterMode::Both => "both",
        }
    }

    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The mode stored under `code`.
    pub fn from_code(code: u8) -> Option<FilterMode> {
        [
            FilterMode::Finders,
            FilterMode::Classifier,
            FilterMode::Both,
        ]
        .get(usize::from(code))
        .copied()
    }
}

impl FilterAction {
    /// The name a filter file spells it with.
    pub fn as_str(self) -> &'static str {
        match self {
            FilterAction::SendBack => "send-back",
            FilterAction::Strip => "strip",
            FilterAction::Flag => "flag",
        }
    }

    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The action stored under `code`.
    pub fn from_code(code: u8) -> Option<FilterAction> {
        [
            FilterAction::SendBack,
            FilterAction::Strip,
            FilterAction::Flag,
        ]
        .get(usize::from(code))
        .copied()
    }
}

impl FilterField {
    /// Every field, in bit order.
    pub const ALL: [FilterField; 7] = [
        FilterField::Text,
        FilterField::Evidence,
        FilterField::Case,
        FilterField::Content,
        FilterField::NewString,
        FilterField::NewSource,
        FilterField::Edits,
    ];

    /// The field's bit in a stored field set.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The input key.
    pub fn key(self) -> &'static str {
        match self {
            FilterField::Text => "text",
            FilterField::Evidence => "evidence",
            FilterField::Case => "case",
            FilterField::Content => "content",
            FilterField::NewString => "new_string",
            FilterField::NewSource => "new_source",
            FilterField::Edits => "edits",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        assert_eq!(
            Runner::from_code(Runner::Direct.code()),
            Some(Runner::Direct)
        );
        for kind in [
            RuleKind::Condition,
            RuleKind::Filter,
            RuleKind::Enforcement,
            RuleKind::HooksYaml,
            RuleKind::HookMd,
            RuleKind::Guard,
        ] {
            assert_eq!(RuleKind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(RuleKind::from_code(6), None);
        for mode in [
            FilterMode::Finders,
            FilterMode::Classifier,
            FilterMode::Both,
        ] {
            assert_eq!(FilterMode::from_code(mode.code()), Some(mode));
        }
    }
}
