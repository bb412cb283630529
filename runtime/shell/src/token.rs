//! The tokens the lexer hands the grammar ([`Tok`], [`Redir`]) and what a
//! redirection leaves for the command it belongs to ([`Heredoc`], [`Input`]).

use std::borrow::Cow;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A word, as the byte range of its source text.
    Word(usize, usize),
    /// A redirection operator; the next word is its target.
    Redir(Redir),
    /// `;` `&` `&&` `||` or a newline.
    Sep,
    /// `|` or `|&`.
    Pipe,
    /// `;;` `;&` `;;&`: the end of a case item.
    CaseEnd,
    Open,
    Close,
    Eof,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Redir {
    /// A file or fd target, which the command writes or only reads.
    Target { writes: bool },
    /// `<<<`: the target is a here-string.
    HereString,
    /// `<<` or `<<-`: the target is a delimiter and a body follows the next newline.
    HereDoc { strip_tabs: bool },
}

/// A heredoc whose body follows the next newline.
pub(crate) struct Heredoc<'a> {
    pub(crate) delimiter: Cow<'a, str>,
    /// `<<-`: leading tabs are stripped from the body and delimiter lines.
    pub(crate) strip_tabs: bool,
    /// The delimiter is quoted, so the body is not expanded.
    pub(crate) quoted: bool,
    /// The body is code for the shell reading it (`sh <<EOF`).
    pub(crate) code: bool,
}

/// What a command's redirection puts on a descriptor it reads: source ranges.
#[derive(Clone, Copy)]
pub(crate) enum Input {
    /// `<<< WORD`.
    HereString(usize, usize),
    /// `<< DELIM`: the heredoc at this index of the pending ones.
    HereDoc(usize),
    /// `< FILE`, a process substitution too.
    File(usize, usize),
    /// `<& FD`.
    Dup(usize, usize),
}
