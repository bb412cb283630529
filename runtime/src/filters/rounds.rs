//! The round cap: a filter sends one target's text back at most
//! `max_rounds` times in a session; the next run lets it pass flagged. A
//! target is the file the text lands in, or for a text that lands in no
//! file (a synthetic tool's) the tool and the text's place in the input.
//! Sending the same text again counts as a round; a clean pass resets the
//! count. The counts themselves are [`crate::state::rounds`].

use std::path::Path;

use super::text::Unit;
use crate::state::rounds::Rounds;

/// One filter's rounds in one session.
pub struct Cap<'a> {
    /// The session's counters.
    pub rounds: &'a Rounds,
    /// The filter, by file name.
    pub filter: &'a str,
    /// Its `max_rounds`.
    pub max: u32,
}

impl Cap<'_> {
    /// How many times `target` was sent back, when that reached the cap.
    pub fn reached(&self, target: &str) -> Option<u32> {
        let count = self.rounds.count(self.filter, target);
        (count >= self.max).then_some(count)
    }

    /// Counts one more send-back of `target`.
    ///
    /// # Errors
    ///
    /// When the counter cannot be written.
    pub fn sent_back(&self, target: &str) -> std::io::Result<()> {
        let count = self.rounds.count(self.filter, target);
        self.rounds
            .set(self.filter, target, count.saturating_add(1))
    }

    /// A clean pass of `target`: its count starts again.
    pub fn clean(&self, target: &str) {
        self.rounds.reset(self.filter, target);
    }
}

/// The target of `unit` of a call of `tool` made in `cwd`: its file
/// (relative paths resolved against `cwd`, without touching the disk), or
/// `tool:<pointer>` when it lands in no file.
pub fn target(unit: &Unit, tool: &str, cwd: &Path) -> String {
    match &unit.path {
        Some(path) => cwd.join(path).display().to_string(),
        None => format!("{tool}:{}", unit.pointer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::text::Place;
    use hookdex_model::FilterField;

    #[test]
    fn targets_and_the_cap() {
        let unit = |path: Option<&str>| Unit {
            field: FilterField::Text,
            pointer: "/text".into(),
            place: Place::Whole,
            text: String::new(),
            path: path.map(String::from),
        };
        let cwd = Path::new("/repo");
        assert_eq!(
            target(&unit(Some("src/a.tsx")), "edit", cwd),
            "/repo/src/a.tsx"
        );
        assert_eq!(target(&unit(Some("/abs/a.py")), "edit", cwd), "/abs/a.py");
        assert_eq!(
            target(&unit(None), "ledger_write", cwd),
            "ledger_write:/text"
        );
        let home = tempfile::tempdir().unwrap();
        let rounds = Rounds::new(home.path(), Some("s"));
        let cap = Cap {
            rounds: &rounds,
            filter: "f",
            max: 2,
        };
        assert_eq!(cap.reached("t"), None);
        cap.sent_back("t").unwrap();
        assert_eq!(cap.reached("t"), None);
        cap.sent_back("t").unwrap();
        assert_eq!(cap.reached("t"), Some(2));
        cap.clean("t");
        assert_eq!(cap.reached("t"), None);
    }
}
