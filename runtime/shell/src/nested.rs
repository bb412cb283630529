//! Skipping nested text without scanning it: where a quoted string, a `$(…)`,
//! `${…}`, arithmetic or backtick text ends ([`skip_nested`], memoized per scan
//! by [`Skips`]), and the walks over a word's source that pass such text whole.

/// Where the nested texts a lookahead skipped end, by where their text starts: each
/// is walked once per scan however often a lookahead asks (`((((…` asks at every
/// `(`). An entry packs the end (plus one) above the closer's code (0: not known).
#[derive(Default)]
pub(crate) struct Skips(Vec<u32>);

impl Skips {
    /// The code of a closer in an entry's low bits.
    fn code(closer: u8) -> u32 {
        match closer {
            b')' => 1,
            b'A' => 2,
            b'}' => 3,
            b'"' => 4,
            _ => 5,
        }
    }

    fn get(&self, from: usize, closer: u8) -> Option<usize> {
        let entry = *self.0.get(from)?;
        (entry & 7 == Self::code(closer)).then(|| (entry >> 3) as usize - 1)
    }

    fn insert(&mut self, from: usize, closer: u8, to: usize, len: usize) {
        let Some(entry) = u32::try_from(to + 1)
            .ok()
            .filter(|e| *e < 1 << 29 && from < len)
        else {
            return;
        };
        if self.0.len() < len {
            self.0.resize(len, 0);
        }
        self.0[from] = entry << 3 | Self::code(closer);
    }
}

/// Skips nested text without recursing: `closers` are the closing bytes still expected,
/// innermost last. Returns the index after the last of them (or `end`). A closer `)`
/// ends a command list (where `#` starts a comment), `A` an arithmetic or pattern
/// group (parentheses only count, as in `((` and `$((`); `"`, `` ` `` and `}` end
/// their quotes and `${`. With a `memo` (only for text that runs to the end of the
/// source), every nested text met is remembered, so asking again costs nothing.
pub(crate) fn skip_nested(
    b: &[u8],
    mut i: usize,
    end: usize,
    closers: &[u8],
    mut memo: Option<&mut Skips>,
) -> usize {
    let mut stack: Vec<(u8, usize)> = closers.iter().map(|&c| (c, usize::MAX)).collect();
    if let Some((top, _)) = stack.pop() {
        open(&mut stack, &mut i, top, memo.as_deref());
    }
    while let Some(&(top, _)) = stack.last() {
        if i >= end {
            if let Some(memo) = memo {
                for (closer, from) in stack {
                    memo.insert(from, closer, end, end);
                }
            }
            return end;
        }
        let c = b[i];
        let next = if i + 1 < end { b[i + 1] } else { 0 };
        let before = if i > 0 { b[i - 1] } else { b' ' };
        i += 1;
        match (top, c) {
            (_, b'\\') => i += 1,
            (b'`', b'`') | (b'"', b'"') | (b')' | b'A', b')') | (b'}', b'}') => {
                if let (Some((closer, from)), Some(memo)) = (stack.pop(), memo.as_deref_mut()) {
                    memo.insert(from, closer, i, end);
                }
            }
            (b'`', _) => {}
            (_, b'$') if next == b'(' || next == b'{' => {
                i += 1;
                let closer = if next == b'(' { b')' } else { b'}' };
                open(&mut stack, &mut i, closer, memo.as_deref());
            }
            (_, b'`') => open(&mut stack, &mut i, b'`', memo.as_deref()),
            (b'"', _) => {}
            (_, b'$') if next == b'\'' => i = ansi_c_end(b, i + 1, end),
            (_, b'\'') => {
                while i < end && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            }
            (_, b'"') => open(&mut stack, &mut i, b'"', memo.as_deref()),
            // `((` and `$((` open arithmetic.
            (b')', b'(') if before == b'(' => open(&mut stack, &mut i, b'A', memo.as_deref()),
            (b')', b'(') => open(&mut stack, &mut i, b')', memo.as_deref()),
            (b'A', b'(') => open(&mut stack, &mut i, b'A', memo.as_deref()),
            (b')', b'#') if matches!(before, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(') => {
                while i < end && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
    }
    i.min(end)
}

/// Opens nested text whose content starts at `*i` and ends with `closer`: jumps past it
/// when `memo` knows where it ends, else pushes it.
pub(crate) fn open(stack: &mut Vec<(u8, usize)>, i: &mut usize, closer: u8, memo: Option<&Skips>) {
    match memo.and_then(|memo| memo.get(*i, closer)) {
        Some(to) => *i = to,
        None => stack.push((closer, *i)),
    }
}

/// The index after the `'` closing a `$'…'` string whose text starts at `i` (after
/// the opening quote); a backslash escapes the next byte.
fn ansi_c_end(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match b[i] {
            b'\'' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    end
}

/// End of the expansion starting at `b[i]` (`$…`, a backtick or `<(…)`); `i + 1` if
/// the byte there stands for itself.
pub(crate) fn expansion_end(b: &[u8], i: usize) -> usize {
    let next = b.get(i + 1).copied().unwrap_or(0);
    match (b[i], next) {
        (b'$', b'(') if b.get(i + 2) == Some(&b'(') => skip_nested(b, i + 3, b.len(), b"AA", None),
        (b'$' | b'<' | b'>', b'(') => skip_nested(b, i + 2, b.len(), b")", None),
        (b'$', b'{') => skip_nested(b, i + 2, b.len(), b"}", None),
        (b'$', c) if c.is_ascii_alphabetic() || c == b'_' => {
            let mut j = i + 2;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            j
        }
        (b'$', b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => i + 2,
        (b'`', _) => skip_nested(b, i + 1, b.len(), b"`", None),
        _ => i + 1,
    }
}

/// When a word's source has an escape, a quoted string or an expansion at
/// `i` (where no glob or brace counts), the index just past it.
pub(crate) fn past_quoted(raw: &str, i: usize) -> Option<usize> {
    let b = raw.as_bytes();
    Some(match (b[i], b.get(i + 1)) {
        (b'\\', _) => i + 2,
        (b'\'', _) => raw[i + 1..].find('\'').map_or(b.len(), |k| i + k + 2),
        (b'"', _) => skip_nested(b, i + 1, b.len(), b"\"", None),
        (b'$', Some(b'\'')) => ansi_c_end(b, i + 2, b.len()),
        (b'$' | b'`', _) => expansion_end(b, i),
        _ => return None,
    })
}

/// Whether `at` holds for some byte index of `raw` outside escapes, quoted
/// strings and expansions ([`past_quoted`]).
pub(crate) fn any_unquoted(raw: &str, mut at: impl FnMut(usize) -> bool) -> bool {
    let mut i = 0;
    while i < raw.len() {
        if let Some(next) = past_quoted(raw, i) {
            i = next;
            continue;
        }
        if at(i) {
            return true;
        }
        i += 1;
    }
    false
}
