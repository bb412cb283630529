//! Which guarded names each search-path folder holds, remembered between
//! runs of the wrapper as a short text its caller keeps: listing `/usr/bin`
//! for hundreds of names costs more than the rest of the guard's start.
//!
//! A folder's entry holds while the folder is the same one (device and
//! inode) with the same change time. Adding, removing or renaming an entry
//! moves the change time, and no call can set it back where the kernel
//! keeps it: only folders on the local filesystems it stamps are remembered
//! (not FUSE or network filesystems, whose server says what the change time
//! is, nor images such as squashfs, whose times are data). A folder changed in
//! the second before it was listed is not remembered: a change in the same
//! tick of the kernel's coarse clock would leave its change time as it was
//! (git's "racily clean" index entries). The files themselves are looked
//! at on every run, so a program replaced in place is seen as it now is.
//!
//! The text is trusted as much as where it is kept: whoever can change it
//! can hide a guarded program's hard link or copy from the guard. The
//! wrapper keeps it beside its index, in the cache folder the write gate
//! guards, and does not use it for a managed guard.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The first line of the text.
const HEADER: &str = "hookdex search-path listing 1";

/// The most folders the text keeps (a few `PATH` values' worth).
const MAX_FOLDERS: usize = 64;

/// How long a folder must have been unchanged when it is listed to be
/// remembered: well past a tick of the coarse clock that stamps it.
const SETTLED: Duration = Duration::from_secs(1);

/// The filesystems (`statfs` magic numbers) whose change times the local
/// kernel sets: ext2/3/4, XFS, Btrfs, tmpfs, F2FS, bcachefs, ZFS, JFS and
/// overlayfs (a container's `/usr/bin`).
#[cfg(target_os = "linux")]
const KERNEL_STAMPED: [u32; 9] = [
    0xEF53,
    0x5846_5342,
    0x9123_683E,
    0x0102_1994,
    0xF2F5_2010,
    0xCA45_1A4E,
    0x2FC1_2FC1,
    0x3153_464A,
    0x794C_7630,
];

/// Whether the open folder `folder` is on a filesystem whose change times
/// the local kernel sets, so a stamp of it can be remembered.
pub fn kernel_stamped(folder: &std::fs::File) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: an all-zero `statfs` is a valid value of the plain C struct.
        let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: the descriptor stays open for the borrow of `folder`, and
        // `fs` is a writable `statfs` the call fills.
        if unsafe { libc::fstatfs(folder.as_raw_fd(), &mut fs) } != 0 {
            return false;
        }
        // The magic numbers are 32 bits; `f_type`'s width varies by target.
        KERNEL_STAMPED.contains(&(fs.f_type as u32))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = folder;
        false
    }
}

/// What identifies a folder's contents: its device, inode and change time
/// (seconds, nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    changed: (i64, i64),
}

impl Stamp {
    /// The stamp of a folder's metadata.
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether the folder had not changed for [`SETTLED`] at `listed_at`.
    fn settled(&self, listed_at: SystemTime) -> bool {
        let (secs, nanos) = self.changed;
        let (Ok(secs), Ok(nanos)) = (u64::try_from(secs), u32::try_from(nanos)) else {
            return false;
        };
        let changed = SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
        changed + SETTLED <= listed_at
    }
}

/// One folder's entry: which of the names (by their place in the sorted
/// list) it held when it had this stamp.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Folder {
    path: PathBuf,
    stamp: Stamp,
    held: Vec<usize>,
}

/// The remembered folders for one sorted list of guarded names.
#[derive(Debug)]
pub struct Remembered {
    /// The names, as the text's second line spells them; `None` when a name
    /// cannot be written on it (nothing is remembered then).
    names: Option<String>,
    count: usize,
    folders: Vec<Folder>,
    changed: bool,
}

impl Remembered {
    /// What `text` remembers for `names` (sorted): nothing when there is
    /// none, or it is damaged or was written for other names.
    pub fn parse(text: Option<&str>, names: &[String]) -> Remembered {
        let spelled = names
            .iter()
            .all(|n| !n.is_empty() && !n.bytes().any(|b| b.is_ascii_whitespace() || b < b' '))
            .then(|| names.join(" "));
        let mut remembered = Remembered {
            names: spelled,
            count: names.len(),
            folders: Vec::new(),
            changed: false,
        };
        if let (Some(names), Some(text)) = (&remembered.names, text) {
            let mut lines = text.lines();
            if lines.next() == Some(HEADER) && lines.next() == Some(names.as_str()) {
                remembered.folders = lines
                    .filter_map(|line| parse_folder(line, remembered.count))
                    .take(MAX_FOLDERS)
                    .collect();
            }
        }
        remembered
    }

    /// Which names the folder `dir` holds, if it is remembered with this
    /// very `stamp`.
    pub fn held(&self, dir: &Path, stamp: Stamp) -> Option<&[usize]> {
        self.folders
            .iter()
            .find(|f| f.path == dir && f.stamp == stamp)
            .map(|f| f.held.as_slice())
    }

