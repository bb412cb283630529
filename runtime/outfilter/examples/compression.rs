//! The compression each output filter of a folder achieves: on its own
//! inline-test inputs, and on captured real outputs (a folder of
//! `<name>.cmd` files, the command line, each beside `<name>.out`, what it
//! printed), chosen among the folder's filters as `hookdex exec` chooses.
//!
//! `cargo run --release -p hookdex-outfilter --example compression -- rules/outfilters [CAPTURES]`
//! (`benches/outfilter-real.sh` captures real outputs and runs this).
use hookdex_outfilter::{apply, parse, select, Filter};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("a folder of filter files");
    let mut filters: Vec<Filter> = Vec::new();
    let mut tests = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = parse(&text).into_result().unwrap();
        filters.extend(file.filters);
        tests.extend(file.tests);
    }
    println!(
        "{:<16} {:>6} {:>9} {:>9} {:>7}",
        "own tests", "tests", "in", "out", "saved"
    );
    for filter in &filters {
        let (mut n, mut bytes_in, mut bytes_out) = (0, 0, 0);
        for test in tests.iter().filter(|t| t.filter == filter.name()) {
            n += 1;
            bytes_in += test.input.len();
            bytes_out += apply(filter, &test.input).text.len();
        }
        println!(
            "{:<16} {n:>6} {bytes_in:>9} {bytes_out:>9} {:>6.1}%",
            filter.name(),
            saved(bytes_in, bytes_out)
        );
    }
    let Some(captures) = args.next() else { return };
    println!(
        "\n{:<28} {:<16} {:>9} {:>9} {:>7}",
        "real output", "filter", "in", "out", "saved"
    );
    let mut names: Vec<_> = std::fs::read_dir(&captures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cmd"))
        .collect();
    names.sort();
    for cmd in names {
        let command = std::fs::read_to_string(&cmd).unwrap();
        let output = std::fs::read_to_string(cmd.with_extension("out")).unwrap();
        let name = cmd.file_stem().unwrap().to_string_lossy().to_string();
        let chosen = select(&filters, Some(command.trim()), &output);
        let (filter, out) = match chosen {
            Some(f) if output.len() >= f.min_size() => (f.name(), apply(f, &output).text.len()),
            Some(f) => (f.name(), output.len()),
            None => ("(none)", output.len()),
        };
        println!(
            "{name:<28} {filter:<16} {:>9} {out:>9} {:>6.1}%",
            output.len(),
            saved(output.len(), out)
        );
    }
}

fn saved(bytes_in: usize, bytes_out: usize) -> f64 {
    if bytes_in == 0 {
        return 0.0;
    }
    100.0 * (1.0 - bytes_out as f64 / bytes_in as f64)
}
