//! The tokenizer interpreter code is read with (strings, identifiers with their dotted and
//! `::` qualification, punctuation), bracket pairs, and the arguments of a call.

use crate::lex::{Word, lossy};

#[derive(Debug)]
pub(super) enum CTok<'a> {
    /// A possibly dotted name: `fs.writeFileSync`, `$fh`, `File::Spec`.
    Ident(&'a str),
    Str {
        value: String,
        dynamic: bool,
    },
    Punct(u8),
}

/// A code token and its byte span.
pub(super) struct Spanned<'a> {
    pub(super) tok: CTok<'a>,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'@')
}

pub(super) fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$')
}

/// A language-agnostic tokenizer for short scripts: names, string literals (with Python prefixes and
/// triple quotes), `#` comments, punctuation. Newlines are kept as `Punct(b'\n')`.
pub(super) fn code_tokens(code: &str) -> Vec<Spanned<'_>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        if c == b'#' && (i == 0 || b[i - 1].is_ascii_whitespace() || b[i - 1] == b';') {
            while b.get(i).is_some_and(|&c| c != b'\n') {
                i += 1;
            }
        } else if c != b'\n' && c.is_ascii_whitespace() {
            i += 1;
        } else if ident_start(c) {
            i += 1;
            loop {
                match (b.get(i), b.get(i + 1), b.get(i + 2)) {
                    (Some(&c), ..) if ident_char(c) => i += 1,
                    (Some(b'.'), Some(&c), _) if ident_start(c) => i += 2,
                    (Some(b':'), Some(b':'), Some(&c)) if ident_start(c) => i += 3,
                    _ => break,
                }
            }
            let id = code.get(start..i).unwrap_or_default();
            let prefix = id.len() <= 2 && id.bytes().all(|c| b"rRbBfFuU".contains(&c));
            if prefix && matches!(b.get(i), Some(b'\'' | b'"')) {
                let (value, dynamic, end) = code_string(b, i, id.contains(['f', 'F']));
                out.push(Spanned {
                    tok: CTok::Str { value, dynamic },
                    start,
                    end,
                });
                i = end;
            } else {
                out.push(Spanned {
                    tok: CTok::Ident(id),
                    start,
                    end: i,
                });
            }
        } else if matches!(c, b'\'' | b'"' | b'`') {
            let (value, dynamic, end) = code_string(b, i, false);
            out.push(Spanned {
                tok: CTok::Str { value, dynamic },
                start,
                end,
            });
            i = end;
        } else {
            // Whole characters, so spans stay on UTF-8 boundaries.
            i += code
                .get(i..)
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            out.push(Spanned {
                tok: CTok::Punct(c),
                start,
                end: i,
            });
        }
    }
    out
}

/// A string literal at `b[i]` (the quote): its value, whether it interpolates (`"$x"`, `"#{x}"`,
/// `` `${x}` ``, f-strings), and the offset after it.
pub(super) fn code_string(b: &[u8], i: usize, fstring: bool) -> (String, bool, usize) {
    let q = b[i];
    let triple = q != b'`' && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    let quote_len = if triple { 3 } else { 1 };
    let mut j = i + quote_len;
    let (mut v, mut dynamic) = (Vec::new(), false);
    while let Some(&c) = b.get(j) {
        let next = b.get(j + 1).copied();
        if c == q && (!triple || (next == Some(q) && b.get(j + 2) == Some(&q))) {
            return (lossy(&v), dynamic, j + quote_len);
        }
        if c == b'\\' && next.is_some() {
            v.push(match next.unwrap_or(c) {
                b'n' => b'\n',
                b't' => b'\t',
                n => n,
            });
            j += 2;
            continue;
        }
        let interpolates = (c == b'$'
            && next.is_some_and(|n| n == b'{' || n == b'_' || n.is_ascii_alphabetic()))
            || (c == b'#' && next == Some(b'{'));
        dynamic |= (q != b'\'' && interpolates) || (fstring && c == b'{');
        v.push(c);
        j += 1;
    }
    (lossy(&v), dynamic, b.len())
}

/// For each bracket token, the index of its partner (`usize::MAX` when unbalanced).
pub(super) fn brackets(toks: &[Spanned<'_>]) -> Vec<usize> {
    let mut pair = vec![usize::MAX; toks.len()];
    let mut stack: Vec<(usize, u8)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let CTok::Punct(c) = t.tok else { continue };
        let open = match c {
            b'(' | b'[' | b'{' => {
                stack.push((i, c));
                continue;
            }
            b')' => b'(',
            b']' => b'[',
            b'}' => b'{',
            _ => continue,
        };
        if let Some(&(j, o)) = stack.last()
            && o == open
        {
            stack.pop();
            pair[i] = j;
            pair[j] = i;
        }
    }
    pair
}

