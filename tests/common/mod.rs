//! Scratch trees for end-to-end tests: a HOME, a `$HOOKDEX_HOME`, a cache, a
//! managed directory and a git repository, all under one temporary directory,
//! and helpers to run the built `hookdex` binary against them.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub mod corpus;
pub mod git;
pub mod hook;

/// The built binary.
pub const BIN: &str = env!("CARGO_BIN_EXE_hookdex");

/// One scratch tree.
pub struct Scratch {
    _dir: tempfile::TempDir,
    /// The root of the tree.
    pub root: PathBuf,
    /// The repository the commands run in (has `.git/config`).
    pub repo: PathBuf,
    /// The working directory of commands (the repository unless changed).
    pub cwd: PathBuf,
    env: BTreeMap<String, String>,
    /// The user commands run as, with a copy of the binary they can run
    /// ([`Scratch::run_as`]); `None`: this process's user and [`BIN`].
    user: Option<(u32, PathBuf)>,
}

impl Scratch {
    /// A scratch tree with a repository that has no `origin` remote.
    pub fn new() -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix("hookdex-e2e-")
            .tempdir()
            .expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical tempdir");
        for sub in ["home", "hookdex-home", "cache", "managed"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(
            repo.join(".git/config"),
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
        )
        .unwrap();
        let mut env = BTreeMap::new();
        env.insert("HOME".into(), root.join("home").display().to_string());
        env.insert(
            "HOOKDEX_HOME".into(),
            root.join("hookdex-home").display().to_string(),
        );
        env.insert(
            "HOOKDEX_CACHE_DIR".into(),
            root.join("cache").display().to_string(),
        );
        env.insert(
            "HOOKDEX_MANAGED_DIR".into(),
            root.join("managed").display().to_string(),
        );
        // These trees test what the hook itself answers: the shell calls it
        // would wrap to run under the kernel's guard are left as they are.
        // The guard's own tests (tests/enforce_*.rs) turn it back on.
        env.insert("HOOKDEX_ENFORCE".into(), "off".into());
        Scratch {
            _dir: dir,
            root,
            cwd: repo.clone(),
            repo,
            env,
            user: None,
        }
    }

    /// Runs every command from now on as `uid` (with the same number as its
    /// group) from a copy of the binary in the tree, which becomes readable
    /// by all; only root can do this. The tree's directories except the
    /// managed one are handed to `uid`, as a user's own home and cache are.
    pub fn run_as(&mut self, uid: u32) {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let copy = bin.join("hookdex");
        std::fs::copy(BIN, &copy).unwrap();
        std::fs::set_permissions(&self.root, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["home", "hookdex-home", "cache", "repo"] {
            let status = Command::new("chown")
                .args(["-R", &format!("{uid}:{uid}")])
                .arg(self.root.join(sub))
                .status()
                .expect("chown");
            assert!(status.success(), "chown {sub}");
        }
        self.user = Some((uid, copy));
    }

    /// The value of `name` in the commands' environment (`None` when unset),
    /// for building the same view in process.
    /// The variables set for commands whose name starts with `prefix`, sorted.
    pub fn vars_with_prefix(&self, prefix: &str) -> Vec<(String, String)> {
        self.env
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    pub fn var(&self, name: &str) -> Option<std::ffi::OsString> {
        match self.env.get(name) {
            Some(value) => Some(value.into()),
            None if name == "PATH" => std::env::var_os("PATH"),
            None => None,
        }
    }

    /// `root/rel`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// `$HOOKDEX_HOME`.
    pub fn home(&self) -> PathBuf {
        self.root.join("hookdex-home")
    }

    /// `$HOOKDEX_CACHE_DIR`.
    pub fn cache(&self) -> PathBuf {
        self.root.join("cache")
    }

    /// The runtime layer: `$HOOKDEX_HOME/conditions`.
    pub fn runtime(&self) -> PathBuf {
        self.home().join("conditions")
    }

    /// The managed layer: `$HOOKDEX_MANAGED_DIR/conditions`.
    pub fn managed(&self) -> PathBuf {
        self.root.join("managed/conditions")
    }

    /// `<repo>/.hookdex/conditions`.
    pub fn hookdex_dir(&self) -> PathBuf {
        self.repo.join(".hookdex/conditions")
    }

    /// `<repo>/.agentihooks/conditions`.
    pub fn agentihooks_dir(&self) -> PathBuf {
        self.repo.join(".agentihooks/conditions")
    }

    /// Creates a bundle directory `root/name` (with `.claude/conditions`) and returns it.
    pub fn bundle(&self, name: &str) -> PathBuf {
        let dir = self.root.join(name);
        std::fs::create_dir_all(dir.join(".claude/conditions")).unwrap();
        dir
    }

    /// Sets an environment variable for every command run from now on.
    pub fn set_env(&mut self, name: &str, value: impl AsRef<str>) {
        self.env.insert(name.into(), value.as_ref().to_string());
    }

    /// Removes an environment variable.
    pub fn unset_env(&mut self, name: &str) {
        self.env.remove(name);
    }

    /// Writes `$HOOKDEX_HOME/state.json`.
    pub fn write_state(&self, state: &Value) {
        std::fs::write(
            self.home().join("state.json"),
            serde_json::to_vec_pretty(state).unwrap(),
        )
        .unwrap();
    }

    /// A command for the binary with a clean environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_via(&[], args)
    }

    /// The binary run through `wrapper` (such as `strace -o FILE`), with a
    /// clean environment.
    pub fn cmd_via(&self, wrapper: &[&str], args: &[&str]) -> Command {
        let bin = self.user.as_ref().map_or(Path::new(BIN), |(_, copy)| copy);
        let mut cmd = match wrapper.split_first() {
            None => Command::new(bin),
            Some((program, rest)) => {
                let mut cmd = Command::new(program);
                cmd.args(rest).arg(bin);
                cmd
            }
        };
        if let Some((uid, _)) = self.user {
            use std::os::unix::process::CommandExt;
            cmd.uid(uid).gid(uid);
        }
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(&self.env)
            .current_dir(&self.cwd)
            .args(args)
            .stdin(Stdio::null());
        cmd
    }

    /// Runs the binary to completion.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run hookdex")
    }

