//! The guard on the real kernel: real bash running lines whose programs its
//! text hides, a stub `kubectl` on PATH that leaves a mark when it runs,
//! and a judge that denies `kubectl delete`. Skips, saying why, where the
//! kernel cannot supervise.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hookdex_enforce::{ExecCall, Guard, Judge, Verdict, WriteCall, WriteKind};
use hookdex_test_support::write_executable;

/// Denies `kubectl delete`, and writes under `protected` while it is set.
struct Readonly {
    protected: Option<PathBuf>,
    asked: Mutex<Vec<Vec<String>>>,
}

impl Judge for Readonly {
    fn exec(&self, call: &ExecCall<'_>) -> Verdict {
        let mut asked = self.asked.lock().unwrap();
        for view in call.views {
            asked.push(view.argv.clone());
            if view.argv.get(1).is_some_and(|a| a == "delete") {
                return Verdict::deny(
                    "hookdex: pre-bash.kubectl-readonly.sh: delete is not allowed",
                );
            }
        }
        Verdict::Continue
    }

    fn write(&self, call: &WriteCall<'_>) -> Verdict {
        let Some(protected) = &self.protected else {
            return Verdict::Continue;
        };
        if call.kind == WriteKind::Unchecked {
            return Verdict::deny(format!("hookdex: gate closed: {}", call.call));
        }
        let inside = |p: &Path| {
            p.starts_with(protected) || protected.starts_with(p) && call.kind == WriteKind::Move
        };
        for target in call.paths {
            if inside(&target.lexical) || target.real.as_deref().is_some_and(inside) {
                return Verdict::deny(format!(
                    "hookdex: gate closed: {}",
                    target.lexical.display()
                ));
            }
        }
        Verdict::Continue
    }
}

fn available() -> bool {
    match hookdex_enforce::available() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: enforcement unavailable here: {why}");
            false
        }
    }
}

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    bin: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let bin = root.join("bin");
        std::fs::create_dir(&bin).unwrap();
        write_executable(
            &bin.join("kubectl"),
            "#!/bin/sh\necho \"$*\" >> \"$KUBECTL_LOG\"\necho \"kubectl-stub $*\"\n",
        );
        Tree {
            _dir: dir,
            root,
            bin,
        }
    }

    fn path(&self) -> String {
        format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.root.join("kubectl.log")).unwrap_or_default()
    }

    /// Runs `line` with bash under a guard of `judge`, in the tree.
    fn run(&self, line: &str, judge: &Readonly) -> i32 {
        let path = self.path();
        let guard = Guard::builder()
            .programs(["kubectl"])
            .search_path(&path)
            .write_gate(judge.protected.is_some())
            .build();
        let argv = ["/bin/bash", "-c", line].map(String::from);
        // The guard runs argv with this process's environment and cwd.
        std::env::set_var("PATH", &path);
        std::env::set_var("KUBECTL_LOG", self.root.join("kubectl.log"));
        std::env::set_current_dir(&self.root).unwrap();
        let status = guard.run(&argv, judge, &|_| {}).unwrap();
        status.code().unwrap_or(-1)
    }
}

fn readonly(protected: Option<PathBuf>) -> Readonly {
    Readonly {
        protected,
        asked: Mutex::new(Vec::new()),
    }
}

