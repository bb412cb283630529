//! Warnings about rules that parse but can never fire as their file name
//! suggests: a matcher alternative that names no tool of any harness, and a
//! name part written with `-`, which the filename grammar moves into the
//! matcher; and a rule that shadows a rule shipped in a lower layer
//! ([`shadowing`]). Computed for `list`, `compile --check` and `doctor`
//! only, never on the hook path.

use hookdex_harness::{known_tool, KnownTool};
use hookdex_index::{Index, Rule};
use hookdex_model::{Alternative, Step};

/// One warning about an active rule: it stays in the index and runs when it
/// matches; the warning is only advice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning<'a> {
    /// The rule's file.
    pub file: &'a str,
    /// What looks wrong and what to do, in one line.
    pub reason: String,
}

/// A warning about who else can change `path` (a layer folder or a rule
/// file): writable by group or others, or owned by a user other than this
/// one and root. `None` when only this user (or root) can change it, or it
/// cannot be read.
pub fn permission_warning(path: &str) -> Option<Warning<'_>> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    let me = hookdex_index::current_user();
    let reason =
        if meta.mode() & 0o022 != 0 {
            format!(
            "writable by {} (mode {:04o}): whoever has that access can change what these rules do",
            if meta.mode() & 0o002 != 0 { "anyone" } else { "its group" },
            meta.mode() & 0o7777
        )
        } else if meta.uid() != me && meta.uid() != 0 {
            format!(
                "owned by user {}, not by you: that user can change what these rules do",
                meta.uid()
            )
        } else {
            return None;
        };
    Some(Warning { file: path, reason })
}

/// The warnings about every rule of `index` that is not overridden, in
/// execution order, then one per rule that shadows a shipped rule.
///
/// # Errors
///
/// When the index is damaged.
pub fn warnings<'a>(index: &Index<'a>) -> Result<Vec<Warning<'a>>, hookdex_index::Error> {
    let mut out = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let rule = index.rule(id)?;
        if rule.overridden_by.is_none() {
            out.extend(rule_warnings(index, &rule)?);
        }
    }
    out.extend(shadowing(index)?.iter().map(Shadow::warning));
    Ok(out)
}

/// A rule that overrides a rule shipped in a lower layer (the package, a
/// bundle, a profile) by having the same key
/// ([`hookdex_model::LayerKind::shadows`]): the shipped rule does not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shadow<'a> {
    /// The rule that runs.
    pub file: &'a str,
    /// Its layer's label.
    pub layer: &'a str,
    /// The shipped rule it hides.
    pub shadows: &'a str,
    /// That rule's layer's label.
    pub shadowed_layer: &'a str,
    /// The key both share.
    pub key: &'a str,
}

impl<'a> Shadow<'a> {
    /// The warning `compile --check` prints for it.
    pub fn warning(&self) -> Warning<'a> {
        Warning {
            file: self.file,
            reason: format!(
                "overrides {} ({}) with the same key `{}`: that rule does not run; rename this \
                 file to run both, or delete it to run the {} rule",
                self.shadows, self.shadowed_layer, self.key, self.shadowed_layer
            ),
        }
    }
}

/// Every rule of `index` that shadows a shipped rule, in the shipped
/// rules' order.
///
/// # Errors
///
/// When the index is damaged.
pub fn shadowing<'a>(index: &Index<'a>) -> Result<Vec<Shadow<'a>>, hookdex_index::Error> {
    let mut out = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let hidden = index.rule(id)?;
        let Some(by) = hidden.overridden_by else {
            continue;
        };
        let by = index.rule(by)?;
        if by
            .layer_kind
            .shadows(by.layer, hidden.layer_kind, hidden.layer)
        {
            out.push(Shadow {
                file: by.file,
                layer: index.layer(usize::from(by.layer))?.label,
                shadows: hidden.file,
                shadowed_layer: index.layer(usize::from(hidden.layer))?.label,
                key: hidden.key,
            });
        }
    }
    Ok(out)
}

/// The warnings about one rule of `index`.
///
/// # Errors
///
/// When the rule's alternatives are damaged.
pub fn rule_warnings<'a>(
    index: &Index<'a>,
    rule: &Rule<'a>,
) -> Result<Vec<Warning<'a>>, hookdex_index::Error> {
    let alternatives = index.alternatives(rule)?;
    Ok(reasons(
        rule.file_name(),
        rule.step,
        rule.matcher,
        rule.name,
        &alternatives,
    )
    .into_iter()
    .map(|reason| Warning {
        file: rule.file,
        reason,
    })
    .collect())
}

/// A warning when `target` sends no event whose step `rule` is written
/// for: it never runs there (Codex has no Notification, Gemini no
/// PermissionRequest).
pub fn reach_warning<'a>(target: hookdex_model::Target, rule: &Rule<'a>) -> Option<Warning<'a>> {
    let harness = hookdex_harness::harness(target);
    if harness
        .sends()
        .iter()
        .any(|event| event.step() == rule.step)
    {
        return None;
    }
    Some(Warning {
        file: rule.file,
        reason: format!(
            "unreachable on {target}: it sends no {} event, so this {} rule never runs there",
            rule.step.event().as_str(),
            rule.step.as_str()
        ),
    })
}

