//! Bounded text: what hookdex passes on from rules (context, reasons, notes)
//! is cut to a length with a marker saying how much went, so no rule can make
//! a reply or a log line unbounded.

/// The most characters of one context, reason or note passed on: Claude
/// Code's own cap on injected hook text.
pub const MAX_TEXT: usize = 10_000;

/// `text` cut to at most about `max` bytes, on a character boundary, with a
/// marker naming what was cut; unchanged when it fits.
///
/// ```
/// use hookdex_model::text::cut;
/// assert_eq!(cut("short", 100), "short");
/// assert!(cut(&"x".repeat(500), 100).ends_with("[hookdex: 440 more bytes cut]"));
/// ```
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let marker_room = 40.min(max);
    let mut end = max - marker_room;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… [hookdex: {} more bytes cut]",
        &text[..end],
        text.len() - end
    )
}
