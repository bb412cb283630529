//! Actions on the findings that stand. `send-back` denies the call with
//! `filter sent the text back:` and one `- "<span>": <reason>` line per
//! finding whose target is not at the round cap (a target at the cap
//! passes, its findings added as context). `flag` allows the call with the
//! findings as context under `filter flagged:`. `strip` cuts the spans out
//! through an input rewrite ([`Strip`] says whether the call can carry
//! one); where it cannot, or where nothing would be left, it sends back.

use std::collections::BTreeMap;
use std::ops::Range;

use hookdex_harness::{Ask, Capabilities};
use hookdex_model::{FilterAction, Permission};

use super::finders::Finding;
use super::rounds::Cap;
use super::text::{Cut, Unit};

/// The first line of a send-back's reason.
pub const SENT_BACK: &str = "filter sent the text back:";

/// The first line of a flag's context.
pub const FLAGGED: &str = "filter flagged:";

/// How a strip reaches the tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strip {
    /// As an input rewrite carried with this decision: `allow` in
    /// `bypassPermissions` (and for a synthetic tool's call site), else
    /// `ask`, since a rewrite outside `bypassPermissions` asks.
    Rewrite(Permission),
    /// Not at all; the filter sends the text back instead (the reason says why).
    SendBack(String),
}

impl Strip {
    /// How a strip reaches a tool call of a harness that can carry `caps`
    /// (`interactive`: `HOOKDEX_INTERACTIVE`), in `permission_mode`; a
    /// `batch` of calls takes no rewrite.
    pub fn for_call(
        caps: &Capabilities,
        interactive: bool,
        permission_mode: Option<&str>,
        batch: bool,
    ) -> Strip {
        if batch {
            return Strip::SendBack("a rewrite cannot apply to a batch of calls".into());
        }
        if permission_mode == Some("bypassPermissions") {
            return Strip::Rewrite(Permission::Allow);
        }
        let asks = match caps.ask {
            Ask::Yes => true,
            Ask::No => false,
            Ask::Interactive => interactive,
        };
        if asks && caps.rewrite_without_allow {
            Strip::Rewrite(Permission::Ask)
        } else {
            Strip::SendBack(
                "this harness cannot ask before a rewrite outside bypassPermissions".into(),
            )
        }
    }
}

/// What one filter's action did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Acted {
    /// Send-back lines, `- "<span>": <reason>`.
    pub sent_back: Vec<String>,
    /// Context for the agent.
    pub context: Vec<String>,
    /// The strip's cuts, with the decision it carries.
    pub strip: Option<(Vec<Cut>, Permission)>,
    /// Lines for the hook log.
    pub notes: Vec<String>,
    /// The targets whose round cap this call reached.
    pub capped: Vec<Capped>,
}

/// A target that passed flagged at its round cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capped {
    /// The target (a resolved file path, or a synthetic tool's text place).
    pub target: String,
    /// How many send-backs it had.
    pub rounds: u32,
    /// Its finding lines.
    pub findings: Vec<String>,
}

/// The finding lines of `findings` in `units`, once each.
fn lines<'f>(findings: impl IntoIterator<Item = &'f Finding>, units: &[Unit]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for finding in findings {
        let span = units[finding.unit]
            .text
            .get(finding.range.clone())
            .unwrap_or_default();
        let line = format!("- \"{span}\": {}", finding.reason);
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// Acts on `confirmed` (non-empty) findings of `units` as `action` says;
/// `targets` are the units' round targets.
pub fn act(
    action: FilterAction,
    strip: &Strip,
    confirmed: &[Finding],
    units: &[Unit],
    targets: &[String],
    cap: &Cap<'_>,
) -> Acted {
    let mut acted = Acted::default();
    match action {
        FilterAction::Flag => {
            acted.context.push(block(FLAGGED, &lines(confirmed, units)));
            return acted;
        }
        FilterAction::Strip => {
            let why = match (strip, cut(confirmed, units)) {
                (Strip::Rewrite(permission), Ok(cuts)) => {
                    acted.strip = Some((cuts, *permission));
                    return acted;
                }
                (Strip::SendBack(why), _) => why.clone(),
                (_, Err(why)) => why.to_string(),
            };
            acted.notes.push(format!("strip sent the text back: {why}"));
        }
        FilterAction::SendBack => {}
    }
    send_back(confirmed, units, targets, cap, &mut acted);
    acted
}

/// `head` and then `lines`, one per line.
fn block(head: &str, lines: &[String]) -> String {
    let mut text = head.to_string();
    for line in lines {
        text.push('\n');
        text.push_str(line);
    }
    text
}

/// A strip that would leave nothing of the text at `pointer`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct WouldEmpty {
    pointer: String,
}