    /// Runs the binary with `stdin` as its input.
    pub fn run_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.run_stdin_via(&[], args, stdin)
    }

    /// Runs the binary through `wrapper` with `stdin` as its input.
    pub fn run_stdin_via(&self, wrapper: &[&str], args: &[&str], stdin: &[u8]) -> Output {
        let mut child = self
            .cmd_via(wrapper, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn hookdex");
        {
            let mut input = child.stdin.take().unwrap();
            // The binary may exit before reading everything; that is fine.
            let _ = input.write_all(stdin);
        }
        child.wait_with_output().expect("wait hookdex")
    }

    /// Runs the binary, asserts exit 0 and parses stdout as JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert_success(&out, args);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "hookdex {args:?}: stdout is not JSON ({e}):\n{}",
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }

    /// `hookdex explain --json` with `args` added.
    pub fn explain(&self, args: &[&str]) -> Explain {
        let mut all = vec!["explain", "--json"];
        all.extend_from_slice(args);
        Explain(self.json(&all))
    }

    /// `hookdex list --json` with `args` added.
    pub fn list(&self, args: &[&str]) -> Value {
        let mut all = vec!["list", "--json"];
        all.extend_from_slice(args);
        self.json(&all)
    }

    /// The index files for `target` in the cache directory.
    pub fn index_files(&self, target: &str) -> Vec<PathBuf> {
        let prefix = format!("index-{target}-");
        let mut found: Vec<PathBuf> = std::fs::read_dir(self.cache())
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        let name = file_name(p);
                        name.starts_with(&prefix) && name.ends_with(".hdx")
                    })
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    }

    /// The one claude index file.
    pub fn index_file(&self) -> PathBuf {
        let files = self.index_files("claude");
        assert_eq!(files.len(), 1, "expected one claude index: {files:?}");
        files.into_iter().next().unwrap()
    }
}

/// Creates `dir` and an empty rule file `name` in it; returns its path.
pub fn rule(dir: &Path, name: &str) -> PathBuf {
    rule_with(dir, name, "")
}

/// Creates `dir` and a rule file `name` with `body`; returns its path.
pub fn rule_with(dir: &Path, name: &str, body: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

/// Puts a stub `name` first on the tree's `PATH`: it appends its
/// arguments to the returned log and prints `<name>-stub ARGS`, so a test
/// sees whether the program ran, and with what.
pub fn stub_on_path(s: &mut Scratch, name: &str) -> PathBuf {
    let bin = s.root.join("stubs");
    let log = s.root.join(format!("{name}.log"));
    let stub = rule_with(
        &bin,
        name,
        &format!(
            "#!/bin/sh\necho \"$*\" >> {}\necho \"{name}-stub $*\"\n",
            log.display()
        ),
    );
    set_executable(&stub, true);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    s.set_env("PATH", &path);
    log
}

/// Runs `command` as a harness's shell would: `bash -c` in the repository,
/// with the tree's environment and nothing else, stdin closed.
pub fn shell(s: &Scratch, command: &str) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(command).current_dir(&s.repo);
    cmd.env_clear();
    for (name, value) in s.vars_with_prefix("") {
        cmd.env(name, value);
    }
    cmd.stdin(Stdio::null()).output().unwrap()
}

