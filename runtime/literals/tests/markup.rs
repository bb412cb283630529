//! `string_literals` on HTML, Vue and Svelte fragments: one line per case,
//! the fragment and the texts of the literals found in it.

mod common;

use hookdex_literals::Language;

const HTML: &[(&str, &[&str])] = &[
    ("<p>Hello <b>world</b></p>", &["Hello", "world"]),
    ("<img alt=\"A chart\" title='Seats' src=\"x.png\" class=\"c\" data-x=\"y\">", &["A chart", "Seats"]),
    ("<button aria-label=\"Close dialog\" type=\"button\">×</button>", &["Close dialog", "×"]),
    ("<input placeholder=Search name=q><input type=\"submit\" value=\"Send\"><input value=\"prefilled\">", &["Search", "Send"]),
    ("<my-alert message=\"Saved\" class=\"x\"></my-alert>", &["Saved"]),
    ("<p>Tom &amp; Jerry</p>", &["Tom &amp; Jerry"]),
    ("<!-- it's \"x\" --><p>ok</p>", &["ok"]),
    ("<!DOCTYPE html><title>T</title><?xml x?>", &["T"]),
    ("<script>const s = \"inline\"; // </p>\n</script><p>after</p>", &["inline", "after"]),
    ("<SCRIPT type=\"module\">import a from \"./a.js\"; a('x')</SCRIPT>", &["x"]),
    ("<style>p::before { content: \"x\"; }</style><p>ok</p>", &["ok"]),
    ("<p>\n  Seats are\n  full\n</p>", &["Seats are\n  full"]),
    ("<p>a {b} c</p>", &["a {b} c"]),
    // Fragments cut mid-construct.
    (" class=\"x\">Hello</p>", &["Hello"]),
    ("still a comment -->\n<p>ok</p>", &["ok"]),
    ("  const x = 1;\n  el.title = \"Hi\";\n</script>\n<p>after</p>", &["Hi", "after"]),
    ("<p>Seats are", &["Seats are"]),
    // Line endings and text.
    ("<p>a</p>\r\n<p>b</p>\r\n", &["a", "b"]),
    ("<p>Café — ☕</p>", &["Café — ☕"]),
];

const VUE: &[(&str, &[&str])] = &[
    (
        "<template><p :title=\"'Bound'\" @click=\"go('x')\">Hi {{ name }} there</p></template>",
        &["Bound", "x", "Hi", "there"],
    ),
    (
        "<p>{{ t(\"Welcome back\") }}</p><p v-if=\"a > b\">Shown</p>",
        &["Welcome back", "Shown"],
    ),
    ("<p>{{ {a: 1}.a }} seats</p>", &["seats"]),
    (
        "<script setup lang=\"ts\">\nconst a = <number>b;\nconst m = \"msg\";\n</script>",
        &["msg"],
    ),
    ("<style scoped>.a { color: red; }</style>", &[]),
    // An edit inside the script block: no tags, lines of code.
    (
        "const count = ref(0);\nconst label = computed(() => \"Seats\");\n",
        &["Seats"],
    ),
];

const SVELTE: &[(&str, &[&str])] = &[
    (
        "<p title=\"Hello {name}!\">Count: {count} items</p>",
        &["Hello", "!", "Count:", "items"],
    ),
    ("{#if ok}<p>Yes</p>{:else}<p>No</p>{/if}", &["Yes", "No"]),
    (
        "<button on:click={() => alert(\"Hi\")} class=\"b {x}\">Go</button>",
        &["Hi", "Go"],
    ),
    (
        "{#each items as item (item.id)}<li>{item.name}</li>{/each}",
        &[],
    ),
    (
        "<script>\n  let name = 'world';\n</script>\n<h1>Hello {name}!</h1>",
        &["world", "Hello", "!"],
    ),
];

#[test]
fn html_literals() {
    common::literals(Language::Html, HTML);
}

#[test]
fn vue_literals() {
    common::literals(Language::Vue, VUE);
}

#[test]
fn svelte_literals() {
    common::literals(Language::Svelte, SVELTE);
}
