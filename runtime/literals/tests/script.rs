//! `string_literals` on JavaScript, TypeScript and JSX fragments: one line
//! per case, the fragment and the texts of the literals found in it.

mod common;

use hookdex_literals::Language;

const CASES: &[(&str, &[&str])] = &[
    // Quotes and escapes.
    ("const a = 'x', b = \"y\";", &["x", "y"]),
    ("s = 'it\\'s' + \"a \\\"b\\\"\"", &["it\\'s", "a \\\"b\\\""]),
    ("s = 'one \\\ntwo'", &["one \\\ntwo"]),
    ("s = ''", &[]),
    // Templates, nested through their holes.
    ("const m = `a ${b ? `c ${d}` : \"e\"} f`;", &["a ${b ? `c ${d}` : \"e\"} f"]),
    ("const m = `${ {a: '}'}.a } \\` \\${x}`;", &["${ {a: '}'}.a } \\` \\${x}"]),
    ("const c = css`color: red;`; const h = html`<p>Hi</p>`; const s = styled(B)`x`;", &["<p>Hi</p>"]),
    // Regexes are not strings; division is not a regex.
    ("const re = /[\"']+/g; const s = \"ok\";", &["ok"]),
    ("s.replace(/[/\"]/g, \"-\")", &["-"]),
    ("x = total / 2 + \"px\"; y = (a) / 2 / 'b'", &["px", "b"]),
    ("if (/\"/.test(s)) return 'quote'", &["quote"]),
    ("return /'/.source + 'x'", &["x"]),
    // Comments.
    ("// it's \"x\"\n/* 'y' */ z = 'ok' // 'no'", &["ok"]),
    // Module specifiers, directives, keys, case labels, subscripts.
    ("import x from \"react\";\nimport \"./styles.css\";\nconst y = require(\"fs\");\nexport { z } from './z';\nconst m = await import(\"mod\");\nconst s = \"ok\";", &["ok"]),
    ("'use client';\n\"use strict\"\nconst s = \"ok\";", &["ok"]),
    ("const o = { \"Content-Type\": \"json\", 'x': 'y', label: \"Seats\" };", &["json", "y", "Seats"]),
    ("switch (k) { case \"a\": return \"A\"; }", &["A"]),
    ("v = row[\"name\"] + list[0] + ['Hello'][0]; return ['World']", &["Hello", "World"]),
    ("a ? \"yes\" : \"no\"", &["yes", "no"]),
    // JSX: text, attributes, expressions, fragments, components.
    ("const p = <p>Hello</p>;", &["Hello"]),
    ("return (\n  <div>\n    Seats: {n} left <b>now</b>\n  </div>\n);", &["Seats:", "left", "now"]),
    ("<img alt=\"A cat\" src=\"cat.png\" className=\"x\" />", &["A cat"]),
    ("<Toast message=\"Saved\" variant=\"ok\" data-id=\"1\" onClose={close} aria-hidden=\"true\" />", &["Saved"]),
    ("<form><input type=\"submit\" value=\"Send\" /><input value=\"prefilled\" /></form>", &["Send"]),
    ("<p title={\"Bound\"}>{/* don't */}Text{' '}</p>", &["Bound", "Text"]),
    ("<>\n  <h1>Title</h1>\n</>", &["Title"]),
    ("<p>Don't panic</p>", &["Don't panic"]),
    ("<a title=\"C:\\path\\\" href=\"x\">go</a>", &["C:\\path\\", "go"]),
    ("items.map((i) => <li key={i.id}>{i.name}</li>)", &[]),
    ("ok ? <b>Yes</b> : <i>No</i>", &["Yes", "No"]),
    ("<Trans>Hello <strong>{name}</strong>, welcome</Trans>", &["Hello", ", welcome"]),
    // Generics and comparisons are not JSX.
    ("const id = <T,>(x: T) => x; const s = \"ok\";", &["ok"]),
    ("const f = <T extends object>(x: T) => 'ok';", &["ok"]),
    ("if (a < b && c > d) { x = \"lt\"; }", &["lt"]),
    ("const [v, set] = useState<string>(\"init\");", &["init"]),
    // Fragments cut mid-construct.
    (" * it's here\n */\nconst s = \"ok\";", &["ok"]),
    ("rest ${x} of template`\nconst s = \"ok\";", &["ok"]),
    ("x = \"abc\ny = 'ok'", &["ok"]),
    ("label = \"Seats are", &["Seats are"]),
    // Line endings and text.
    ("a = 'x';\r\nb = \"y\";\r\n", &["x", "y"]),
    ("const é = \"naïve ☕\"; // café", &["naïve ☕"]),
    ("<p>Café — ☕</p>", &["Café — ☕"]),
];

const TYPESCRIPT: &[(&str, &[&str])] = &[
    ("const x = <any>y; const s = \"ok\";", &["ok"]),
    (
        "function f<T>(a: Array<T>): T { return a[0] as T; } const m = `t`;",
        &["t"],
    ),
    (
        "declare module \"pkg\" { export const x: \"lit\"; }",
        &["lit"],
    ),
];

#[test]
fn script_literals() {
    common::literals(Language::Script, CASES);
}

#[test]
fn typescript_literals() {
    common::literals(Language::TypeScript, TYPESCRIPT);
}
