//! The adversarial corpus (`tests/enforce/*.txt` of the workspace) through [`split`], in
//! process: the text guard's share of the bargain, without bash or the hook (the
//! workspace's `tests/text_guard.rs` runs the same lines in bash and through `hookdex hook`).
//!
//! For every line that runs kubectl under bash, the splitter names `kubectl` or reports the
//! line dynamic; for the classes whose program the text shows it names `kubectl` on at least
//! 98 % of them; benign lines never name it.

#![allow(dead_code)]

#[path = "../../../tests/common/corpus.rs"]
mod corpus;

use std::path::Path;

use corpus::{corpus_in, Expect};
use hookdex_shell::split;

#[test]
fn every_line_that_runs_kubectl_is_named_or_dynamic() {
    let corpus = corpus_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/enforce"));
    let (mut visible, mut named) = (0, 0);
    let mut missed = Vec::new();
    let mut unnamed = Vec::new();
    let mut fired = Vec::new();
    for line in &corpus.lines {
        let found = split(&line.text);
        let kubectl = found.programs.iter().any(|p| p == "kubectl");
        match line.expect {
            Expect::Benign => {
                if kubectl {
                    fired.push(format!("{} [{}] {}", line.at, line.class, line.text));
                }
            }
            Expect::Stop | Expect::Run => {
                if corpus.visible(line) {
                    visible += 1;
                    if kubectl {
                        named += 1;
                    } else {
                        unnamed.push(format!("{} [{}] {}", line.at, line.class, line.text));
                    }
                }
                if !kubectl && !found.is_dynamic() {
                    missed.push(format!(
                        "{} [{}] {} -> {:?}",
                        line.at, line.class, line.text, found.programs
                    ));
                }
            }
        }
    }
    eprintln!(
        "text guard: {named} of {visible} lines whose program the text shows name kubectl; \
         {} lines run kubectl unseen and not dynamic; {} benign lines name it",
        missed.len(),
        fired.len()
    );
    for m in &unnamed {
        eprintln!("  reported dynamic, not named: {m}");
    }
    assert!(
        missed.is_empty(),
        "{} lines run kubectl, and the splitter neither names it nor reports them dynamic:\n{}",
        missed.len(),
        missed.join("\n")
    );
    assert!(
        named * 100 >= visible * 98,
        "{named} of {visible} lines whose program the text shows name kubectl (goal: 98 %)"
    );
    assert!(
        fired.is_empty(),
        "benign lines name kubectl:\n{}",
        fired.join("\n")
    );
}

/// [`hookdex_shell::read`] gives what [`split`] and [`hookdex_shell::commands`]
/// give apart, on every line of the corpus and on lines past the budget.
#[test]
fn one_reading_gives_the_split_and_the_commands() {
    let corpus = corpus_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/enforce"));
    let long = format!("kubectl get {}; $x delete", "{a,b}".repeat(300_000));
    let lines =
        corpus
            .lines
            .iter()
            .map(|l| l.text.clone())
            .chain([long, String::new(), "ls".into()]);
    for line in lines {
        let (found, commands) = hookdex_shell::read(&line);
        assert_eq!(found, split(&line), "{line:.200}");
        assert_eq!(commands, hookdex_shell::commands(&line), "{line:.200}");
    }
}
