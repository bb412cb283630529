//! What the write gate's judge is asked: a writing system call, what it
//! does, and the paths it names, each made absolute and taken through its
//! links as the kernel takes them for the process that called (resolved by
//! the supervisor, which reads that process).

use std::path::{Component, Path, PathBuf};

/// What a call does to the paths it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    /// Opens for writing, creates, truncates, changes the mode, owner or
    /// attributes: what counts is the path itself and what lies in it.
    Write,
    /// Removes, moves or links the path: what lies below it goes along, so
    /// a folder that holds a rule source counts too.
    Move,
    /// Reaches files with no path to check (`io_uring`, a mount, a file
    /// handle): no path is given.
    Unchecked,
}

/// One path a writing call names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The path made absolute against the directory it was relative to,
    /// `.` and `..` taken lexically.
    pub lexical: PathBuf,
    /// Where it leads through links (the last one only where the call
    /// follows it), when that could be found.
    pub real: Option<PathBuf>,
}

/// A writing call a supervised process made.
#[derive(Debug)]
pub struct WriteCall<'a> {
    /// The process.
    pub pid: u32,
    /// The system call's name, for messages.
    pub call: &'static str,
    /// What it does to `paths`.
    pub kind: WriteKind,
    /// The paths it names.
    pub paths: &'a [Target],
}

/// `path` with `.` and `..` taken lexically (`..` at the root stays there).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_are_taken_lexically() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(normalize(Path::new("/../x")), Path::new("/x"));
    }
}
