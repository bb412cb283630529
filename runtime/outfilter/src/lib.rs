//! rtk's TOML output-filter DSL as a pure library (SPEC §7): read a filter
//! file, compile every regex once, pick the filter that claims an output,
//! run its pipeline, run its inline tests, and carry a compiled filter as
//! bytes. No I/O; the stash and the recovery hint are the engine's.
//!
//! ```
//! use hookdex_outfilter::{apply, parse, run_tests, select, Loss};
//!
//! let src = r#"
//! schema_version = 1
//!
//! [filters.make]
//! description = "Compact make output"
//! match_command = "^make\\b"
//! match_shape = ["^make\\[\\d+\\]: Entering directory"]
//! strip_lines_matching = ["^make\\[\\d+\\]:", "^\\s*$"]
//! max_lines = 50
//! on_empty = "make: ok"
//! priority = 20
//!
//! [[tests.make]]
//! name = "on_empty when all stripped"
//! input = "make[1]: Entering directory '/x'\nmake[1]: Leaving directory '/x'\n"
//! expected = "make: ok"
//! "#;
//! let file = parse(src).into_result().unwrap();
//! assert!(run_tests(&file).iter().all(|t| t.passed()));
//!
//! let output = "make[1]: Entering directory '/x'\ncc -c a.c\nmake[1]: Leaving directory '/x'\n";
//! let filter = select(&file.filters, None, output).unwrap();
//! let out = apply(filter, output);
//! assert_eq!(out.text, "cc -c a.c");
//! assert_eq!(out.losses, [Loss::LinesDropped { count: 2 }]);
//! ```
//!
//! # Where rtk's semantics live
//!
//! The file format and every key are rtk 0.37.2's (`src/core/toml_filter.rs`),
//! with rtk's stage order, markers and edge behaviour (see [`apply`]).
//! Regexes are read exactly as the `regex` crate reads them. hookdex adds
//! `match_shape`, `priority` and `min_size`, and differs from rtk on purpose
//! in these places:
//! - an unknown key is an [`Error`] naming its line and key; the filter
//!   holding it is left out and the rest of the file loads (rtk drops the
//!   whole file without a word); unknown top-level keys are reported too;
//! - `match_command` is optional when `match_shape` is given (a filter
//!   needs one of them);
//! - [`Filter::from_bytes`] loads a compiled filter without recompiling its
//!   line sets.
//!
//! # Modules
//!
//! `parse.rs` reads files, `filter.rs` holds the compiled forms,
//! `matcher.rs` compiles regex sets (a dense DFA per set, or a
//! `meta::Regex`), `stages.rs` is the pipeline, `select.rs` the selector,
//! `inline_tests.rs` the test runner, `bytes.rs` the wire form,
//! `error.rs` the errors.

#![deny(missing_docs)]
#![deny(unsafe_code)]

// The one module with `unsafe`: the binary's own filters read in place.
#[allow(unsafe_code)]
mod bytes;
mod error;
mod filter;
mod inline_tests;
mod matcher;
mod parse;
mod select;
mod stages;

pub use crate::bytes::VERSION as BYTES_VERSION;
pub use crate::error::{DecodeError, DecodeErrorKind, Error, ErrorKind};
pub use crate::filter::{Claim, Filter, FilterFile, TestCase, DEFAULT_MIN_SIZE};
pub use crate::inline_tests::{run_tests, TestOutcome, TestResult};
pub use crate::parse::{parse, Compiler, Parsed};
pub use crate::select::{claims, select, Selector, SELECTOR_LINES};
pub use crate::stages::{apply, Loss, Output};
