//! Perl in interpreter code (`perl -e`, `perl -i`): its calls that write, read, load or run code
//! ([`CALLS`]: File::Copy, File::Slurp, File::Path, `sysopen`, `dbmopen`, `use lib`, `@INC`),
//! and the forms only Perl has: `CORE::`/`POSIX::` names, references to writing builtins and
//! writing methods of file objects, `exec {PROGRAM} LIST`, builtins on `$_` or a glob, and the
//! files put into `@ARGV` (also Ruby's `ARGV`).

use super::tokens::{CTok, Spanned, bare_args, code_tokens};
use super::{At, Call, argv_text, names_a_writing_call};
use crate::eval::Eval;
use crate::lex::Word;

/// Perl's calls.
pub(super) const CALLS: &[(&str, Call)] = &[
    ("chmod chown utime", Call::Write(&[0, 1, 2, 3, 4, 5])),
    ("move symlink link mv", Call::Write(&[0, 1])),
    ("cp", Call::Write(&[1])),
    ("evalbytes", Call::Code),
    ("lib", Call::LoadPath(&[0, 1, 2, 3, 4, 5, 6, 7])),
    ("push unshift", Call::PushInc),
    ("do", Call::LoadFile),
    (
        "write_file append_file edit_file edit_file_lines overwrite_file write_text \
         write_binary",
        Call::Write(&[0]),
    ),
    ("sysopen", Call::Write(&[1])),
    ("dbmopen", Call::Write(&[1])),
    ("*remove_tree *mkpath make_path", Call::Write(&[0])),
];

/// Perl methods of file objects (Path::Tiny, IO::All, File::Slurper-style APIs) that write.
pub(super) const PERL_WRITING_METHODS: [&str; 22] = [
    "spew",
    "spew_utf8",
    "spew_raw",
    "append",
    "append_utf8",
    "append_raw",
    "edit",
    "edit_lines",
    "edit_utf8",
    "openw",
    "opena",
    "openrw",
    "openw_utf8",
    "opena_utf8",
    "touch",
    "touchpath",
    "mkpath",
    "remove",
    "remove_tree",
    "move",
    "copy",
    "chmod",
];

/// Perl: a reference to a writing builtin (`\&CORE::unlink`, `\&unlink`) called later,
/// and methods of file objects that write (`path(…)->spew`, `IO::File->new(f, "w")`,
/// `File::Temp->new(DIR => d)`): the files are out of sight.
pub(super) fn writing_reference_or_method(e: &mut Eval, at: &At<'_, '_>, name: &str) -> bool {
    let At { via, toks, j, .. } = *at;
    if via.starts_with("perl") {
        let prev = |k: usize| j.checked_sub(k).map(|i| &toks[i].tok);
        let last = name.rsplit(':').next().unwrap_or(name);
        let reference = matches!(prev(1), Some(CTok::Punct(b'&')))
            && matches!(prev(2), Some(CTok::Punct(b'\\')))
            && names_a_writing_call(last);
        let method = matches!(prev(1), Some(CTok::Punct(b'>')))
            && matches!(prev(2), Some(CTok::Punct(b'-')))
            && (PERL_WRITING_METHODS.contains(&name)
                || (matches!(name, "new" | "open" | "new_from_fd")
                    && matches!(
                        prev(3),
                        Some(CTok::Ident(
                            "IO::File" | "File::Temp" | "IO::AtomicFile" | "IO::Handle"
                        ))
                    )));
        if reference || method {
            e.unknown(
                name,
                format!("{via}: {name} (writes files the analysis cannot name)"),
            );
            return true;
        }
    }
    false
}

