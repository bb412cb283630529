//! Brace expansion as bash does it (`{a,b}`, `{1..3}`): finding a word's
//! groups in one pass ([`BraceGroups`]) and the words they make.

use crate::budget::charge;
use crate::nested::{any_unquoted, past_quoted};

/// The unquoted `{…}` groups of a word, matched in one pass: feed it each byte
/// outside quotes and expansions; a `}` gives back the group it closes.
#[derive(Default)]
struct BraceGroups {
    /// The open groups, innermost last: their `{`, their top-level commas, and
    /// whether a `..` is in them.
    open: Vec<(usize, Vec<usize>, bool)>,
}

impl BraceGroups {
    /// Byte `c` at `i`: a closed group as `(open, close, commas, has ..)`.
    fn step(&mut self, i: usize, c: u8) -> Option<(usize, usize, Vec<usize>, bool)> {
        match c {
            b'{' => self.open.push((i, Vec::new(), false)),
            b',' => {
                if let Some(top) = self.open.last_mut() {
                    top.1.push(i);
                }
            }
            b'}' => {
                let (open, commas, dots) = self.open.pop()?;
                return Some((open, i, commas, dots));
            }
            _ => {}
        }
        None
    }

    /// A `..` in the innermost open group.
    fn dots(&mut self) {
        if let Some(top) = self.open.last_mut() {
            top.2 = true;
        }
    }
}

/// Whether a word's source has an unquoted brace expansion (`{a,b}`, `{1..3}`)
/// or extglob pattern (`@(a|b)`, with `shopt -s extglob`).
pub(crate) fn has_braces(raw: &str) -> bool {
    if !charge(raw.len()) {
        return true;
    }
    let b = raw.as_bytes();
    let mut groups = BraceGroups::default();
    any_unquoted(raw, |i| match (b[i], b.get(i + 1)) {
        (b'@' | b'+' | b'!', Some(b'(')) => true,
        (b'.', Some(b'.')) => {
            groups.dots();
            false
        }
        (c, _) => groups
            .step(i, c)
            .is_some_and(|(_, _, commas, dots)| dots || !commas.is_empty()),
    })
}

/// How many words brace expansion may make of one program word.
pub(crate) const MAX_BRACE_WORDS: usize = 64;

/// The words bash's brace expansion makes of `raw` (`{kubectl,x}` → `kubectl`, `x`;
/// `kube{c..c}tl` → `kubectl`), or `None` when it has no unquoted `{a,b}` or
/// `{x..y}`. A sequence longer than [`MAX_BRACE_WORDS`] makes no words: `Some([])`.
pub(crate) fn brace_expand(raw: &str) -> Option<Vec<String>> {
    brace_expand_groups(raw, MAX_BRACE_GROUPS)
}

/// The longest program word whose braces are expanded; a longer one is a glob.
pub(crate) const MAX_BRACE_WORD_LEN: usize = 1024;

/// How many brace groups of one word are expanded; later ones are left as they are.
const MAX_BRACE_GROUPS: u32 = 8;

/// [`brace_expand`], expanding at most `groups` groups.
fn brace_expand_groups(raw: &str, groups: u32) -> Option<Vec<String>> {
    if groups == 0 {
        return None;
    }
    let group = brace_group(raw)?;
    let Some(items) = group.items else {
        return Some(Vec::new());
    };
    let (prefix, suffix) = (&raw[..group.open], &raw[group.close + 1..]);
    let mut out = Vec::new();
    for item in items {
        let word = format!("{prefix}{item}{suffix}");
        match brace_expand_groups(&word, groups - 1) {
            Some(more) if more.is_empty() => return Some(more),
            Some(more) => out.extend(more),
            None => out.push(word),
        }
        if out.len() > MAX_BRACE_WORDS {
            out.truncate(MAX_BRACE_WORDS);
            break;
        }
    }
    Some(out)
}

/// An unquoted brace group that bash expands.
pub(crate) struct BraceGroup {
    /// Where its `{` and `}` are.
    open: usize,
    close: usize,
    /// The source texts it expands to, or `None` for a sequence longer than
    /// [`MAX_BRACE_WORDS`].
    items: Option<Vec<String>>,
}

/// The first unquoted `{…}` with a top-level comma, or holding a sequence
/// (`{1..3}`, `{a..e..2}`). Like bash, quoted text, escapes and expansions
/// inside are passed over whole (`{bash,-c,'kubectl x'}` has two commas).
pub(crate) fn brace_group(raw: &str) -> Option<BraceGroup> {
    if !charge(raw.len()) {
        return None;
    }
    let b = raw.as_bytes();
    let mut groups = BraceGroups::default();
    let mut first: Option<BraceGroup> = None;
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = past_quoted(raw, i) {
            i = next;
            continue;
        }
        if b[i] == b'.' && b.get(i + 1) == Some(&b'.') {
            groups.dots();
        }
        if let Some((open, close, commas, dots)) = groups.step(i, b[i]) {
            let items = if !commas.is_empty() {
                let mut from = open + 1;
                let mut items = Vec::with_capacity(commas.len() + 1);
                for cut in commas.into_iter().chain([close]) {
                    items.push(raw[from..cut].to_owned());
                    from = cut + 1;
                }
                Some(Some(items))
            } else if dots {
                brace_sequence(&raw[open + 1..close])
            } else {
                None
            };
            if let Some(items) = items {
                if first.as_ref().is_none_or(|f| open < f.open) {
                    first = Some(BraceGroup { open, close, items });
                }
            }
        }
        i += 1;
    }
    first
}

/// The words of a brace sequence's text (`1..3`, `a..e`, `01..10..2`), as bash makes
/// them: `None` when bash leaves it as it is, `Some(None)` when it is too long.
fn brace_sequence(text: &str) -> Option<Option<Vec<String>>> {
    let mut parts = text.split("..");
    let (from, to) = (parts.next()?, parts.next()?);
    let step = match parts.next() {
        Some(step) => step.parse::<i64>().ok()?.unsigned_abs().max(1),
        None => 1,
    };
    if parts.next().is_some() {
        return None;
    }
    let (x, y, letters) = match (from.parse::<i64>(), to.parse::<i64>()) {
        (Ok(x), Ok(y)) => (x, y, false),
        _ => {
            let (&[x], &[y]) = (from.as_bytes(), to.as_bytes()) else {
                return None;
            };
            if !x.is_ascii_alphabetic() || !y.is_ascii_alphabetic() {
                return None;
            }
            (i64::from(x), i64::from(y), true)
        }
    };
    let count = x.abs_diff(y) / step + 1;
    if count > MAX_BRACE_WORDS as u64 {
        return Some(None);
    }
    let width = [from, to]
        .iter()
        .filter(|n| n.trim_start_matches('-').starts_with('0') && n.len() > 1)
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    let items = (0..count as i64)
        .map(|k| {
            let v = if x <= y {
                x + k * step as i64
            } else {
                x - k * step as i64
            };
            match letters {
                true => char::from(v as u8).to_string(),
                false if v < 0 => format!("-{:0w$}", -v, w = width.saturating_sub(1)),
                false => format!("{v:0width$}"),
            }
        })
        .collect();
    Some(Some(items))
}
