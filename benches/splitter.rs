//! The shell splitter on 1 MB lines of each nesting construct, each followed by
//! `; kubectl delete pod x` (the linear-time bound of `docs/splitter.md`): `split`
//! and `commands` per line, and brush-parser's parse of the same line beside them,
//! to compare. `cargo bench -p hookdex-benches --bench splitter`; the time per line
//! is the time per MB.
#![forbid(unsafe_code)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;

/// How long each line is before the command after it.
const MB: usize = 1_000_000;

/// The constructs: a name and the 1 MB line it makes.
fn lines() -> Vec<(&'static str, String)> {
    let fill = |unit: &str| unit.repeat(MB / unit.len());
    let nest = |open: &str, inner: &str, close: &str| {
        let n = MB / (open.len() + close.len());
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    };
    let after = " ; kubectl delete pod x";
    [
        ("braces", format!("echo {}", fill("{"))),
        (
            "brace groups nested",
            format!("echo {}", nest("{a,", "a", "}")),
        ),
        (
            "substitutions nested",
            format!("echo {}", nest("$(", "echo", ")")),
        ),
        (
            "parameters nested",
            format!("echo {}", nest("${x:-", "a", "}")),
        ),
        (
            "arithmetic nested",
            format!("echo $(( {} ))", nest("(", "1", ")")),
        ),
        (
            "arithmetic command nested",
            format!("(( {} ))", nest("(", "1", ")")),
        ),
        ("subshells nested", nest("(", "true", ")")),
        (
            "process substitutions nested",
            format!("cat {}", nest("<(cat ", "x", ")")),
        ),
        (
            "double quotes in substitutions",
            format!("echo {}", nest("\"$(echo ", "a", ")\"")),
        ),
        ("unclosed parentheses", fill("(")),
        ("unclosed substitutions", format!("echo {}", fill("$("))),
        ("unclosed arithmetic", format!("echo {}", fill("$(("))),
        ("unclosed double quotes", format!("echo {}", fill("\"$("))),
        ("glob brackets", format!("echo {}", fill("["))),
        ("single quotes", format!("echo {}", fill("'a' "))),
        ("ANSI-C quotes", format!("echo {}", fill("$'\\'' "))),
        ("backticks", format!("echo {}", fill("`echo` "))),
        ("array elements", format!("a=({})", fill("x "))),
        (
            "heredocs",
            format!("cat {}\n{}true", fill("<<E "), "E\n".repeat(MB / 4)),
        ),
        (
            "heredoc body",
            format!("cat <<E\n{}E\ntrue", fill("$(echo)\n")),
        ),
        (
            "extglob groups",
            format!("shopt -s extglob\necho {}", fill("@(a) ")),
        ),
        ("case items", format!("case x in {}esac", fill("y) ;; "))),
        ("commands", fill("a;")),
        (
            "commands of programs read on their own",
            fill("git status; sudo -u a ls; find . -exec x {} \\; xargs -0 rm; fc -l; "),
        ),
        ("pipes", format!("{}cat", fill("echo a | "))),
    ]
    .into_iter()
    .map(|(name, line)| (name, format!("{line}{after}")))
    .collect()
}

/// The lines brush-parser does not return from: it recurses once per nesting level and
/// overflows the stack (or, on `heredocs`, takes minutes), which aborts the process.
const BRUSH_OVERFLOWS: &[&str] = &[
    "substitutions nested",
    "parameters nested",
    "arithmetic command nested",
    "subshells nested",
    "process substitutions nested",
    "double quotes in substitutions",
    "unclosed parentheses",
    "unclosed substitutions",
    "unclosed arithmetic",
    "unclosed double quotes",
    "heredocs",
];

fn splitter(c: &mut Criterion) {
    let mut group = c.benchmark_group("splitter_1mb");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    let options = brush_parser::ParserOptions::default();
    for (name, line) in lines() {
        group.throughput(Throughput::Bytes(line.len() as u64));
        group.bench_with_input(BenchmarkId::new("split", name), &line, |b, line| {
            b.iter(|| hookdex_shell::split(line));
        });
        group.bench_with_input(BenchmarkId::new("commands", name), &line, |b, line| {
            b.iter(|| hookdex_shell::commands(line));
        });
        if BRUSH_OVERFLOWS.contains(&name) {
            continue;
        }
        group.bench_with_input(BenchmarkId::new("brush", name), &line, |b, line| {
            b.iter(|| {
                let mut parser = brush_parser::Parser::new(line.as_bytes(), &options);
                parser.parse_program().is_ok()
            });
        });
    }
    group.finish();
}

criterion_group!(benches, splitter);
criterion_main!(benches);
