//! Whether a prompt asks for a rule change (SPEC §13, the seeds' phrases):
//! a verb (`set`, `add`, `create`, `update`, `remove`) followed within a few
//! words by what it changes (`condition`, `filter`, `classifier`,
//! `enforcement`, `rule`, `hook`, `guard`, singular or plural), as in "set
//! a condition", "create a new condition", "set a ui slop filter", "add a
//! rule", "add a guard"; not negated by `don't`, `do
//! not`, `never` or `no` in the few words before the verb.

/// Verbs that ask for a change.
const VERBS: &[&str] = &["set", "add", "create", "update", "remove"];
/// What they must change.
const OBJECTS: &[&str] = &[
    "condition",
    "filter",
    "classifier",
    "enforcement",
    "rule",
    "hook",
    "guard",
];
/// Words that negate a verb after them in the same sentence.
const NEGATIONS: &[&str] = &[
    "don't",
    "dont",
    "n't",
    "not",
    "never",
    "no",
    "shouldn't",
    "won't",
    "wont",
    "avoid",
    "without",
    "stop",
    "can't",
    "cannot",
];
/// Words one of which must sit between the verb and its object, as in
/// every phrase of the seeds ("set a condition", "update the filter"):
/// "cannot update condition variable" in pasted output asks for nothing.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "new", "this", "that", "my", "our", "another", "these", "those", "some",
];
/// How many words may sit between the verb and its object.
const BETWEEN: usize = 4;

/// Whether `prompt` asks, unnegated, for a condition, filter, classifier,
/// enforcement, rule, hook or guard to be set, added, created, updated or removed.
pub fn asks_for_change(prompt: &str) -> bool {
    prompt
        .split(['.', '!', '?', ';', '\n'])
        .any(|sentence| sentence_asks(&words(sentence)))
}

fn sentence_asks(words: &[String]) -> bool {
    words.iter().enumerate().any(|(at, word)| {
        if !VERBS.contains(&word.as_str()) {
            return false;
        }
        let after = &words[at + 1..];
        let Some(object) = after.iter().take(BETWEEN + 1).position(|w| is_object(w)) else {
            return false;
        };
        after[..object]
            .iter()
            .any(|w| DETERMINERS.contains(&w.as_str()))
            && !words[..at].iter().any(|w| NEGATIONS.contains(&w.as_str()))
    })
}

fn is_object(word: &str) -> bool {
    let singular = word.strip_suffix('s').unwrap_or(word);
    OBJECTS.contains(&singular)
}

/// The prompt's words, lowercased, apostrophes kept (typographic ones read
/// as `'`).
fn words(prompt: &str) -> Vec<String> {
    prompt
        .to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_phrases_arm_and_negated_ones_do_not() {
        let arming = [
            "set a condition: after every kubectl apply, remind me the change must go through GitOps",
            "Add a condition that blocks rm -rf",
            "create a new condition for the deploy script",
            "update the condition so it allows git log",
            "remove the condition ls_formatter",
            "set a ui slop filter",
            "Please REMOVE the classifier filters.",
            "add an enforcement for kubectl",
            "add a rule that blocks git push --force",
            "create a hook for npm publish",
            "Add a guard against rm -rf /",
            "update the rules: no more sudo",
        ];
        for prompt in arming {
            assert!(asks_for_change(prompt), "{prompt}");
        }
        let not_arming = [
            "don't add a condition",
            "do not set a filter",
            "Don’t create a new condition",
            "never remove the condition",
            "no, don't update the conditions",
            "I don't want you to ever add a condition",
            "Never, under any circumstances, add a condition",
            "you shouldn't add a condition",
            "do n't add a condition",
            "error: cannot update condition variable",
            "what does add_condition do?",
            "set up CI conditions",
            "what does the condition do?",
            "set the timeout to 5 and then we talk about a condition later today",
            "fix the filtering of the list",
            "don't add a hook",
            "never create a new guard",
            "add rule_id to the struct",
            "update the ruler",
            "",
        ];
        for prompt in not_arming {
            assert!(!asks_for_change(prompt), "{prompt}");
        }
    }
}
