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

/// The longest line read (1 MiB): a longer one is reported too deep as a whole, so
/// the hook's own work stays under a second on any payload (a shell command that
/// long is a file written through the shell, and still runs under the exec guard).
pub const MAX_LINE: usize = 1 << 20;

thread_local! {
    /// What the scan of the line being split may still read ([`BUDGET_FACTOR`]).
    static BUDGET: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Runs `f`, the scan of `line`, with the budget of `line` ([`BUDGET_FACTOR`]).
pub(crate) fn with_budget<T>(line: &str, f: impl FnOnce() -> T) -> T {
    let budget = match line.len() {
        len if len > MAX_LINE => 0,
        len => len.saturating_mul(BUDGET_FACTOR) + BUDGET_SLACK,
    };
    let outer = BUDGET.replace(budget);
    let out = f();
    BUDGET.set(outer);
    out
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