/// The files Perl or Ruby code puts into `@ARGV`/`ARGV` (`@ARGV = ("a", "b")`, `@ARGV = qw(a b)`,
/// `push @ARGV, "a"`, `$ARGV[0] = "a"`, `ARGV.replace(["a"])`, `ARGV << "a"`): literal words, or
/// one run-time word for a list the analysis cannot read. An in-place edit (`$^I`, `-i`) writes
/// them.
pub(crate) fn argv_files(code: &str) -> Vec<Word> {
    let toks = code_tokens(code);
    let punct =
        |k: usize, c: u8| matches!(toks.get(k).map(|t| &t.tok), Some(CTok::Punct(p)) if *p == c);
    let is_argv = |n: &str| matches!(n, "@ARGV" | "@::ARGV" | "ARGV");
    let mut out = Vec::new();
    for j in 0..toks.len() {
        let CTok::Ident(name) = toks[j].tok else {
            continue;
        };
        // Where the list put into ARGV starts.
        let from =
            if is_argv(name) && punct(j + 1, b'=') && !punct(j + 2, b'=') && !punct(j + 2, b'~') {
                j + 2
            } else if is_argv(name) && punct(j + 1, b'<') && punct(j + 2, b'<') {
                j + 3
            } else if matches!(name, "$ARGV" | "ARGV") && punct(j + 1, b'[') {
                match (j + 2..toks.len()).find(|&k| punct(k, b']')) {
                    Some(k) if punct(k + 1, b'=') && !punct(k + 2, b'=') => k + 2,
                    _ => continue,
                }
            } else if matches!(name, "push" | "unshift") {
                let k = j + 1 + usize::from(punct(j + 1, b'('));
                match toks.get(k).map(|t| &t.tok) {
                    Some(CTok::Ident(n)) if is_argv(n) && punct(k + 1, b',') => k + 2,
                    _ => continue,
                }
            } else if matches!(
                name,
                "ARGV.replace" | "ARGV.push" | "ARGV.unshift" | "ARGV.concat"
            ) {
                j + 1
            } else {
                continue;
            };
        let mut depth = 0usize;
        let mut k = from;
        while let Some(t) = toks.get(k) {
            match &t.tok {
                CTok::Punct(b'(' | b'[' | b'{') => depth += 1,
                CTok::Punct(b')' | b']' | b'}') if depth == 0 => break,
                CTok::Punct(b')' | b']' | b'}') => depth -= 1,
                CTok::Punct(b';' | b'\n') if depth == 0 => break,
                CTok::Punct(b',') => {}
                CTok::Str { value, dynamic } => out.push(Word::synthetic(value, *dynamic)),
                CTok::Ident("qw") => {
                    // `qw(a b)`: the words up to the closing delimiter.
                    let rest = code.get(t.end..).unwrap_or_default().trim_start();
                    let Some(open) = rest.chars().next() else {
                        break;
                    };
                    let close = match open {
                        '(' => ')',
                        '[' => ']',
                        '{' => '}',
                        '<' => '>',
                        c => c,
                    };
                    let body = &rest[open.len_utf8()..];
                    let Some(len) = body.find(close) else { break };
                    out.extend(
                        body[..len]
                            .split_whitespace()
                            .map(|w| Word::synthetic(w, false)),
                    );
                    let end = code.len() - body.len() + len + close.len_utf8();
                    while toks.get(k + 1).is_some_and(|t| t.start < end) {
                        k += 1;
                    }
                }
                _ => {
                    let end = toks
                        .iter()
                        .skip(k)
                        .take_while(|t| !matches!(t.tok, CTok::Punct(b';' | b'\n')))
                        .last()
                        .map_or(t.end, |t| t.end);
                    out.push(Word::synthetic(
                        code.get(t.start..end).unwrap_or_default(),
                        true,
                    ));
                    break;
                }
            }
            k += 1;
        }
    }
    out
}

/// `exec {PROGRAM} LIST` and `system {PROGRAM} LIST`: PROGRAM runs with LIST as its argv (LIST's
/// first word is only the name it is shown under).
pub(super) fn program_block(
    e: &mut Eval,
    at: &At<'_, '_>,
    name: &str,
    call: Call,
    after_dot: bool,
) -> bool {
    let At {
        code,
        via,
        toks,
        pair,
        j,
        ..
    } = *at;
    if !(matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'{')))
        && matches!(call, Call::Shell | Call::Code)
        && !after_dot
        && !name.contains('.')
        && pair[j + 1] != usize::MAX)
    {
        return false;
    }
    let close = pair[j + 1];
    let (list, end) = bare_args(toks, pair, close + 1, code);
    let program = match toks.get(j + 2..close).unwrap_or_default() {
        [
            Spanned {
                tok:
                    CTok::Str {
                        value,
                        dynamic: false,
                    },
                ..
            },
        ] => Some(value.clone()),
        _ => None,
    };
    let snippet = code.get(toks[j].start..end).unwrap_or(name);
    match program {
        Some(p) => {
            let argv = std::iter::once(Some(p))
                .chain(list.iter().skip(1).map(|a| a.lit().map(str::to_owned)));
            e.run_text(&argv_text(argv));
        }
        None => e.unknown(
            snippet,
            format!("{via}: {name} of a program named at run time"),
        ),
    }
    true
}

/// A writing builtin on `$_` (`map { unlink } @f`, `unlink;`) or on a glob (`unlink <src/*.py>`):
/// the files are known only at run time. (Asked when no argument list follows the name.)
pub(super) fn on_topic(at: &At<'_, '_>, name: &str, call: Call, after_dot: bool) -> bool {
    at.via.starts_with("perl")
        && at.toks.len() > 1
        && !after_dot
        && !name.contains('.')
        && matches!(call, Call::Write(_))
}

/// Perl's `CORE::unlink`, `CORE::GLOBAL::unlink`, `POSIX::remove` are the builtins.
pub(super) fn builtin_name(canonical: String) -> String {
    canonical
        .strip_prefix("CORE::GLOBAL::")
        .or_else(|| canonical.strip_prefix("CORE::"))
        .or_else(|| canonical.strip_prefix("POSIX::"))
        .map_or(canonical.clone(), str::to_string)
}
