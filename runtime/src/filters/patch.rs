//! Codex's `apply_patch` body (`*** Begin Patch` … `*** End Patch`, the
//! form Codex sends in `tool_input.command`): the lines each file of the
//! patch adds, with where they sit in the patch text, so a filter reads
//! what the patch writes and a strip can rewrite those lines in place.
//!
//! Only what lands is read: `+` lines of `*** Add File:` and `*** Update
//! File:` sections (an update that moves the file lands at its `*** Move
//! to:` path). Removed and context lines, deleted files and anything
//! before `*** Begin Patch` (a heredoc wrapper) are not text a filter
//! judges.

use std::ops::Range;

/// One file the patch writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Where the text lands, as the patch names it (usually relative).
    pub path: String,
    /// `*** Add File:` (the whole file), rather than an update.
    pub added: bool,
    /// The byte range, in the patch text, of each added line's content
    /// (after its `+`, before its line break).
    pub lines: Vec<Range<usize>>,
}

/// The files `patch` writes that add at least one line, in order; `None`
/// when the text is not a patch (no `*** Begin Patch` line).
pub fn files(patch: &str) -> Option<Vec<File>> {
    let mut files: Vec<File> = Vec::new();
    let mut begun = false;
    // Whether the section being read is one whose `+` lines land.
    let mut writing = false;
    let mut at = 0;
    for raw in patch.split_inclusive('\n') {
        let start = at;
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if !begun {
            begun = line.trim() == "*** Begin Patch";
            continue;
        }
        if let Some(rest) = line.strip_prefix("*** ") {
            writing = false;
            let header = |name: &str| rest.strip_prefix(name).map(str::trim);
            if let Some(path) = header("Add File:") {
                files.push(File::new(path, true));
                writing = true;
            } else if let Some(path) = header("Update File:") {
                files.push(File::new(path, false));
                writing = true;
            } else if let Some(path) = header("Move to:") {
                if let Some(file) = files.last_mut().filter(|f| !f.added) {
                    file.path = path.to_string();
                }
                writing = true;
            } else if rest.trim() == "End of File" {
                writing = true;
            } else if rest.trim() == "End Patch" {
                break;
            }
            continue;
        }
        if writing && line.starts_with('+') {
            if let Some(file) = files.last_mut() {
                file.lines.push(start + 1..start + line.len());
            }
        }
    }
    begun.then(|| files.into_iter().filter(|f| !f.lines.is_empty()).collect())
}

impl File {
    fn new(path: &str, added: bool) -> File {
        File {
            path: path.to_string(),
            added,
            lines: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(patch: &str) -> Vec<(String, bool, Vec<&str>)> {
        files(patch)
            .unwrap()
            .into_iter()
            .map(|f| {
                let lines = f.lines.iter().map(|r| &patch[r.clone()]).collect();
                (f.path, f.added, lines)
            })
            .collect()
    }

    #[test]
    fn the_added_lines_of_each_file() {
        let patch = "*** Begin Patch\n\
            *** Add File: web/components/Seats.tsx\n\
            +export const Seats = () => <p>Free seats</p>;\n\
            +\n\
            *** Update File: scripts/swarm/capacity.py\n\
            @@ def reason():\n \
            reason = 'x'\n\
            -reason += 'old'\n\
            +reason += f\"; Claude has {n} free seats\"\n\
            *** Delete File: old.py\n\
            +not a line of any file\n\
            *** Update File: a.py\n\
            *** Move to: b.py\n\
            @@\n\
            +moved = 1\r\n\
            *** End of File\n\
            *** Update File: only_removes.py\n\
            -gone\n\
            *** End Patch\n\
            +after the end\n";
        assert_eq!(
            added(patch),
            [
                (
                    "web/components/Seats.tsx".to_string(),
                    true,
                    vec!["export const Seats = () => <p>Free seats</p>;", ""]
                ),
                (
                    "scripts/swarm/capacity.py".to_string(),
                    false,
                    vec!["reason += f\"; Claude has {n} free seats\""]
                ),
                ("b.py".to_string(), false, vec!["moved = 1"]),
            ]
        );
    }

    #[test]
    fn a_heredoc_wrapper_is_skipped_and_other_text_is_no_patch() {
        let wrapped =
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nEOF\n";
        assert_eq!(added(wrapped), [("a.txt".to_string(), true, vec!["hi"])]);
        assert_eq!(files("git status"), None);
        assert_eq!(files("*** Begin Patch\n*** End Patch\n"), Some(Vec::new()));
        // A cut patch still yields what it added before the cut.
        assert_eq!(
            added("*** Begin Patch\n*** Add File: a\n+one\n+tw"),
            [("a".to_string(), true, vec!["one", "tw"])]
        );
    }
}
