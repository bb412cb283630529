//! Output filters in the engine: choose the filter that claims a tool's
//! output from the index, run its pipeline (`hookdex-outfilter`), and make
//! the result safe to hand the model in place of the original.
//!
//! - **Choosing.** The index keeps every layer's filters in choosing order
//!   (descending priority, then name); of one name, the highest layer that
//!   runs here stands (an untrusted repository's never does). Only the
//!   claims are loaded until one claims the output; then that filter alone
//!   is loaded whole. Output filters shrink output and guard nothing, so a
//!   managed layer's run from the user's index even when the managed layer
//!   otherwise runs apart.
//! - **Below the size floor** (the filter's `min_size`, default 400 bytes)
//!   nothing is filtered.
//! - **Never worse.** A result that is not smaller than the original once
//!   its recovery marker is counted is dropped, and the original stands.
//! - **Nothing lost for good.** A lossy result stashes the original
//!   ([`Stash`]) and ends with a recovery hint typed by what was lost; if
//!   the stash cannot be written, the original stands. A lossless result
//!   (ANSI stripped, `replace` rewrites) carries no marker.
//! - **Counted.** Each act and each miss goes to [`Stats`].

use hookdex_compiler::sources::package::{shipped_outfilters, ShippedOutFilter};
use hookdex_compiler::RuleErrorKind;
use hookdex_index::{Index, OutFilter};
use hookdex_model::{Switches, Trust};
use hookdex_outfilter::{apply, Claim, DecodeError, Filter, Loss, Output, Selector};

use crate::load::{self, Verify};
use crate::lookup;
use crate::settings::Settings;
use crate::state::stash::Stash;
use crate::state::stats::Stats;

/// What became of one output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrunk {
    /// The text to hand on: the filtered output with its marker, or the
    /// original.
    pub text: String,
    /// The filter that claimed the output, if one did.
    pub filter: Option<String>,
    /// Whether `text` differs from the original.
    pub changed: bool,
    /// The stash key of the original, when the result is lossy.
    pub stash_key: Option<String>,
    /// Why the original stands or what was done, for the log.
    pub note: String,
}

impl Shrunk {
    fn unchanged(output: &str, filter: Option<String>, note: String) -> Shrunk {
        Shrunk {
            text: output.to_string(),
            filter,
            changed: false,
            stash_key: None,
            note,
        }
    }
}

