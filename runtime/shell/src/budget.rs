//! The read budget of one line's scan: how much text it may read in all
//! ([`BUDGET_FACTOR`] times the line, plus [`BUDGET_SLACK`]), kept per thread, so
//! the work stays linear in the line's length whatever nests in it.

use std::cell::Cell;

/// How much text one line's scan reads in all, as a multiple of the line's length
/// (re-parsed strings and each walk over a word's text count again), plus
/// [`BUDGET_SLACK`] bytes; past it the rest is reported too deep. This keeps the
/// work linear in the line's length whatever nests in it.
const BUDGET_FACTOR: usize = 8;

/// The bytes every line may read beyond [`BUDGET_FACTOR`] times its length.
const BUDGET_SLACK: usize = 1 << 20;

/// The longest line read whole (1 MiB): a longer one is read with this length's
/// budget, from its start, and the rest reported too deep, so the hook's own work
/// stays under a second on any payload (a shell command that long is a file written
/// through the shell, and still runs under the exec guard).
pub const MAX_LINE: usize = 1 << 20;

thread_local! {
    /// What the scan of the line being split may still read ([`BUDGET_FACTOR`]).
    static BUDGET: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Runs `scan` over `line`, or over its first [`MAX_LINE`] bytes (cut after a
/// blank, so no word is cut in two), with the budget of what is read
/// ([`BUDGET_FACTOR`]). Also says whether the line was cut: its rest is unread.
pub(crate) fn with_budget<'a, T>(line: &'a str, scan: impl FnOnce(&'a str) -> T) -> (T, bool) {
    let read = if line.len() > MAX_LINE {
        let cut = line.as_bytes()[..MAX_LINE]
            .iter()
            .rposition(|b| b" \t\n;".contains(b))
            .unwrap_or_else(|| {
                (0..=MAX_LINE)
                    .rev()
                    .find(|&i| line.is_char_boundary(i))
                    .unwrap_or(0)
            });
        &line[..cut]
    } else {
        line
    };
    let outer = BUDGET.replace(read.len() * BUDGET_FACTOR + BUDGET_SLACK);
    let out = scan(read);
    BUDGET.set(outer);
    (out, read.len() < line.len())
}

/// Takes `n` bytes of reading from the budget; false once it is spent.
pub(crate) fn charge(n: usize) -> bool {
    BUDGET.with(|b| match b.get().checked_sub(n) {
        Some(left) if left > 0 => {
            b.set(left);
            true
        }
        _ => {
            b.set(0);
            false
        }
    })
}

/// Whether the budget is spent: what is left of the line is too deep.
pub(crate) fn out_of_budget() -> bool {
    BUDGET.get() == 0
}