    /// Remembers that `dir`, with `stamp`, held `held` when it was listed
    /// at `listed_at`; a folder that had changed just before is not.
    pub fn remember(&mut self, dir: &Path, stamp: Stamp, listed_at: SystemTime, held: &[usize]) {
        let line_safe = dir.is_absolute() && dir.to_str().is_some_and(|d| !d.contains('\n'));
        if self.names.is_none() || !line_safe || !stamp.settled(listed_at) {
            return;
        }
        self.folders.retain(|f| f.path != dir);
        self.folders.insert(
            0,
            Folder {
                path: dir.to_path_buf(),
                stamp,
                held: held.to_vec(),
            },
        );
        self.folders.truncate(MAX_FOLDERS);
        self.changed = true;
    }

    /// The text to keep in place of the one parsed, when what is
    /// remembered changed.
    pub fn text(&self) -> Option<String> {
        let names = self.names.as_ref().filter(|_| self.changed)?;
        let mut text = format!("{HEADER}\n{names}\n");
        for folder in &self.folders {
            let held = match folder.held.is_empty() {
                true => "-".to_string(),
                false => folder
                    .held
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
            };
            let Stamp { dev, ino, changed } = folder.stamp;
            text.push_str(&format!(
                "{dev} {ino} {} {} {held} {}\n",
                changed.0,
                changed.1,
                folder.path.display()
            ));
        }
        Some(text)
    }
}

/// One folder line: `dev ino ctime-secs ctime-nanos held path`, where
/// `held` is `-` or places in the names list joined by commas.
fn parse_folder(line: &str, count: usize) -> Option<Folder> {
    let mut fields = line.splitn(6, ' ');
    let dev = fields.next()?.parse::<u64>().ok()?;
    let ino = fields.next()?.parse::<u64>().ok()?;
    let secs = fields.next()?.parse::<i64>().ok()?;
    let nanos = fields.next()?.parse::<i64>().ok()?;
    let held = match fields.next()? {
        "-" => Vec::new(),
        list => list
            .split(',')
            .map(|n| n.parse::<usize>().ok().filter(|&n| n < count))
            .collect::<Option<Vec<_>>>()?,
    };
    let path = fields.next().filter(|p| p.starts_with('/'))?;
    Some(Folder {
        path: PathBuf::from(path),
        stamp: Stamp {
            dev,
            ino,
            changed: (secs, nanos),
        },
        held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    fn old_folder(root: &Path) -> (PathBuf, Stamp, SystemTime) {
        let dir = root.join("bin dir");
        std::fs::create_dir(&dir).unwrap();
        let stamp = Stamp::of(&std::fs::metadata(&dir).unwrap());
        // Listed as if two seconds after it last changed.
        (dir, stamp, SystemTime::now() + Duration::from_secs(2))
    }

    #[test]
    fn a_folder_is_remembered_for_the_same_names_and_stamp() {
        let root = tempfile::tempdir().unwrap();
        let (dir, stamp, later) = old_folder(root.path());
        let list = names(&["cli1", "kubectl"]);
        let mut remembered = Remembered::parse(None, &list);
        assert_eq!(remembered.held(&dir, stamp), None);
        remembered.remember(&dir, stamp, later, &[1]);
        let text = remembered.text().expect("changed");

        let again = Remembered::parse(Some(&text), &list);
        assert_eq!(again.held(&dir, stamp), Some(&[1][..]));
        assert_eq!(again.text(), None, "nothing new to keep");
        // Another list of names, or a folder changed since: not remembered.
        let other = Remembered::parse(Some(&text), &names(&["cli1", "helm"]));
        assert_eq!(other.held(&dir, stamp), None);
        std::fs::write(dir.join("new"), "").unwrap();
        let now = Stamp::of(&std::fs::metadata(&dir).unwrap());
        assert_ne!(now, stamp, "an added entry moves the change time");
        assert_eq!(again.held(&dir, now), None);
    }

    #[test]
    fn a_folder_changed_just_before_its_listing_is_not_remembered() {
        let root = tempfile::tempdir().unwrap();
        let (dir, stamp, _) = old_folder(root.path());
        let mut remembered = Remembered::parse(None, &names(&["kubectl"]));
        remembered.remember(&dir, stamp, SystemTime::now(), &[0]);
        assert_eq!(remembered.text(), None, "nothing settled to keep");
        assert_eq!(remembered.held(&dir, stamp), None);
    }

    #[test]
    fn a_damaged_or_foreign_text_remembers_nothing() {
        let root = tempfile::tempdir().unwrap();
        let (dir, stamp, later) = old_folder(root.path());
        let list = names(&["kubectl"]);
        let mut remembered = Remembered::parse(None, &list);
        remembered.remember(&dir, stamp, later, &[0]);
        let text = remembered.text().unwrap();
        for damaged in [
            text.replacen(HEADER, "hookdex search-path listing 0", 1),
            text.replace(" 0 /", " 7 /"),
            text.replace(" 0 /", " x /"),
            text.replace(" 0 /", " 0 relative/"),
            text.lines().take(2).collect::<Vec<_>>().join("\n"),
        ] {
            assert_eq!(
                Remembered::parse(Some(&damaged), &list).held(&dir, stamp),
                None
            );
        }
        // A name the text cannot spell: nothing is remembered or kept.
        let odd = names(&["bad name"]);
        let mut remembered = Remembered::parse(Some(&text), &odd);
        remembered.remember(&dir, stamp, later, &[0]);
        assert_eq!(remembered.held(&dir, stamp), None);
        assert_eq!(remembered.text(), None);
    }
}