impl std::fmt::Display for WouldEmpty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stripping would leave nothing of {}", self.pointer)
    }
}

/// The cuts that strip `findings` out of `units`, or the text they would
/// leave nothing of.
fn cut(findings: &[Finding], units: &[Unit]) -> Result<Vec<Cut>, WouldEmpty> {
    let mut spans: BTreeMap<usize, Vec<Range<usize>>> = BTreeMap::new();
    for finding in findings {
        spans
            .entry(finding.unit)
            .or_default()
            .push(finding.range.clone());
    }
    let mut cuts = Vec::new();
    for (at, mut ranges) in spans {
        ranges.sort_by_key(|r| (r.start, r.end));
        let mut merged: Vec<Range<usize>> = Vec::new();
        for range in ranges {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        let unit = &units[at];
        let (unit_cuts, left) = unit.strip(&merged);
        if left.trim().is_empty() {
            return Err(WouldEmpty {
                pointer: unit.pointer.clone(),
            });
        }
        cuts.extend(unit_cuts);
    }
    Ok(cuts)
}

/// Sends back the findings whose target is under the cap (counting a round
/// for each such target) and lets the others pass with their findings as
/// context.
fn send_back(
    findings: &[Finding],
    units: &[Unit],
    targets: &[String],
    cap: &Cap<'_>,
    acted: &mut Acted,
) {
    let mut by_target: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for finding in findings {
        by_target
            .entry(targets[finding.unit].as_str())
            .or_default()
            .push(finding);
    }
    // In the order the findings came, not the targets' sort order.
    let mut order: Vec<&str> = Vec::new();
    for finding in findings {
        let target = targets[finding.unit].as_str();
        if !order.contains(&target) {
            order.push(target);
        }
    }
    for target in order {
        let mine = &by_target[target];
        match cap.reached(target) {
            Some(rounds) => {
                let head = format!("filter flagged, passed after {rounds} send-backs:");
                let findings = lines(mine.iter().copied(), units);
                acted.context.push(block(&head, &findings));
                acted.notes.push(format!(
                    "filter flagged: round cap reached ({target}, {rounds} send-backs)"
                ));
                acted.capped.push(Capped {
                    target: target.to_string(),
                    rounds,
                    findings,
                });
            }
            None => {
                acted.sent_back.extend(lines(mine.iter().copied(), units));
                if let Err(err) = cap.sent_back(target) {
                    acted
                        .notes
                        .push(format!("the round of {target} was not counted: {err}"));
                }
            }
        }
    }
}

/// The reason a send-back denies with: [`SENT_BACK`] and its lines.
pub fn reason(lines: &[String]) -> String {
    block(SENT_BACK, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::text::Place;
    use crate::state::rounds::Rounds;
    use hookdex_model::FilterField;

    fn unit(text: &str, path: &str) -> Unit {
        Unit {
            field: FilterField::NewString,
            pointer: "/new_string".into(),
            place: Place::Whole,
            text: text.into(),
            path: Some(path.into()),
        }
    }

    fn finding(unit: usize, text: &str, span: &str, reason: &str) -> Finding {
        let start = text.find(span).unwrap();
        Finding {
            finder: Some(0),
            unit,
            range: start..start + span.len(),
            reason: reason.into(),
        }
    }

    #[test]
    fn each_action_and_the_cap() {
        let text = "x = 'seats; because'";
        let units = [unit(text, "/a.py")];
        let targets = ["/a.py".to_string()];
        let home = tempfile::tempdir().unwrap();
        let rounds = Rounds::new(home.path(), Some("s"));
        let cap = Cap {
            rounds: &rounds,
            filter: "f",
            max: 1,
        };
        let tail = [finding(0, text, "; because", "explanation tail")];
        let rewrite = Strip::Rewrite(Permission::Ask);
        let flagged = act(FilterAction::Flag, &rewrite, &tail, &units, &targets, &cap);
        assert_eq!(
            flagged.context,
            ["filter flagged:\n- \"; because\": explanation tail"]
        );
        let stripped = act(FilterAction::Strip, &rewrite, &tail, &units, &targets, &cap);
        let (cuts, permission) = stripped.strip.unwrap();
        assert_eq!(
            (cuts[0].with.as_str(), permission),
            ("x = 'seats'", Permission::Ask)
        );
        // Round one is sent back; at the cap the text passes, flagged.
        let sent = act(
            FilterAction::SendBack,
            &rewrite,
            &tail,
            &units,
            &targets,
            &cap,
        );
        assert_eq!(
            reason(&sent.sent_back),
            "filter sent the text back:\n- \"; because\": explanation tail"
        );
        let passed = act(
            FilterAction::SendBack,
            &rewrite,
            &tail,
            &units,
            &targets,
            &cap,
        );
        assert!(passed.sent_back.is_empty());
        assert_eq!(
            passed.context,
            ["filter flagged, passed after 1 send-backs:\n- \"; because\": explanation tail"]
        );
        assert!(passed.notes[0].starts_with("filter flagged: round cap reached"));
        // A strip where the harness cannot carry it, or that leaves nothing, sends back.
        cap.clean("/a.py");
        let cannot = Strip::SendBack("no rewrite here".into());
        let sent = act(FilterAction::Strip, &cannot, &tail, &units, &targets, &cap);
        assert_eq!(sent.sent_back.len(), 1);
        assert!(sent.notes[0].contains("no rewrite here"));
        cap.clean("/a.py");
        let all = [finding(0, text, text, "whole text")];
        let sent = act(FilterAction::Strip, &rewrite, &all, &units, &targets, &cap);
        assert!(sent.strip.is_none() && sent.notes[0].contains("leave nothing"));
    }

    #[test]
    fn strips_need_a_way_to_the_tool() {
        let caps = Capabilities::ALL;
        let codex = Capabilities {
            ask: Ask::No,
            rewrite_without_allow: false,
            ..Capabilities::ALL
        };
        let gemini = Capabilities {
            ask: Ask::Interactive,
            ..Capabilities::ALL
        };
        let bypass = Some("bypassPermissions");
        assert_eq!(
            Strip::for_call(&caps, false, None, false),
            Strip::Rewrite(Permission::Ask)
        );
        assert_eq!(
            Strip::for_call(&caps, false, bypass, false),
            Strip::Rewrite(Permission::Allow)
        );
        assert_eq!(
            Strip::for_call(&codex, false, bypass, false),
            Strip::Rewrite(Permission::Allow)
        );
        assert!(matches!(
            Strip::for_call(&codex, false, Some("default"), false),
            Strip::SendBack(_)
        ));
        assert!(matches!(
            Strip::for_call(&gemini, false, None, false),
            Strip::SendBack(_)
        ));
        assert_eq!(
            Strip::for_call(&gemini, true, None, false),
            Strip::Rewrite(Permission::Ask)
        );
        assert!(matches!(
            Strip::for_call(&caps, false, bypass, true),
            Strip::SendBack(_)
        ));
    }
}
