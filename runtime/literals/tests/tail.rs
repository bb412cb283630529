//! `explanation_tail` over the literals `string_literals` finds: one line per
//! case, the fragment and the texts of the tails found in it.

mod common;

use hookdex_literals::{explanation_tail, string_literals, Language, Literal, LiteralKind};

/// Checks the tails of every case.
fn tails(language: Language, cases: &[(&str, &[&str])]) {
    common::table(cases, |text| {
        let literals = string_literals(text, language);
        explanation_tail(text, &literals)
            .iter()
            .map(|&(s, e)| &text[s..e])
            .collect()
    });
}

const PYTHON: &[(&str, &[&str])] = &[
    // The seed's worked example, exactly.
    ("reason += f\"; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats\"",
        &["; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats"]),
    ("reason = f\"changed {ago} ago\"", &[]),
    ("x = \"Done because it ran\"", &["because it ran"]),
    ("x = \"Because of you\"", &["Because of you"]),
    ("x = \"Seats, which  means more\"", &["which  means more"]),
    ("x = \"Ship it so that users see\"", &["so that users see"]),
    ("x = \"a since b; c because d\"", &["since b; c because d"]),
    // Whole words only.
    ("x = \"becauses sincere so-that whichmeans sinceé\"", &[]),
    ("x = \"_since x\"", &[]),
    // The holes of f-strings and templates hold code, not cues.
    ("x = f\"Updated {since} ago\"", &[]),
    ("x = f\"{d['a; b']} seats, since {t}\"", &["since {t}"]),
    ("a = \"x; y\"; b = \"z\"", &["; y"]),
];

const SCRIPT: &[(&str, &[&str])] = &[
    (
        "x = `Total ${items.map(i => { f(); return i; })} done`",
        &[],
    ),
    ("x = `Full ${n}; retry ${later}`", &["; retry ${later}"]),
    ("<p>Full because nobody left</p>", &["because nobody left"]),
    (
        "<p title=\"Closed since Monday\">Tom &amp; Jerry&#39;s; always</p>",
        &["since Monday", "; always"],
    ),
];

const HTML: &[(&str, &[&str])] = &[(
    "<p>Tom &amp; Jerry &#x2014; &#8212; so\tthat</p>",
    &["so\tthat"],
)];

#[test]
fn python_tails() {
    tails(Language::Python, PYTHON);
}

#[test]
fn script_tails() {
    tails(Language::Script, SCRIPT);
}

#[test]
fn html_tails() {
    tails(Language::Html, HTML);
}

/// Spans that are not the text's are skipped, not a panic.
#[test]
fn foreign_literals_are_skipped() {
    let text = "x = 'é; because'";
    let bogus = [
        Literal {
            start: 5,
            end: 6,
            kind: LiteralKind::String,
        },
        Literal {
            start: 9,
            end: 99,
            kind: LiteralKind::FString,
        },
        Literal {
            start: 7,
            end: 3,
            kind: LiteralKind::Template,
        },
        Literal {
            start: 0,
            end: text.len(),
            kind: LiteralKind::FString,
        },
    ];
    assert_eq!(explanation_tail(text, &bogus), [(7, text.len())]);
}
