//! Names the serialization of the embedded DFAs after the regex-automata
//! version this crate is built against, read from the workspace's
//! `Cargo.lock`, so an index written by another automata version reads as
//! foreign and is recompiled.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let version = manifest
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|lock| lock.is_file())
        .and_then(|lock| {
            println!("cargo:rerun-if-changed={}", lock.display());
            locked_version(&std::fs::read_to_string(lock).ok()?, "regex-automata")
        })
        // Outside a workspace (a packaged crate) there is no lock to read;
        // the tag then follows hookdex's own version only.
        .unwrap_or_else(|| "unlocked".to_string());
    println!("cargo:rustc-env=HOOKDEX_AUTOMATA_TAG=regex-automata {version} dense");
}

/// The `version` of the `[[package]]` named `name` in a Cargo.lock.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted {
            let version = lines.next()?.trim().strip_prefix("version = ")?;
            return Some(version.trim_matches('"').to_string());
        }
    }
    None
}
