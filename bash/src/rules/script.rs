//! Rules for interpreters: `perl`/`ruby` (`-i`, `-e`), `awk` (`-i inplace`, `print > "f"`), and
//! `python`/`node`/`php` code given inline or on stdin, scanned by [`scan_code`].

use crate::eval::{Eval, Inv, NODE_WRITING, is_assignment};
use crate::interp::{argv_files, scan_awk, scan_code};
use crate::lex::Word;
use crate::opts::{OptSpec, parse_opts, spec, stop_spec};

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
    for w in a.values(&["-e", "-E"]) {
        code_built_at_run_time(e, w, &format!("{} -e", inv.name));
    }
    let code: Vec<&str> = a.values(&["-e", "-E"]).map(|w| w.value.as_str()).collect();
    let files = if code.is_empty() {
        a.operands.get(1..).unwrap_or_default()
    } else {
        &a.operands[..]
    };
    let text = code.join("\n");
    // In-place editing switched on in the code (Perl's `$^I = ""`, Ruby's `$-i = ""`) is `-i`;
    // it edits the operands and whatever the code puts into `@ARGV`.
    let in_place_var = if inv.name == "perl" { "$^I" } else { "$-i" };
    if a.has(&["-i"]) || text.contains(in_place_var) {
        let via = format!("{} -i", inv.name);
        files.iter().for_each(|f| e.write(f, &via));
        for f in argv_files(&text) {
            e.write(&f, &via);
        }
    } else if a.has(&["-n", "-p"]) {
        files.iter().for_each(|f| e.read(f));
    }
    // `perl -Mlib=DIR,DIR` is `use lib DIR, DIR` (like `-I`).
    for m in a.values(&["-M"]) {
        if let Some(dirs) = m.value.strip_prefix("lib=") {
            for d in dirs.split(',').filter(|d| !d.is_empty()) {
                e.script(&Word::synthetic(d, m.dynamic), "perl -Mlib loads code from");
            }
        }
    }
    // `perl -MExtUtils::Command -e touch FILE…`: the module's functions act on `@ARGV`.
    if inv.name == "perl"
        && a.values(&["-M"])
            .any(|m| m.value.starts_with("ExtUtils::Command"))
    {
        extutils_command(e, text.trim(), files);
    }
    if !code.is_empty() {
        // Backticks and `qx(…)` run a command line (Perl and Ruby).
        for cmd in backtick_commands(&text) {
            e.run_text(&cmd);
        }
        if inv.name == "perl" && eval_twice_substitution(&text) {
            e.unknown(
                "<code built at run time>",
                "perl -e: s///ee evaluates a string built at run time as code",
            );
        }
        scan_code(e, &text, &format!("{} -e", inv.name));
    } else if let (None | Some("-"), Some(stdin)) =
        (a.operands.first().map(|w| w.value.as_str()), inv.stdin)
    {
        stdin_code(e, inv.name, stdin);
    } else {
        script_or_pipe(e, inv.name, a.operands.first().copied());
    }
}

/// Interpreter code fed on stdin by a heredoc or here-string (`python3 - <<EOF`): scanned like
/// `-c` code, and a run-time unknown when the body holds a shell expansion.
fn stdin_code(e: &mut Eval, name: &str, code: &str) {
    if e.stdin_dynamic {
        e.unknown(
            "<inline code built at run time>",
            format!(
                "{name} stdin: a heredoc or here-string with a shell expansion known only at run time"
            ),
        );
    }
    scan_code(e, code, &format!("{name} stdin"));
}

/// Whether Perl code has a substitution with the `ee` flags (`s/x/$code/ee`): its replacement
/// is evaluated as a string, and that string again as code. A delimiter (`/`, `}`, `|`, `!`,
/// `#`, `,`), other flag letters, then `ee` and no more word characters.
fn eval_twice_substitution(code: &str) -> bool {
    let b = code.as_bytes();
    (0..b.len()).any(|i| {
        if !matches!(
            b[i],
            b'/' | b'}' | b'|' | b'!' | b'#' | b',' | b')' | b']' | b'>'
        ) {
            return false;
        }
        // `->encode(…)`, `=> encode`: a method arrow or a fat comma, not a delimiter.
        if b[i] == b'>' && i > 0 && matches!(b[i - 1], b'-' | b'=') {
            return false;
        }
        let flags: Vec<u8> = b[i + 1..]
            .iter()
            .copied()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .collect();
        flags.iter().filter(|&&c| c == b'e').count() >= 2
            && flags.iter().all(|c| b"msixpodualngcer".contains(c))
            // `f(encode(…))`: a call, not flags.
            && b.get(i + 1 + flags.len()) != Some(&b'(')
    })
}

