//! What a typical compiled filter costs to carry and to load: its size as
//! bytes, and the time of `Filter::from_bytes` against compiling it from
//! TOML. Printed, never asserted (SPEC §11: performance is measured, not
//! tested); run it optimised:
//! `cargo test -p hookdex-outfilter --release --test load_cost -- --ignored --nocapture`.

use std::time::{Duration, Instant};

use hookdex_outfilter::{apply, parse, Filter};

/// A filter of the usual shape: a command and two shapes, a guarded
/// success collapse, one replace, a strip list of boilerplate, a line cap.
const TYPICAL: &str = r#"
schema_version = 1
[filters.pip-install]
description = "Compact pip install output"
match_command = "^(pip3?|python3? -m pip)\\s+install\\b"
match_shape = ["^Collecting \\S+", "^Requirement already satisfied: "]
strip_ansi = true
replace = [{ pattern = "\\(from [^)]*\\)", replacement = "" }]
match_output = [{ pattern = "Successfully installed", message = "pip: ok", unless = "(?i)warning|error" }]
strip_lines_matching = [
  "^\\s*$",
  "^Collecting ",
  "^  Downloading ",
  "^  Using cached ",
  "^Requirement already satisfied: ",
  "^Installing collected packages: ",
  "^\\s+[━-]+ \\d",
]
max_lines = 40
on_empty = "pip: ok"
"#;

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
#[ignore = "a measurement, printed; run with --release --ignored --nocapture"]
fn typical_filter_size_and_load_cost() {
    let filter = parse(TYPICAL).into_result().unwrap().filters.remove(0);
    let bytes = filter.to_bytes();
    let back = Filter::from_bytes(&bytes).unwrap();
    let input = "Collecting a\n  Downloading a.whl\nWARNING: x\nSuccessfully installed a\n";
    assert_eq!(apply(&back, input), apply(&filter, input));

    let compile = best_of(200, || parse(TYPICAL));
    let load = best_of(200, || Filter::from_bytes(&bytes));
    println!("typical filter: {} bytes serialized", bytes.len());
    println!("compile from TOML: {compile:?} (best of 200)");
    println!("from_bytes:        {load:?} (best of 200)");
}