/// One call argument.
pub(super) struct CArg<'a> {
    /// Python keyword (`mode='w'`).
    pub(super) kw: Option<&'a str>,
    /// The string literal, when the argument is exactly one (value, interpolates).
    pub(super) string: Option<(String, bool)>,
    pub(super) raw: &'a str,
    /// Token index range.
    pub(super) toks: (usize, usize),
}

impl CArg<'_> {
    pub(super) fn lit(&self) -> Option<&str> {
        self.string
            .as_ref()
            .filter(|(_, d)| !d)
            .map(|(v, _)| v.as_str())
    }

    pub(super) fn word(&self) -> Word {
        match self.lit() {
            Some(v) => Word::synthetic(v, false),
            None => Word::synthetic(self.raw, true),
        }
    }
}

pub(super) fn carg<'a>(toks: &[Spanned<'_>], code: &'a str, from: usize, to: usize) -> CArg<'a> {
    let slice = toks.get(from..to).unwrap_or_default();
    let (kw, rest) = match slice {
        [
            Spanned {
                tok: CTok::Ident(k),
                ..
            },
            Spanned {
                tok: CTok::Punct(b'='),
                ..
            },
            rest @ ..,
        ] if !matches!(rest.first().map(|t| &t.tok), Some(CTok::Punct(b'=')) | None) => {
            (code.get(slice[0].start..slice[0].end), rest)
        }
        _ => (None, slice),
    };
    let string = match rest {
        [
            Spanned {
                tok: CTok::Str { value, dynamic },
                ..
            },
        ] => Some((value.clone(), *dynamic)),
        _ => None,
    };
    let raw = match (rest.first(), rest.last()) {
        (Some(a), Some(b)) => code.get(a.start..b.end).unwrap_or_default(),
        _ => "",
    };
    CArg {
        kw,
        string,
        raw,
        toks: (to - rest.len(), to),
    }
}

/// Arguments of the call whose `(` is at `open`; returns them and the byte offset after the `)`.
pub(super) fn paren_args<'a>(
    toks: &[Spanned<'_>],
    pair: &[usize],
    open: usize,
    code: &'a str,
) -> (Vec<CArg<'a>>, usize) {
    let close = pair
        .get(open)
        .copied()
        .filter(|&c| c != usize::MAX)
        .unwrap_or(toks.len());
    let mut args = Vec::new();
    let (mut from, mut k) = (open + 1, open + 1);
    while k < close {
        match toks[k].tok {
            CTok::Punct(b'(' | b'[' | b'{') if pair[k] != usize::MAX && pair[k] < close => {
                k = pair[k] + 1
            }
            CTok::Punct(b',') => {
                args.push(carg(toks, code, from, k));
                k += 1;
                from = k;
            }
            _ => k += 1,
        }
    }
    if from < close {
        args.push(carg(toks, code, from, close));
    }
    (args, toks.get(close).map_or(code.len(), |t| t.end))
}

/// Perl's parenless arguments: up to `;`, a newline, a closing bracket or `or`/`and`/`if`/`unless`.
pub(super) fn bare_args<'a>(
    toks: &[Spanned<'_>],
    pair: &[usize],
    first: usize,
    code: &'a str,
) -> (Vec<CArg<'a>>, usize) {
    let mut args = Vec::new();
    let (mut from, mut k) = (first, first);
    // Parenless argument lists are short; the cap keeps scanning linear on garbage.
    let limit = first.saturating_add(64).min(toks.len());
    while let Some(t) = toks.get(k).filter(|_| k < limit) {
        match t.tok {
            CTok::Punct(b'(' | b'[' | b'{') if pair[k] != usize::MAX => k = pair[k] + 1,
            CTok::Punct(b';' | b'\n' | b')' | b']' | b'}' | b'|') => break,
            CTok::Ident("or" | "and" | "if" | "unless" | "die") => break,
            CTok::Punct(b',') => {
                args.push(carg(toks, code, from, k));
                k += 1;
                from = k;
            }
            _ => k += 1,
        }
    }
    if from < k {
        args.push(carg(toks, code, from, k));
    }
    (
        args,
        toks.get(k.saturating_sub(1)).map_or(code.len(), |t| t.end),
    )
}