/// `perl -MExtUtils::Command -e FUNC ARGS` (what MakeMaker's makefiles run): the functions that
/// only read (`cat`, `test_f`, `test_d`, `test_e`) write nothing; `rm_rf`, `rm_f`, `touch`, `mv`,
/// `chmod`, `mkpath`, `dos2unix` write their operands (`chmod`'s mode is none), `cp` and
/// `eqtime` the last; anything else (`ExtUtils::Command::MM`'s `test_harness`, `pod2man`, …) is a
/// run-time unknown.
fn extutils_command(e: &mut Eval, func: &str, args: &[&Word]) {
    let via = format!("perl -MExtUtils::Command {func}");
    match func {
        "cat" | "test_f" | "test_d" | "test_e" => args.iter().for_each(|f| e.read(f)),
        "rm_rf" | "mkpath" => args.iter().for_each(|f| e.write_tree(f, &via)),
        "chmod" => args.iter().skip(1).for_each(|f| e.write(f, &via)),
        "cp" | "eqtime" => args.last().iter().for_each(|f| e.write(f, &via)),
        "rm_f" | "touch" | "mv" | "dos2unix" => args.iter().for_each(|f| e.write(f, &via)),
        _ => e.unknown(
            func,
            "perl -MExtUtils::Command (a function the gate does not model)",
        ),
    }
}

