//! In-process benchmarks of the read path and the compiler: "what fires" at
//! 10, 1,000 and 100,000 rules, the same with the index opened, verified and
//! checked for freshness from scratch, and a compile of 10,000 rule files.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hookdex_compiler::View;
use hookdex_index::{IndexFile, Query};
use hookdex_model::{Step, Switches, Target, ToolName, Trust};
use hookdex_runtime::call::Call;
use hookdex_runtime::lookup;
use serde_json::json;

/// A scratch tree with `n` rules in the runtime layer, a realistic mix:
/// `bash.<cli>` guards, exact MCP tools, MCP servers, plain tools, post rules
/// and three `any` rules, so every query's answer has the same size at every
/// index size and only the index grows.
fn tree(n: usize) -> (tempfile::TempDir, View) {
    let dir = tempfile::tempdir().unwrap();
    let conditions = dir.path().join("home/conditions");
    std::fs::create_dir_all(&conditions).unwrap();
    for i in 0..n {
        let name = match i % 10 {
            _ if i < 3 => format!("pre-any-r{i}.sh"),
            0..=3 => format!("pre-bash.cli{i}-r{i}.sh"),
            4..=6 => format!("pre-mcp__srv{}__tool{i}-r{i}.py", i % 100),
            7 => format!("pre-mcp__srvp{i}-r{i}.py"),
            8 => format!("pre-tool{i}+edit{i}-r{i}.sh"),
            _ => format!("post-bash.cli{i}-r{i}.sh"),
        };
        std::fs::write(conditions.join(name), "").unwrap();
    }
    let view = view_of(dir.path());
    (dir, view)
}

fn view_of(root: &Path) -> View {
    let vars = |name: &str| -> Option<std::ffi::OsString> {
        let value: PathBuf = match name {
            "HOME" => root.into(),
            "HOOKDEX_HOME" => root.join("home"),
            "HOOKDEX_CACHE_DIR" => root.join("cache"),
            "HOOKDEX_MANAGED_DIR" => root.join("managed"),
            _ => return None,
        };
        Some(value.into_os_string())
    };
    View::from_vars(Target::Claude, root, vars)
}

fn compile_to_disk(view: &View) -> PathBuf {
    let compiled = hookdex_compiler::compile(view);
    let path = view.index_path();
    IndexFile::write_atomic(&path, &compiled.bytes, 0o600).unwrap();
    path
}

fn lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("lookup");
    let input = json!({"command": "cd repo && FOO=1 sudo -u bob git push origin main | tee log"});
    for n in [10, 1_000, 100_000] {
        let (_dir, view) = tree(n);
        let path = compile_to_disk(&view);
        let file = IndexFile::open(&path, hookdex_index::current_user()).unwrap();
        let index = file.index().unwrap();
        let trust = Trust::NoOrigin;
        let programs = vec!["cd".to_string(), "git".to_string(), "cli10".to_string()];
        let bash = ToolName::new("bash");
        let query = Query {
            step: Step::Pre,
            tool: &bash,
            raw_tool: bash.as_str(),
            programs: &programs,
            any_program: false,
        };
        group.bench_with_input(BenchmarkId::new("bash", n), &n, |b, _| {
            b.iter(|| lookup::fires(&index, &query, &trust, Switches::ALL).unwrap())
        });
        let mcp_tool = ToolName::new("mcp__srvp7__tool");
        let mcp = Query {
            step: Step::Pre,
            tool: &mcp_tool,
            raw_tool: mcp_tool.as_str(),
            programs: &[],
            any_program: false,
        };
        group.bench_with_input(BenchmarkId::new("mcp", n), &n, |b, _| {
            b.iter(|| lookup::fires(&index, &mcp, &trust, Switches::ALL).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("call+bash", n), &n, |b, _| {
            b.iter(|| {
                let call = Call::new(Target::Claude, Step::Pre, "Bash", &input);
                lookup::fires(&index, &call.query(false), &trust, Switches::ALL)
                    .unwrap()
                    .len()
            })
        });
        group.bench_with_input(BenchmarkId::new("open+fresh+bash", n), &n, |b, _| {
            b.iter(|| {
                let file = IndexFile::open(&path, hookdex_index::current_user()).unwrap();
                let index = file.index().unwrap();
                index.freshness().unwrap();
                lookup::fires(&index, &query, &trust, Switches::ALL)
                    .unwrap()
                    .len()
            })
        });
    }
    group.finish();
}

fn compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    let (_dir, view) = tree(10_000);
    group.bench_function("10000_files", |b| {
        b.iter(|| hookdex_compiler::compile(&view).bytes.len())
    });
    group.finish();
}

criterion_group!(benches, lookup, compile);
criterion_main!(benches);
