//! Property: on any text, in every language, `string_literals` returns sorted,
//! non-overlapping, non-empty spans on character boundaries, and
//! `explanation_tail` returns spans inside them; nothing panics or hangs.
//! The texts are pseudo-random: byte soup, and soup of the tokens the lexers
//! care about.

use hookdex_literals::{explanation_tail, string_literals, Language};

const LANGUAGES: [Language; 6] = [
    Language::Python,
    Language::Script,
    Language::TypeScript,
    Language::Vue,
    Language::Svelte,
    Language::Html,
];

/// The pieces that steer a lexer: quotes, prefixes, holes, tags, comments, breaks.
const TOKENS: &[&str] = &[
    "'",
    "\"",
    "'''",
    "\"\"\"",
    "`",
    "${",
    "{",
    "}",
    "{{",
    "}}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "</",
    "/>",
    "/",
    "*",
    "/*",
    "*/",
    "//",
    "#",
    "\\",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "f\"",
    "rb'",
    "t'",
    "<p>",
    "</p>",
    "<!--",
    "-->",
    "<script>",
    "</script>",
    "<style>",
    "<T,>",
    "=",
    ":",
    ";",
    ",",
    "!",
    "a",
    "x1",
    "return",
    "from",
    "import",
    "because",
    "since",
    "é",
    "☕",
    "&amp;",
    "html`",
    "\\N{",
    "{#if x}",
    "{/if}",
    "alt=\"",
    "title='",
    ":title=\"",
];

/// xorshift64*: deterministic, so a failure is reproduced by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn check(text: &str) {
    for language in LANGUAGES {
        let literals = string_literals(text, language);
        let mut last_end = 0;
        for l in &literals {
            assert!(
                l.start < l.end && l.end <= text.len(),
                "{language:?} {l:?} out of bounds in {text:?}"
            );
            assert!(
                l.start >= last_end,
                "{language:?} {l:?} overlaps or is out of order in {text:?}"
            );
            assert!(
                text.is_char_boundary(l.start) && text.is_char_boundary(l.end),
                "{language:?} {l:?} off a boundary in {text:?}"
            );
            last_end = l.end;
        }
        for (start, end) in explanation_tail(text, &literals) {
            assert!(
                literals
                    .iter()
                    .any(|l| l.start <= start && start < end && end == l.end),
                "{language:?} tail {start}..{end} outside its literal in {text:?}"
            );
            assert!(
                text.is_char_boundary(start),
                "{language:?} tail {start}..{end} off a boundary in {text:?}"
            );
        }
    }
}

#[test]
fn byte_soup() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2_000 {
        let bytes: Vec<u8> = (0..rng.below(300)).map(|_| rng.next() as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn token_soup() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for _ in 0..4_000 {
        let text: String = (0..rng.below(120))
            .map(|_| TOKENS[rng.below(TOKENS.len())])
            .collect();
        check(&text);
    }
}

/// Deep nesting ends the reading instead of the stack.
#[test]
fn deep_nesting() {
    for unit in ["`${", "f\"{", "<p>{", "{{", "<a b={"] {
        check(&unit.repeat(100_000));
    }
}
