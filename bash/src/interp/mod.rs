//! Scanning of interpreter code (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, awk
//! programs) for the files it writes and reads, the programs it runs and the code it loads.
//!
//! One scanner reads every language: a one-liner's language is not always known (`$PY -c …`,
//! `env X=1 node -e …`, code handed from one interpreter to another), and the forms overlap
//! (`open`, `system`, `require`). [`tokens`] reads the code into tokens and call arguments; this
//! module follows aliases (`import shutil as s`, `const {rmSync: r} = require('fs')`), walks the
//! tokens ([`scan_code`]) and handles the calls every language makes alike (by [`Call`]: writes,
//! reads, `open` with a mode, a command line run, code evaluated, modules loaded). What each
//! language adds is in its own file: its call table and the forms only it has —
//! [`python`], [`node`] (and Deno, Bun), [`ruby`], [`perl`], [`php`]; [`awk`] programs have
//! their own scan. A call name is looked up in [`TABLES`], first match wins: each language's
//! table, the builtins several languages share ([`COMMON_CALLS`]), then Python's `pathlib`
//! methods on any receiver ([`python::PATH_METHODS`]), so that a qualified call of one language
//! (`File.open`, `fs.rename`) is never taken for a method of another's.
//!
//! Adding a call of a language is a row in that language's table (names in the pattern forms of
//! [`call_matches`]) and a line in `cases/hidden_writes.tsv` or `cases/read_only.tsv`.

mod awk;
mod node;
mod perl;
mod php;
mod python;
mod ruby;
mod tokens;

use std::collections::HashMap;

pub(super) use awk::scan_awk;
pub(super) use perl::argv_files;
use tokens::{CArg, CTok, Spanned, bare_args, brackets, code_tokens, paren_args};

use crate::eval::Eval;
use crate::lex::Word;

