//! Which guarded programs an exec runs, identified as the kernel will run
//! them, not as the command line spells them:
//!
//! - the name the path was called by and the name of the file it leads to
//!   (a link `k2 -> /usr/bin/kubectl` is kubectl);
//! - the identity of the file: the same device and inode as a guarded
//!   program found on the search path (a hard link), or the same size and
//!   the same bytes (a renamed copy, a copy in a memfd);
//! - the interpreter a `#!` line names (the kernel runs it without a second
//!   exec), and the program the dynamic loader is asked to run
//!   (`ld-linux-x86-64.so.2 /usr/bin/kubectl`), each identified the same way.
//!
//! Each guarded program found is a [`View`]: its name and the command line
//! a rule sees, with the program's own name first (`kubectl delete pod x`
//! whatever `argv[0]` said).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::listing::{Remembered, Stamp};

/// A file (device, inode, change time) and the list it is compared with
/// (the device and inode of its first file).
type SameKey = (u64, u64, (i64, i64), u64, u64);

/// How deep `#!` interpreters and loaders are followed (the kernel's own
/// limit for nested interpreters is 4).
const MAX_DEPTH: usize = 4;

/// One guarded program an exec runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The guarded program's name (lowercase, as `bash.<cli>` names it).
    pub name: String,
    /// The command line as a rule sees it: `name`, then the arguments.
    pub argv: Vec<String>,
    /// How it was recognized.
    pub how: How,
}

/// How a guarded program was recognized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// By the name the exec called it by, or of the file that name leads to.
    Name,
    /// By the file: a hard link to, or a byte-for-byte copy of, a guarded
    /// program found on the search path.
    Identity,
    /// As the interpreter of a `#!` script.
    Interpreter,
    /// As the program the dynamic loader was asked to run.
    Loader,
}

/// A guarded program's file, found on the search path.
#[derive(Debug)]
struct Known {
    name: String,
    path: PathBuf,
    dev: u64,
    ino: u64,
    size: u64,
}

/// The guarded programs: their names and their files.
#[derive(Debug, Default)]
pub struct Identities {
    names: Vec<String>,
    files: Vec<Known>,
    /// The system's dynamic loaders, so a renamed copy of one is one;
    /// found the first time a file's identity is asked.
    loaders: std::sync::OnceLock<Vec<Known>>,
    /// Which known file a file has the bytes of: compared once per file
    /// and list.
    same: Mutex<HashMap<SameKey, Option<usize>>>,
    /// What the search-path folders held, to keep in place of the
    /// remembered text, when it changed.
    listing: Option<String>,
}