/// Makes `path` executable (or not).
pub fn set_executable(path: &Path, exec: bool) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if exec { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Writes `<repo>/.git/config` with an `origin` remote at `url`.
pub fn set_origin(repo: &Path, url: &str) {
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(
        repo.join(".git/config"),
        format!(
            "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        ),
    )
    .unwrap();
}

/// The last component of `path`.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The last component of a path given as text.
pub fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Panics with the command's output unless it exited 0.
pub fn assert_success(out: &Output, args: &[&str]) {
    assert!(
        out.status.success(),
        "hookdex {args:?} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The parsed output of `explain --json`.
#[derive(Clone, Debug)]
pub struct Explain(pub Value);

impl Explain {
    fn entries(&self, key: &str) -> &[Value] {
        self.0[key]
            .as_array()
            .unwrap_or_else(|| panic!("explain JSON has no `{key}` array: {}", self.0))
    }

    /// `(layer, file name)` of every firing rule outside the package layer, in order.
    pub fn fires(&self) -> Vec<(String, String)> {
        self.entries("fires")
            .iter()
            .filter(|f| f["layer"] != "package")
            .map(|f| {
                (
                    f["layer"].as_str().unwrap().to_string(),
                    base(f["file"].as_str().unwrap()).to_string(),
                )
            })
            .collect()
    }

    /// File names of the firing rules outside the package layer, in order.
    pub fn fire_names(&self) -> Vec<String> {
        self.fires().into_iter().map(|(_, f)| f).collect()
    }

    /// Full paths of the firing rules outside the package layer.
    pub fn fire_paths(&self) -> Vec<String> {
        self.entries("fires")
            .iter()
            .filter(|f| f["layer"] != "package")
            .map(|f| f["file"].as_str().unwrap().to_string())
            .collect()
    }

    /// The `why` of the firing rule at `path_suffix`.
    pub fn why(&self, path_suffix: &str) -> String {
        self.entries("fires")
            .iter()
            .find(|f| f["file"].as_str().unwrap().ends_with(path_suffix))
            .unwrap_or_else(|| panic!("{path_suffix} does not fire: {}", self.0))["why"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The skip reason of the rule whose path ends with `path_suffix` (in `layer`).
    pub fn skip_reason(&self, layer: &str, path_suffix: &str) -> String {
        self.entries("skipped")
            .iter()
            .find(|s| s["layer"] == layer && s["file"].as_str().unwrap().ends_with(path_suffix))
            .unwrap_or_else(|| panic!("{layer}/{path_suffix} is not skipped: {:#}", self.0))
            ["reason"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Every file (fired or skipped) the answer mentions.
    pub fn all_files(&self) -> Vec<String> {
        self.entries("fires")
            .iter()
            .chain(self.entries("skipped"))
            .map(|f| f["file"].as_str().unwrap().to_string())
            .collect()
    }

    /// `index.fresh`.
    pub fn fresh(&self) -> bool {
        self.0["index"]["fresh"]
            .as_bool()
            .unwrap_or_else(|| panic!("no index.fresh: {}", self.0))
    }

    /// `tool`.
    pub fn tool(&self) -> String {
        self.0["tool"].as_str().unwrap_or_default().to_string()
    }

    /// `programs`.
    pub fn programs(&self) -> Vec<String> {
        self.0["programs"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|p| p.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// `(layer, file name)` pairs from string slices, for comparisons.
pub fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(l, f)| (l.to_string(), f.to_string()))
        .collect()
}

/// `(layer, file name)` of the `active` rules of a `list --json` answer, package layer excluded.
pub fn active(list: &Value) -> Vec<(String, String)> {
    list["active"]
        .as_array()
        .expect("active array")
        .iter()
        .filter(|r| r["layer"] != "package")
        .map(|r| {
            (
                r["layer"].as_str().unwrap().to_string(),
                base(r["file"].as_str().unwrap()).to_string(),
            )
        })
        .collect()
}

/// The `layers` entry labelled `label`.
pub fn layer<'a>(list: &'a Value, label: &str) -> &'a Value {
    list["layers"]
        .as_array()
        .expect("layers array")
        .iter()
        .find(|l| l["label"] == label)
        .unwrap_or_else(|| panic!("no layer {label}: {:#}", list["layers"]))
}

/// Labels of the `layers`, in order.
pub fn layer_labels(list: &Value) -> Vec<String> {
    list["layers"]
        .as_array()
        .expect("layers array")
        .iter()
        .map(|l| l["label"].as_str().unwrap().to_string())
        .collect()
}

/// `(file, reason)` of the `invalid` entries.
pub fn invalid(list: &Value) -> Vec<(String, String)> {
    list["invalid"]
        .as_array()
        .expect("invalid array")
        .iter()
        .map(|i| {
            (
                i["file"].as_str().unwrap().to_string(),
                i["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The reason recorded for the invalid file whose path ends with `suffix`.
pub fn invalid_reason(list: &Value, suffix: &str) -> String {
    invalid(list)
        .into_iter()
        .find(|(f, _)| f.ends_with(suffix))
        .unwrap_or_else(|| panic!("{suffix} is not invalid: {:#}", list["invalid"]))
        .1
}

/// Whether a test that needs `program` must skip: it does not start here.
/// Says so on stderr, so a skipped test is visible.
pub fn skip_without(program: &str) -> bool {
    let gone = Command::new(program).arg("--version").output().is_err();
    if gone {
        eprintln!("SKIPPED: {program} is not installed");
    }
    gone
}

/// Whether the package ships profile `name` (as `rules/profiles/<name>/.claude/conditions`).
pub fn package_has_profile(name: &str) -> bool {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules/profiles")
        .join(name)
        .join(".claude/conditions")
        .is_dir()
}

/// Every file under `dir`, recursively.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
