//! Rules for interpreters: `perl`/`ruby` (`-i`, `-e`), `awk` (`-i inplace`, `print > "f"`), and
//! `python`/`node`/`php` code given inline or on stdin, scanned by [`scan_code`].

use crate::gate::bash::eval::{Eval, Inv, is_assignment};
use crate::gate::bash::interp::{scan_awk, scan_code};
use crate::gate::bash::opts::{OptSpec, parse_opts, spec, stop_spec};

const PERL_SPEC: OptSpec = OptSpec {
    val: "eEIMm",
    attached: "iFxdDC",
    digits: "l0",
    long_val: "",
    stop: true,
};
const RUBY_SPEC: OptSpec = OptSpec {
    val: "eIrCE",
    attached: "iFxWKT",
    digits: "0",
    long_val: "",
    stop: true,
};

pub(super) fn rule_perl_ruby(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        if inv.name == "perl" {
            &PERL_SPEC
        } else {
            &RUBY_SPEC
        },
    );
    let code: Vec<&str> = a.values(&["-e", "-E"]).map(|w| w.value.as_str()).collect();
    let files = if code.is_empty() {
        a.operands.get(1..).unwrap_or_default()
    } else {
        &a.operands[..]
    };
    if a.has(&["-i"]) {
        let via = format!("{} -i", inv.name);
        files.iter().for_each(|f| e.write(f, &via));
    } else if a.has(&["-n", "-p"]) {
        files.iter().for_each(|f| e.read(f));
    }
    if !code.is_empty() {
        let text = code.join("\n");
        // Backticks and `qx(…)` run a command line (Perl and Ruby).
        for cmd in backtick_commands(&text) {
            e.run_text(&cmd);
        }
        scan_code(e, &text, &format!("{} -e", inv.name));
    } else if let (None | Some("-"), Some(stdin)) =
        (a.operands.first().map(|w| w.value.as_str()), inv.stdin)
    {
        scan_code(e, stdin, &format!("{} stdin", inv.name));
    } else {
        script_or_pipe(e, inv.name, a.operands.first().copied());
    }
}

const AWK_SPEC: OptSpec = spec(
    "fvFiEW",
    "--file --assign --field-separator --include --exec",
);

pub(super) fn rule_awk(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &AWK_SPEC);
    let program_files = ["-f", "--file", "-E", "--exec"];
    a.values(&program_files).for_each(|f| e.read(f));
    let inplace = a
        .values(&["-i", "--include"])
        .any(|w| w.value == "inplace" || w.value == "inplace.awk");
    let from_file = a.has(&program_files);
    if let (false, Some(program)) = (from_file, a.operands.first()) {
        scan_awk(e, &program.value);
    }
    for f in a
        .operands
        .get(usize::from(!from_file)..)
        .unwrap_or_default()
        .iter()
        .filter(|w| !is_assignment(w))
    {
        if inplace {
            e.write(f, "awk -i inplace")
        } else {
            e.read(f)
        }
    }
}

const PYTHON_SPEC: OptSpec = stop_spec("cmWXQ", "--check-hash-based-pycs");
const NODE_SPEC: OptSpec = stop_spec("epr", "--eval --print --require --import");
const PHP_SPEC: OptSpec = stop_spec("rfdcBREFtz", "");

pub(super) fn rule_interpreter(e: &mut Eval, inv: &Inv<'_>) {
    let (sp, code_flags, script_flags): (&OptSpec, &[&str], &[&str]) = match inv.name {
        "python" => (&PYTHON_SPEC, &["-c"], &["-m"]),
        "node" => (&NODE_SPEC, &["-e", "--eval", "-p", "--print"], &[]),
        _ => (&PHP_SPEC, &["-r", "-B", "-R", "-E"], &["-f"]),
    };
    // `python -m MOD ARGS`: everything after the module is the module's (its `-c` is not
    // Python's).
    if inv.name == "python"
        && let Some(i) = inv
            .args
            .iter()
            .position(|w| w.value == "-m" || w.value.starts_with("-m"))
        && inv.args[..i].iter().all(|w| w.value.starts_with('-'))
    {
        let (module, rest) = if inv.args[i].value == "-m" {
            match inv.args.get(i + 1) {
                Some(m) => (m.value.clone(), inv.args.get(i + 2..).unwrap_or_default()),
                None => return,
            }
        } else {
            (
                inv.args[i].value[2..].to_string(),
                inv.args.get(i + 1..).unwrap_or_default(),
            )
        };
        let rest: Vec<&crate::gate::bash::lex::Word> = rest.iter().collect();
        return python_module(e, &module, &rest);
    }
    // node's `-pe CODE` and `-p -e CODE` are `--print --eval CODE`: the code follows the `-e`.
    let node_args: Vec<crate::gate::bash::lex::Word>;
    let args = if inv.name == "node" {
        node_args = inv
            .args
            .iter()
            .enumerate()
            .filter(|(i, w)| {
                !(matches!(w.value.as_str(), "-p" | "--print")
                    && inv
                        .args
                        .get(i + 1)
                        .is_some_and(|n| n.value.starts_with('-')))
            })
            .map(|(_, w)| {
                if matches!(w.value.as_str(), "-pe" | "-ep") {
                    crate::gate::bash::lex::Word::synthetic("-e", w.dynamic)
                } else {
                    w.clone()
                }
            })
            .collect();
        &node_args[..]
    } else {
        inv.args
    };
    let a = parse_opts(args, sp);
    let mut code_given = false;
    for (flag, code) in a
        .flags
        .iter()
        .filter(|(f, _)| code_flags.contains(&f.as_str()))
    {
        code_given = true;
        if let Some(code) = code {
            scan_code(e, &code.value, &format!("{} {flag}", inv.name));
        }
    }
    if code_given {
        return;
    }
    if a.has(script_flags) {
        // `php -f FILE` runs FILE; `python -m MOD` runs an installed or project module.
        if inv.name == "php" {
            a.values(&["-f"])
                .for_each(|f| e.script(f, "php -f runs a script file"));
        }
        return;
    }
    if let (None | Some("-"), Some(stdin)) =
        (a.operands.first().map(|w| w.value.as_str()), inv.stdin)
    {
        scan_code(e, stdin, &format!("{} stdin", inv.name));
    } else {
        script_or_pipe(e, inv.name, a.operands.first().copied());
    }
}