impl Identities {
    /// The programs `names` (as `bash.<cli>` rules name them), with every
    /// file of those names on `search_path` (a `PATH` value). `remembered`
    /// is what the folders held on an earlier run ([`Identities::listing`]):
    /// only one kept as safe as the rules themselves.
    pub fn new<I, S>(names: I, search_path: Option<&OsStr>, remembered: Option<&str>) -> Identities
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut names: Vec<String> = names
            .into_iter()
            .map(|n| n.as_ref().to_ascii_lowercase())
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        names.dedup();
        let dirs: Vec<PathBuf> = search_path
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        let (files, listing) = known_files(&names, &dirs, remembered);
        Identities {
            names,
            files,
            loaders: std::sync::OnceLock::new(),
            same: Mutex::new(HashMap::new()),
            listing,
        }
    }

    /// What the search-path folders held, to pass as `remembered` next
    /// time, when it differs from what was passed this time.
    pub fn listing(&self) -> Option<&str> {
        self.listing.as_deref()
    }

    /// Whether no program is guarded.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The guarded names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    fn guarded(&self, name: &str) -> Option<&str> {
        let lower = name.to_ascii_lowercase();
        self.names.iter().find(|n| **n == lower).map(String::as_str)
    }

    /// The guarded programs an exec runs: `file` is a path this process can
    /// open that leads where the exec's path leads (through `/proc/<pid>/`
    /// for a relative one), `called` the path as the exec gave it, `argv`
    /// its arguments, and `open` maps a path the process names (a `#!`
    /// interpreter, a script argument) to one this process can open.
    pub fn views(
        &self,
        file: &Path,
        called: &Path,
        argv: &[String],
        open: &dyn Fn(&Path) -> PathBuf,
    ) -> Vec<View> {
        let mut views = Vec::new();
        self.collect(file, called, argv, open, 0, &mut views);
        views.dedup_by(|a, b| a.name == b.name && a.argv == b.argv);
        views
    }

    fn collect(
        &self,
        file: &Path,
        called: &Path,
        argv: &[String],
        open: &dyn Fn(&Path) -> PathBuf,
        depth: usize,
        views: &mut Vec<View>,
    ) {
        let Ok(meta) = std::fs::metadata(file) else {
            // Not there: the kernel fails the exec itself (a PATH search miss).
            return;
        };
        if !meta.is_file() || depth > MAX_DEPTH {
            return;
        }
        let args = argv.get(1..).unwrap_or_default();
        // A program called `<name>-<word>` (git's `git-push`, by path or
        // by argv[0]) runs as `<name> <word>`: git picks its command from
        // the name it was called by.
        let called_as = [
            argv.first().and_then(|a| base_name(Path::new(a))),
            base_name(called),
        ];
        let dashed = |name: &str| {
            called_as.iter().flatten().find_map(|called| {
                let word = called.strip_prefix(name)?.strip_prefix('-')?;
                (!word.is_empty()).then(|| word.to_string())
            })
        };
        let view = |name: &str, how: How| View {
            name: name.to_string(),
            argv: std::iter::once(name.to_string())
                .chain(dashed(name))
                .chain(args.iter().cloned())
                .collect(),
            how,
        };
        let real = std::fs::canonicalize(file).ok();
        let mut names = vec![base_name(called)];
        if let Some(real) = &real {
            names.push(base_name(real));
        }
        for name in names.iter().flatten() {
            if let Some(guarded) = self.guarded(name) {
                views.push(view(guarded, How::Name));
            }
        }
        if let Some(known) = self.same_file(&self.files, file, &meta) {
            views.push(view(&self.files[known].name, How::Identity));
        }
        if let Some(at) = script_argument(names.iter().flatten(), argv) {
            // A shell or interpreter given a guarded program's file as its
            // script (`sh "$(command -v kubectl)" delete`).
            let script = Path::new(&argv[at]);
            let target = open(script);
            let mut found = Vec::new();
            self.collect(&target, script, &argv[at..], open, MAX_DEPTH, &mut found);
            views.extend(found.into_iter().filter(|v| v.how != How::Interpreter));
        }
        if let Some((interpreter, arg)) = shebang(file) {
            // The kernel runs `interpreter [arg] <path as called> args…`.
            let mut line: Vec<String> = vec![interpreter.display().to_string()];
            line.extend(arg);
            line.push(called.display().to_string());
            line.extend(args.iter().cloned());
            let target = open(&interpreter);
            let before = views.len();
            self.collect(&target, &interpreter, &line, open, depth + 1, views);
            for found in &mut views[before..] {
                found.how = How::Interpreter;
            }
        }
        let loader = names.iter().flatten().any(|n| is_loader(n))
            || self
                .same_file(self.loaders.get_or_init(system_loaders), file, &meta)
                .is_some();
        if loader {
            if let Some(at) = loader_program(argv) {
                let program = Path::new(&argv[at]);
                let target = open(program);
                let before = views.len();
                self.collect(&target, program, &argv[at..], open, depth + 1, views);
                for found in &mut views[before..] {
                    found.how = How::Loader;
                }
            }
        }
    }

    /// Which of `known` `file` is by identity: a hard link to one, or the
    /// same bytes.
    fn same_file(&self, known: &[Known], file: &Path, meta: &std::fs::Metadata) -> Option<usize> {
        if let Some(at) = known
            .iter()
            .position(|k| k.dev == meta.dev() && k.ino == meta.ino())
        {
            return Some(at);
        }
        let sized: Vec<usize> = (0..known.len())
            .filter(|&i| known[i].size == meta.size())
            .collect();
        if sized.is_empty() {
            return None;
        }
        let first = &known[sized[0]];
        // The change time, to the nanosecond: rewriting the bytes moves
        // it, and no call can set it back (an mtime can be).
        let changed = (meta.ctime(), meta.ctime_nsec());
        let key = (meta.dev(), meta.ino(), changed, first.dev, first.ino);
        let cached = self.lock().get(&key).copied();
        if let Some(found) = cached {
            return found;
        }
        let found = sized
            .into_iter()
            .find(|&i| same_bytes(file, &known[i].path).unwrap_or(false));
        self.lock().insert(key, found);
        found
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SameKey, Option<usize>>> {
        self.same.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn base_name(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// Whether two files hold the same bytes (sizes already equal).
fn same_bytes(a: &Path, b: &Path) -> std::io::Result<bool> {
    let (mut a, mut b) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    let (mut x, mut y) = (vec![0u8; 64 << 10], vec![0u8; 64 << 10]);
    loop {
        let n = read_full(&mut a, &mut x)?;
        let m = read_full(&mut b, &mut y)?;
        if n != m || x[..n] != y[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The interpreter and its one argument of a `#!` line, as the kernel
/// reads it (the first 256 bytes; one argument, the rest of the line).
fn shebang(file: &Path) -> Option<(PathBuf, Option<String>)> {
    let mut head = [0u8; 256];
    let n = read_full(&mut std::fs::File::open(file).ok()?, &mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let line = String::from_utf8_lossy(line);
    let line = line.trim_matches([' ', '\t']);
    let (interpreter, arg) = match line.find([' ', '\t']) {
        Some(at) => (&line[..at], Some(line[at..].trim_matches([' ', '\t']))),
        None => (line, None),
    };
    if interpreter.is_empty() {
        return None;
    }
    let arg = arg.filter(|a| !a.is_empty()).map(String::from);
    Some((PathBuf::from(interpreter), arg))
}

/// Above this many names, a search-path folder is listed once rather than
/// asked for each name (a missing name costs a `stat` per folder; a
/// listing of `/usr/bin` costs about as much as 30 of them), and what it
/// held is remembered for the next run.
const LIST_ABOVE: usize = 32;

/// The files of `names` (sorted) in the folders `dirs`, in name order and
/// then search-path order; a folder reached twice (`/bin` and `/usr/bin`
/// as one) is looked in once. Returns as well the listing to remember,
/// when it changed.
fn known_files(
    names: &[String],
    dirs: &[PathBuf],
    remembered: Option<&str>,
) -> (Vec<Known>, Option<String>) {
    let listed = names.len() > LIST_ABOVE;
    let mut memory = listed.then(|| Remembered::parse(remembered, names));
    let mut folders: Vec<(u64, u64)> = Vec::new();
    let mut found: Vec<(usize, usize, PathBuf)> = Vec::new();
    for (at, dir) in dirs.iter().enumerate() {
        // The same spelling twice on `PATH` (a common sight) is not opened again.
        if dirs[..at].contains(dir) {
            continue;
        }
        // A folder listed is opened once, so its stamp and its entries are
        // of one folder whatever a symlink on the way points to meanwhile.
        let opened = listed.then(|| open_folder(dir)).flatten();
        let meta = match &opened {
            Some(folder) => folder.metadata(),
            None => std::fs::metadata(dir),
        };
        let Ok(meta) = meta else {
            continue;
        };
        if !meta.is_dir() || folders.contains(&(meta.dev(), meta.ino())) {
            continue;
        }
        folders.push((meta.dev(), meta.ino()));
        let held = match (&mut memory, &opened) {
            (Some(memory), Some(folder)) => held_remembered(memory, dir, folder, &meta, names),
            _ => None,
        };
        match held {
            Some(held) => found.extend(held.into_iter().map(|n| (n, at, dir.join(&names[n])))),
            // A folder that cannot be listed (mode 0111) may still be looked in.
            None => found.extend((0..names.len()).map(|n| (n, at, dir.join(&names[n])))),
        }
    }
    found.sort();
    let mut files = Vec::new();
    for (n, _, path) in found {
        add_known(&mut files, &names[n], path);
    }
    (files, memory.and_then(|memory| memory.text()))
}

/// The folder at `dir`, opened to be listed; `None` when it is not a
/// folder or cannot be read. Never waits: a FIFO on the search path is
/// refused by `O_DIRECTORY` before it is opened.
fn open_folder(dir: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NONBLOCK)
        .open(dir)
        .ok()
}

/// Which of `names` the open `folder` (at `dir`, with `meta`) holds: as
/// `memory` remembers it, or listed and then remembered. `None` when it
/// cannot be listed.
fn held_remembered(
    memory: &mut Remembered,
    dir: &Path,
    folder: &std::fs::File,
    meta: &std::fs::Metadata,
    names: &[String],
) -> Option<Vec<usize>> {
    let stamped = crate::listing::kernel_stamped(folder);
    let stamp = Stamp::of(meta);
    if let Some(held) = memory.held(dir, stamp).filter(|_| stamped) {
        return Some(held.to_vec());
    }
    let listed_at = SystemTime::now();
    let held = held_names(folder, names)?;
    if stamped {
        memory.remember(dir, stamp, listed_at, &held);
    }
    Some(held)
}

/// Which of `names` (sorted), by their place in it, the open `folder`
/// holds; `None` when it cannot be listed.
fn held_names(folder: &std::fs::File, names: &[String]) -> Option<Vec<usize>> {
    use std::os::fd::AsRawFd;
    // The descriptor's own entry in /proc: the very folder opened.
    let entries = std::fs::read_dir(format!("/proc/self/fd/{}", folder.as_raw_fd())).ok()?;
    let mut held = Vec::new();
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else {
            continue;
        };
        if let Ok(n) = names.binary_search_by(|name| name.as_str().cmp(file)) {
            held.push(n);
        }
    }
    Some(held)
}

/// Adds the file at `path`, known as `name`, to `known`, unless it is not
/// a file or `known` has it already (by device and inode).
fn add_known(known: &mut Vec<Known>, name: &str, path: PathBuf) {
    let Ok(meta) = std::fs::metadata(&path) else {
        return;
    };
    let seen = known
        .iter()
        .any(|k| k.dev == meta.dev() && k.ino == meta.ino());
    if meta.is_file() && !seen {
        known.push(Known {
            name: name.to_string(),
            path,
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
        });
    }
}

/// The dynamic loaders where the system keeps them.
fn system_loaders() -> Vec<Known> {
    const PLACES: &[&str] = &[
        "/lib64/ld-linux-x86-64.so.2",
        "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
        "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
        "/usr/lib64/ld-linux-x86-64.so.2",
        "/lib/ld-linux-aarch64.so.1",
        "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
        "/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
        "/lib/ld-musl-x86_64.so.1",
        "/lib/ld-musl-aarch64.so.1",
    ];
    let mut found: Vec<Known> = Vec::new();
    for place in PLACES {
        let path = PathBuf::from(place);
        let name = base_name(&path).unwrap_or_default();
        add_known(&mut found, &name, path);
    }
    found
}

/// Where the script stands in the `argv` of a shell or interpreter named
/// by one of `names` that runs a script file: its first word that is not an
/// option, unless an option before it gives the code inline (`-c`, `-e`,
/// `-m`, `-E`).
fn script_argument<'n>(
    mut names: impl Iterator<Item = &'n String>,
    argv: &[String],
) -> Option<usize> {
    const SHELLS: &[&str] = &[
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "rbash", "busybox",
    ];
    const OTHERS: &[&str] = &[
        "perl", "ruby", "node", "nodejs", "php", "tclsh", "wish", "lua", "awk", "gawk", "mawk",
    ];
    // The option letters that give the code inline, so no script follows:
    // a shell's `-c` (its `-e` is errexit), Python's `-c` and `-m`, the
    // others' `-e`, `-E`, `-r` and `-p`.
    let inline: &[char] = names.find_map(|n| {
        let n = n.to_ascii_lowercase();
        let python = n
            .strip_prefix("python")
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
        match (
            SHELLS.contains(&n.as_str()),
            python,
            OTHERS.contains(&n.as_str()),
        ) {
            (true, _, _) => Some(&['c'][..]),
            (_, true, _) => Some(&['c', 'm'][..]),
            (_, _, true) => Some(&['e', 'E', 'r', 'p'][..]),
            _ => None,
        }
    })?;
    // Options whose value is the next word (bash, sh, python, perl, ruby).
    const WITH_VALUE: &[&str] = &[
        "-o",
        "+o",
        "-O",
        "+O",
        "--rcfile",
        "--init-file",
        "-W",
        "-X",
        "-I",
        "-r",
    ];
    let mut words = argv.iter().enumerate().skip(1);
    while let Some((at, word)) = words.next() {
        if word == "--" || word == "-" {
            return (word == "--" && at + 1 < argv.len()).then_some(at + 1);
        }
        if WITH_VALUE.contains(&word.as_str()) {
            words.next();
            continue;
        }
        if word.starts_with("--") {
            continue;
        }
        match word.strip_prefix(['-', '+']) {
            Some(flags) if word.starts_with('-') && flags.contains(inline) => return None,
            Some(_) => continue,
            None => return Some(at),
        }
    }
    None
}

/// Whether `name` is a dynamic loader run as a program.
fn is_loader(name: &str) -> bool {
    name.starts_with("ld-linux") || name.starts_with("ld-musl") || name == "ld.so"
}

/// Where, in a loader's `argv`, the program it is asked to run stands:
/// past its options, the ones that take a value included.
fn loader_program(argv: &[String]) -> Option<usize> {
    const WITH_VALUE: &[&str] = &[
        "--library-path",
        "--inhibit-rpath",
        "--audit",
        "--preload",
        "--argv0",
        "--glibc-hwcaps-prefix",
        "--glibc-hwcaps-mask",
    ];
    let mut at = 1;
    while let Some(arg) = argv.get(at) {
        if arg == "--" {
            return (at + 1 < argv.len()).then_some(at + 1);
        }
        if !arg.starts_with("--") {
            return Some(at);
        }
        at += match WITH_VALUE.contains(&arg.as_str()) {
            true => 2,
            false => 1,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookdex_test_support::write_executable;

    fn stub(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        write_executable(&path, body);
        path
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_program_is_known_by_name_link_hard_link_and_copy() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let kubectl = stub(&bin, "kubectl", "#!/bin/sh\necho kubectl\n");
        let ids = Identities::new(["kubectl"], Some(bin.as_os_str()), None);
        let base = dir.path().to_path_buf();
        let open = move |p: &Path| base.join(p);
        let names = |file: &Path| -> Vec<(String, Vec<String>, How)> {
            ids.views(file, file, &argv(&["x", "delete"]), &open)
                .into_iter()
                .map(|v| (v.name, v.argv, v.how))
                .collect()
        };
        let by_name = names(&kubectl);
        assert_eq!(
            by_name[0],
            ("kubectl".into(), argv(&["kubectl", "delete"]), How::Name)
        );

        // Called by its dashed name (git's `git-push`), the word is its first.
        let dashed = dir.path().join("kubectl-delete");
        std::os::unix::fs::symlink(&kubectl, &dashed).unwrap();
        let views = ids.views(&dashed, &dashed, &argv(&["kubectl-delete", "pod"]), &open);
        assert_eq!(views[0].argv, argv(&["kubectl", "delete", "pod"]));
        let views = ids.views(&kubectl, &kubectl, &argv(&["kubectl-delete", "pod"]), &open);
        assert_eq!(views[0].argv, argv(&["kubectl", "delete", "pod"]));

        let link = dir.path().join("k2");
        std::os::unix::fs::symlink(&kubectl, &link).unwrap();
        assert!(names(&link).iter().any(|v| v.0 == "kubectl"));

        let hard = dir.path().join("hard");
        std::fs::hard_link(&kubectl, &hard).unwrap();
        assert!(names(&hard).iter().any(|v| v.2 == How::Identity));

        let copy = stub(dir.path(), "renamed", "#!/bin/sh\necho kubectl\n");
        assert!(names(&copy).iter().any(|v| v.2 == How::Identity));

        let other = stub(dir.path(), "other", "#!/bin/sh\necho kubectx\n");
        assert!(names(&other).is_empty(), "same size, other bytes");
    }

    #[test]
    fn many_guarded_names_are_found_by_listing_each_folder_once() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&first).unwrap();
        std::fs::create_dir(&second).unwrap();
        let kubectl = stub(&second, "kubectl", "#!/bin/sh\necho kubectl\n");
        stub(&first, "cli7", "#!/bin/sh\necho seven\n");
        stub(&first, "unguarded", "#!/bin/sh\necho no\n");
        let mut names: Vec<String> = (0..=LIST_ABOVE).map(|i| format!("cli{i}")).collect();
        names.push("kubectl".into());
        // The same folder twice, and a folder that is not there.
        let path =
            std::env::join_paths([&first, &second, &first, &dir.path().join("none")]).unwrap();
        let ids = Identities::new(&names, Some(path.as_os_str()), None);
        let found: Vec<(&str, &Path)> = ids
            .files
            .iter()
            .map(|k| (k.name.as_str(), k.path.as_path()))
            .collect();
        assert_eq!(
            found,
            [
                ("cli7", first.join("cli7").as_path()),
                ("kubectl", kubectl.as_path())
            ]
        );
        // A folder that cannot be listed is looked in name by name.
        let hidden = dir.path().join("hidden");
        std::fs::create_dir(&hidden).unwrap();
        let three = stub(&hidden, "cli3", "#!/bin/sh\necho three\n");
        std::fs::set_permissions(&hidden, std::os::unix::fs::PermissionsExt::from_mode(0o111))
            .unwrap();
        let listable = std::fs::read_dir(&hidden).is_ok();
        let ids_hidden = Identities::new(&names, Some(hidden.as_os_str()), None);
        std::fs::set_permissions(&hidden, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        if listable {
            eprintln!("as root the folder lists: its name-by-name lookup is not exercised here");
        }
        assert_eq!(ids_hidden.files.len(), 1);
        assert_eq!(ids_hidden.files[0].path, three);
        let copy = stub(dir.path(), "renamed", "#!/bin/sh\necho kubectl\n");
        let open = |p: &Path| p.to_path_buf();
        let views = ids.views(&copy, &copy, &argv(&["renamed", "delete"]), &open);
        assert_eq!(views[0].name, "kubectl");
        assert_eq!(views[0].how, How::Identity);
    }

    #[test]
    fn a_remembered_listing_stands_for_its_folder_until_the_folder_changes() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        stub(&bin, "kubectl", "#!/bin/sh\necho kubectl\n");
        let mut names: Vec<String> = (0..=LIST_ABOVE).map(|i| format!("cli{i}")).collect();
        names.push("kubectl".into());
        names.sort();
        let known = |ids: &Identities| -> Vec<String> {
            ids.files.iter().map(|k| k.name.clone()).collect()
        };
        // Too new to be remembered: listed, and nothing to keep.
        let ids = Identities::new(&names, Some(bin.as_os_str()), None);
        assert_eq!(known(&ids), ["kubectl"]);
        assert_eq!(ids.listing(), None);
        // A listing remembered with the folder's stamp is taken as it is
        // (here one that says the folder holds none of the names).
        let meta = std::fs::metadata(&bin).unwrap();
        let remembered = format!(
            "hookdex search-path listing 1\n{}\n{} {} {} {} - {}\n",
            names.join(" "),
            meta.dev(),
            meta.ino(),
            meta.ctime(),
            meta.ctime_nsec(),
            bin.display()
        );
        let ids = Identities::new(&names, Some(bin.as_os_str()), Some(&remembered));
        assert!(
            known(&ids).is_empty(),
            "the remembered listing was not used"
        );
        assert_eq!(ids.listing(), None, "nothing new to keep");
        // Once the folder changes, it is listed again.
        stub(&bin, "cli3", "#!/bin/sh\necho three\n");
        let ids = Identities::new(&names, Some(bin.as_os_str()), Some(&remembered));
        assert_eq!(known(&ids), ["cli3", "kubectl"]);
        // Few names are looked up one by one, whatever is remembered.
        let few = remembered.replace(&names.join(" "), "kubectl");
        let ids = Identities::new(["kubectl"], Some(bin.as_os_str()), Some(&few));
        assert_eq!(known(&ids), ["kubectl"]);
        assert_eq!(ids.listing(), None);
    }

    #[test]
    fn a_folder_is_listed_and_stamped_as_it_was_opened() {
        // A symlink on the search path retargeted between the stamp and
        // the listing must not pair one folder's stamp with another's
        // entries.
        let dir = tempfile::tempdir().unwrap();
        let (held_one, empty) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&held_one).unwrap();
        std::fs::create_dir(&empty).unwrap();
        stub(&held_one, "kubectl", "#!/bin/sh\n");
        let link = dir.path().join("bin");
        std::os::unix::fs::symlink(&held_one, &link).unwrap();
        let names = vec!["kubectl".to_string()];
        let folder = open_folder(&link).unwrap();
        let meta = folder.metadata().unwrap();
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&empty, &link).unwrap();
        let mut memory = Remembered::parse(None, &names);
        let held = held_remembered(&mut memory, &link, &folder, &meta, &names);
        assert_eq!(
            held,
            Some(vec![0]),
            "listed the folder the link points to now"
        );
    }

    #[test]
    fn a_folder_whose_change_time_the_kernel_does_not_keep_is_never_remembered() {
        // /proc's times are the kernel's invention, not a record of changes:
        // what is remembered for it is ignored, and nothing is remembered.
        let proc = open_folder(Path::new("/proc")).unwrap();
        assert!(!crate::listing::kernel_stamped(&proc));
        let meta = proc.metadata().unwrap();
        let names = vec!["self".to_string()];
        let text = format!(
            "hookdex search-path listing 1\nself\n{} {} {} {} - /proc\n",
            meta.dev(),
            meta.ino(),
            meta.ctime(),
            meta.ctime_nsec()
        );
        let mut memory = Remembered::parse(Some(&text), &names);
        let held = held_remembered(&mut memory, Path::new("/proc"), &proc, &meta, &names);
        assert_eq!(held, Some(vec![0]));
        assert_eq!(memory.text(), None);
        // A folder here is on a filesystem the kernel stamps (the machines
        // this runs on keep temporary folders on ext4, XFS, Btrfs or tmpfs).
        let here = tempfile::tempdir().unwrap();
        let folder = open_folder(here.path()).unwrap();
        assert!(crate::listing::kernel_stamped(&folder));
        // A FIFO on the search path is refused at once, not waited on.
        let fifo = here.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert!(open_folder(&fifo).is_none());
    }

    #[test]
    fn an_interpreter_and_a_loaders_program_are_known() {
        let dir = tempfile::tempdir().unwrap();
        let kubectl = stub(dir.path(), "kubectl", "#!/bin/sh\necho hi\n");
        let script = stub(dir.path(), "tool", &format!("#!{} -x\n", kubectl.display()));
        let ids = Identities::new(["kubectl"], None, None);
        let base = dir.path().to_path_buf();
        let open = move |p: &Path| base.join(p);
        let views = ids.views(&script, Path::new("./tool"), &argv(&["tool", "a"]), &open);
        assert_eq!(
            views,
            vec![View {
                name: "kubectl".into(),
                argv: argv(&["kubectl", "-x", "./tool", "a"]),
                how: How::Interpreter
            }]
        );

        let loader = stub(dir.path(), "ld-linux-x86-64.so.2", "\x7fELF");
        let line = argv(&["ld.so", "--library-path", "/x", "kubectl", "delete"]);
        let views = ids.views(&loader, &loader, &line, &open);
        assert_eq!(views[0].argv, argv(&["kubectl", "delete"]));
        assert_eq!(views[0].how, How::Loader);
    }

    #[test]
    fn a_missing_file_or_an_unguarded_one_runs_nothing_guarded() {
        let dir = tempfile::tempdir().unwrap();
        let ids = Identities::new(["kubectl"], None, None);
        let open = |p: &Path| p.to_path_buf();
        let gone = dir.path().join("kubectl");
        assert!(ids.views(&gone, &gone, &[], &open).is_empty());
        let ls = stub(dir.path(), "ls", "#!/bin/sh\n");
        assert!(ids.views(&ls, &ls, &[], &open).is_empty());
        let sh = argv(&[
            "sh",
            "-x",
            &dir.path().join("kubectl").display().to_string(),
        ]);
        assert!(
            ids.views(&ls, Path::new("sh"), &sh, &open).is_empty(),
            "no such script"
        );
    }

    #[test]
    fn a_script_is_found_past_a_shells_options() {
        let names = [String::from("bash")];
        let at = |words: &[&str]| script_argument(names.iter(), &argv(words));
        assert_eq!(at(&["bash", "-o", "posix", "k", "delete"]), Some(3));
        assert_eq!(at(&["bash", "+x", "k"]), Some(2));
        assert_eq!(at(&["bash", "--rcfile", "/dev/null", "k"]), Some(3));
        assert_eq!(at(&["bash", "--norc", "-O", "extglob", "k"]), Some(4));
        assert_eq!(at(&["bash", "-xc", "k"]), None);
        assert_eq!(at(&["bash", "-e", "k", "delete"]), Some(2));
        assert_eq!(at(&["bash", "-ex", "k"]), Some(2));
        let perl = [String::from("perl")];
        assert_eq!(
            script_argument(perl.iter(), &argv(&["perl", "-e", "x"])),
            None
        );
        assert_eq!(
            script_argument(perl.iter(), &argv(&["perl", "-w", "k"])),
            Some(2)
        );
        assert_eq!(at(&["bash", "-", "k"]), None);
        assert_eq!(at(&["bash", "--", "k"]), Some(2));
    }
}
