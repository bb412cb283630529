//! The vocabulary shared by the compiler and the runtime: steps, rule kinds,
//! runners and layer kinds, with their stable on-disk codes.

/// The hook step a rule runs at (the part of a filename before the first `-`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// `pre`: PreToolUse.
    Pre,
    /// `post`: PostToolUse.
    Post,
    /// `fail`: PostToolUseFailure.
    Fail,
    /// `permission`: PermissionRequest.
    Permission,
    /// `start`: SessionStart.
    Start,
    /// `end`: SessionEnd.
    End,
    /// `substart`: SubagentStart.
    Substart,
    /// `substop`: SubagentStop.
    Substop,
    /// `compact`: PreCompact.
    Compact,
    /// `notify`: Notification.
    Notify,
    /// `prompt`: UserPromptSubmit (no matcher).
    Prompt,
    /// `stop`: Stop (no matcher).
    Stop,
}

impl Step {
    /// Every step, in code order.
    pub const ALL: [Step; 12] = [
        Step::Pre,
        Step::Post,
        Step::Fail,
        Step::Permission,
        Step::Start,
        Step::End,
        Step::Substart,
        Step::Substop,
        Step::Compact,
        Step::Notify,
        Step::Prompt,
        Step::Stop,
    ];

    /// The filename token of this step.
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Pre => "pre",
            Step::Post => "post",
            Step::Fail => "fail",
            Step::Permission => "permission",
            Step::Start => "start",
            Step::End => "end",
            Step::Substart => "substart",
            Step::Substop => "substop",
            Step::Compact => "compact",
            Step::Notify => "notify",
            Step::Prompt => "prompt",
            Step::Stop => "stop",
        }
    }

    /// The step named by a filename token, case-insensitively.
    pub fn parse(token: &str) -> Option<Step> {
        Step::ALL
            .into_iter()
            .find(|step| step.as_str().eq_ignore_ascii_case(token))
    }

    /// The Claude Code event name this step answers.
    pub fn event(self) -> &'static str {
        match self {
            Step::Pre => "PreToolUse",
            Step::Post => "PostToolUse",
            Step::Fail => "PostToolUseFailure",
            Step::Permission => "PermissionRequest",
            Step::Start => "SessionStart",
            Step::End => "SessionEnd",
            Step::Substart => "SubagentStart",
            Step::Substop => "SubagentStop",
            Step::Compact => "PreCompact",
            Step::Notify => "Notification",
            Step::Prompt => "UserPromptSubmit",
            Step::Stop => "Stop",
        }
    }

    /// Whether filenames of this step carry a matcher (`prompt` and `stop` do not).
    pub fn has_matcher(self) -> bool {
        !matches!(self, Step::Prompt | Step::Stop)
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

/// What a rule file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// A script run as a process (agentihooks condition contract).
    Condition,
    /// A `.filter.yaml` text filter, run inside the hook process.
    Filter,
}

impl RuleKind {
    /// The name used in `list` and `explain` output.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Condition => "condition",
            RuleKind::Filter => "filter",
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
            _ => None,
        }
    }
}

/// Which kind of layer a directory of rules is; the order is the priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerKind {
    /// Rules embedded in the binary.
    Package,
    /// `<bundle>/.claude/conditions/`.
    Bundle,
    /// `<profile>/.claude/conditions/`, one per profile of the chain.
    Profile,
    /// `$HOOKDEX_HOME/conditions/`.
    Runtime,
    /// The repository's own rules; runs only when the repository is trusted.
    Directory,
    /// `$HOOKDEX_MANAGED_DIR/conditions/`; nothing overrides it.
    Managed,
}

impl LayerKind {
    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind stored under `code`.
    pub fn from_code(code: u8) -> Option<LayerKind> {
        [
            LayerKind::Package,
            LayerKind::Bundle,
            LayerKind::Profile,
            LayerKind::Runtime,
            LayerKind::Directory,
            LayerKind::Managed,
        ]
        .get(usize::from(code))
        .copied()
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
        for step in Step::ALL {
            assert_eq!(Step::from_code(step.code()), Some(step));
            assert_eq!(Step::parse(step.as_str()), Some(step));
        }
        assert_eq!(Step::parse("PRE"), Some(Step::Pre));
        assert_eq!(Step::parse("preflight"), None);
        for code in 0..6 {
            assert_eq!(LayerKind::from_code(code).unwrap().code(), code);
        }
        assert_eq!(LayerKind::from_code(6), None);
        assert_eq!(
            Runner::from_code(Runner::Direct.code()),
            Some(Runner::Direct)
        );
        assert_eq!(RuleKind::from_code(2), None);
    }
}
