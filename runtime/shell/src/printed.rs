//! What a literal `echo` or `printf` prints ([`printed`],
//! [`Scanner::literal_output`]): printf's format and conversions and the
//! backslash escapes of each, so text piped into a shell can be read as code.

use std::borrow::Cow;

use crate::scan::{Fill, Scanner, MAX_DEPTH};
use crate::token::Tok;
use crate::words::{cook, is_assignment, word_unknown};

/// What the command line `src` prints when it is one `echo` or `printf` of
/// literal words (the command of a process substitution, `<(echo ls)`).
pub(crate) fn printed(src: &str) -> Option<String> {
    let mut scanner = Scanner::new(src, MAX_DEPTH, false, Fill::default());
    loop {
        match scanner.token() {
            Tok::Word(s, e) => scanner.words.push((s, e)),
            Tok::Eof => break,
            _ => return None,
        }
    }
    scanner.literal_output(0)
}

/// The most text [`printf_text`] builds: more is not followed (a shell reading
/// it is dynamic), so a huge field width or a format used again over many
/// arguments costs no more than this.
const MAX_PRINTED: usize = 1 << 20;

/// What `printf FORMAT ARGS…` prints, as bash's builtin does: the format's
/// escapes, `%s`, `%b` (the argument's escapes decoded, `\c` ends all output),
/// `%c`, integers, flags, field width and precision, and the format used again
/// while arguments remain; `None` for a conversion it does not model (`%q`,
/// `%f`, `%(…)T`) or an integer it cannot read.
fn printf_text(args: &[Cow<'_, str>]) -> Option<String> {
    let (format, rest) = args.split_first()?;
    let mut out = Vec::with_capacity(format.len());
    let mut next = 0;
    loop {
        let before = next;
        if !printf_once(format.as_bytes(), rest, &mut next, &mut out)? {
            break;
        }
        if out.len() > MAX_PRINTED {
            return None;
        }
        if next == before || next >= rest.len() {
            break;
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// One pass of printf's `format` over `args` from `next`; `Some(false)` when
/// `%b`'s `\c` ended the output.
fn printf_once(
    f: &[u8],
    args: &[Cow<'_, str>],
    next: &mut usize,
    out: &mut Vec<u8>,
) -> Option<bool> {
    let take = |next: &mut usize| {
        let arg = args.get(*next).map_or("", |a| &**a);
        *next += 1;
        arg
    };
    let mut i = 0;
    while i < f.len() {
        match f[i] {
            b'\\' => i = decode_escape(f, i, Escapes::Format, out)?,
            b'%' if f.get(i + 1) == Some(&b'%') => {
                out.push(b'%');
                i += 2;
            }
            b'%' => {
                i += 1;
                let (mut left, mut zero) = (false, false);
                while let Some(&c) = f.get(i).filter(|c| b"-0 +#".contains(c)) {
                    left |= c == b'-';
                    zero |= c == b'0';
                    i += 1;
                }
                let number = |i: &mut usize, next: &mut usize| -> Option<Option<usize>> {
                    if f.get(*i) == Some(&b'*') {
                        *i += 1;
                        return parse_integer(take(next)).map(|n| Some(n.unsigned_abs() as usize));
                    }
                    let digits = f[*i..].iter().take_while(|b| b.is_ascii_digit()).count();
                    let value = std::str::from_utf8(&f[*i..*i + digits]).ok()?.parse().ok();
                    *i += digits;
                    Some(value)
                };
                let width = number(&mut i, next)?.unwrap_or(0);
                let precision = match f.get(i) {
                    Some(b'.') => {
                        i += 1;
                        Some(number(&mut i, next)?.unwrap_or(0))
                    }
                    _ => None,
                };
                let conversion = *f.get(i)?;
                i += 1;
                let arg = take(next);
                let mut piece = match conversion {
                    b's' => arg.as_bytes().to_vec(),
                    b'b' => {
                        let mut piece = Vec::new();
                        if !decode_escapes(arg.as_bytes(), Escapes::Bytes, &mut piece) {
                            out.extend(piece);
                            return Some(false);
                        }
                        piece
                    }
                    b'c' => arg
                        .chars()
                        .next()
                        .map(String::from)
                        .unwrap_or_default()
                        .into_bytes(),
                    b'd' | b'i' => parse_integer(arg)?.to_string().into_bytes(),
                    b'u' => (parse_integer(arg)? as u64).to_string().into_bytes(),
                    b'x' => format!("{:x}", parse_integer(arg)?).into_bytes(),
                    b'X' => format!("{:X}", parse_integer(arg)?).into_bytes(),
                    b'o' => format!("{:o}", parse_integer(arg)?).into_bytes(),
                    _ => return None,
                };
                let numeric = !matches!(conversion, b's' | b'b' | b'c');
                if let Some(p) = precision.filter(|_| !numeric) {
                    piece.truncate(p);
                }
                let pad = width.saturating_sub(piece.len());
                if pad + piece.len() + out.len() > MAX_PRINTED {
                    return None;
                }
                match (left, zero && numeric) {
                    (true, _) => {
                        out.extend(&piece);
                        out.resize(out.len() + pad, b' ');
                    }
                    (false, fill_zero) => {
                        out.resize(out.len() + pad, if fill_zero { b'0' } else { b' ' });
                        out.extend(&piece);
                    }
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(true)
}

/// An integer argument of printf: decimal, `0x` hex, `0` octal, or `'c` for
/// a character's code; empty is 0.
fn parse_integer(arg: &str) -> Option<i64> {
    let arg = arg.trim_start();
    if let Some(c) = arg.strip_prefix(['\'', '"']) {
        return Some(c.chars().next().map_or(0, |c| i64::from(u32::from(c))));
    }
    let (negative, digits) = match arg.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, arg.strip_prefix('+').unwrap_or(arg)),
    };
    let value = if digits.is_empty() {
        0
    } else if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if negative { -value } else { value })
}

/// Which backslash escapes a text has.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// printf's format: `\NNN` octal, `\c` is text.
    Format,
    /// printf's `%b`: `\0NNN` and `\NNN` octal, `\c` ends the output.
    Bytes,
    /// `echo -e`: `\0NNN` octal only, `\c` ends the output.
    Echo,
}

/// Decodes all of `text`'s escapes into `out`; false when `\c` ended it.
fn decode_escapes(text: &[u8], kind: Escapes, out: &mut Vec<u8>) -> bool {
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            out.push(text[i]);
            i += 1;
            continue;
        }
        match decode_escape(text, i, kind, out) {
            Some(next) => i = next,
            None => return false,
        }
    }
    true
}

/// Decodes the escape at `text[i]` (a backslash) into `out`: the index after
/// it, or `None` for a `\c` that ends the output.
fn decode_escape(text: &[u8], i: usize, kind: Escapes, out: &mut Vec<u8>) -> Option<usize> {
    let Some(&c) = text.get(i + 1) else {
        out.push(b'\\');
        return Some(i + 1);
    };
    let digits = |from: usize, max: usize, radix: u32| {
        let n = text[from..]
            .iter()
            .take(max)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count();
        let value = std::str::from_utf8(&text[from..from + n])
            .ok()
            .and_then(|d| u32::from_str_radix(d, radix).ok());
        (value, from + n)
    };
    let simple = match c {
        b'\\' => Some(b'\\'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'e' | b'E' => Some(27),
        b'f' => Some(12),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(11),
        b'"' | b'\'' | b'?' if kind == Escapes::Format => Some(c),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return Some(i + 2);
    }
    let (value, end, unicode) = match c {
        b'c' if kind != Escapes::Format => return None,
        b'0' if kind != Escapes::Format => {
            let (v, e) = digits(i + 2, 3, 8);
            (Some(v.unwrap_or(0)), e, false)
        }
        b'0'..=b'7' if kind != Escapes::Echo => {
            let (v, e) = digits(i + 1, 3, 8);
            (v, e, false)
        }
        b'x' => {
            let (v, e) = digits(i + 2, 2, 16);
            (v, e, false)
        }
        b'u' => {
            let (v, e) = digits(i + 2, 4, 16);
            (v, e, true)
        }
        b'U' => {
            let (v, e) = digits(i + 2, 8, 16);
            (v, e, true)
        }
        _ => (None, i, false),
    };
    match value {
        Some(v) if unicode => {
            let c = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
            out.extend(c.to_string().as_bytes());
            Some(end)
        }
        // An octal value past 255 wraps to a byte, as bash's does.
        Some(v) => {
            out.push((v & 0xff) as u8);
            Some(end)
        }
        None => {
            out.extend([b'\\', c]);
            Some(i + 2)
        }
    }
}

impl<'a> Scanner<'a> {
    /// The text a simple command from word `base` prints when it is `echo` or
    /// `printf` with literal arguments, decoded as they do ([`printf_text`],
    /// `echo -e`); `None` when that cannot be told.
    pub(crate) fn literal_output(&self, base: usize) -> Option<String> {
        let n = self.words.len();
        let first = (base..n).find(|&i| !is_assignment(self.raw(i)))?;
        let name = self.text(first);
        if !matches!(&*name, "echo" | "printf") {
            return None;
        }
        let mut args = Vec::with_capacity(n - first - 1);
        for i in first + 1..n {
            let word = cook(self.raw(i));
            if word.expanded_to > 0 || word_unknown(self.raw(i)) {
                return None;
            }
            args.push(word.text);
        }
        if name == "printf" {
            return match args.first().map(|a| &**a) {
                // `-v NAME` assigns the text instead of printing it.
                Some("-v") => Some(String::new()),
                Some("--") => printf_text(&args[1..]),
                _ => printf_text(&args),
            };
        }
        let is_option = |a: &str| {
            a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b"neE".contains(&b))
        };
        let skip = args.iter().take_while(|a| is_option(a)).count();
        let escapes = args[..skip]
            .iter()
            .flat_map(|a| a.bytes())
            .rfind(|b| b"eE".contains(b))
            == Some(b'e');
        let text = args[skip..].join(" ");
        if !escapes {
            return Some(text);
        }
        let mut out = Vec::new();
        decode_escapes(text.as_bytes(), Escapes::Echo, &mut out);
        Some(String::from_utf8_lossy(&out).into_owned())
    }
}
