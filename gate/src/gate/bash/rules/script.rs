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
        scan_code(e, &code.join("\n"), &format!("{} -e", inv.name));
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
    let a = parse_opts(inv.args, sp);
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
