//! Variables a command line binds once, at its start, to a path known before it runs:
//! `t=$(mktemp); … > "$t"`, `OUT=/tmp/o.txt; ls > $OUT`, `tmp=/tmp/x.$$; …`. Their later
//! expansions (`$t`, `"${t}/x"`) are then that path, so a write there is decided like the
//! literal path (outside the repository: allowed; inside: denied as that file).
//!
//! Only plain assignments at the very start of the command line count (each followed by `;`,
//! `&&`, `||` or a newline: not in a pipeline, in the background, in a subshell or under a
//! condition), and only when the rest of the text never names the variable except to expand it
//! (`$t`, `${…t…}`), so nothing can have changed it: no `read t`, `for t in`, `t=…`, `(( t ))`,
//! and none of `eval`, `source`, `.`, `declare`, `export`, `read`, `printf -v`, `let`, `unset`,
//! `IFS`, indirect `${!…}` or `$'…'` anywhere in the command line.

use std::collections::HashMap;

/// Words that can assign a variable without naming it plainly; a command line holding one (or
/// `${!`, `$'`) binds nothing.
const ASSIGNERS: [&str; 16] = [
    "eval",
    "source",
    "declare",
    "typeset",
    "local",
    "readonly",
    "export",
    "read",
    "mapfile",
    "readarray",
    "printf",
    "getopts",
    "let",
    "unset",
    "alias",
    ".",
];

/// `$$`, `$RANDOM`, … (always a number).
const NUMERIC: [&str; 11] = [
    "BASHPID", "RANDOM", "SECONDS", "LINENO", "PPID", "EUID", "UID", "$", "!", "?", "#",
];

fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The variables `command` binds at its start, to the paths they hold (see the module).
pub(super) fn leading_bindings(command: &str) -> HashMap<String, String> {
    let mut bound = HashMap::new();
    // A changed `IFS` splits an unquoted expansion into other words.
    if command.contains("${!")
        || command.contains("$'")
        || command.contains("IFS")
        || command
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .any(|w| ASSIGNERS.contains(&w))
    {
        return bound;
    }
    let b = command.as_bytes();
    let mut i = 0;
    let mut candidates: Vec<(String, String)> = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        if i >= b.len() || !ident_start(b[i]) {
            break;
        }
        while i < b.len() && ident_char(b[i]) {
            i += 1;
        }
        if b.get(i) != Some(&b'=') {
            break;
        }
        let name = &command[start..i];
        i += 1;
        let Some((value, next)) = value_at(command, i, &bound) else {
            break;
        };
        i = next;
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        let rest = &command[i..];
        let sep = if rest.starts_with("&&") || rest.starts_with("||") {
            2
        } else if rest.starts_with(';') && !rest.starts_with(";;") || rest.starts_with('\n') {
            1
        } else if rest.is_empty() {
            0
        } else {
            break;
        };
        i += sep;
        bound.insert(name.to_string(), value.clone());
        candidates.push((name.to_string(), value));
        if sep == 0 {
            break;
        }
    }
    // A name assigned twice at the start, or named otherwise later, is not bound.
    let rest = &command[i.min(command.len())..];
    bound.retain(|name, _| {
        candidates.iter().filter(|(n, _)| n == name).count() == 1 && only_expanded(rest, name)
    });
    bound
}

/// The value assigned at `i` and the index after it: `$(mktemp …)` (quoted or not, or in
/// backticks) of a fresh temporary path, or a word of literal characters, double quotes and
/// expansions of numbers or of names bound before it.
fn value_at(command: &str, i: usize, bound: &HashMap<String, String>) -> Option<(String, usize)> {
    let rest = &command[i..];
    let quoted = rest.starts_with('"');
    let inner_start = usize::from(quoted);
    let r = &rest[inner_start..];
    let (body, len) = if let Some(x) = r.strip_prefix("$(") {
        let end = x.find(')')?;
        (&x[..end], end + 3)
    } else if let Some(x) = r.strip_prefix('`') {
        let end = x.find('`')?;
        (&x[..end], end + 2)
    } else {
        return literal_value(command, i, bound);
    };
    if quoted && !r[len..].starts_with('"') {
        return None;
    }
    let end = i + inner_start + len + usize::from(quoted);
    mktemp_path(body).map(|p| (p, end))
}

/// The directory a `mktemp` with `body`'s arguments creates its file in, when it is the
/// system's temporary directory: only `-d`, `-q`, `-u` (and their long forms) and `-t
/// TEMPLATE` / `--suffix=S` without a `/`. A template operand alone is made in the working
/// directory, and `-p DIR` / `--tmpdir=DIR` elsewhere: not bound.
fn mktemp_path(body: &str) -> Option<String> {
    let mut words = body.split_whitespace();
    if words.next()? != "mktemp" {
        return None;
    }
    let mut words = words.peekable();
    while let Some(w) = words.next() {
        match w {
            "-d" | "--directory" | "-q" | "--quiet" | "-u" | "--dry-run" | "-dq" | "-qd" => {}
            "-t" => {
                let t = words.next()?;
                if !t
                    .bytes()
                    .all(|c| ident_char(c) || matches!(c, b'.' | b'-' | b'+'))
                {
                    return None;
                }
            }
            _ if w.starts_with("--suffix=")
                && w[9..]
                    .bytes()
                    .all(|c| ident_char(c) || matches!(c, b'.' | b'-')) => {}
            _ => return None,
        }
    }
    // The system's temporary directory (the analysis reads no environment: a `TMPDIR` set
    // into the project before Claude Code started is not seen).
    Some("/tmp/tmp.mktemp".to_string())
}