/// The reasons for one rule, from what its file name parsed into.
fn reasons(
    file_name: &str,
    step: Step,
    matcher: &str,
    name: &str,
    alternatives: &[Alternative],
) -> Vec<String> {
    let mut out = Vec::new();
    let split = hyphen_split(file_name, step, matcher, name);
    let split_alternative = split.as_ref().map(|s| s.alternative.as_str());
    for alternative in alternatives {
        let Alternative::Name(tool) = alternative else {
            continue;
        };
        // The alternative the `-` warning explains gets that warning only.
        let mcp = hookdex_model::ToolName::new(tool.as_str()).is_mcp();
        if mcp || !step.event().is_tool_event() || split_alternative == Some(tool.as_str()) {
            continue;
        }
        let quoted = format!("matcher alternative \"{tool}\"");
        match known_tool(tool) {
            KnownTool::Tool => {}
            KnownTool::Raw { target, normalized } => out.push(format!(
                "{quoted} names no tool once normalized: it is {target}'s own name for \"{normalized}\", \
                 and matchers see \"{normalized}\""
            )),
            KnownTool::Unknown { nearest: Some(near) } => out.push(format!(
                "{quoted} names no tool of any harness (nearest: \"{near}\")"
            )),
            KnownTool::Unknown { nearest: None } => {
                out.push(format!("{quoted} names no tool of any harness"));
            }
        }
    }
    if let Some(split) = split {
        let unknown = step.event().is_tool_event()
            && !split.alternative.starts_with("bash.")
            && known_tool(&split.alternative) != KnownTool::Tool;
        let names_no_tool = if unknown {
            format!(
                "matcher alternative \"{}\" names no tool of any harness; ",
                split.alternative
            )
        } else {
            String::new()
        };
        out.push(format!(
            "{names_no_tool}the file name splits at its last \"-\" as matcher \"{matcher}\" + name \"{name}\"; \
             if the name part is meant to be \"{meant}\", rename the file to \"{renamed}\" \
             (a name part cannot hold \"-\" or \".\", use \"_\")",
            meant = split.meant_name,
            renamed = split.renamed,
        ));
    }
    out
}

/// A matcher whose last alternative holds a `-`: most likely a name part
/// written with `-`, since the name is only what follows the last `-`.
struct HyphenSplit {
    /// The last alternative as parsed (`bash-my`, `bash.git-push`).
    alternative: String,
    /// The name the file probably meant (`my-guard`).
    meant_name: String,
    /// The file name that says so (`pre-bash-my_guard.sh`).
    renamed: String,
}

