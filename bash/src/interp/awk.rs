//! awk programs (`awk '{ print > "f" }'`): their output redirections.

use super::tokens::{CTok, Spanned, code_tokens};
use crate::eval::Eval;
use crate::lex::Word;
/// awk output redirection in a program: `print … > "file"` / `>> "file"`.
pub(crate) fn scan_awk(e: &mut Eval, program: &str) {
    let toks = code_tokens(program);
    let mut in_print = false;
    // `print ($1 > 3)`: inside parentheses `>` compares.
    let mut parens = 0usize;
    let mut k = 0;
    // A command string awk runs (`system("…")`, `print | "…"`, `"…" | getline`): analysed as a
    // command line when literal, a run-time unknown otherwise.
    let run = |e: &mut Eval, t: Option<&Spanned>, via: &str| match t.map(|t| &t.tok) {
        Some(CTok::Str {
            value,
            dynamic: false,
        }) => e.run_text(value),
        _ => e.unknown(program.chars().take(200).collect::<String>(), via),
    };
    while let Some(t) = toks.get(k) {
        match t.tok {
            CTok::Ident("print" | "printf") => in_print = true,
            CTok::Punct(b';' | b'{' | b'}' | b'\n') => {
                in_print = false;
                parens = 0;
            }
            CTok::Punct(b'(') => parens += 1,
            CTok::Punct(b')') => parens = parens.saturating_sub(1),
            CTok::Ident("system")
                if matches!(toks.get(k + 1).map(|t| &t.tok), Some(CTok::Punct(b'('))) =>
            {
                // `system("cp a " $0)`: a string joined with more at run time.
                let whole = matches!(toks.get(k + 3).map(|t| &t.tok), Some(CTok::Punct(b')')));
                run(e, toks.get(k + 2).filter(|_| whole), "awk system()");
            }
            CTok::Punct(b'|') => {
                if in_print {
                    let whole = matches!(
                        toks.get(k + 2).map(|t| &t.tok),
                        None | Some(CTok::Punct(b';' | b'}' | b'\n' | b')'))
                    );
                    run(e, toks.get(k + 1).filter(|_| whole), "awk print | command");
                } else if matches!(
                    toks.get(k + 1).map(|t| &t.tok),
                    Some(CTok::Ident("getline"))
                ) {
                    run(
                        e,
                        k.checked_sub(1).and_then(|p| toks.get(p)),
                        "awk command | getline",
                    );
                }
            }
            CTok::Punct(b'>') if in_print && parens == 0 => {
                let append = matches!(toks.get(k + 1).map(|t| &t.tok), Some(CTok::Punct(b'>')));
                let from = k + 1 + usize::from(append);
                let end = toks[from.min(toks.len())..]
                    .iter()
                    .position(|t| matches!(t.tok, CTok::Punct(b';' | b'}' | b'\n')))
                    .map_or(toks.len(), |p| from + p);
                let via = if append {
                    "awk print >>"
                } else {
                    "awk print >"
                };
                match toks.get(from..end).unwrap_or_default() {
                    [] => {}
                    [
                        Spanned {
                            tok:
                                CTok::Str {
                                    value,
                                    dynamic: false,
                                },
                            ..
                        },
                    ] => e.write(&Word::synthetic(value, false), via),
                    [a, .., b] | [a @ b] => e.write(
                        &Word::synthetic(program.get(a.start..b.end).unwrap_or_default(), true),
                        via,
                    ),
                }
                in_print = false;
                k = end;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
}
