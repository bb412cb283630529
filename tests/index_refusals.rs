//! An index file hookdex may not trust is refused and the index rebuilt from
//! the rules: a FIFO planted at its path (which would block a plain open),
//! a symlink to another file, or a file others can write. Each is checked
//! through the real `hookdex hook`: the guard still denies, and promptly.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::hook::*;
use common::*;

/// A tree whose kubectl guard is compiled, and the path of its index.
fn guarded() -> (Scratch, std::path::PathBuf) {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash.kubectl-deny.sh",
        &decider("deny", "no kubectl"),
    );
    let out = s.run(&["compile"]);
    assert_success(&out, &["compile"]);
    let index = s.index_file();
    (s, index)
}

fn denies(s: &Scratch) {
    let reply = hook(s, "claude", &pre_bash(s, "claude", "kubectl delete pod x"));
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
}

#[test]
fn a_fifo_at_the_index_path_neither_hangs_nor_hides_the_guard() {
    let (s, index) = guarded();
    std::fs::remove_file(&index).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&index)
        .status()
        .unwrap();
    assert!(made.success());
    // hook_bytes fails the test if the hook does not exit 0; a blocking
    // open would never return (the test would hang, not pass).
    denies(&s);
}

#[test]
fn an_index_others_can_write_is_rebuilt() {
    let (s, index) = guarded();
    // An index of an empty tree, made writable by anyone, put in its place:
    // believed, it would say nothing fires.
    let empty = Scratch::new();
    assert_success(&empty.run(&["compile"]), &["compile"]);
    std::fs::copy(empty.index_file(), &index).unwrap();
    std::fs::set_permissions(&index, std::fs::Permissions::from_mode(0o666)).unwrap();
    denies(&s);
    let mode = std::fs::metadata(&index).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o022,
        0,
        "the rebuilt index replaced the writable one"
    );
}

#[test]
fn a_symlink_at_the_index_path_is_not_followed() {
    let (s, index) = guarded();
    let empty = Scratch::new();
    assert_success(&empty.run(&["compile"]), &["compile"]);
    std::fs::remove_file(&index).unwrap();
    std::os::unix::fs::symlink(empty.index_file(), &index).unwrap();
    denies(&s);
}

#[test]
fn an_index_built_for_another_view_is_rebuilt() {
    let (s, index) = guarded();
    // A sound index of this user's, from another tree (another home,
    // managed directory and repository), copied under this view's name.
    let other = Scratch::new();
    assert_success(&other.run(&["compile"]), &["compile"]);
    std::fs::copy(other.index_file(), &index).unwrap();
    std::fs::set_permissions(&index, std::fs::Permissions::from_mode(0o600)).unwrap();
    let e = s.explain(&["--tool", "Bash"]);
    assert!(!e.fresh(), "another view's index is not fresh here");
    denies(&s);
}

/// A FIFO planted at each other file the hook reads on its way: the git
/// config that decides trust, `state.json`, and a project's harness
/// settings (read to name an MCP tool). Opened without blocking, or only
/// after a stat says it is a regular file, none hangs the hook; the guard
/// still denies and the MCP call is still judged.
#[test]
fn fifos_at_the_other_files_the_hook_reads_hang_nothing() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash.kubectl-deny.sh",
        &decider("deny", "no kubectl"),
    );
    condition(&s.runtime(), "post-any-seen.sh", "echo seen\n");
    std::fs::create_dir_all(s.repo.join(".gemini")).unwrap();
    for fifo in [
        s.repo.join(".git/config"),
        s.home().join("state.json"),
        s.repo.join(".gemini/settings.json"),
    ] {
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success(), "mkfifo {}", fifo.display());
    }
    denies(&s);
    // Without `mcp_context`, Gemini's settings files are read to name the
    // tool's server (the FIFO is skipped, so the name stays unresolved).
    let mut mcp = fixture(&s, "gemini-post-mcp");
    mcp.as_object_mut().unwrap().remove("mcp_context");
    let reply = hook(&s, "gemini", &mcp);
    assert!(context_of(&reply).contains("seen"), "{reply}");
    let list = s.run(&["list"]);
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains("state.json"), "{listed}");
}
