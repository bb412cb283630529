//! Differential test against Python's own `tokenize`: over the standard
//! library of the `python3` on PATH, every literal `string_literals` reports
//! lies inside a string token (an f-string's whole span on 3.12+), so none is
//! invented from a comment or from code. Skipped without `python3`.

use std::process::Command;

use hookdex_literals::{string_literals, Language};

/// Prints, per standard-library module (sorted, the first 150 that
/// tokenize), `F <path>` and then `<start> <end>` byte spans of its outermost
/// string and f-string tokens.
const SPANS: &str = r#"
import io, pathlib, sys, sysconfig, tokenize
FSTART = getattr(tokenize, "FSTRING_START", None)
FEND = getattr(tokenize, "FSTRING_END", None)
done = 0
for path in sorted(pathlib.Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
    try:
        text = path.read_bytes().decode("utf-8")
        lines = io.StringIO(text).readlines()
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line.encode()))
        def offset(row, col):
            return starts[row - 1] + len(lines[row - 1][:col].encode()) if row <= len(lines) else starts[-1]
        spans, depth, opened = [], 0, None
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == FSTART:
                depth += 1
                if depth == 1:
                    opened = offset(*tok.start)
            elif tok.type == FEND:
                depth -= 1
                if depth == 0:
                    spans.append((opened, offset(*tok.end)))
            elif tok.type == tokenize.STRING and depth == 0:
                spans.append((offset(*tok.start), offset(*tok.end)))
    except (SyntaxError, UnicodeDecodeError, tokenize.TokenError):
        continue
    print("F", path)
    for start, end in spans:
        print(start, end)
    done += 1
    if done == 150:
        break
"#;

#[test]
fn no_literal_outside_a_python_string_token() {
    let Ok(output) = Command::new("python3").args(["-c", SPANS]).output() else {
        eprintln!("python3 not found: differential test skipped");
        return;
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listing = String::from_utf8(output.stdout).unwrap();
    let (mut files, mut reported, mut tokens) = (0, 0, 0);
    for module in listing.split("F ").filter(|m| !m.is_empty()) {
        let mut lines = module.lines();
        let path = lines.next().unwrap();
        let spans: Vec<(usize, usize)> = lines
            .map(|l| {
                let (start, end) = l.split_once(' ').unwrap();
                (start.parse().unwrap(), end.parse().unwrap())
            })
            .collect();
        let text = std::fs::read_to_string(path).unwrap();
        for literal in string_literals(&text, Language::Python) {
            let token = spans
                .partition_point(|&(start, _)| start <= literal.start)
                .checked_sub(1);
            let inside = token.is_some_and(|t| literal.end <= spans[t].1);
            assert!(
                inside,
                "{path}: {:?} at {} is in no string token",
                literal.text(&text),
                literal.start
            );
            reported += 1;
        }
        files += 1;
        tokens += spans.len();
    }
    assert!(files > 0, "no module of the standard library tokenized");
    eprintln!("{files} modules: {reported} literals, all inside one of {tokens} string tokens");
}
