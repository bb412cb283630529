//! Embeds the package layer (`rules/` at the workspace root) into the compiler
//! as a table of (relative path, bytes, executable) entries, with an xxh3 of
//! all of it, so an index compiled from other package rules is not fresh.
//!
//! The shipped output filters (`rules/outfilters/*.toml`) are compiled here
//! too, once per build, into their claim and body bytes: building their
//! automata costs most of a second, which no index compile should pay for
//! files that only change with the binary. A shipped filter that does not
//! load fails the build. Each is loaded here by the checked loader, so the
//! binary may read its own copy in place, unchecked; each copy is a
//! static aligned for its DFAs to be read where they are.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let rules = manifest.join("..").join("rules");
    println!("cargo:rerun-if-changed={}", rules.display());
    let mut files = Vec::new();
    collect(&rules, &rules, &mut files);
    files.sort();
    let mut out = String::from(
        "/// Files of the package layer: (path under `rules/`, contents, executable).\n",
    );
    out.push_str("pub static PACKAGE_FILES: &[(&str, &[u8], bool)] = &[\n");
    for (rel, abs, exec) in &files {
        writeln!(out, "    ({rel:?}, include_bytes!({abs:?}), {exec}),").unwrap();
    }
    out.push_str("];\n");
    let mut digest = Vec::new();
    for (rel, abs, exec) in &files {
        let bytes = std::fs::read(abs).unwrap();
        for part in [rel.as_bytes(), &bytes, &[u8::from(*exec)]] {
            digest.extend_from_slice(&(part.len() as u64).to_le_bytes());
            digest.extend_from_slice(part);
        }
    }
    writeln!(
        out,
        "/// xxh3 of every package file's path, bytes and mode.\npub const PACKAGE_HASH: u64 = {:#018x};",
        xxhash_rust::xxh3::xxh3_64(&digest)
    )
    .unwrap();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    out.push_str(&shipped_outfilters(&files, &out_dir));
    std::fs::write(out_dir.join("package_files.rs"), out).unwrap();
}

/// The table of the shipped output filters, compiled.
fn shipped_outfilters(files: &[(String, String, bool)], out_dir: &Path) -> String {
    let mut statics = String::new();
    let mut shipped = 0;
    let mut out = String::from(
        "/// The shipped output filters, compiled.\n\
         static PACKAGE_OUTFILTERS: &[ShippedOutFilter] = &[\n",
    );
    for (rel, abs, _) in files {
        if !(rel.starts_with("outfilters/") && rel.ends_with(".toml")) {
            continue;
        }
        let text = std::fs::read_to_string(abs).unwrap();
        let parsed = hookdex_outfilter::parse(&text);
        if let Some(error) = parsed.errors.first() {
            panic!("rules/{rel}: {error}");
        }
        for filter in &parsed.file.filters {
            let claim_bytes = filter.claim().to_bytes();
            let body_bytes = filter.to_bytes();
            if let Err(err) = hookdex_outfilter::Claim::from_bytes(&claim_bytes) {
                panic!(
                    "rules/{rel}: the claim of {} does not load: {err}",
                    filter.name()
                );
            }
            if let Err(err) = hookdex_outfilter::Filter::from_bytes(&body_bytes) {
                panic!("rules/{rel}: {} does not load: {err}", filter.name());
            }
            let stem = format!("OUTFILTER_{shipped}");
            shipped += 1;
            let mut field = |part: &str, bytes: &[u8]| {
                let file = out_dir.join(format!("{stem}.{part}"));
                std::fs::write(&file, bytes).unwrap();
                let name = format!("{stem}_{}", part.to_uppercase());
                writeln!(
                    statics,
                    "static {name}: Aligned<[u8; {}]> = Aligned(*include_bytes!({:?}));",
                    bytes.len(),
                    file.display().to_string()
                )
                .unwrap();
                name
            };
            let claim = field("claim", &claim_bytes);
            let body = field("body", &body_bytes);
            writeln!(
                out,
                "    ShippedOutFilter {{ path: {rel:?}, name: {:?}, line: {}, priority: {}, \
                 min_size: {}, claim: &{claim}.0, body: &{body}.0 }},",
                filter.name(),
                filter.line(),
                filter.priority(),
                filter.min_size(),
            )
            .unwrap();
        }
    }
    out.push_str("];\n");
    statics + &out
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String, bool)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    println!("cargo:rerun-if-changed={}", dir.display());
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            use std::os::unix::fs::PermissionsExt;
            let exec = entry
                .metadata()
                .map(|m| m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false);
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            files.push((rel, path.to_string_lossy().into_owned(), exec));
        }
    }
}
