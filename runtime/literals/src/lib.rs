//! The built-in finders `string_literals` and `explanation_tail` (SPEC §6):
//! the user-facing string literals and text nodes of a source fragment, and
//! the explanation tails inside them. Pure functions over text, no I/O.
//!
//! A fragment is what an edit writes: often a piece of a file that starts or
//! ends mid-construct. Each language family has a careful hand-written lexer
//! (`python.rs`, `script.rs`, `markup.rs`, each over the shared skeleton of
//! `cursor.rs`) that never panics, never loops, never reports a comment, and
//! misses a literal rather than invent one from a quote in a comment or a
//! regex; `fragment.rs` rereads a fragment that seems to start inside a
//! string or a comment.
//!
//! ```
//! use hookdex_literals::{explanation_tail, string_literals, Language, LiteralKind};
//!
//! let line = r#"reason += f"; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats""#;
//! let literals = string_literals(line, Language::Python);
//! assert_eq!(literals.len(), 1);
//! assert_eq!(literals[0].kind, LiteralKind::FString);
//! let (start, end) = explanation_tail(line, &literals)[0];
//! assert_eq!(
//!     &line[start..end],
//!     "; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats",
//! );
//!
//! let tsx = r#"import { t } from "i18n"; // "not this"
//! const Seats = () => <p title="Free seats">Claude has {n} seats</p>;"#;
//! let texts: Vec<&str> = string_literals(tsx, Language::Script).iter().map(|l| l.text(tsx)).collect();
//! assert_eq!(texts, ["Free seats", "Claude has", "seats"]);
//! ```
//!
//! # Why hand-written lexers, not tree-sitter
//!
//! SPEC §11 gives the finders 1 ms per 100 KB edit per language, and the hook
//! binary must not grow its start cost. Measured on this machine (2 cores,
//! tree-sitter 0.27, release build with fat LTO, a realistic 100 KB fragment
//! per language, best of 30; parse alone, then parse and a walk collecting the
//! string nodes):
//!
//! | grammar | parse | parse + walk | binary size added |
//! |---|---|---|---|
//! | tree-sitter-python 0.25 | 10.5 ms | 13.0 ms | +0.59 MB |
//! | tree-sitter-javascript 0.25 | 8.8 ms | 11.4 ms | +0.54 MB |
//! | tree-sitter-typescript 0.23 (tsx) | 13.9 ms | 17.6 ms | +1.57 MB |
//! | tree-sitter-html 0.23 | 8.2 ms | 10.3 ms | +0.14 MB |
//! | all four | | | +2.49 MB (0.32 → 2.80 MB) |
//!
//! Every grammar is 8 to 18 times over the budget before it has found one
//! literal, and the four together would add 57% to today's 4.40 MB hookdex
//! binary (the process start did not measurably change: 1.08 against 1.10 ms
//! per run under a shell loop). They also parse a fragment as a whole file, so an
//! edit that starts mid-string yields error nodes rather than a recovery.
//! The lexers here read the same kind of fragment in 0.18 to 0.33 ms per
//! 100 KB, 0.20 to 0.53 ms with `explanation_tail` (`cargo bench -p
//! hookdex-benches --bench literals`), so every language uses one.
//!
//! Checked against real parsers: over 511 modules of CPython 3.11's standard
//! library (10 MB), every literal reported lies inside a string token of
//! Python's `tokenize` (`tests/tokenize.rs` runs this on 150 of them); over
//! 560 JavaScript files of npm (5.5 MB), TypeScript 5.9's own `typescript.js`
//! (9 MB) and create-vite's JSX and TSX templates, every literal lies inside
//! a string, template or JSX text node of TypeScript's parser.
//!
//! # Choices
//!
//! - A [`Literal`]'s span is its content: without prefix and quotes for
//!   strings, trimmed of surrounding whitespace for text nodes and attribute
//!   values. So a finding reads as the text itself, and stripping it leaves
//!   valid code (`""`).
//! - An f-string or template is one literal, its `{…}` holes included (the
//!   seed's tail runs across them); strings inside a hole belong to it and are
//!   not reported apart, so literals never overlap. Markup text is split at
//!   interpolations instead (`Hello {name}!` is `Hello` and `!`), since a
//!   hole there may hold whole elements with literals of their own.
//! - Not user-facing, so not reported: Python bytes literals, docstrings and
//!   other expression-statement strings; module specifiers and directives;
//!   object and dict keys, `case` labels, whole subscripts (`row["k"]`);
//!   tagged templates except `html`; comments; `<style>`; whitespace-only text.
//! - Attributes: see `attributes.rs` (native elements: what a browser shows
//!   or speaks; components: every prop but the machine-read ones).
//! - An unterminated string is reported only when the fragment's end cut it;
//!   one cut by a line break is an error (and a hint that the fragment began
//!   inside a string).
//!
//! # Limits
//!
//! - A fragment that begins inside a string whose first line still pairs
//!   its quotes (`cut', 'x')`) reads as code: nothing tells it apart.
//! - A lone `"""`, `'''` or backtick may open a string or close one; the
//!   reading where it closes one (and that finds less) wins.
//! - A regex right after `)` (`if (ok) /x/.test(s)`) reads as division, the
//!   usual previous-token rule; `<T>(x) => x` in a `.tsx` file is JSX, as
//!   TypeScript itself reads it.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod attributes;
mod cursor;
mod fragment;
mod markup;
mod python;
mod script;
mod tail;