/// A plain word at `i`: literal path characters, double quotes, expansions of numbers and of
/// `bound` names.
fn literal_value(
    command: &str,
    i: usize,
    bound: &HashMap<String, String>,
) -> Option<(String, usize)> {
    let b = command.as_bytes();
    let mut k = i;
    let (mut quoted, mut depth) = (false, 0usize);
    while k < b.len() {
        match b[k] {
            b'"' => quoted = !quoted,
            b'(' if k > 0 && b[k - 1] == b'$' => depth += 1,
            b')' if depth > 0 => depth -= 1,
            c if !quoted
                && depth == 0
                && (c.is_ascii_whitespace() || matches!(c, b';' | b'&' | b'|')) =>
            {
                break;
            }
            _ => {}
        }
        k += 1;
    }
    let value = expand(&command[i..k], bound)?;
    (!value.is_empty()).then_some((value, k))
}

/// `raw` with its expansions replaced: numbers by `0`, `bound` names by their paths; `None` when
/// anything else in it expands or is special (globs, braces, tilde, backslashes, single quotes,
/// other command substitutions).
/// A run-time word of the shell whose expansions are all known ([`expand`]): the path it
/// names. A word without any `$` is not one (interpreter code's variables, globs).
pub(super) fn known_word(raw: &str, bound: &HashMap<String, String>) -> Option<String> {
    if !raw.contains('$') {
        return None;
    }
    expand(raw, bound).filter(|v| !v.is_empty())
}

fn expand(raw: &str, bound: &HashMap<String, String>) -> Option<String> {
    // `/proc/$$/cwd/…` is the shell's own directory: a number there is not just a name.
    if raw.trim_start_matches('"').starts_with("/proc") {
        return None;
    }
    let mut out = String::new();
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        if c == '$'
            && let Some(len) = numeric_substitution(rest)
        {
            out.push('0');
            rest = &rest[len..];
            continue;
        }
        if c == '$' {
            let after = &rest[1..];
            let (name, len) = match after.strip_prefix('{') {
                Some(inner) => {
                    let end = inner.find('}')?;
                    (&inner[..end], end + 2)
                }
                None => {
                    let n = after.bytes().take_while(|&c| ident_char(c)).count();
                    if n > 0 {
                        (&after[..n], n)
                    } else {
                        let special = NUMERIC
                            .iter()
                            .find(|s| s.len() == 1 && after.starts_with(**s))?;
                        (*special, 1)
                    }
                }
            };
            if NUMERIC.contains(&name) {
                out.push('0');
            } else {
                out.push_str(bound.get(name)?);
            }
            rest = &after[len..];
            continue;
        }
        if c == '"' {
            rest = &rest[1..];
            continue;
        }
        if !(c.is_ascii_alphanumeric() || "/._-+,=@%:".contains(c)) {
            return None;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

/// The length of a command substitution at the start of `raw` that prints only digits (and
/// `-`, `_`, `:`, `.`, `T`): `$(date +%s)`, `$(date -u +%Y%m%d-%H%M%S)`, `$(id -u)`, `$(nproc)`.
fn numeric_substitution(raw: &str) -> Option<usize> {
    let inner = raw.strip_prefix("$(")?;
    let end = inner.find(')')?;
    let body = &inner[..end];
    let words: Vec<&str> = body.split_whitespace().collect();
    let ok = match words.as_slice() {
        ["nproc"] | ["id", "-u" | "-g"] => true,
        ["date", rest @ ..] => {
            let (fmt, opts) = rest.split_last()?;
            opts.iter().all(|o| matches!(*o, "-u" | "--utc"))
                && date_format_numeric(fmt.trim_matches(['\'', '"']))
        }
        _ => false,
    };
    ok.then_some(end + 3)
}

/// A `date` format (`+…`) whose output is digits and `-_:.T` only.
fn date_format_numeric(fmt: &str) -> bool {
    let Some(fmt) = fmt.strip_prefix('+') else {
        return false;
    };
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => {
                if !chars
                    .next()
                    .is_some_and(|d| "YmdHMSsjuwyCGgVUWNekl".contains(d))
                {
                    return false;
                }
            }
            c if c.is_ascii_digit() || "-_:.T".contains(c) => {}
            _ => return false,
        }
    }
    true
}

/// Whether every occurrence of `name` in `text` as a whole word is an expansion (`$name`,
/// `${name}`, `${name%…}`) or part of a path, extension or option (`/tmp/`, `.tmp`, `-t`).
fn only_expanded(text: &str, name: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(name).map(|k| k + from) {
        from = k + name.len();
        let before = k.checked_sub(1).map(|p| b[p]);
        let after = b.get(k + name.len()).copied();
        if before.is_some_and(ident_char) || after.is_some_and(ident_char) {
            continue;
        }
        let expansion =
            before == Some(b'$') || (before == Some(b'{') && k >= 2 && b[k - 2] == b'$');
        let in_path = matches!(before, Some(b'/' | b'.' | b'-'));
        if !(expansion || in_path) {
            return false;
        }
    }
    true
}
