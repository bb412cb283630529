//! In-process benchmarks of the built-in finders on a generated 100 KB edit
//! per language (SPEC §11: ≤ 1 ms): `string_literals` alone, and with
//! `explanation_tail` over its literals as a filter runs them; then an edit
//! that starts inside a string, which costs the alternative readings.
#![forbid(unsafe_code)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hookdex_literals::{explanation_tail, string_literals, Language};

const PYTHON: &str = r#"def summary(placeable, ledger):
    """Summarise the seats; it's read by the ledger page."""
    # the "capacity" line, don't read 'quotes' here
    reason = "seats: " + str(len(placeable))
    reason += f"; Claude has {placeable['claude']} free seats and Codex has {placeable['codex']} free seats"
    label = rb'\d+' if ledger else u"n/a"
    doc = """A triple-quoted
    text with "quotes" inside, because it explains."""
    return {"reason": reason, 'label': label, "doc": doc}  # trailing 'comment'

"#;

const SCRIPT: &str = r#"import { useState } from "react";
// a 'comment' with "quotes"
export const id = <T,>(x: T): T => x;
export function Seats({ claude, codex }) {
  const re = /["']+/g;
  const [n, setN] = useState<number>(claude / 2);
  const msg = `Claude has ${claude} seats ${codex > 0 ? `and ${codex} more` : "none"}`;
  /* block "comment" */
  return <p title="Free seats" className='x'>Hello {msg} there, since {n}</p>;
}

"#;

const TYPESCRIPT: &str = r#"import type { Props } from "./types";
// a 'comment' with "quotes"
export function seats<T extends Props>(p: T): string {
  const re = /["']+/g, half = p.claude / 2;
  const ok: Array<number> = [1, 2].filter((n) => n < p.claude);
  const label = { "Content-Type": "text/plain", title: 'Free seats' };
  return `Claude has ${p.claude} seats ${p.codex > 0 ? `and ${p.codex} more` : "none"}; ${ok}`;
}

"#;

const VUE: &str = r#"<template>
  <!-- a "comment" -->
  <section class="seats" :title="t('Free seats')">
    <h2 title="Seats">Seats</h2>
    <p v-if="n > 0">Claude has {{ n }} free seats, because {{ why }}.</p>
    <input placeholder="Search seats" @input="go('x')">
  </section>
</template>
<script setup lang="ts">
const n = ref<number>(0); const why = "nobody left";
</script>
<style scoped>.seats { color: red; }</style>

"#;

const SVELTE: &str = r#"<script>
  let count = 0; const label = 'Seats';
</script>
<section class="seats" title="Hello {name}!">
  {#if count > 0}<p>Claude has {count} free seats; Codex has {count / 2}.</p>{:else}<p>None</p>{/if}
  <button on:click={() => count += 1} aria-label="Add a seat">+</button>
</section>
<style>p { color: red; }</style>

"#;

const HTML: &str = r#"<!-- a "comment" -->
<section class="seats">
  <h2 title="Free seats">Seats</h2>
  <p>Claude has <b>3</b> free seats; Codex has &amp; 2.</p>
  <img alt="A chart of seats" src="chart.png">
  <script>const s = "inline"; if (a < b) f(/x/g);</script>
  <style>p { color: red; }</style>
</section>

"#;

/// `unit` repeated to 100 KB.
fn edit(unit: &str) -> String {
    unit.repeat(100 * 1024 / unit.len() + 1)
}

fn finders(c: &mut Criterion) {
    let languages = [
        ("python", Language::Python, PYTHON),
        ("jsx", Language::Script, SCRIPT),
        ("typescript", Language::TypeScript, TYPESCRIPT),
        ("vue", Language::Vue, VUE),
        ("svelte", Language::Svelte, SVELTE),
        ("html", Language::Html, HTML),
    ];
    let mut group = c.benchmark_group("finders_100kb");
    for (name, language, unit) in languages {
        let text = edit(unit);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("string_literals", name),
            &text,
            |b, text| {
                b.iter(|| string_literals(text, language));
            },
        );
        group.bench_with_input(BenchmarkId::new("with_tail", name), &text, |b, text| {
            b.iter(|| {
                let literals = string_literals(text, language);
                explanation_tail(text, &literals)
            });
        });
    }
    // Cut mid-string: the plain reading errs, the alternatives run.
    for (name, language, unit, cut) in [
        ("python", Language::Python, PYTHON, "free seats\"\n"),
        ("jsx", Language::Script, SCRIPT, "it's cut\n"),
    ] {
        let text = format!("{cut}{}", edit(unit));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("cut", name), &text, |b, text| {
            b.iter(|| string_literals(text, language));
        });
    }
    group.finish();
}

criterion_group!(benches, finders);
criterion_main!(benches);