pub use crate::tail::explanation_tail;

/// A source language, as `string_literals` reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python (`.py`, `.pyi`).
    Python,
    /// JavaScript, or TypeScript with JSX (`.js`, `.mjs`, `.cjs`, `.jsx`, `.tsx`): a `<` where an
    /// expression starts opens an element.
    Script,
    /// TypeScript without JSX (`.ts`, `.mts`, `.cts`), where `<T>x` is a type assertion.
    TypeScript,
    /// A Vue single-file component: its template as HTML with `{{ }}` and bound
    /// attributes, its `<script>` as [`Language::Script`] (or
    /// [`Language::TypeScript`] with `lang="ts"`).
    Vue,
    /// A Svelte component: HTML with `{ }` expressions and blocks, and `<script>`.
    Svelte,
    /// HTML (`.html`, `.htm`), `<script>` blocks lexed as [`Language::Script`].
    Html,
}

impl Language {
    /// The language of a file, by its extension (any case); `None` for others.
    ///
    /// ```
    /// use hookdex_literals::Language;
    /// assert_eq!(Language::of_path("scripts/swarm/capacity.py"), Some(Language::Python));
    /// assert_eq!(Language::of_path("src/App.tsx"), Some(Language::Script));
    /// assert_eq!(Language::of_path("src/api.mts"), Some(Language::TypeScript));
    /// assert_eq!(Language::of_path("README.md"), None);
    /// ```
    #[must_use]
    pub fn of_path(path: &str) -> Option<Language> {
        let name = path.rsplit(['/', '\\']).next()?;
        let (stem, extension) = name.rsplit_once('.')?;
        if stem.is_empty() {
            return None;
        }
        let is = |e: &str| extension.eq_ignore_ascii_case(e);
        Some(match () {
            () if is("py") || is("pyi") => Language::Python,
            () if ["js", "mjs", "cjs", "jsx", "tsx"].into_iter().any(is) => Language::Script,
            () if ["ts", "mts", "cts"].into_iter().any(is) => Language::TypeScript,
            () if is("vue") => Language::Vue,
            () if is("svelte") => Language::Svelte,
            () if is("html") || is("htm") => Language::Html,
            () => return None,
        })
    }
}

/// A user-facing literal: the byte span of its content in the text, which
/// starts and ends on character boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Literal {
    /// Offset of the content's first byte.
    pub start: usize,
    /// Offset just past the content's last byte.
    pub end: usize,
    /// What kind of literal this is.
    pub kind: LiteralKind,
}

impl Literal {
    /// The literal's content in `text`, the text it was found in.
    ///
    /// # Panics
    ///
    /// When `text` is not the text the literal was found in and its span is
    /// out of bounds or off a character boundary there.
    #[must_use]
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start..self.end]
    }
}

/// What kind of literal a [`Literal`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LiteralKind {
    /// A quoted string: Python `'…'`/`"…"` with any non-bytes prefix, JS `'…'`/`"…"`.
    String,
    /// A Python f-string or t-string, its replacement fields included.
    FString,
    /// A JS template literal, its `${…}` holes included.
    Template,
    /// Text between JSX tags or expression containers.
    JsxText,
    /// Text between HTML, Vue or Svelte tags or interpolations.
    TextNode,
    /// A readable attribute value (HTML, Vue, Svelte or JSX).
    Attribute,
}

/// The user-facing literals of `text`, a source fragment in `language`,
/// sorted by offset and never overlapping. Never panics, whatever the text.
///
/// ```
/// use hookdex_literals::{string_literals, Language};
///
/// let py = "# don't 'count' this\ntitle = 'Seats'  # nor \"this\"\n";
/// let found = string_literals(py, Language::Python);
/// assert_eq!(found.iter().map(|l| l.text(py)).collect::<Vec<_>>(), ["Seats"]);
///
/// let html = r#"<img alt="A chart" src="c.png"><p>Free &amp; open</p><style>p{}</style>"#;
/// let found = string_literals(html, Language::Html);
/// assert_eq!(found.iter().map(|l| l.text(html)).collect::<Vec<_>>(), ["A chart", "Free &amp; open"]);
/// ```
#[must_use]
pub fn string_literals(text: &str, language: Language) -> Vec<Literal> {
    match language {
        Language::Python => python::literals(text),
        Language::Script => script::literals(text, true),
        Language::TypeScript => script::literals(text, false),
        Language::Vue => markup::literals(text, markup::Flavor::Vue),
        Language::Svelte => markup::literals(text, markup::Flavor::Svelte),
        Language::Html => markup::literals(text, markup::Flavor::Html),
    }
}