/// Inline code (`python -c`, `node -e`, `perl -e`, an awk program) whose text the shell builds
/// at run time (`-c "$(cat /tmp/x.py)"`, `-c "$CODE"`, backticks): what runs is out of sight,
/// a run-time unknown. A single-quoted program keeps its `$1` (awk's, Perl's) literal.
fn code_built_at_run_time(e: &mut Eval, code: &Word, via: &str) {
    if code.dynamic {
        let snippet: String = code.raw.chars().take(120).collect();
        e.unknown(
            "<inline code built at run time>",
            format!("{via}: code with a shell expansion known only at run time ({snippet})"),
        );
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
        code_built_at_run_time(e, program, "awk");
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

const PYTEST_SPEC: OptSpec = spec(
    "kmpcoWrn",
    "--rootdir --confcutdir --basetemp --junitxml --junit-xml --ignore --ignore-glob --deselect \
     --cov --cov-report --cov-config --log-file --report-log --tb --maxfail --durations \
     --import-mode --capture --color --override-ini --config-file --log-level --html --junit-prefix",
);

/// `pytest` (also `python -m pytest`): the test files and directories it is given hold code it
/// runs, like `bash FILE` (`tests/test_a.py::test_x` is the file); its configuration file and
/// root too. `--basetemp`, `--junitxml`, `--log-file`, `--report-log`, `--html` are written.
fn pytest(e: &mut Eval, args: &[Word], via: &str) {
    let a = parse_opts(args, &PYTEST_SPEC);
    let runs = format!("{via} runs tests from");
    for w in &a.operands {
        let file = w.value.split("::").next().unwrap_or_default();
        let dynamic = w.dynamic && file.contains(['$', '`', '*', '?', '[', '~']);
        e.script(&Word::synthetic(file, dynamic), &runs);
    }
    for w in a.values(&["-c", "--config-file", "--rootdir", "--confcutdir"]) {
        e.script(w, &runs);
    }
    for w in a.values(&["--basetemp"]) {
        e.write_tree(w, via);
    }
    for w in a.values(&[
        "--junitxml",
        "--junit-xml",
        "--log-file",
        "--report-log",
        "--html",
    ]) {
        e.write(w, via);
    }
}

pub(super) fn rule_pytest(e: &mut Eval, inv: &Inv<'_>) {
    pytest(e, inv.args, inv.name);
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
        // The working directory is the first entry of `sys.path` (but with `-I`, `-P`).
        if !inv.args[..i]
            .iter()
            .any(|w| matches!(w.value.as_str(), "-I" | "-P"))
        {
            e.working_dir_code("python -m");
        }
        return python_module(e, &module, rest);
    }
    if inv.name == "node" {
        node_outputs(e, inv.args);
    }
    // node's `-pe CODE` and `-p -e CODE` are `--print --eval CODE`: the code follows the `-e`.
    let node_args: Vec<crate::lex::Word>;
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
                    crate::lex::Word::synthetic("-e", w.dynamic)
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
    if inv.name == "php" {
        // `-d auto_prepend_file=F` / `auto_append_file=F` run F with the code; `-c INI` is a
        // configuration that can name them; `-d error_log=F` writes F.
        for d in a.values(&["-d"]) {
            let (key, val) = d.value.split_once('=').unwrap_or((&d.value, ""));
            let w = Word::synthetic(val.trim(), d.dynamic);
            match key.trim() {
                "auto_prepend_file" | "auto_append_file" => e.script(&w, "php -d loads code from"),
                "error_log" => e.write(&w, "php -d error_log"),
                _ => {}
            }
        }
        a.values(&["-c"])
            .for_each(|f| e.script(f, "php -c reads a configuration that can load code"));
    }
    let mut code_given = false;
    for (flag, code) in a
        .flags
        .iter()
        .filter(|(f, _)| code_flags.contains(&f.as_str()))
    {
        code_given = true;
        if let Some(code) = code {
            code_built_at_run_time(e, code, &format!("{} {flag}", inv.name));
            scan_code(e, &code.value, &format!("{} {flag}", inv.name));
            if inv.name == "php" {
                // PHP's backtick operator runs a shell command line.
                for cmd in backtick_commands(&code.value) {
                    e.run_text(&cmd);
                }
            }
        }
    }
    // `php artisan tinker --execute=CODE` runs CODE; without it, the code on stdin.
    if inv.name == "php"
        && let [script, sub, rest @ ..] = a.operands.as_slice()
        && script.value.rsplit('/').next() == Some("artisan")
        && sub.value == "tinker"
    {
        let via = "php artisan tinker";
        let exec = rest.iter().enumerate().find_map(|(k, w)| {
            if w.value == "--execute" {
                rest.get(k + 1).map(|c| (*c).clone())
            } else {
                w.value
                    .strip_prefix("--execute=")
                    .map(|c| Word::synthetic(c, w.dynamic))
            }
        });
        match (exec, inv.stdin) {
            (Some(c), _) => {
                code_built_at_run_time(e, &c, via);
                scan_code(e, &c.value, via);
                backtick_commands(&c.value)
                    .iter()
                    .for_each(|cmd| e.run_text(cmd));
            }
            (None, Some(stdin)) => stdin_code(e, via, stdin),
            (None, None) => match e.take_pipe_code() {
                Some(c) => scan_code(e, &c, via),
                None if e.piped || e.stdin_file.is_some() => {
                    e.unknown("<tinker input>", format!("{via} runs the code on stdin"))
                }
                None => {}
            },
        }
    }
    // Code given inline or on stdin imports modules (and node `require`s packages) from the
    // working directory; a script file, from its own directory.
    let isolated = a.has(&["-I", "-P"]);
    let script_given = a.has(script_flags) || a.operands.first().is_some_and(|w| w.value != "-");
    if inv.name != "php" && !isolated && (code_given || !script_given) {
        e.working_dir_code(inv.name);
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
        stdin_code(e, inv.name, stdin);
    } else {
        script_or_pipe(e, inv.name, a.operands.first().copied());
        // `php vendor/bin/pint`, `node node_modules/.bin/prettier --write .`: a package's
        // command-line tool, analysed as the command of its name.
        if let Some(script) = a.operands.first().filter(|w| !w.dynamic)
            && ["vendor/bin/", "node_modules/.bin/", "/bin/"]
                .iter()
                .any(|d| script.value.contains(d))
            && let Some(tool) = script.value.rsplit('/').next()
        {
            let tool = [".phar", ".php", ".cjs", ".mjs", ".js"]
                .iter()
                .find_map(|x| tool.strip_suffix(x))
                .unwrap_or(tool);
            let mut words = vec![Word::synthetic(tool, false)];
            words.extend(a.operands[1..].iter().map(|w| (*w).clone()));
            if tool != inv.name {
                e.invoke(&words, None);
            }
        }
    }
}

/// An interpreter given a script file runs it (a [`crate::BashTarget::Script`]); given
/// neither code nor a file while reading a pipe, it runs code no one can see.
fn script_or_pipe(e: &mut Eval, name: &str, first: Option<&crate::lex::Word>) {
    match first {
        Some(f) if f.value != "-" => e.script(f, &format!("{name} runs a script file")),
        _ if e.piped => match e.take_pipe_code() {
            // `echo 'print(1)' | python3`: the literal text is the code.
            Some(code) => scan_code(e, &code, &format!("{name} stdin")),
            None => e.piped_code(name),
        },
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
/// `zipfile`/`tarfile -c ARCHIVE …` and `-e ARCHIVE DIR`, `gzip FILE` (in place), `venv DIR`,
/// the output files of `cProfile`/`profile -o` and `trace`; and the code the runners run:
/// the script of `cProfile`, `profile`, `pdb`, `trace`, the files of `doctest`, the test files
/// and directories of `pytest` and `unittest` (checked like `bash FILE`), the statements of
/// `timeit` and the commands of `pdb -c` (scanned as code). Other modules (`http.server`,
/// installed tools) are not analysed.
fn python_module(e: &mut Eval, module: &str, args: &[Word]) {
    let via = format!("python -m {module}");
    let operands: Vec<&Word> = args.iter().filter(|w| !w.value.starts_with('-')).collect();
    let runs = format!("{via} runs code from");
    match module {
        // Profilers and debuggers run a script (or `-m MOD`, found like `python -m`'s); their
        // output files are written.
        "cProfile" | "profile" | "pdb" | "trace" => {
            let a = parse_opts(
                args,
                &match module {
                    "pdb" => stop_spec("cm", "--command"),
                    // trace's `-m` is `--missing`, `-c` `--count`.
                    "trace" => stop_spec("fC", "--file --coverdir --ignore-module --ignore-dir"),
                    _ => stop_spec("osm", "--outfile --sort"),
                },
            );
            let module_run = a.has(&["--module"]) || (module != "trace" && a.has(&["-m"]));
            if !module_run && let Some(script) = a.operands.first() {
                e.script(script, &runs);
            }
            match module {
                "pdb" => {
                    // Debugger commands (`-c '!os.remove(p)'`) are Python statements.
                    for cmd in a.values(&["-c", "--command"]) {
                        scan_code(e, &cmd.value, &via);
                    }
                }
                "trace" => {
                    // `--count`/`--report` write `.cover` files into `--coverdir`, else next to
                    // each module run; `--file` keeps the counts.
                    a.values(&["-f", "--file"]).for_each(|f| e.write(f, &via));
                    if a.has(&["-c", "--count", "-r", "--report"]) {
                        match a.value(&["-C", "--coverdir"]) {
                            Some(dir) => e.write_tree(dir, &via),
                            None => e.unknown(
                                "<*.cover>",
                                format!("{via} --count (annotated files next to each module)"),
                            ),
                        }
                    }
                }
                _ => a
                    .values(&["-o", "--outfile"])
                    .for_each(|f| e.write(f, &via)),
            }
        }
        // doctest runs the examples of each file; timeit runs its statements.
        "doctest" => parse_opts(args, &spec("o", "--option"))
            .operands
            .iter()
            .for_each(|f| e.script(f, &runs)),
        "timeit" => {
            let a = parse_opts(args, &spec("nrsu", "--number --repeat --setup --unit"));
            let code: Vec<&str> = a
                .values(&["-s", "--setup"])
                .chain(a.operands.iter().copied())
                .map(|w| w.value.as_str())
                .collect();
            scan_code(e, &code.join("\n"), &via);
        }
        "pytest" | "py.test" => pytest(e, args, &via),
        "unittest" => {
            // Test files named by path, and `discover -s DIR -t DIR`.
            let a = parse_opts(
                args,
                &spec("kspt", "--start-directory --top-level-directory --pattern"),
            );
            for w in a
                .values(&["-s", "--start-directory", "-t", "--top-level-directory"])
                .chain(
                    a.operands
                        .iter()
                        .copied()
                        .filter(|w| w.value.contains('/') || w.value.ends_with(".py")),
                )
            {
                e.script(w, &runs);
            }
        }
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
            if extract {
                // Without a directory, into the working directory (tarfile only).
                match operands.get(1) {
                    Some(dir) => e.write_tree(dir, &via),
                    None => e.write_tree(&Word::synthetic(".", false), &via),
                }
            }
        }
        "gzip"
            if !args
                .iter()
                .any(|w| matches!(w.value.as_str(), "-c" | "--stdout")) =>
        {
            operands.iter().for_each(|w| e.write(w, &via));
        }
        // `pydoc -w NAME`: `NAME.html` in the working directory.
        "pydoc" if args.iter().any(|w| w.value == "-w") => {
            for f in &operands {
                let base = f.value.rsplit('/').next().unwrap_or_default();
                let stem = base.strip_suffix(".py").unwrap_or(base);
                e.write(&Word::synthetic(&format!("{stem}.html"), f.dynamic), &via);
            }
        }
        "venv" | "virtualenv" => operands.iter().for_each(|w| e.write_tree(w, &via)),
        // `compileall -b` writes `.pyc` files next to the sources (not in `__pycache__`).
        "compileall" if args.iter().any(|w| w.value == "-b") => {
            let a = parse_opts(args, &spec("dlrqxeijo", "--invalidation-mode"));
            if a.operands.is_empty() {
                e.write_tree(&Word::synthetic(".", false), &via);
            }
            a.operands.iter().for_each(|w| e.write_tree(w, &via));
        }
        // `zipapp SRC -o OUT` writes OUT, else `SRC.pyz` beside SRC.
        "zipapp" => {
            let a = parse_opts(args, &spec("opmc", "--output --python --main"));
            match a.value(&["-o", "--output"]) {
                Some(out) => e.write(out, &via),
                None => a.operands.iter().for_each(|w| {
                    let pyz = format!("{}.pyz", w.value.trim_end_matches('/'));
                    e.write(&Word::synthetic(&pyz, w.dynamic), &via);
                }),
            }
        }
        // Formatters and fixers run as modules are the commands of the same name
        // (`python -m black src` is `black src`).
        "black" | "isort" | "autopep8" | "yapf" | "ruff" | "autoflake" | "pyupgrade"
        | "docformatter" | "pycln" | "mdformat" | "sqlfluff" | "djlint" | "lib2to3" => {
            let name = if module == "lib2to3" { "2to3" } else { module };
            let mut words = vec![Word::synthetic(name, false)];
            words.extend(args.iter().cloned());
            e.invoke(&words, None);
        }
        _ => {}
    }
}

/// node's options that write profiles, logs and reports ([`NODE_WRITING`]): into the directory
/// an option names, else the working directory.
fn node_outputs(e: &mut Eval, args: &[Word]) {
    const VALUED: &[&str] = &[
        "-e",
        "--eval",
        "-p",
        "--print",
        "-r",
        "--require",
        "--import",
        "--loader",
        "-C",
        "--conditions",
        "--input-type",
        "--title",
    ];
    let mut opts: Vec<(String, Option<Word>)> = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let v = w.value.as_str();
        if v == "--" || !v.starts_with('-') {
            break;
        }
        if VALUED.contains(&v) {
            i += 2;
            continue;
        }
        match v.split_once('=') {
            Some((n, val)) => opts.push((n.to_string(), Some(Word::synthetic(val, w.dynamic)))),
            None if NODE_WRITING.iter().any(|p| v.starts_with(p))
                && (v.ends_with("-dir")
                    || v.ends_with("-directory")
                    || v.ends_with("-name")
                    || v.ends_with("-filename")
                    || v == "--redirect-warnings"
                    || v == "--logfile") =>
            {
                opts.push((v.to_string(), args.get(i + 1).cloned()));
                i += 1;
            }
            None => opts.push((v.to_string(), None)),
        }
        i += 1;
    }
    let get = |names: &[&str]| {
        opts.iter()
            .rev()
            .find(|(n, _)| names.contains(&n.as_str()))
            .and_then(|(_, v)| v.clone())
    };
    let here = Word::synthetic(".", false);
    let diag = get(&["--diagnostic-dir"]);
    let via = "node profile or report output";
    for (n, v) in &opts {
        if !NODE_WRITING.iter().any(|p| n.starts_with(p)) {
            continue;
        }
        let dir = if n.starts_with("--cpu-prof") {
            get(&["--cpu-prof-dir"])
        } else if n.starts_with("--heap-prof") {
            get(&["--heap-prof-dir"])
        } else if n.starts_with("--report") {
            get(&["--report-directory", "--report-dir"])
        } else {
            None
        };
        let dir = dir.or_else(|| diag.clone()).unwrap_or_else(|| here.clone());
        match (n.as_str(), v) {
            ("--redirect-warnings" | "--logfile", Some(f)) => e.write(f, via),
            ("--report-filename" | "--cpu-prof-name" | "--heap-prof-name", Some(f)) => {
                e.write(f, via);
                e.write_tree(&dir, via);
            }
            (_, Some(d)) if n.ends_with("-dir") || n.ends_with("-directory") => {
                e.write_tree(d, via)
            }
            _ => e.write_tree(&dir, via),
        }
    }
}