// One test function: the guard runs commands with this process's
// environment and working directory, which parallel tests would race on.
#[test]
fn the_guard_holds_where_the_text_cannot_see() {
    if !available() {
        return;
    }
    let tree = Tree::new();
    let judge = readonly(None);
    let hidden = [
        "c=kubectl; $c delete pod x",
        "kube{c..c}tl delete pod x 2>/dev/null || eval \"kube\"\"ctl delete pod x\"",
        "printf 'all:\\n\\tkubectl delete pod x\\n' > Makefile && make -s 2>/dev/null; true",
        "awk 'BEGIN{system(\"kubectl delete pod x\")}'",
        "cp \"$(command -v kubectl)\" ./k && ./k delete pod x",
        "ln -sf \"$(command -v kubectl)\" ./k2 && ./k2 delete pod x",
        "(exec -a notkubectl kubectl delete pod x)",
        "sh < <(echo 'kubectl delete pod x')",
        "python3 -c 'import os; os.system(\"kubectl delete pod x\")' 2>/dev/null; true",
        // A script handed to a shell past options that take a value.
        "bash -o posix \"$(command -v kubectl)\" delete pod x",
        "bash --rcfile /dev/null \"$(command -v kubectl)\" delete pod x",
        "sh +x \"$(command -v kubectl)\" delete pod x",
        "bash -e \"$(command -v kubectl)\" delete pod x",
        "sh -ex \"$(command -v kubectl)\" delete pod x",
        // A changed root would make its paths name other files: refused.
        "unshare -Ur chroot / kubectl delete pod x 2>/dev/null; true",
    ];
    for line in hidden {
        tree.run(line, &judge);
        assert!(
            !tree.log().contains("delete"),
            "kubectl delete ran under the guard: {line}\nlog: {}",
            tree.log()
        );
    }
    // A get hidden the same way runs.
    let code = tree.run("c=kubectl; $c get pods", &judge);
    assert_eq!(code, 0);
    assert!(tree.log().contains("get pods"), "log: {}", tree.log());
    // The renamed copy was seen as kubectl, with its name first.
    let asked = judge.asked.lock().unwrap().clone();
    assert!(
        asked
            .iter()
            .any(|a| a == &["kubectl", "delete", "pod", "x"]),
        "{asked:?}"
    );

    // The exit status and a denied exec's errno come through.
    assert_eq!(tree.run("exit 7", &judge), 7);
    assert_eq!(tree.run("kubectl delete pod x", &judge), 126);

    // A background job's exec after the command ended is still judged.
    let code = tree.run(
        "(sleep 0.3; kubectl delete pod y; kubectl get late) &",
        &judge,
    );
    assert_eq!(code, 0);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(tree.log().contains("get late"), "log: {}", tree.log());
    assert!(!tree.log().contains("pod y"), "log: {}", tree.log());

    // The write gate: a rule folder reached by any path is refused.
    let rules = tree.root.join("repo/.hookdex/conditions");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("keep.sh"), "exit 0\n").unwrap();
    let gate = readonly(Some(tree.root.join("repo/.hookdex")));
    for line in [
        "echo x > repo/.hookdex/conditions/new.sh",
        "cd repo && echo x >> ~+/.hookdex/conditions/keep.sh",
        "cd repo/.hook* && mv conditions c2",
        "rm -rf repo",
        "ln -s repo/.hookdex/conditions alias && echo x > alias/evil.sh",
        "python3 -c 'open(\"repo/.hookdex/conditions/py.sh\",\"w\").write(\"x\")' 2>/dev/null; true",
        "chmod 000 repo/.hookdex/conditions/keep.sh",
        // Through a descriptor opened for reading, and by its times.
        "python3 -c 'import os; os.fchmod(os.open(\"repo/.hookdex/conditions/keep.sh\", os.O_RDONLY), 0)'",
        "python3 -c 'import os; os.chroot(\"repo/.hookdex\"); open(\"/conditions/c.sh\", \"w\")' 2>/dev/null; true",
    ] {
        tree.run(line, &gate);
        let names: Vec<String> = std::fs::read_dir(&rules)
            .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        assert_eq!(names, vec!["keep.sh".to_string()], "after: {line}");
        assert_eq!(std::fs::read_to_string(rules.join("keep.sh")).unwrap(), "exit 0\n", "after: {line}");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(rules.join("keep.sh")).unwrap().permissions().mode();
        assert_ne!(mode & 0o777, 0, "after: {line}");
    }
    let times = |path: &Path| std::fs::metadata(path).unwrap().modified().unwrap();
    let before = times(&rules.join("keep.sh"));
    tree.run(
        "touch -d @1000000000 repo/.hookdex/conditions/keep.sh",
        &gate,
    );
    assert_eq!(times(&rules.join("keep.sh")), before, "utimensat");
    // Writes elsewhere go on.
    assert_eq!(
        tree.run("echo ok > elsewhere && mkdir d && mv elsewhere d/", &gate),
        0
    );
    assert!(tree.root.join("d/elsewhere").exists());
}