/// The command `match_command` is matched with for a shell line: the
/// first simple command that runs a program (not `cd`, `export` and the
/// like), as `program args…`; a line that names none is matched whole.
/// `cd web && npm install 2>&1 | tail -5` is `npm install`.
pub fn selection_command(line: &str) -> String {
    programs(line)
        .into_iter()
        .next()
        .map(|c| {
            std::iter::once(c.program)
                .chain(c.args)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| line.to_string())
}

/// Whether the shell line `line` runs at most one program besides setup
/// (`cd`, `export`, …): only then is its whole output one program's, which
/// a filter's summary may stand for (`npm install && npm test` is not
/// npm install's output alone).
pub fn runs_one_program(line: &str) -> bool {
    programs(line).len() <= 1
}

/// The simple commands of `line` that run a program, setup left out.
fn programs(line: &str) -> Vec<hookdex_shell::Command> {
    const SETUP: &[&str] = &[
        "cd", "pushd", "popd", "export", "set", "source", ".", "true", "unset",
    ];
    let mut commands = hookdex_shell::commands(line);
    commands.retain(|c| !SETUP.contains(&c.program.as_str()));
    commands
}

/// What [`choose`] found for an output.
#[derive(Debug)]
pub enum Choice {
    /// This filter claims it.
    Claimed(Box<Chosen>),
    /// No filter claims it (a miss, for the ledger).
    Unclaimed,
    /// It is shorter than every filter's size floor: nothing was asked.
    TooShort,
}

/// The filter chosen for an output, loaded whole.
#[derive(Debug)]
pub struct Chosen {
    /// The filter.
    pub filter: Filter,
    /// The file it is in, as shown.
    pub file: String,
}

/// For each output filter of `index`, in its order, whether it stands
/// under `trust` and `switches`: of each name, the filter of the highest
/// layer that runs. Output filters shrink output and guard nothing, so a
/// managed layer's stand even when the managed layer otherwise runs apart.
///
/// # Errors
///
/// When a record is damaged.
pub fn standing(
    index: &Index<'_>,
    trust: &Trust,
    switches: Switches,
) -> Result<Vec<bool>, hookdex_index::Error> {
    let switches = Switches {
        managed_apart: false,
        ..switches
    };
    let count = index.out_filter_count();
    let mut best: std::collections::HashMap<&str, (u16, usize)> = Default::default();
    for i in 0..count {
        let record = index.out_filter(i)?;
        let kind = index.layer(usize::from(record.layer))?.kind;
        if !lookup::layer_runs(kind, trust, switches) {
            continue;
        }
        let entry = best.entry(record.name).or_insert((record.layer, i));
        if record.layer > entry.0 {
            *entry = (record.layer, i);
        }
    }
    let mut stands = vec![false; count];
    for (_, at) in best.into_values() {
        stands[at] = true;
    }
    Ok(stands)
}

/// The filter of `index` that claims `output` of `command` under `trust`
/// and `switches`. A claim or a filter whose bytes do not load is skipped
/// (the next may claim), and named in the returned notes.
///
/// # Errors
///
/// When a record the index holds is damaged.
pub fn choose(
    index: &Index<'_>,
    trust: &Trust,
    switches: Switches,
    command: Option<&str>,
    output: &str,
) -> Result<(Choice, Vec<String>), hookdex_index::Error> {
    let stands = standing(index, trust, switches)?;
    // Shorter than every standing filter's floor: none would act, so no
    // claim is read (the common case of a short output).
    let mut floor: Option<u32> = None;
    for (i, _) in stands.iter().enumerate().filter(|(_, s)| **s) {
        let min = index.out_filter(i)?.min_size;
        floor = Some(floor.map_or(min, |f| f.min(min)));
    }
    if floor.is_none_or(|floor| (output.len() as u64) < u64::from(floor)) {
        return Ok((Choice::TooShort, Vec::new()));
    }
    let selector = Selector::new(command, output);
    let mut notes = Vec::new();
    for (i, _) in stands.iter().enumerate().filter(|(_, s)| **s) {
        let record = index.out_filter(i)?;
        let claim = match load(
            &record,
            || index.out_filter_claim(i),
            Claim::from_bytes,
            ShippedOutFilter::claim,
        )? {
            Ok(claim) => claim,
            Err(err) => {
                notes.push(format!("output filter {} skipped: {err}", record.name));
                continue;
            }
        };
        if !selector.claims(&claim) {
            continue;
        }
        match load(
            &record,
            || index.out_filter_body(i),
            Filter::from_bytes,
            ShippedOutFilter::filter,
        )? {
            Ok(filter) => {
                let file = record.file.to_string();
                return Ok((Choice::Claimed(Box::new(Chosen { filter, file })), notes));
            }
            Err(err) => notes.push(format!("output filter {} skipped: {err}", record.name)),
        }
    }
    Ok((Choice::Unclaimed, notes))
}

/// Output filter `record`'s claim or whole filter: read by `checked` from
/// the index's bytes (`indexed`), or for a shipped filter from the
/// binary's own, in place, by `own` ([`shipped`]).
///
/// # Errors
///
/// When the index's bytes are damaged.
fn load<'i, T>(
    record: &OutFilter<'_>,
    indexed: impl FnOnce() -> Result<&'i [u8], hookdex_index::Error>,
    checked: fn(&[u8]) -> Result<T, DecodeError>,
    own: fn(&ShippedOutFilter) -> Result<T, DecodeError>,
) -> Result<Result<T, DecodeError>, hookdex_index::Error> {
    match record.shipped {
        true => Ok(shipped(record).map_or_else(|| checked(&[]), own)),
        false => Ok(checked(indexed()?)),
    }
}

