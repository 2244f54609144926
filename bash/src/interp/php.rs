//! PHP in interpreter code (`php -r`): its calls that write, read, load or run code ([`CALLS`]:
//! `file_put_contents`, `fopen`, `shell_exec`, `include`, `SplFileObject`, `tempnam`,
//! `pcntl_exec`), and the forms only PHP has: callables named by strings, `assert` of code, and
//! `ZipArchive::extractTo`.

use super::tokens::{CTok, paren_args};
use super::{At, CODE_VALUES, Call, names_a_writing_call, scan_code};
use crate::eval::Eval;

/// PHP's calls.
pub(super) const CALLS: &[(&str, Call)] = &[
    ("create_function", Call::Opaque),
    ("include include_once require_once", Call::LoadFile),
    ("*file_put_contents", Call::Write(&[0])),
    ("SplFileObject SplFileInfo.openFile", Call::Open),
    ("tempnam", Call::TempIn),
    (".extractTo", Call::Write(&[0])),
    ("pcntl_exec", Call::Opaque),
    ("*fopen", Call::Open),
    ("file_get_contents", Call::Read),
    ("shell_exec passthru popen proc_open", Call::Shell),
];

/// PHP callables by name: `array_map('unlink', $files)`, `call_user_func('system', $c)`,
/// and a call of a variable (`$f = 'unlink'; $f('p')`) in code naming such a function.
pub(super) fn callable_by_name(e: &mut Eval, at: &At<'_, '_>, name: &str, after_dot: bool) -> bool {
    let At { via, toks, j, .. } = *at;
    if via.starts_with("php") && !after_dot {
        let callable_taker =
            matches!(
                name,
                "call_user_func"
                    | "call_user_func_array"
                    | "array_map"
                    | "array_walk"
                    | "array_walk_recursive"
                    | "array_filter"
                    | "array_reduce"
                    | "usort"
                    | "uasort"
                    | "uksort"
                    | "register_shutdown_function"
                    | "register_tick_function"
                    | "forward_static_call"
                    | "forward_static_call_array"
                    | "iterator_apply"
                    | "set_error_handler"
                    | "set_exception_handler"
                    | "spl_autoload_register"
                    | "ob_start"
                    | "header_register_callback"
            ) && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')));
        let names_writer = toks.iter().any(|t| {
            matches!(&t.tok, CTok::Str { value, .. }
                if names_a_writing_call(value) || CODE_VALUES.contains(&value.as_str()))
        });
        let variable_call = name.starts_with('$')
            && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')));
        if (callable_taker || variable_call) && names_writer {
            e.unknown(
                name,
                format!("{via}: {name} calls a function named by a string"),
            );
            return true;
        }
    }
    false
}

/// PHP's `assert("code")` evaluates a string assertion as code (PHP 7).
pub(super) fn assert_code(e: &mut Eval, at: &At<'_, '_>, name: &str, after_dot: bool) -> bool {
    let At {
        code,
        via,
        toks,
        pair,
        j,
        ..
    } = *at;
    if name == "assert"
        && !after_dot
        && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
        && pair[j + 1] != usize::MAX
    {
        let (args, _) = paren_args(toks, pair, j + 1, code);
        match args.first().map(|a| (a.lit(), &a.string)) {
            Some((Some(text), _)) => scan_code(e, text, via),
            // PHP 7 evaluates any string assertion, also one in a variable.
            Some((None, Some(_))) | Some((None, None)) if via.starts_with("php") => e.unknown(
                code.get(toks[j].start..toks[pair[j + 1]].end)
                    .unwrap_or(name),
                format!("{via}: assert of code built at run time"),
            ),
            Some((None, Some(_))) => e.unknown(
                code.get(toks[j].start..toks[pair[j + 1]].end)
                    .unwrap_or(name),
                format!("{via}: assert of code built at run time"),
            ),
            _ => {}
        }
        return true;
    }
    false
}

/// PHP's `$zip->extractTo(DIR)`: the archive's files land in DIR.
pub(super) fn extract_to(e: &mut Eval, at: &At<'_, '_>, name: &str) -> bool {
    let At {
        code,
        via,
        toks,
        pair,
        j,
        ..
    } = *at;
    if name == "extractTo"
        && j >= 2
        && matches!(toks[j - 1].tok, CTok::Punct(b'>'))
        && matches!(toks[j - 2].tok, CTok::Punct(b'-'))
        && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
        && pair[j + 1] != usize::MAX
    {
        let (args, _) = paren_args(toks, pair, j + 1, code);
        match args.first() {
            Some(a) => e.write_tree(&a.word(), via),
            None => e.unknown(name, format!("{via}: extractTo")),
        }
        return true;
    }
    false
}
