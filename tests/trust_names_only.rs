//! An untrusted repository's rule folder is compiled by file name only:
//! through the real `hookdex hook`, a FIFO, symlinks to `/dev/zero` and
//! `/proc/self/status` and a 50 MB filter planted as rules are listed, never
//! opened, and leave the index fresh; trusting the owner later compiles the
//! contents and the repository's rule runs, while what cannot be a rule
//! (the FIFO, links out of the layer, the huge filter) is refused with its
//! reason and still opens nothing.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::hook::*;
use common::*;

/// A writer blocked opening a FIFO for writing: its open returns only once
/// some process opens the FIFO for reading.
struct BlockedWriter {
    fifo: PathBuf,
    opened: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BlockedWriter {
    /// `mkfifo path` and a writer waiting on it; `None` without `mkfifo`.
    fn at(fifo: &Path) -> Option<BlockedWriter> {
        let made = std::process::Command::new("mkfifo").arg(fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return None;
        }
        let opened = Arc::new(AtomicBool::new(false));
        let thread = {
            let (fifo, opened) = (fifo.to_path_buf(), opened.clone());
            std::thread::spawn(move || {
                if std::fs::OpenOptions::new().write(true).open(&fifo).is_ok() {
                    opened.store(true, Ordering::SeqCst);
                }
            })
        };
        Some(BlockedWriter {
            fifo: fifo.to_path_buf(),
            opened,
            thread: Some(thread),
        })
    }

    /// Whether anything opened the FIFO for reading so far. A reader that
    /// came and went has woken the writer already; the pause only lets its
    /// thread record that.
    fn was_opened(&self) -> bool {
        std::thread::sleep(std::time::Duration::from_millis(200));
        self.opened.load(Ordering::SeqCst)
    }
}

impl Drop for BlockedWriter {
    fn drop(&mut self) {
        // Open it for reading ourselves, so the writer returns and joins.
        use std::os::unix::fs::OpenOptionsExt;
        let _reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&self.fifo);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A stranger's repository whose `.hookdex/conditions` holds a rule that
/// denies every Bash call and, named as rules, a FIFO (with a writer
/// waiting on it), symlinks to `/dev/zero` and `/proc/self/status`, and a
/// 50 MB filter file. A runtime rule says nothing.
fn hostile_repository() -> Option<(Scratch, BlockedWriter)> {
    let s = Scratch::new();
    set_origin(&s.repo, "git@github.com:stranger/r.git");
    let dir = s.hookdex_dir();
    condition(
        &dir,
        "pre-bash-repo.sh",
        "echo 'the repository rule ran' >&2\nexit 2\n",
    );
    std::os::unix::fs::symlink("/dev/zero", dir.join("pre-bash-zero.sh")).unwrap();
    std::os::unix::fs::symlink("/proc/self/status", dir.join("pre-edit-status.filter.yaml"))
        .unwrap();
    let huge = std::fs::File::create(dir.join("pre-edit-huge.filter.yaml")).unwrap();
    huge.set_len(50 << 20).unwrap();
    rule(&s.runtime(), "pre-bash-mine.sh");
    let writer = BlockedWriter::at(&dir.join("pre-bash-fifo.sh"))?;
    Some((s, writer))
}

/// Runs the hook on a Bash call and says whether the repository's rule denied it.
fn repository_rule_ran(s: &Scratch) -> bool {
    let reply = hook(s, "claude", &pre_bash(s, "claude", "ls"));
    reply.to_string().contains("the repository rule ran")
}

#[test]
fn an_untrusted_repository_is_listed_by_name_and_nothing_in_it_is_opened() {
    let Some((s, writer)) = hostile_repository() else {
        return;
    };
    // The hook returned (hook_bytes asserts exit 0): nothing blocked on the
    // FIFO or read /dev/zero.
    assert!(!repository_rule_ran(&s));
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(e.fresh(), "the second call is fresh: {:#}", e.0["index"]);
    assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-mine.sh")]));
    for name in ["/pre-bash-repo.sh", "/pre-bash-zero.sh"] {
        let reason = e.skip_reason("directory", name);
        assert!(reason.contains("not trusted"), "{name}: {reason}");
    }

    // Listed by name, with the untrusted verdict; the FIFO is refused by
    // its type alone, and nothing in the folder was stamped through.
    let list = s.list(&[]);
    assert_eq!(layer(&list, "directory")["trusted"], false);
    assert_eq!(layer(&list, "directory")["count"], 4, "{list:#}");
    assert!(invalid_reason(&list, "/pre-bash-fifo.sh").contains("FIFO"));
    assert!(!repository_rule_ran(&s));
    assert!(s.explain(&["--tool", "Bash"]).fresh());
    assert!(!writer.was_opened(), "the FIFO was opened");
}

#[test]
fn trusting_the_owner_later_compiles_the_contents_and_the_rule_runs() {
    let Some((mut s, writer)) = hostile_repository() else {
        return;
    };
    assert!(!repository_rule_ran(&s));
    assert!(s.explain(&["--tool", "Bash"]).fresh());

    s.set_env("CONDITIONS_TRUSTED_OWNERS", "stranger");
    assert!(repository_rule_ran(&s), "the next hook call runs it");
    let e = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(
        e.fresh(),
        "fresh after the one recompile: {:#}",
        e.0["index"]
    );
    assert_eq!(
        e.fires(),
        pairs(&[
            ("runtime", "pre-bash-mine.sh"),
            ("directory", "pre-bash-repo.sh")
        ])
    );

    // What cannot be a rule is refused with its reason, read from the
    // folder's listing and stats alone.
    let list = s.list(&[]);
    let reasons = [
        ("/pre-bash-fifo.sh", "FIFO"),
        (
            "/pre-bash-zero.sh",
            "symlink out of its layer (to `/dev/zero`)",
        ),
        ("/pre-edit-status.filter.yaml", "symlink out of its layer"),
        ("/pre-edit-huge.filter.yaml", "larger than"),
    ];
    for (file, want) in reasons {
        let reason = invalid_reason(&list, file);
        assert!(reason.contains(want), "{file}: {reason}");
    }
    let out = s.run(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let zero = s.hookdex_dir().join("pre-bash-zero.sh");
    assert!(
        text.contains(&format!("{}: a symlink out of its layer", zero.display())),
        "{text}"
    );
    assert!(repository_rule_ran(&s));
    assert!(s.explain(&["--tool", "Bash"]).fresh());
    assert!(!writer.was_opened(), "the FIFO was opened");

    // Untrusted again: the index compiled under trust still answers, and
    // the repository's rule does not run.
    s.unset_env("CONDITIONS_TRUSTED_OWNERS");
    assert!(!repository_rule_ran(&s));
    assert!(s.explain(&["--tool", "Bash"]).fresh());
}

/// A trusted layer's rule files and folders that leave it through a symlink
/// are refused and stamped themselves: a target that stats differently in
/// every process (`/proc/self/...`) does not make the index stale forever.
/// Links that stay inside the layer keep working.
#[test]
fn links_out_of_a_layer_are_refused_and_never_stamped_through() {
    let s = Scratch::new();
    let runtime = s.runtime();
    condition(
        &runtime.join("_lib"),
        "guard.sh",
        "echo 'the linked guard ran' >&2\nexit 2\n",
    );
    std::os::unix::fs::symlink("_lib/guard.sh", runtime.join("pre-bash-inside.sh")).unwrap();
    std::os::unix::fs::symlink("/proc/self/status", runtime.join("pre-bash-proc.sh")).unwrap();
    let outside = s.path("outside.filter.yaml");
    std::fs::write(&outside, "mode: block\n").unwrap();
    std::os::unix::fs::symlink(&outside, runtime.join("pre-edit-out.filter.yaml")).unwrap();
    // The repository (no origin: trusted) links its folder to /proc.
    std::fs::create_dir_all(s.repo.join(".agentihooks")).unwrap();
    std::os::unix::fs::symlink("/proc/self/fd", s.agentihooks_dir()).unwrap();

    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        reply.to_string().contains("the linked guard ran"),
        "{reply}"
    );
    for _ in 0..2 {
        let e = s.explain(&["--tool", "Bash"]);
        assert!(e.fresh(), "fresh, not stale forever: {:#}", e.0["index"]);
        assert_eq!(e.fires(), pairs(&[("runtime", "pre-bash-inside.sh")]));
    }
    let list = s.list(&[]);
    for file in [
        "/pre-bash-proc.sh",
        "/pre-edit-out.filter.yaml",
        "/.agentihooks/conditions",
    ] {
        let reason = invalid_reason(&list, file);
        assert!(
            reason.contains("symlink out of its layer"),
            "{file}: {reason}"
        );
    }

    // Replacing a refused link with a real folder is noticed.
    std::fs::remove_file(s.agentihooks_dir()).unwrap();
    condition(
        &s.agentihooks_dir(),
        "pre-bash-repo.sh",
        "echo 'the repository rule ran' >&2\nexit 2\n",
    );
    let e = s.explain(&["--tool", "Bash"]);
    assert!(!e.fresh());
    assert_eq!(
        e.fires(),
        pairs(&[
            ("runtime", "pre-bash-inside.sh"),
            ("directory", "pre-bash-repo.sh")
        ])
    );
}