/// What a recognised call in interpreter code does.
#[derive(Debug, Clone, Copy)]
enum Call {
    /// These positional arguments are written paths.
    Write(&'static [usize]),
    /// The first argument, when there is one, is a written path (`df.to_csv('f')`; without it
    /// the text is returned).
    WriteIfGiven,
    /// The first argument is read.
    Read,
    /// `open`/`fopen`: the mode decides (Python/Ruby/PHP `open(p, 'w')`, Perl `open(F, '>', p)` and
    /// `open(F, ">p")`).
    Open,
    /// A method of a path object writes the receiver (`Path('f').write_text(…)`).
    RecvWrite,
    /// `Path('f').open('w')`.
    RecvOpen,
    /// `Path('f').read_text()`.
    RecvRead,
    /// `Path('a').rename('b')`: only with a literal `Path(…)` receiver (strings have `.replace`).
    RecvMove,
    /// The first argument is a shell command line, or a list of argv strings.
    Shell,
    /// Runs a program, module or code the analysis cannot follow (`os.execvp`, `spawnSync`,
    /// `__import__`, `importlib.import_module`): a run-time unknown.
    Opaque,
    /// `exec`/`eval` of code: a literal string is scanned as code, anything else is opaque.
    Code,
    /// `tempfile.mkstemp(dir=…)` and friends: a new file under `dir` (the system temporary
    /// directory without it).
    TempIn,
    /// These positional arguments are directories modules are then loaded from
    /// (`sys.path.insert(0, d)`, Perl's `use lib d`): checked like `bash FILE`.
    LoadPath(&'static [usize]),
    /// Perl's `push @INC, d` / `unshift @INC, d`: the directories after `@INC`.
    PushInc,
    /// The first argument is a file of code the call runs (Perl's `do FILE`, Ruby's `load`,
    /// PHP's `include`): checked like `bash FILE`.
    LoadFile,
    /// `require`/`import`: a module found on the search path, or a file of code when the name
    /// is a path (`require('/tmp/x.js')`, `require "./x.pl"`, `import('/tmp/x.mjs')`).
    Require,
}

/// The call tables, in the order they are tried (see the module docs).
const TABLES: [&[(&str, Call)]; 7] = [
    python::CALLS,
    node::CALLS,
    ruby::CALLS,
    perl::CALLS,
    php::CALLS,
    COMMON_CALLS,
    python::PATH_METHODS,
];

/// Builtins several languages share under one name (Perl's and PHP's `unlink`, `mkdir`,
/// `system`; `open`; `require`; `exec`/`eval`; Python's after `from os import …`).
const COMMON_CALLS: &[(&str, Call)] = &[
    ("require import from", Call::Require),
    ("exec eval", Call::Code),
    ("unlink mkdir rmdir touch", Call::Write(&[0])),
    ("rename", Call::Write(&[0, 1])),
    ("copy", Call::Write(&[1])),
    ("open", Call::Open),
    ("system", Call::Shell),
];

/// Whether call name `name` (`after_dot`: written after a `.`) matches table pattern `pat`: `name`
/// a bare call, `a.b` a qualified call (also with a longer qualification), `.name` a method on any
/// receiver, `*name` bare or with any receiver. Bare names also match Perl's parenless form
/// (`unlink "f"`, `open F, ">f"`).
fn call_matches(name: &str, after_dot: bool, pat: &str) -> bool {
    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
    let qualified = after_dot || name.contains(['.', ':']);
    if let Some(m) = pat.strip_prefix('.') {
        qualified && last == m
    } else if let Some(m) = pat.strip_prefix('*') {
        last == m
    } else if pat.contains('.') {
        name == pat
            || (name.len() > pat.len()
                && name.ends_with(pat)
                && name.as_bytes()[name.len() - pat.len() - 1] == b'.')
    } else {
        !qualified && name == pat
    }
}

/// The first row of [`TABLES`] a name matches, if any.
fn call_of(name: &str, after_dot: bool) -> Option<Call> {
    TABLES
        .iter()
        .flat_map(|t| t.iter())
        .find(|(pats, _)| {
            pats.split_whitespace()
                .any(|p| call_matches(name, after_dot, p))
        })
        .map(|&(_, call)| call)
}

/// Whether `name` (a member name: `writeFileSync`, `remove`) is the last part of a call that
/// writes or runs something: what a call by name (`getattr(os, 'remove')`, `fs['rmSync']`)
/// must not hide.
fn names_a_writing_call(name: &str) -> bool {
    matches!(
        call_of(name, true).or_else(|| call_of(name, false)),
        Some(
            Call::Write(_)
                | Call::WriteIfGiven
                | Call::Opaque
                | Call::Shell
                | Call::Code
                | Call::Open
                | Call::RecvWrite
        )
    ) || TABLES.iter().flat_map(|t| t.iter()).any(|(pats, call)| {
        matches!(call, Call::Write(_) | Call::Opaque | Call::Shell)
            && pats
                .split_whitespace()
                .any(|p| p.rsplit(['.', '*']).next() == Some(name))
    })
}

/// The names a script binds to modules and functions, to what they name: Python `import m as a`
/// and `from m import f [as a]`; assignments `a = m.f`, `a = require('m')` and
/// `a = require('m').f`; JavaScript destructuring `{f: a, g} = require('m')` (or `= m`). So
/// `r = os.remove; r(p)`, `import shutil as s; s.rmtree(p)` and `const {writeFileSync: w} =
/// require('fs'); w(p)` are the calls they alias.
fn aliases(toks: &[Spanned<'_>], pair: &[usize]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let ident = |k: usize| match toks.get(k).map(|t| &t.tok) {
        Some(CTok::Ident(n)) => Some(*n),
        _ => None,
    };
    let punct =
        |k: usize, c: u8| matches!(toks.get(k).map(|t| &t.tok), Some(CTok::Punct(p)) if *p == c);
    // What the expression at `k` names (a dotted name, or `require('m')` with an optional
    // `.member`) and the index after it.
    let target = |k: usize| -> Option<(String, usize)> {
        // `await import('fs')` is the module as `require('fs')` is.
        let k = if ident(k) == Some("await") { k + 1 } else { k };
        if ident(k).is_some_and(node::imports_by_name) && punct(k + 1, b'(') && punct(k + 3, b')') {
            let Some(CTok::Str {
                value,
                dynamic: false,
            }) = toks.get(k + 2).map(|t| &t.tok)
            else {
                return None;
            };
            let mut name = value.trim_start_matches("node:").to_string();
            let mut next = k + 4;
            if punct(next, b'.')
                && let Some(m) = ident(next + 1)
            {
                name = format!("{name}.{m}");
                next += 2;
            }
            return Some((name, next));
        }
        ident(k).map(|n| (n.to_string(), k + 1))
    };
    for j in 0..toks.len() {
        // ECMAScript imports: `import {a as b, c} from 'm'`, `import * as f from 'm'`,
        // `import d, {…} from 'm'`.
        if ident(j) == Some("import") && !(j > 0 && punct(j - 1, b'.')) {
            let mut bound: Vec<(String, Option<String>)> = Vec::new();
            let mut k = j + 1;
            loop {
                if punct(k, b'{')
                    && let Some(&close) = pair.get(k).filter(|&&c| c != usize::MAX && c > k)
                {
                    let mut i = k + 1;
                    while i < close {
                        match (ident(i), ident(i + 1), ident(i + 2)) {
                            (Some(f), Some("as"), Some(a)) => {
                                bound.push((a.to_string(), Some(f.to_string())));
                                i += 3;
                            }
                            (Some(f), _, _) => {
                                bound.push((f.to_string(), Some(f.to_string())));
                                i += 1;
                            }
                            _ => i += 1,
                        }
                    }
                    k = close + 1;
                } else if punct(k, b'*')
                    && ident(k + 1) == Some("as")
                    && let Some(a) = ident(k + 2)
                {
                    bound.push((a.to_string(), None));
                    k += 3;
                } else if let Some(d) = ident(k).filter(|&d| d != "from") {
                    bound.push((d.to_string(), None));
                    k += 1;
                } else {
                    break;
                }
                if !punct(k, b',') {
                    break;
                }
                k += 1;
            }
            if ident(k) == Some("from")
                && let Some(CTok::Str {
                    value,
                    dynamic: false,
                }) = toks.get(k + 1).map(|t| &t.tok)
            {
                let m = value.trim_start_matches("node:");
                for (a, member) in bound {
                    let full = member.map_or_else(|| m.to_string(), |f| format!("{m}.{f}"));
                    if a != full {
                        out.insert(a, full);
                    }
                }
            }
        }
        if ident(j) == Some("import") {
            let from = (j >= 2 && ident(j - 2) == Some("from"))
                .then(|| ident(j - 1))
                .flatten();
            let mut k = j + 1;
            while let Some(n) = ident(k) {
                let full = from.map_or_else(|| n.to_string(), |m| format!("{m}.{n}"));
                if ident(k + 1) == Some("as")
                    && let Some(a) = ident(k + 2)
                {
                    out.insert(a.to_string(), full);
                    k += 3;
                } else {
                    if from.is_some() {
                        out.insert(n.to_string(), full);
                    }
                    k += 1;
                }
                if !punct(k, b',') {
                    break;
                }
                k += 1;
            }
        }
        let plain_assign = punct(j + 1, b'=')
            && !punct(j + 2, b'=')
            && !(j > 0
                && matches!(
                    toks[j - 1].tok,
                    CTok::Punct(b'=' | b'!' | b'<' | b'>' | b'.')
                ));
        if plain_assign
            && let Some(a) = ident(j)
            && let Some((t, next)) = target(j + 2)
            && !punct(next, b'(')
            && !punct(next, b'[')
        {
            out.insert(a.to_string(), t);
        }
        if punct(j, b'{')
            && let Some(&close) = pair.get(j).filter(|&&c| c != usize::MAX && c > j)
            && punct(close + 1, b'=')
            && !punct(close + 2, b'=')
            && let Some((t, _)) = target(close + 2)
        {
            let mut k = j + 1;
            while k < close {
                match (ident(k), punct(k + 1, b':'), ident(k + 2)) {
                    (Some(f), true, Some(a)) => {
                        out.insert(a.to_string(), format!("{t}.{f}"));
                        k += 3;
                    }
                    (Some(f), false, _) => {
                        out.insert(f.to_string(), format!("{t}.{f}"));
                        k += 1;
                    }
                    _ => k += 1,
                }
            }
        }
    }
    out
}

/// Whether the script loads a module that writes files or runs programs (`require('fs')`,
/// `import os`, `from shutil import …`), directly or through an alias.
fn uses_io_module(toks: &[Spanned<'_>], aliases: &HashMap<String, String>) -> bool {
    const MODULES: [&str; 10] = [
        "fs",
        "fs/promises",
        "child_process",
        "os",
        "shutil",
        "subprocess",
        "pathlib",
        "io",
        "posix",
        "nt",
    ];
    let is_io = |n: &str| {
        let n = n.trim_start_matches("node:");
        MODULES
            .iter()
            .any(|m| n == *m || n.split('.').next() == Some(m))
    };
    aliases.values().any(|t| is_io(t))
        || toks.windows(2).any(|w| match (&w[0].tok, &w[1].tok) {
            (CTok::Ident("import" | "from"), CTok::Ident(n)) => is_io(n),
            (CTok::Punct(b'('), CTok::Str { value, .. }) => is_io(value),
            _ => false,
        })
}

/// `name` with aliases replaced ([`aliases`]): the whole name, or its first dotted part, a few
/// times over (`a = fs; b = a.writeFileSync`).
fn resolve(name: &str, aliases: &HashMap<String, String>) -> String {
    let mut name = name.to_string();
    for _ in 0..4 {
        let next = match aliases.get(&name) {
            Some(t) => t.clone(),
            None => match name.split_once('.') {
                Some((head, rest)) => match aliases.get(head) {
                    Some(t) => format!("{t}.{rest}"),
                    None => break,
                },
                None => break,
            },
        };
        if next == name {
            break;
        }
        name = next;
    }
    name
}

/// Scans interpreter code for the calls in [`CALLS`]; targets are reported with `via`.
pub(super) fn scan_code(e: &mut Eval, code: &str, via: &str) {
    let toks = code_tokens(code);
    let pair = brackets(&toks);
    let aliases = aliases(&toks, &pair);
    // Code that changes its own working directory (`os.chdir('src')`, `process.chdir(d)`, Perl's
    // `chdir "src"`, `Dir.chdir`): its relative paths are no longer the shell's, so they are
    // known only at run time (`os.chdir('src'); open('../README.md', 'w')`).
    let changes_dir = toks.iter().any(|t| match t.tok {
        CTok::Ident(n) => {
            let n = resolve(n, &aliases);
            let last = n.rsplit(['.', ':']).next().unwrap_or(&n);
            matches!(last, "chdir" | "fchdir" | "chroot") || n.ends_with("FileUtils.cd")
        }
        _ => false,
    });
    let saved_cwd = e.cwd.clone();
    if changes_dir {
        e.cwd = super::eval::Cwd {
            path: String::new(),
            dynamic: true,
        };
    }
    scan_tokens(e, code, via, &toks, &pair, &aliases);
    e.cwd = saved_cwd;
}

/// Code run by name as a value, not called in place (`(0, eval)(s)`, `F = Function`, Perl's
/// `eval <STDIN>`): what it runs is out of sight.
const CODE_VALUES: [&str; 6] = [
    "eval",
    "exec",
    "Function",
    "evalbytes",
    "execfile",
    "__import__",
];

/// Where the scanner stands: the code, its tokens and bracket pairs, the aliases it binds, and
/// the token at `j`. What the language files' forms read.
#[derive(Clone, Copy)]
struct At<'a, 'c> {
    code: &'c str,
    /// How the code was run (`python3 -c`), for the reported `via`.
    via: &'a str,
    toks: &'a [Spanned<'c>],
    pair: &'a [usize],
    aliases: &'a HashMap<String, String>,
    j: usize,
}

fn scan_tokens(
    e: &mut Eval,
    code: &str,
    via: &str,
    toks: &[Spanned<'_>],
    pair: &[usize],
    aliases: &HashMap<String, String>,
) {
    let uses_child_process = toks.iter().any(|t| {
        matches!(&t.tok, CTok::Str { value, .. }
            if value.trim_start_matches("node:") == "child_process")
    });
    for j in 0..toks.len() {
        let at = At {
            code,
            via,
            toks,
            pair,
            aliases,
            j,
        };
        // A call by a computed name on a value (`fs[m](p)`) in a script that uses a module
        // that writes files or runs programs.
        if let CTok::Punct(b'[') = toks[j].tok
            && j > 0
            && matches!(toks[j - 1].tok, CTok::Ident(_) | CTok::Punct(b')' | b']'))
            && let Some(&close) = pair.get(j).filter(|&&c| c != usize::MAX && c > j + 1)
            && !(close == j + 2 && matches!(toks[j + 1].tok, CTok::Str { dynamic: false, .. }))
            && matches!(toks.get(close + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && uses_io_module(toks, aliases)
        {
            e.unknown(
                code.get(toks[j].start..toks[close].end).unwrap_or_default(),
                format!("{via}: a call by a name computed at run time"),
            );
            continue;
        }
        if python::builtins_by_name(e, &at) {
            continue;
        }
        // A call by a literal name: `fs['rmSync'](p)`.
        if let CTok::Punct(b'[') = toks[j].tok
            && let Some(CTok::Str { value, .. }) = toks.get(j + 1).map(|t| &t.tok)
            && matches!(toks.get(j + 2).map(|t| &t.tok), Some(CTok::Punct(b']')))
            && matches!(toks.get(j + 3).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && names_a_writing_call(value)
        {
            e.unknown(
                code.get(toks[j].start..toks[j + 2].end).unwrap_or(value),
                format!("{via}: a call by name ({value})"),
            );
            continue;
        }
        let CTok::Ident(name) = toks[j].tok else {
            continue;
        };
        let after_dot = j > 0 && matches!(toks[j - 1].tok, CTok::Punct(b'.'));
        if python::sys_modules_member(e, &at, name)
            || perl::writing_reference_or_method(e, &at, name)
            || python::getattr(e, &at, name, after_dot)
            || python::sys_path_assigned(e, &at, name, after_dot)
        {
            continue;
        }
        // The name as the tables spell it: the member of a module required in place (Node), else
        // with aliases followed; Node's `fs` under any spelling, Python's `posix`/`nt` and
        // `__builtins__`, Perl's `CORE::`/`POSIX::` names.
        let canonical = node::module_member(&at, name, after_dot, uses_child_process)
            .unwrap_or_else(|| resolve(name, aliases));
        let canonical = perl::builtin_name(python::module_name(node::fs_name(&canonical)));
        // A writing function called or bound through `bind`/`call`/`apply`
        // (`fs.writeFileSync.bind(fs)`, `os.remove.__call__`): where its arguments go is out of
        // sight.
        if let Some((fun, how)) = canonical.rsplit_once('.')
            && matches!(how, "bind" | "call" | "apply" | "__call__" | "__func__")
            && fun.contains('.')
            && names_a_writing_call(fun.rsplit('.').next().unwrap_or(fun))
        {
            e.unknown(
                code.get(toks[j].start..toks[j].end).unwrap_or(name),
                format!("{via}: {fun} called through {how}"),
            );
            continue;
        }
        if node::program_runner_as_value(e, &at, name, after_dot, &canonical) {
            continue;
        }
        // A module's writing or program-running function taken as a value, not called here
        // (`map(os.remove, files)`, `{'r': os.remove}`, `.then(fs.unlinkSync)`,
        // `Reflect.apply(fs.writeFileSync, …)`): what it is later called with is out of sight.
        // An alias made of it (`w = fs.writeFileSync`) is followed to its calls instead.
        let next = toks.get(j + 1).map(|t| &t.tok);
        // Where the reference starts: `require('fs').writeFileSync` at `require`.
        let start = match node::required_module(toks, pair, j) {
            Some(_) => pair
                .get(j - 2)
                .and_then(|&open| open.checked_sub(1))
                .unwrap_or(j),
            None => j,
        };
        let start = if start > 0 && matches!(toks[start - 1].tok, CTok::Ident("await")) {
            start - 1
        } else {
            start
        };
        // `w = fs.writeFileSync` as a statement (not `f(target=os.remove)`, a keyword
        // argument).
        let alias_definition = start >= 2
            && matches!(toks[start - 1].tok, CTok::Punct(b'='))
            && matches!(toks[start - 2].tok, CTok::Ident(_))
            && (start == 2
                || matches!(
                    toks[start - 3].tok,
                    CTok::Punct(b';' | b'\n' | b'{' | b'}')
                        | CTok::Ident("const" | "let" | "var" | "my" | "our" | "local")
                ));
        if (after_dot || name.contains('.'))
            && canonical.contains('.')
            && !alias_definition
            && !matches!(
                next,
                Some(CTok::Punct(b'(' | b'.' | b'=' | b'[')) | Some(CTok::Ident("as" | "import"))
            )
            && !(j > 0 && matches!(toks[j - 1].tok, CTok::Ident("import" | "from")))
            && matches!(
                call_of(&canonical, after_dot),
                Some(Call::Write(_) | Call::WriteIfGiven | Call::Shell)
            )
        {
            e.unknown(
                code.get(toks[j].start..toks[j].end).unwrap_or(name),
                format!(
                    "{via}: {canonical} passed as a value (what it is called with is out of sight)"
                ),
            );
            continue;
        }
        if ruby::symbol_call(e, &at, name, after_dot)
            || php::callable_by_name(e, &at, name, after_dot)
        {
            continue;
        }
        // A code-running builtin taken as a value (`(0, eval)(s)`, `F = Function`, Perl's
        // `eval <STDIN>`, `map(exec, …)`): the code it runs is out of sight.
        if !after_dot
            && canonical == name
            && CODE_VALUES.contains(&name)
            && !matches!(
                toks.get(j + 1).map(|t| &t.tok),
                Some(CTok::Punct(b'(' | b'{') | CTok::Str { .. } | CTok::Ident(_))
            )
            && !(j > 0 && matches!(toks[j - 1].tok, CTok::Ident("import" | "def" | "function")))
        {
            e.unknown(
                name,
                format!("{via}: {name} taken as a value (the code it runs is out of sight)"),
            );
            continue;
        }
        if php::assert_code(e, &at, name, after_dot)
            || python::import_by_literal_name(&at, &canonical, after_dot)
            || ruby::pathname_method(e, &at, name, after_dot)
            || php::extract_to(e, &at, name)
        {
            continue;
        }
        let Some(call) = call_of(&canonical, after_dot).or_else(|| call_of(name, after_dot)) else {
            continue;
        };
        if perl::program_block(e, &at, name, call, after_dot) {
            continue;
        }
        let (args, end) = match toks.get(j + 1).map(|t| &t.tok) {
            // An unbalanced call is a syntax error: the interpreter runs nothing.
            Some(CTok::Punct(b'(')) if pair[j + 1] != usize::MAX => {
                paren_args(toks, pair, j + 1, code)
            }
            // `from os import remove as rm`, `import remove`: a name, not a call.
            Some(CTok::Ident("as")) => continue,
            _ if j > 0 && matches!(toks[j - 1].tok, CTok::Ident("import")) => continue,
            Some(CTok::Str { .. } | CTok::Ident(_)) if !after_dot && !name.contains('.') => {
                bare_args(toks, pair, j + 1, code)
            }
            // Perl's `chmod 0755, "f"`.
            Some(CTok::Punct(c)) if c.is_ascii_digit() && !after_dot && !name.contains('.') => {
                bare_args(toks, pair, j + 1, code)
            }
            Some(CTok::Punct(_)) | None if perl::on_topic(&at, name, call, after_dot) => {
                e.unknown(
                    name,
                    format!("{via}: {name} of $_ or a glob (files known only at run time)"),
                );
                continue;
            }
            _ => continue,
        };
        let snippet = Word::synthetic(code.get(toks[j].start..end).unwrap_or(name), true);
        let positional: Vec<&CArg<'_>> = args.iter().filter(|a| a.kw.is_none()).collect();
        let kw = |k: &str| args.iter().find(|a| a.kw == Some(k));
        let writes_mode = |m: Option<&CArg<'_>>| m.and_then(CArg::lit).is_some_and(is_write_mode);
        // Arguments unpacked at run time (`open(*['f', 'w'])`, `open(**kw)`, `open(...args)`):
        // which parameter each fills, the mode among them, is unknown. (Perl's `open(*FH, …)`
        // names a handle. Other calls already count an argument they cannot read as run time.)
        let unpacked = args.iter().enumerate().any(|(i, a)| {
            a.raw.starts_with("...")
                || a.raw.starts_with("**")
                || (a.raw.starts_with('*') && (i > 0 || args.len() == 1))
        });
        if unpacked && matches!(call, Call::Open | Call::RecvOpen) {
            e.unknown(
                snippet.value.clone(),
                format!("{via}: {name} with arguments unpacked at run time"),
            );
            continue;
        }
        python::profile_output(e, &canonical, &positional, via);
        if matches!(call, Call::Opaque)
            && (python::opaque_with_output(e, &canonical, name, &args, &positional, via)
                || node::spawned_argv(e, &canonical, &args, &positional))
        {
            continue;
        }
        let loads = format!("{via}: {name} loads code from");
        match call {
            Call::LoadPath(indexes) => {
                for &i in indexes {
                    if let Some(a) = positional.get(i) {
                        for dir in list_words(a) {
                            load_from(e, &dir, &loads);
                        }
                    }
                }
            }
            Call::PushInc => {
                if positional
                    .first()
                    .is_some_and(|a| matches!(a.raw, "@INC" | "@::INC"))
                {
                    for a in &positional[1..] {
                        for dir in list_words(a) {
                            load_from(e, &dir, &loads);
                        }
                    }
                }
            }
            Call::LoadFile | Call::Require => {
                let Some(a) = positional.first() else {
                    continue;
                };
                let paren = matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')));
                match a.lit() {
                    // `import('data:text/javascript,…')`, `import('https://…')`: code given in
                    // the name, or fetched.
                    Some(p)
                        if p.starts_with("data:")
                            || (p.contains("://") && !p.starts_with("file://")) =>
                    {
                        e.unknown(
                            "<code loaded from a URL>",
                            format!("{via}: {name} of code in or behind a URL ({})", a.raw),
                        );
                    }
                    Some(p) => {
                        let p = p.strip_prefix("file://").unwrap_or(p);
                        // `require('fs')`, `require "strict.pm"`, `import('lodash/fp')`: a
                        // module from the search path (which is checked where it is set).
                        let file = matches!(call, Call::LoadFile)
                            || p.starts_with(['/', '~'])
                            || p.starts_with("./")
                            || p.starts_with("../")
                            || p == "."
                            || p == ".."
                            // PHP's `require 'x.php'` (found on include_path or here).
                            || [".php", ".inc", ".phtml"].iter().any(|x| p.ends_with(x));
                        if file {
                            load_from(e, &Word::synthetic(p, false), &loads);
                        }
                    }
                    // `require $file`, `do $f`, `include $x`, `require(name)`: run time. A bare
                    // word is a module (`require Foo::Bar`) or not a load (Ruby's `loop do puts`).
                    None if a.raw.starts_with('$') || (paren && matches!(call, Call::Require)) => {
                        load_from(e, &Word::synthetic(a.raw, true), &loads)
                    }
                    None => {}
                }
            }
            Call::Write(indexes) => {
                // A call that only changes metadata names itself in `via`: the kernel sandbox
                // cannot refuse chmod or utime, so the gate never leaves those to it.
                let metadata = super::changes_metadata_only(name);
                let named;
                let via = if metadata {
                    named = format!("{via} {name}");
                    named.as_str()
                } else {
                    via
                };
                for &i in indexes {
                    match positional.get(i) {
                        // Perl's `chmod 0755, "f"` and `utime $a, $m, "f"` name the files last.
                        Some(a)
                            if a.lit().is_none()
                                && (is_number(a.raw) || a.raw.trim() == "undef") => {}
                        // `sqlite3.connect(':memory:')`: a database in memory, no file.
                        Some(a)
                            if a.lit().is_some_and(|l| {
                                l == ":memory:" || l.is_empty() || l.starts_with("file::memory:")
                            }) => {}
                        // `sqlite3.connect('file:db?mode=ro', uri=True)`: a URI names the
                        // file; read-only and immutable opens write nothing. (Without
                        // `uri=True` the name is a file name, colon and all.)
                        Some(a)
                            if a.lit().is_some_and(|l| l.starts_with("file:"))
                                && kw("uri").is_some_and(|u| u.raw.trim() == "True") =>
                        {
                            let uri = a.lit().unwrap_or_default();
                            let (path, query) = uri["file:".len()..]
                                .split_once('?')
                                .unwrap_or((&uri["file:".len()..], ""));
                            let path = path.strip_prefix("//localhost").unwrap_or(path);
                            let path = path.strip_prefix("//").map_or(path, |p| p);
                            if !query
                                .split('&')
                                .any(|kv| matches!(kv, "mode=ro" | "immutable=1"))
                            {
                                e.write(&Word::synthetic(path, false), via);
                            }
                        }
                        Some(a) => e.write(&a.word(), via),
                        // Arguments the analysis cannot count (`copy(*pair)`): the call itself.
                        None if Some(&i) == indexes.first() => e.write(&snippet, via),
                        None => {}
                    }
                }
            }
            Call::WriteIfGiven => {
                // `np.save(f, a)`, `torch.save(obj, f)`, `joblib.dump(obj, f)`: the file is
                // the first argument of the methods, the second of these functions.
                let i = usize::from(matches!(name, "torch.save" | "joblib.dump"));
                if let Some(a) = positional.get(i) {
                    e.write(&a.word(), via);
                }
            }
            Call::Read => positional.first().iter().for_each(|a| e.read(&a.word())),
            Call::Open => open_call(e, &positional, kw("file"), kw("mode"), via),
            Call::RecvWrite | Call::RecvOpen | Call::RecvRead | Call::RecvMove => {
                let recv = python::path_receiver(toks, pair, j, name, code)
                    .map(|p| Word::synthetic(&p, false));
                match call {
                    Call::RecvWrite => e.write(recv.as_ref().unwrap_or(&snippet), via),
                    Call::RecvOpen if writes_mode(positional.first().copied().or(kw("mode"))) => {
                        e.write(recv.as_ref().unwrap_or(&snippet), via)
                    }
                    Call::RecvOpen | Call::RecvRead => recv.iter().for_each(|r| e.read(r)),
                    _ => {
                        if let Some(r) = recv {
                            e.write(&r, via);
                            positional
                                .first()
                                .iter()
                                .for_each(|a| e.write(&a.word(), via));
                        }
                    }
                }
            }
            Call::Opaque => e.unknown(
                snippet.value.clone(),
                format!("{via}: {name} (runs code the analysis cannot follow)"),
            ),
            // `eval('open')(…)`, `eval('os.remove')`: code that only names a writing or
            // code-running function hands it out as a value.
            Call::Code
                if positional.len() == 1
                    && !via.starts_with("perl")
                    && positional.first().and_then(|a| a.lit()).is_some_and(|t| {
                        let t = t.trim();
                        !t.is_empty()
                            && t.bytes()
                                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
                            && (names_a_writing_call(t.rsplit('.').next().unwrap_or(t))
                                || CODE_VALUES.contains(&t))
                    }) =>
            {
                e.unknown(
                    snippet.value.clone(),
                    format!("{via}: {name} of a function's name (it is then called)"),
                );
            }
            Call::Code => match positional.first() {
                Some(code) if code.lit().is_some() => {
                    // Python/JS code, or (Perl's `exec "cmd"`) a command line: both readings;
                    // Perl's `exec "prog", "arg"…` runs an argv.
                    let text = code.lit().unwrap_or_default().to_string();
                    scan_code(e, &text, via);
                    e.run_text(&text);
                    if positional.len() > 1 {
                        e.run_text(&argv_text(
                            positional.iter().map(|a| a.lit().map(str::to_owned)),
                        ));
                    }
                }
                _ => e.unknown(
                    snippet.value.clone(),
                    format!("{via}: {name} of code built at run time"),
                ),
            },
            Call::TempIn => {
                // `dir=` by keyword; by position the third argument of `mkstemp`/`mkdtemp`
                // (suffix, prefix, dir), the first of PHP's `tempnam(DIR, PREFIX)`.
                let at = match canonical.rsplit('.').next() {
                    Some("mkstemp" | "mkdtemp") => Some(2),
                    Some("tempnam") => Some(0),
                    _ => None,
                };
                if let Some(dir) = kw("dir").or_else(|| at.and_then(|i| positional.get(i).copied()))
                {
                    e.write_tree(&dir.word(), via);
                }
            }
            Call::Shell => {
                let Some(cmd) = positional.first() else {
                    continue;
                };
                if let Some(text) = cmd.lit() {
                    e.run_text(text);
                    // Perl's `system "prog", "arg"…` (list form) runs an argv; PHP's
                    // `system($cmd, $rc)` and Python's `os.popen(cmd, 'r')` name no more words,
                    // and reading them as arguments finds nothing more.
                    if positional.len() > 1 && !after_dot && !name.contains('.') {
                        e.run_text(&argv_text(
                            positional.iter().map(|a| a.lit().map(str::to_owned)),
                        ));
                    }
                } else if !cmd.raw.starts_with('[') {
                    // A command line built at run time (`os.system('echo x > ' + p)`).
                    e.unknown(
                        snippet.value.clone(),
                        format!("{via}: {name} of a command built at run time"),
                    );
                } else if cmd.raw.starts_with('[') {
                    // argv list: literal strings quoted, anything else as a variable.
                    let argv = toks[cmd.toks.0..cmd.toks.1]
                        .iter()
                        .filter_map(|t| match &t.tok {
                            CTok::Str {
                                value,
                                dynamic: false,
                            } => Some(Some(value.clone())),
                            CTok::Punct(b'[' | b']' | b',') => None,
                            _ => Some(None),
                        });
                    e.run_text(&argv_text(argv));
                }
            }
        }
    }
}

/// A file or directory code is loaded from: a literal one is checked like `bash FILE`, one known
/// only at run time is a run-time unknown.
fn load_from(e: &mut Eval, w: &Word, via: &str) {
    if w.dynamic {
        // As `<…>`: a run-time word starting with a directory outside the project would be
        // taken for a write there.
        e.unknown(format!("<{}>", w.raw), via);
    } else {
        e.script(w, via);
    }
}

/// A command line running `argv` as it is: literal words quoted, words known only at run time
/// as a variable.
fn argv_text(argv: impl Iterator<Item = Option<String>>) -> String {
    argv.map(|w| match w {
        Some(v) => shell_quote(&v),
        None => "\"$arg\"".to_string(),
    })
    .collect::<Vec<_>>()
    .join(" ")
}

/// `s` as one single-quoted shell word (as `code_intel_session::gate::sandbox::shell_quote`).
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The words of an argument that is a string, a list of literal strings (`['a', 'b']`) or Perl's
/// `qw(a b)`; a word known only at run time when it is anything else.
fn list_words(a: &CArg<'_>) -> Vec<Word> {
    if let Some(v) = a.lit() {
        return vec![Word::synthetic(v, false)];
    }
    let raw = a.raw.trim();
    // `qw` and its ASCII delimiters around the words; anything else (an unclosed or non-ASCII
    // end) is left to the run-time word below, never sliced inside a character.
    if let Some(words) = raw
        .strip_prefix("qw")
        .map(str::trim_start)
        .filter(|r| r.len() >= 2 && r.starts_with(|c: char| c.is_ascii_punctuation()))
        .filter(|r| r.ends_with(|c: char| c.is_ascii_punctuation()))
        .and_then(|r| r.get(1..r.len() - 1))
    {
        return words
            .split_whitespace()
            .map(|w| Word::synthetic(w, false))
            .collect();
    }
    if let Some(inner) = raw
        .strip_prefix(['[', '('])
        .and_then(|r| r.strip_suffix([']', ')']))
    {
        let items: Vec<&str> = inner
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .collect();
        fn literal(i: &str) -> Option<&str> {
            let q = i.chars().next()?;
            (matches!(q, '\'' | '"') && i.len() >= 2 && i.ends_with(q))
                .then(|| &i[1..i.len() - 1])
                .filter(|v| !v.contains(['\\', '$', '{', '@', q]))
        }
        if items.iter().all(|i| literal(i).is_some()) {
            return items
                .iter()
                .filter_map(|i| literal(i))
                .map(|v| Word::synthetic(v, false))
                .collect();
        }
    }
    vec![Word::synthetic(a.raw, true)]
}

/// Whether an argument is a number literal (`0755`, `0o644`, `1_000`), not a path.
fn is_number(raw: &str) -> bool {
    let raw = raw.trim();
    raw.starts_with(|c: char| c.is_ascii_digit())
        && raw.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// An `fopen`-style mode string (Python, Ruby, PHP, C): `r`, `rb`, `w+`, `a`, `x`, `c+`, ….
fn is_open_mode(m: &str) -> bool {
    !m.is_empty() && m.chars().all(|c| "rwxabtUce+".contains(c))
}

fn is_write_mode(m: &str) -> bool {
    is_open_mode(m) && m.contains(['w', 'a', 'x', 'c', '+'])
}

/// `open(…)`: Perl forms when the first argument is a handle, else `open(path, mode)`.
fn open_call(
    e: &mut Eval,
    pos: &[&CArg<'_>],
    file_kw: Option<&CArg<'_>>,
    mode_kw: Option<&CArg<'_>>,
    via: &str,
) {
    let Some(first) = pos.first().copied().or(file_kw) else {
        return;
    };
    let second = pos.get(1).copied().or(mode_kw);
    // Ruby's `open("|cmd")` runs cmd.
    if let Some(cmd) = first.lit().and_then(|f| f.strip_prefix('|')) {
        return e.run_text(cmd);
    }
    if first.string.is_none() {
        // Perl 3-arg: open(FH, '>', $path).
        if let (Some(mode), Some(path)) = (second.and_then(CArg::lit), pos.get(2)) {
            let m = mode.split(':').next().unwrap_or_default().trim();
            // `open(FH, "-|", "cmd", @args)` / `"|-"`: a command line, or an argv (list form).
            if matches!(m, "-|" | "|-") {
                return match &pos[2..] {
                    [one] => match one.lit() {
                        Some(cmd) => e.run_text(cmd),
                        None => e.unknown(
                            format!("<{}>", one.raw),
                            format!("{via}: a piped open of a command built at run time"),
                        ),
                    },
                    list => e.run_text(&argv_text(list.iter().map(|a| a.lit().map(str::to_owned)))),
                };
            }
            if matches!(m, "<" | ">" | ">>" | "+<" | "+>" | "+>>") {
                return if m.contains('>') || m.starts_with('+') {
                    e.write(&path.word(), via)
                } else {
                    e.read(&path.word())
                };
            }
        }
        // Perl 2-arg: open(FH, ">path").
        if let Some((spec, dynamic)) = second
            .and_then(|a| a.string.as_ref())
            .filter(|(s, _)| !is_open_mode(s))
        {
            let t = spec.trim();
            let word = |rest: &str| Word::synthetic(rest.trim(), *dynamic);
            if let Some(rest) = ["+>>", ">>", "+<", "+>", ">"]
                .iter()
                .find_map(|m| t.strip_prefix(m))
            {
                e.write(&word(rest), via);
            } else if let Some(cmd) = t.strip_prefix('|').or_else(|| t.strip_suffix('|')) {
                // `open(FH, "|cmd")`, `open(FH, "cmd|")`: a command line.
                let cmd = cmd.trim();
                if cmd == "-" {
                    // `open(FH, "|-")`: a fork of this script, no command.
                } else if *dynamic {
                    e.unknown(
                        format!("<{spec}>"),
                        format!("{via}: a piped open of a command built at run time"),
                    );
                } else {
                    e.run_text(cmd);
                }
            } else {
                e.read(&word(t.trim_start_matches('<')));
            }
            return;
        }
    }
    // A mode in a variable may write.
    let writes = second.is_some_and(|m| m.lit().is_none_or(is_write_mode));
    if writes {
        e.write(&first.word(), via)
    } else {
        e.read(&first.word())
    }
}