/// The binary's own compiled filter a shipped record names. The index
/// names it; its key includes the package's hash, so the binary that reads
/// it has the same filters. A name the binary does not have has none, and
/// loads from no bytes, which is refused.
fn shipped(record: &OutFilter<'_>) -> Option<&'static ShippedOutFilter> {
    shipped_outfilters().iter().find(|f| {
        f.name == record.name && record.file.strip_prefix("package:rules/") == Some(f.path)
    })
}

/// Shrinks `output` of `command` with the filter the current index has for
/// it, under every rule of this module. Never fails: an index that cannot
/// be read leaves the output as it is, saying why. `may_summarize` is
/// whether a `match_output` summary may replace the whole output: not for
/// a command that failed or a line that ran several programs ("ok" would
/// hide the failure). `counted` is whether `hookdex stats` counts it (not
/// for `hookdex try`, whose calls are no agent's).
pub fn shrink(
    settings: &Settings,
    command: Option<&str>,
    output: &str,
    may_summarize: bool,
    counted: bool,
) -> Shrunk {
    if !settings.outfilters_enabled {
        return Shrunk::unchanged(output, None, "HOOKDEX_OUTFILTERS is off".into());
    }
    let stats = counted.then(|| Stats::new(&settings.view.home));
    let chosen = load::with_index(&settings.view, Verify::Lazy, |index| {
        let trust = settings.trust(&index.meta()?);
        choose(index, &trust, settings.switches(), command, output)
    });
    let (chosen, mut notes) = match chosen {
        Ok(found) => found,
        Err(err) => {
            let note = format!("output left as it is: the index could not be read ({err})");
            return Shrunk::unchanged(output, None, note);
        }
    };
    let chosen = match chosen {
        Choice::Claimed(chosen) => chosen,
        Choice::TooShort => {
            notes.push("shorter than every output filter's size floor".into());
            return Shrunk::unchanged(output, None, notes.join("; "));
        }
        Choice::Unclaimed => {
            if let Some(stats) = &stats {
                stats.miss(Selector::new(command, output).text());
            }
            notes.push("no output filter claims it".into());
            return Shrunk::unchanged(output, None, notes.join("; "));
        }
    };
    let stash = Stash::new(&settings.view.home);
    let mut shrunk = shrink_with(&chosen.filter, &stash, output, may_summarize);
    if let (true, Some(stats)) = (shrunk.changed, &stats) {
        let hash = shrunk
            .stash_key
            .clone()
            .unwrap_or_else(|| Stash::key(output.as_bytes()));
        stats.act(
            chosen.filter.name(),
            output.len() as u64,
            shrunk.text.len() as u64,
            &hash,
        );
    }
    notes.push(shrunk.note);
    shrunk.note = notes.join("; ");
    shrunk
}

/// [`shrink`] with `filter` chosen: the size floor, the pipeline, the
/// marker, never worse, and the stash.
pub fn shrink_with(filter: &Filter, stash: &Stash, output: &str, may_summarize: bool) -> Shrunk {
    let name = filter.name().to_string();
    if output.len() < filter.min_size() {
        let note = format!(
            "{name}: below its size floor ({} < {} bytes)",
            output.len(),
            filter.min_size()
        );
        return Shrunk::unchanged(output, Some(name), note);
    }
    let out = apply(filter, output);
    let summary = out
        .losses
        .iter()
        .any(|l| matches!(l, Loss::Replaced { .. }));
    if summary && !may_summarize {
        let note = format!(
            "{name}: its summary is not used for a command that failed or ran several programs"
        );
        return Shrunk::unchanged(output, Some(name), note);
    }
    if !out.is_lossy() {
        if out.text.len() < output.trim_end_matches('\n').len() {
            return Shrunk {
                text: out.text,
                filter: Some(name.clone()),
                changed: true,
                stash_key: None,
                note: format!("{name}: rewritten, nothing lost"),
            };
        }
        return Shrunk::unchanged(
            output,
            Some(name.clone()),
            format!("{name}: nothing to shrink"),
        );
    }
    let key = Stash::key(output.as_bytes());
    let marker = marker(&name, &out, &key);
    let filtered = out.text.len();
    let mut text = out.text;
    text.push('\n');
    text.push_str(&marker);
    if text.len() >= output.len() {
        let note = format!("{name}: no smaller once its marker is counted");
        return Shrunk::unchanged(output, Some(name), note);
    }
    match stash.put(&key, output.as_bytes()) {
        Ok(()) => Shrunk {
            text,
            filter: Some(name.clone()),
            changed: true,
            note: format!(
                "{name}: {} -> {filtered} bytes, original stashed as {key}",
                output.len(),
            ),
            stash_key: Some(key),
        },
        Err(err) => Shrunk::unchanged(
            output,
            Some(name.clone()),
            format!("{name}: the original could not be stashed ({err}), so it stands"),
        ),
    }
}

/// The recovery hint a lossy result ends with, typed by what was lost:
/// a cut of the tail names the line it was cut after; a summary replacing
/// the whole output says so; anything else says what was left out. Each
/// names the command that prints the original (**contract**).
fn marker(name: &str, out: &Output, key: &str) -> String {
    let expand = format!("`hookdex expand {key}` prints it whole");
    let total = out.input_lines;
    if let Some(kept) = out.clean_tail_cut() {
        return format!("[hookdex: {name} cut the output after line {kept} of {total}; {expand}]");
    }
    if out
        .losses
        .iter()
        .any(|l| matches!(l, Loss::Replaced { .. }))
    {
        return format!("[hookdex: {name} summarized the whole output ({total} lines); {expand}]");
    }
    let mut dropped = 0;
    let mut truncated = 0;
    for loss in &out.losses {
        match *loss {
            Loss::LinesDropped { count }
            | Loss::MiddleOmitted { count }
            | Loss::HeadOmitted { count }
            | Loss::TailCut { count, .. } => dropped += count,
            Loss::LinesTruncated { count } => truncated += count,
            _ => {}
        }
    }
    let mut what = Vec::new();
    if dropped > 0 {
        what.push(format!("{dropped} of {total} lines"));
    }
    if truncated > 0 {
        what.push(format!("the end of {truncated} long lines"));
    }
    if what.is_empty() {
        what.push("part of the output".into());
    }
    format!(
        "[hookdex: {name} left out {}; {expand}]",
        what.join(" and ")
    )
}

/// The inline tests of one output-filter file, run as rtk runs its own.
#[derive(Clone, Debug)]
pub struct OutSuite {
    /// The file as shown.
    pub file: String,
    /// Why the file, or one of its filters, could not be read (each one
    /// line, with its line in the file).
    pub errors: Vec<String>,
    /// Its tests' results.
    pub results: Vec<hookdex_outfilter::TestResult>,
}

impl OutSuite {
    /// Whether everything loaded and every test passed.
    pub fn passed(&self) -> bool {
        self.errors.is_empty() && self.results.iter().all(|r| r.passed())
    }

    fn of(file: String, text: Result<String, RuleErrorKind>) -> OutSuite {
        let text = match text {
            Ok(text) => text,
            Err(why) => {
                return OutSuite {
                    file,
                    errors: vec![why.to_string()],
                    results: Vec::new(),
                }
            }
        };
        let parsed = hookdex_outfilter::parse(&text);
        OutSuite {
            file,
            errors: parsed.errors.iter().map(ToString::to_string).collect(),
            results: hookdex_outfilter::run_tests(&parsed.file),
        }
    }
}

/// The suites of the output-filter files `files`, or of every one the
/// package ships when `files` is empty. Files are read as a compile reads
/// them (regular, at most 1 MiB).
pub fn out_suites(files: &[std::path::PathBuf]) -> Vec<OutSuite> {
    use hookdex_compiler::formats::outfilter::PACKAGE_FOLDER;
    use hookdex_compiler::formats::source;
    use hookdex_compiler::sources::package;
    if files.is_empty() {
        return package::files_in(PACKAGE_FOLDER)
            .map(|(path, contents, _)| {
                OutSuite::of(format!("package:rules/{path}"), package::text(contents))
            })
            .collect();
    }
    files
        .iter()
        .map(|path| OutSuite::of(path.display().to_string(), source::read_text(path)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(body: &str) -> Filter {
        let src = format!("schema_version = 1\n[filters.t]\nmatch_command = '^t'\n{body}");
        let mut file = hookdex_outfilter::parse(&src).into_result().unwrap();
        file.filters.remove(0)
    }

    fn lines(n: usize) -> String {
        (0..n)
            .map(|i| format!("line {i} of the build output\n"))
            .collect()
    }

    #[test]
    fn the_selection_command_skips_setup() {
        assert_eq!(
            selection_command("cd web && npm install 2>&1 | tail -5"),
            "npm install"
        );
        assert_eq!(
            selection_command("export A=1; cargo build --release"),
            "cargo build --release"
        );
        assert_eq!(selection_command("/usr/bin/make -j4"), "make -j4");
    }

    #[test]
    fn a_tail_cut_is_stashed_and_named() {
        let home = tempfile::tempdir().unwrap();
        let stash = Stash::new(home.path());
        let original = lines(100);
        let shrunk = shrink_with(&filter("max_lines = 10\n"), &stash, &original, true);
        assert!(shrunk.changed, "{shrunk:?}");
        let key = shrunk.stash_key.clone().unwrap();
        assert!(shrunk.text.ends_with(&format!(
            "[hookdex: t cut the output after line 10 of 100; `hookdex expand {key}` prints it whole]"
        )), "{}", shrunk.text);
        assert_eq!(stash.get(&key).unwrap(), original.as_bytes());
    }

    #[test]
    fn short_output_and_outputs_no_smaller_stand() {
        let home = tempfile::tempdir().unwrap();
        let stash = Stash::new(home.path());
        let short = lines(3);
        let shrunk = shrink_with(&filter("max_lines = 1\n"), &stash, &short, true);
        assert!(
            !shrunk.changed && shrunk.note.contains("size floor"),
            "{shrunk:?}"
        );
        // One line dropped of many: the marker costs more than it saves.
        let mut many = lines(20);
        many.push_str("drop me\n");
        let shrunk = shrink_with(
            &filter("strip_lines_matching = ['^drop me$']\nmin_size = 0\n"),
            &stash,
            &many,
            true,
        );
        assert!(
            !shrunk.changed && shrunk.note.contains("marker"),
            "{shrunk:?}"
        );
        assert_eq!(shrunk.text, many);
        assert!(
            std::fs::read_dir(home.path().join("stash")).is_err(),
            "nothing stashed"
        );
    }

    #[test]
    fn a_lossless_rewrite_carries_no_marker_and_a_summary_says_so() {
        let home = tempfile::tempdir().unwrap();
        let stash = Stash::new(home.path());
        let coloured: String = (0..40)
            .map(|i| format!("\x1b[32mok {i}\x1b[0m\n"))
            .collect();
        let shrunk = shrink_with(
            &filter("strip_ansi = true\nmin_size = 0\n"),
            &stash,
            &coloured,
            true,
        );
        assert!(shrunk.changed && shrunk.stash_key.is_none(), "{shrunk:?}");
        assert!(!shrunk.text.contains("hookdex"), "{}", shrunk.text);
        let summary = "match_output = [{ pattern = 'ok 39', message = 'all ok' }]\nmin_size = 0\n";
        let shrunk = shrink_with(&filter(summary), &stash, &coloured, true);
        assert!(
            shrunk
                .text
                .starts_with("all ok\n[hookdex: t summarized the whole output (40 lines)"),
            "{}",
            shrunk.text
        );
        // Not for a command that failed or a line of several programs.
        let shrunk = shrink_with(&filter(summary), &stash, &coloured, false);
        assert!(!shrunk.changed && shrunk.text == coloured, "{shrunk:?}");
    }

    #[test]
    fn one_program_lines() {
        assert!(runs_one_program("cd web && npm install 2>&1"));
        assert!(runs_one_program("cargo build --release"));
        assert!(!runs_one_program("npm install && npm test"));
        assert!(!runs_one_program("cargo build; python3 x.py"));
        assert!(!runs_one_program("make | tee log"));
    }
}
