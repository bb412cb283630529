//! `string_literals` on Python fragments: one line per case, the fragment
//! and the texts of the literals found in it.

mod common;

use hookdex_literals::Language;

const CASES: &[(&str, &[&str])] = &[
    // Quotes, escapes, prefixes.
    ("x = \"hello\"", &["hello"]),
    ("x = 'it\\'s'", &["it\\'s"]),
    ("s = \"a \\\"quoted\\\" word\"", &["a \\\"quoted\\\" word"]),
    // `\'` keeps the quote in a raw string too: this one runs to the fragment's end.
    ("x = r'C:\\path\\'", &["C:\\path\\'"]),
    ("x = r'\\''  # a raw string keeps \\' inside", &["\\'"]),
    ("a = r'\\d+'; b = b\"bytes\"; c = Rb'x'; d = u\"uni\"; e = Fr\"{x}\\n\"; t = t\"hi {name}\"", &["\\d+", "uni", "{x}\\n", "hi {name}"]),
    ("x = ur'not a prefix'", &[]),
    ("x = \"\"", &[]),
    ("print(\"a\" if ok else 'b')", &["a", "b"]),
    // f-strings: fields, nested and reused quotes (3.12), format specs, escapes.
    ("reason += f\"; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats\"",
        &["; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats"]),
    ("msg = f\"{\", \".join(names)} joined\"", &["{\", \".join(names)} joined"]),
    ("msg = f'{f'{x}'} deep'", &["{f'{x}'} deep"]),
    ("x = f\"{x:{width}.{prec}} and {y!r:>10}\"", &["{x:{width}.{prec}} and {y!r:>10}"]),
    ("x = f\"{{literal}} {x}\"", &["{{literal}} {x}"]),
    ("x = f\"{d['}']} closed\"", &["{d['}']} closed"]),
    ("x = f\"\\N{EM DASH} {x}\"", &["\\N{EM DASH} {x}"]),
    ("x = rf\"\\{d[\"k\"]}\\N{x}\"", &["\\{d[\"k\"]}\\N{x}"]),
    ("x = f\"\"\"{\n  a  # a comment in a field\n} done\"\"\"", &["{\n  a  # a comment in a field\n} done"]),
    // Triple quotes, docstrings, statements.
    ("doc = \"\"\"multi\nline with \"quotes\" \"\"\"", &["multi\nline with \"quotes\" "]),
    ("def f():\n    \"\"\"Doc, it's skipped.\"\"\"\n    return 'x'\n", &["x"]),
    ("'bare statement'\nf(\"\"\"arg\"\"\")", &["arg"]),
    // Keys and subscripts are names.
    ("r = {\"reason\": reason, 'label': \"Seats\"}", &["Seats"]),
    ("v = row[\"name\"]; print([\"Hello\"]); return ['World']", &["Hello", "World"]),
    // Comments, continuations.
    ("# it's \"quoted\"\nx = 1  # don't\ny = 'ok'", &["ok"]),
    ("x = \"a\" \\\n    \"b\"", &["a", "b"]),
    ("x = 'one \\\ntwo'", &["one \\\ntwo"]),
    // Fragments cut mid-construct.
    ("x = \"abc\ny = \"ok\"", &["ok"]),
    ("the comment's tail, \"read\" it\nx = 'ok'", &["ok"]),
    ("world\", \"next\"\nz = \"ok\"", &["ok"]),
    // `it'…'` is no string prefix, so that string is not shown; `'x'` is
    // wrongly read (the cut string's quotes pair up with the next ones).
    ("world, it's cut', 'x')\nz = 'ok'", &["x", "ok"]),
    ("    rest of the doc, it's fine.\n    \"\"\"\n    return \"done\"\n", &["done"]),
    ("label = \"Seats are", &["Seats are"]),
    // A lone triple quote may open or close a string; the reading that misses it wins.
    ("text = '''Seats are\nfull", &[]),
    // Line endings and text.
    ("a = 'x'\r\nb = \"y\"\r\n", &["x", "y"]),
    ("a = 'x'\rb = \"y\"", &["x", "y"]),
    ("msg = \"Crème brûlée — 5€\"  # café", &["Crème brûlée — 5€"]),
    ("naïve = 'ü' + \"☕\"", &["ü", "☕"]),
];

#[test]
fn python_literals() {
    common::literals(Language::Python, CASES);
}
