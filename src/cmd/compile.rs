//! `hookdex compile [--check] [--json] [--bundle DIR] [--target T] [--managed]`.
//!
//! `--managed` is for the administrator: it compiles the managed directory
//! alone into `<managed dir>/index-<target>.hdx` (every target unless one
//! is named), the index the hook takes managed rules from when that
//! directory is not the user's.

use std::path::PathBuf;
use std::time::Instant;

use hookdex_compiler::View;
use hookdex_index::{Index, IndexFile};
use hookdex_model::Target;
use hookdex_runtime::report::{InvalidEntry, WarningEntry};
use serde_json::json;

use super::{current_settings, print_json, CmdResult};
use crate::error::CmdError;

/// What to compile.
pub struct CompileArgs {
    /// The harness named by `--target`, if any.
    pub target: Option<Target>,
    /// `--bundle DIR`.
    pub bundle: Option<PathBuf>,
    /// `--check`: validate only.
    pub check: bool,
    /// `--json`.
    pub json: bool,
    /// `--managed`: the managed directory alone, into that directory.
    pub managed: bool,
}

/// Compiles the current view (or checks it), printing a report; a check
/// also reports the [`lint`](hookdex_runtime::lint) warnings, which do not
/// change its exit code. With `--managed`, one report per target.
pub fn run(args: CompileArgs) -> CmdResult {
    if !args.managed {
        let mut view = current_settings(args.target.unwrap_or(Target::Claude)).view;
        if let Some(bundle) = args.bundle {
            if !bundle.is_dir() {
                return Err(format!("--bundle {}: not a directory", bundle.display()).into());
            }
            view.bundle_override = Some(std::path::absolute(&bundle).unwrap_or(bundle));
        }
        return compile_view(&view, args.check, args.json);
    }
    if args.bundle.is_some() {
        return Err(CmdError::Failed(
            "--managed compiles the managed directory alone: --bundle does not apply".into(),
        ));
    }
    let targets = match args.target {
        Some(target) => vec![target],
        None => Target::ALL.to_vec(),
    };
    let mut code = 0;
    for target in targets {
        let view = current_settings(target).view.managed_only();
        code = code.max(compile_view(&view, args.check, args.json)?);
    }
    Ok(code)
}

/// Compiles `view` (or checks it) and prints its report.
fn compile_view(view: &View, check: bool, json: bool) -> CmdResult {
    let target = view.target;
    let started = Instant::now();
    let compiled = hookdex_compiler::compile(view);
    let path = view.index_path();
    let written = if check {
        None
    } else {
        Some(
            IndexFile::write_atomic(&path, &compiled.bytes, view.index_mode())
                .map_err(|e| e.to_string()),
        )
    };
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    let data = &compiled.data;
    let active = data
        .rules
        .iter()
        .filter(|r| r.overridden_by.is_none())
        .count();
    let invalid = &data.invalid;
    // Read back from the bytes just built, so the warnings are the ones `list` shows.
    let warnings = if check {
        let reread = |e: hookdex_index::Error| format!("reading the index just compiled: {e}");
        hookdex_runtime::lint::warnings(&Index::parse(&compiled.bytes).map_err(reread)?)
            .map_err(reread)?
    } else {
        Vec::new()
    };
    if json {
        let mut out = json!({
            "index": path,
            "written": matches!(written, Some(Ok(()))),
            "check": check,
            "target": target.as_str(),
            "rules": data.rules.len(),
            "active": active,
            "overridden": data.rules.len() - active,
            "layers": data.layers.iter().map(|l| json!({
                "label": l.label, "dir": l.dir, "count": l.count,
            })).collect::<Vec<_>>(),
            "invalid": invalid.iter().map(InvalidEntry::from).collect::<Vec<_>>(),
            "paths": data.paths.len(),
            "elapsed_ms": elapsed_ms,
        });
        if check {
            out["warnings"] = json!(warnings.iter().map(WarningEntry::from).collect::<Vec<_>>());
        }
        print_json(&out);
    } else {
        for bad in invalid {
            println!("{}", bad.message());
        }
        for warning in &warnings {
            eprintln!("warning: {}: {}", warning.file, warning.reason);
        }
        // The parts add up: each rule is active or overridden, each file
        // that did not parse counts once.
        let verb = if check { "checked" } else { "compiled" };
        println!(
            "{verb} {} rules ({active} active, {} overridden, {} invalid) from {} layers in {elapsed_ms:.1} ms",
            data.rules.len() + invalid.len(),
            data.rules.len() - active,
            invalid.len(),
            data.layers.len(),
        );
        if let Some(Ok(())) = &written {
            println!("index {}", path.display());
        }
    }
    if let Some(Err(err)) = written {
        return Err(format!("writing the index: {err}").into());
    }
    Ok(if check && !invalid.is_empty() { 1 } else { 0 })
}
