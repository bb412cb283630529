//! Colour for the status words of the human output (`FIRES`/`skip` in
//! `explain`, `ok`/`FAIL`/`BROKEN` in `test`): only when stdout is a
//! terminal and `NO_COLOR` is unset or empty (<https://no-color.org>), so
//! pipes, files and tests read plain text.

use std::io::IsTerminal;
use std::sync::OnceLock;

use anstyle::{AnsiColor, Style};

/// What a status word says, which picks its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// It fires, it passed.
    Good,
    /// It failed, it is broken.
    Bad,
    /// It was skipped.
    Quiet,
}

/// Whether this process's stdout gets colour.
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
    })
}

/// `word` left-aligned in `width` columns, coloured by `tone` when stdout
/// takes colour.
pub fn status(word: &str, width: usize, tone: Tone) -> String {
    paint(word, width, tone, enabled())
}

/// [`status`] with the decision given: the padding stays outside the colour.
fn paint(word: &str, width: usize, tone: Tone, on: bool) -> String {
    let pad = " ".repeat(width.saturating_sub(word.chars().count()));
    if !on {
        return format!("{word}{pad}");
    }
    let style = match tone {
        Tone::Good => AnsiColor::Green.on_default().bold(),
        Tone::Bad => AnsiColor::Red.on_default().bold(),
        Tone::Quiet => Style::new().dimmed(),
    };
    format!("{style}{word}{style:#}{pad}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_wraps_the_word_and_not_its_padding() {
        assert_eq!(paint("skip", 6, Tone::Quiet, false), "skip  ");
        let fires = paint("FIRES", 6, Tone::Good, true);
        assert!(fires.starts_with("\u{1b}["), "{fires:?}");
        assert!(fires.ends_with("FIRES\u{1b}[0m "), "{fires:?}");
        assert_ne!(
            paint("FAIL", 4, Tone::Bad, true),
            paint("FAIL", 4, Tone::Good, true)
        );
    }
}