/// An interpreter given a script file runs it (a [`crate::gate::bash::BashTarget::Script`]); given
/// neither code nor a file while reading a pipe, it runs code no one can see.
fn script_or_pipe(e: &mut Eval, name: &str, first: Option<&crate::gate::bash::lex::Word>) {
    match first {
        Some(f) if f.value != "-" => e.script(f, &format!("{name} runs a script file")),
        _ if e.piped => e.piped_code(name),
        // `python3 < /tmp/x.py`: the script is the file on stdin.
        _ => {
            if let Some(file) = e.stdin_file.clone() {
                e.script(&file, &format!("{name} runs a script on stdin"));
            }
        }
    }
}

/// The command lines of Perl/Ruby backticks and `qx` quotes (`qx(…)`, `qx{…}`, `qx/…/`,
/// `%x(…)`) in `code`, as written (interpolation left in, so a variable makes them dynamic).
fn backtick_commands(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (open, start) = match b[i] {
            b'`' => (b'`', i + 1),
            b'q' if b.get(i + 1) == Some(&b'x')
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                && b.get(i + 2).is_some_and(|c| c.is_ascii_punctuation()) =>
            {
                (b[i + 2], i + 3)
            }
            b'%' if b.get(i + 1) == Some(&b'x')
                && b.get(i + 2).is_some_and(|c| c.is_ascii_punctuation()) =>
            {
                (b[i + 2], i + 3)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        let close = match open {
            b'(' => b')',
            b'{' => b'}',
            b'[' => b']',
            b'<' => b'>',
            c => c,
        };
        let Some(len) = b[start..].iter().position(|&c| c == close) else {
            out.push(code[start..].to_string());
            break;
        };
        out.push(code[start..start + len].to_string());
        i = start + len + 1;
    }
    out
}

/// The files a standard-library module run with `python -m` writes: `json.tool IN OUT`,
/// `zipfile`/`tarfile -c ARCHIVE …` and `-e ARCHIVE DIR`, `gzip FILE` (in place), `venv DIR`.
/// Other modules (test runners, `http.server`, installed tools) are not analysed.
fn python_module(e: &mut Eval, module: &str, args: &[&crate::gate::bash::lex::Word]) {
    let via = format!("python -m {module}");
    let operands: Vec<&crate::gate::bash::lex::Word> = args
        .iter()
        .copied()
        .filter(|w| !w.value.starts_with('-'))
        .collect();
    match module {
        "json.tool" => {
            if let Some(out) = operands.get(1) {
                e.write(out, &via);
            }
        }
        "zipfile" | "tarfile" => {
            let create = args
                .iter()
                .any(|w| matches!(w.value.as_str(), "-c" | "--create"));
            let extract = args
                .iter()
                .any(|w| matches!(w.value.as_str(), "-e" | "--extract"));
            if create && let Some(archive) = operands.first() {
                e.write(archive, &via);
            }
            if extract && let Some(dir) = operands.get(1) {
                e.write_tree(dir, &via);
            }
        }
        "gzip"
            if !args
                .iter()
                .any(|w| matches!(w.value.as_str(), "-c" | "--stdout")) =>
        {
            operands.iter().for_each(|w| e.write(w, &via));
        }
        "venv" | "virtualenv" => operands.iter().for_each(|w| e.write_tree(w, &via)),
        _ => {}
    }
}