/// The `-` split of a file name parsed as `step`, `matcher` and `name`, if
/// its matcher's last alternative holds a `-` and is not MCP (MCP server and
/// tool names hold `-` by right). `None` as well for a rule whose file name
/// is not `<step>-<matcher>-<name>…` (it came from another format).
fn hyphen_split(file_name: &str, step: Step, matcher: &str, name: &str) -> Option<HyphenSplit> {
    if !step.has_matcher() {
        return None;
    }
    let last = matcher.rsplit('+').next()?;
    let cut = last.find('-')?;
    if last.starts_with("mcp") {
        return None;
    }
    let start = step.as_str().len() + 1;
    let name_at = start + matcher.len() + 1;
    let written = file_name.get(..name_at + name.len())?;
    let expected = format!("{}-{matcher}-{name}", step.as_str());
    if !written.eq_ignore_ascii_case(&expected) {
        return None;
    }
    // Keep the first `-` of the last alternative as the separator; every
    // later `-` up to the name becomes `_`. Matchers are ASCII, so byte
    // offsets in the lowercased matcher hold in the file name.
    let keep = start + (matcher.len() - last.len()) + cut;
    let head = &file_name[..=keep];
    let moved = file_name[keep + 1..name_at].replace('-', "_");
    let renamed = format!("{head}{moved}{}", &file_name[name_at..]);
    let meant_name = format!("{}-{name}", &file_name[keep + 1..name_at - 1]);
    Some(HyphenSplit {
        alternative: last.to_string(),
        meant_name,
        renamed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookdex_compiler::formats::filename::{classify, FileClass};

    fn reasons_of(file: &str) -> Vec<String> {
        match classify(file) {
            FileClass::Rule(r) => reasons(file, r.step, &r.matcher, &r.name, &r.alternatives),
            other => panic!("{file}: {other:?}"),
        }
    }

    /// (file name, what the one warning says; "" for none)
    const CASES: &[(&str, &str)] = &[
        ("pre-bash-guard.sh", ""),
        ("PRE-Bash-Loud.SH", ""),
        ("pre-edit+write-migrations.sh", ""),
        ("pre-bash.git-guard.sh", ""),
        ("pre-bash.git-push_guard.sh", ""),
        ("pre-any-audit.sh", ""),
        ("pre-mcp-audit.sh", ""),
        ("post-mcp__gateway-tools-audit.async.sh", ""),
        ("pre-mcp__gw-tools__gh-create_pr-audit.py", ""),
        ("pre-edit+write+multiedit-ui.filter.yaml", ""),
        ("pre-ledger_write-plain_words.filter.yaml", ""),
        ("pre-inbox_send-no_ids.filter.yaml", ""),
        ("pre-judge-bias.filter.yaml", ""),
        (
            "pre-ledger_writes-plain.filter.yaml",
            "matcher alternative \"ledger_writes\" names no tool of any harness (nearest: \"ledger_write\")",
        ),
        ("start-startup-banner.sh", ""),
        ("prompt-remind.sh", ""),
        (
            "pre-bsh-typo.sh",
            "matcher alternative \"bsh\" names no tool of any harness (nearest: \"bash\")",
        ),
        (
            "pre-edit+wirte-x.sh",
            "matcher alternative \"wirte\" names no tool of any harness (nearest: \"write\")",
        ),
        (
            "pre-frobnicate-x.sh",
            "matcher alternative \"frobnicate\" names no tool of any harness",
        ),
        (
            "pre-run_shell_command-x.sh",
            "matcher alternative \"run_shell_command\" names no tool once normalized: \
             it is gemini's own name for \"bash\", and matchers see \"bash\"",
        ),
        (
            "pre-bash-my-guard.sh",
            "matcher alternative \"bash-my\" names no tool of any harness; the file name splits \
             at its last \"-\" as matcher \"bash-my\" + name \"guard\"; if the name part is meant \
             to be \"my-guard\", rename the file to \"pre-bash-my_guard.sh\" (a name part cannot \
             hold \"-\" or \".\", use \"_\")",
        ),
        (
            "pre-bash.git-push-guard.sh",
            "the file name splits at its last \"-\" as matcher \"bash.git-push\" + name \"guard\"; \
             if the name part is meant to be \"push-guard\", rename the file to \
             \"pre-bash.git-push_guard.sh\" (a name part cannot hold \"-\" or \".\", use \"_\")",
        ),
        (
            "Pre-Edit+Write-No-More-Tabs.async.sh",
            "matcher alternative \"write-no-more\" names no tool of any harness; the file name \
             splits at its last \"-\" as matcher \"edit+write-no-more\" + name \"Tabs\"; if the \
             name part is meant to be \"No-More-Tabs\", rename the file to \
             \"Pre-Edit+Write-No_More_Tabs.async.sh\" (a name part cannot hold \"-\" or \".\", \
             use \"_\")",
        ),
        // A program with `-` in it is warned about too: the grammar cannot
        // tell `docker-compose` from a name part written with `-`.
        (
            "pre-bash.docker-compose-guard.sh",
            "the file name splits at its last \"-\" as matcher \"bash.docker-compose\" + name \
             \"guard\"; if the name part is meant to be \"compose-guard\", rename the file to \
             \"pre-bash.docker-compose_guard.sh\" (a name part cannot hold \"-\" or \".\", use \"_\")",
        ),
        (
            "start-startup-my-banner.sh",
            "the file name splits at its last \"-\" as matcher \"startup-my\" + name \"banner\"; \
             if the name part is meant to be \"my-banner\", rename the file to \
             \"start-startup-my_banner.sh\" (a name part cannot hold \"-\" or \".\", use \"_\")",
        ),
    ];

    #[test]
    fn warnings_per_file_name() {
        for (file, want) in CASES {
            let got = reasons_of(file);
            let want: Vec<String> = if want.is_empty() {
                Vec::new()
            } else {
                vec![want.to_string()]
            };
            assert_eq!(got, want, "{file}");
        }
    }

    /// The renamed file parses as the matcher and name the warning says it means.
    #[test]
    fn the_suggested_name_parses_as_meant() {
        let cases = [
            ("pre-bash-my-guard.sh", "bash", "my_guard"),
            ("pre-bash.git-push-guard.sh", "bash.git", "push_guard"),
            ("pre-edit+write-a-b-c.sh", "edit+write", "a_b_c"),
        ];
        for (file, matcher, name) in cases {
            let FileClass::Rule(r) = classify(file) else {
                panic!("{file}")
            };
            let renamed = hyphen_split(file, r.step, &r.matcher, &r.name)
                .unwrap()
                .renamed;
            let FileClass::Rule(r) = classify(&renamed) else {
                panic!("{renamed}")
            };
            assert_eq!(
                (r.matcher.as_str(), r.name.as_str()),
                (matcher, name),
                "{renamed}"
            );
            assert!(reasons_of(&renamed).is_empty(), "{renamed}");
        }
    }
}
