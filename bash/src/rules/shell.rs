//! Rules for shell builtins and shells: `cd`/`pushd`/`popd` move the working directory,
//! `bash -c`, `sh` reading a heredoc, `eval`, `flock … -c`, `trap`, `watch`, `su -c` and
//! `script -c` run their text as a command line; `bash FILE`, `source FILE`, `. FILE` and
//! `make -f FILE` run a file (a [`BashTarget::Script`]); a shell reading a pipe runs code no one
//! can see.

use crate::eval::{Cwd, Eval, Inv};
use crate::lex::Word;
use crate::opts::{OptSpec, parse_opts, spec, stop_spec};

pub(super) fn rule_cd(e: &mut Eval, inv: &Inv<'_>) {
    if inv.name == "popd" {
        if let Some(d) = e.dirs.pop() {
            e.cwd = d;
        }
        return;
    }
    let a = parse_opts(inv.args, &spec("", ""));
    let unknown = |p: &str| Cwd {
        path: p.to_string(),
        dynamic: true,
    };
    let new = match a.operands.first() {
        None => unknown("~"),
        Some(w) if w.value == "-" => unknown("$OLDPWD"),
        Some(w) => e.cwd_after(w),
    };
    let old = std::mem::replace(&mut e.cwd, new);
    if inv.name == "pushd" {
        e.dirs.push(old);
    }
}

const SHELL_SPEC: OptSpec = stop_spec("oO", "--rcfile --init-file");

pub(super) fn rule_shell(e: &mut Eval, inv: &Inv<'_>) {
    if inv.name == "eval" {
        let text: Vec<&str> = inv.args.iter().map(|w| w.value.as_str()).collect();
        return e.run_text(&text.join(" "));
    }
    let a = parse_opts(inv.args, &SHELL_SPEC);
    if a.has(&["-c"]) {
        match a.operands.first() {
            // The whole command line is `xargs` input or the `{}` of `find -exec`/`xargs -I`:
            // no text to read. (A `{}` inside a script text is read as one word there.)
            Some(cmd)
                if cmd.dynamic && (cmd.value.trim() == "{}" || cmd.value.starts_with("<xargs")) =>
            {
                e.unknown(
                    cmd.raw.clone(),
                    format!("{} -c with a command line known only at run time", inv.name),
                )
            }
            Some(cmd) => e.run_text(&cmd.value),
            None if e.piped => e.unknown(
                "<-c without a command line>",
                format!("{} -c with a command line known only at run time", inv.name),
            ),
            None => {}
        }
    } else if let (true, Some(stdin)) = (a.operands.is_empty() || a.has(&["-s"]), inv.stdin) {
        e.run_text(stdin);
    } else if let (true, Some(file)) = (
        a.operands.is_empty() || a.has(&["-s"]),
        e.stdin_file.clone(),
    ) {
        // `bash < /tmp/x.sh`: the script is the file on stdin.
        e.script(&file, &format!("{} runs a script on stdin", inv.name));
    } else if let Some(file) = a.operands.first().filter(|_| !a.has(&["-s"])) {
        e.script(file, &format!("{} runs a script file", inv.name));
    } else if let Some(code) = e.take_pipe_code() {
        // `echo 'ls src' | bash`: the literal text is the script.
        e.run_text(&code);
    } else if e.piped {
        e.piped_code(inv.name);
    }
}

pub(super) fn rule_source(e: &mut Eval, inv: &Inv<'_>) {
    if let Some(file) = inv.args.first() {
        e.script(file, &format!("{} runs a script file", inv.name));
    }
}

pub(super) fn rule_make(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec(
            "fCIjlOoWE",
            "--file --makefile --directory --include-dir --jobs --eval",
        ),
    );
    for f in a.values(&["-f", "--file", "--makefile"]) {
        if !f.dynamic && matches!(f.value.as_str(), "-" | "/dev/stdin" | "/proc/self/fd/0") {
            // `make -f - <<< …`: a makefile on stdin, whose recipes run.
            e.unknown(
                "<makefile on stdin>",
                "make -f - runs recipes read from stdin",
            );
        } else {
            e.script(f, "make -f runs a makefile");
        }
    }
    for code in a.values(&["-E", "--eval"]) {
        e.unknown(code.value.clone(), "make --eval");
    }
}

/// `flock [opts] FILE -c STRING` or `flock [opts] FILE CMD ARGS`.
pub(super) fn rule_flock(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &stop_spec("wEc", "--timeout --conflict-exit-code --command"),
    );
    if let Some(cmd) = a.value(&["-c", "--command"]) {
        return e.run_text(&cmd.value);
    }
    if let Some((_, rest)) = inv.args[a.end..].split_first() {
        match rest {
            [flag, cmd, ..] if matches!(flag.value.as_str(), "-c" | "--command") => {
                e.run_text(&cmd.value)
            }
            _ => e.invoke(rest, None),
        }
    }
}

/// `trap 'CMD' SIG…`, `watch [opts] CMD…`, `su [user] -c CMD`, `script -c CMD [file]`.
/// Builtins that run code or write files through an option: `mapfile -C CMD`/`readarray -C`,
/// `compgen -C CMD` (and `-F FUNC`, a function the gate cannot see), `history -w/-a [FILE]`
/// (`$HISTFILE` without one), `alias NAME=TEXT` (the text runs wherever the alias is used, with
/// `shopt -s expand_aliases`).
pub(super) fn rule_builtin_callback(e: &mut Eval, inv: &Inv<'_>) {
    match inv.name {
        "mapfile" | "readarray" => {
            let a = parse_opts(inv.args, &spec("dnOsuCc", ""));
            for cmd in a.values(&["-C"]) {
                e.run_text(&cmd.value);
            }
        }
        "compgen" => {
            let a = parse_opts(inv.args, &spec("AGWXPSoCF", ""));
            for cmd in a.values(&["-C"]) {
                e.run_text(&cmd.value);
            }
            for f in a.values(&["-F"]) {
                e.unknown(f.value.clone(), "compgen -F runs a shell function");
            }
        }
        "history" => {
            let a = parse_opts(inv.args, &spec("d", ""));
            if a.has(&["-w", "-a"]) {
                match a.operands.first() {
                    Some(f) => e.write(f, "history"),
                    None => e.unknown("$HISTFILE", "history writes the history file"),
                }
            }
        }
        _ => {
            for w in inv.args {
                if let Some((_, text)) = w.value.split_once('=') {
                    e.run_text(text);
                }
            }
        }
    }
}

pub(super) fn rule_command_string(e: &mut Eval, inv: &Inv<'_>) {
    match inv.name {
        "trap" => {
            let a = parse_opts(inv.args, &spec("", ""));
            if let Some(cmd) = a.operands.first() {
                e.run_text(&cmd.value);
            }
        }
        "watch" => {
            let a = parse_opts(
                inv.args,
                &stop_spec("dnq", "--interval --differences --chgexit"),
            );
            let text: Vec<&str> = a.operands.iter().map(|w| w.value.as_str()).collect();
            e.run_text(&text.join(" "));
        }
        _ => {
            let a = parse_opts(
                inv.args,
                &spec("csgGlO", "--command --shell --group --log-out"),
            );
            for cmd in a.values(&["-c", "--command"]) {
                e.run_text(&cmd.value);
            }
            if inv.name == "script" {
                a.operands.iter().for_each(|f| e.write(f, "script"));
                for f in a.values(&[
                    "-O",
                    "--log-out",
                    "-I",
                    "--log-in",
                    "-T",
                    "--log-timing",
                    "-B",
                    "--log-io",
                ]) {
                    e.write(f, "script");
                }
                // Without a file, the session goes to `typescript` in the working directory.
                if a.operands.is_empty()
                    && !a.has(&[
                        "-h",
                        "--help",
                        "-V",
                        "--version",
                        "-O",
                        "--log-out",
                        "-B",
                        "--log-io",
                    ])
                {
                    e.write(&Word::synthetic("typescript", false), "script");
                }
                a.values(&["-O", "--log-out"])
                    .for_each(|f| e.write(f, "script"));
            }
        }
    }
}

/// `ssh [OPTIONS] HOST COMMAND…`: the command runs on HOST, which may be this machine; what it
/// writes is unknown. `ssh -G HOST`, `ssh -V` and a session without a command run nothing here.
pub(super) fn rule_ssh(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("BbcDEeFIiJLlmOopQRSWw", ""));
    if a.has(&["-G", "-V"]) || a.operands.len() < 2 {
        return;
    }
    e.unknown(
        format!("<ssh {} …>", a.operands[0].value),
        "ssh runs a command on a host that may be this machine",
    );
}

/// Environment runners: `nix-shell [FILE] --run CMD` (`--command CMD`; FILE or `shell.nix` is
/// code, checked like `bash FILE`), `direnv exec DIR CMD` (DIR's `.envrc` runs first, then CMD
/// here), `nvm exec VERSION CMD` and `nvm run VERSION SCRIPT` (node on SCRIPT).
pub(super) fn rule_env_runner(e: &mut Eval, inv: &Inv<'_>) {
    let args = inv.args;
    match inv.name {
        "nix-shell" => {
            let mut k = 0;
            while let Some(w) = args.get(k) {
                match w.value.as_str() {
                    "--run" | "--command" => {
                        if let Some(c) = args.get(k + 1) {
                            if c.dynamic {
                                e.unknown(
                                    c.raw.clone(),
                                    "nix-shell --run of a command built at run time",
                                );
                            } else {
                                e.run_text(&c.value);
                            }
                        }
                        k += 1;
                    }
                    "-p" | "--packages" => {
                        // Package names up to the next option.
                        while args.get(k + 1).is_some_and(|w| !w.value.starts_with('-')) {
                            k += 1;
                        }
                    }
                    "-A" | "--attr" | "-I" | "--arg" | "--argstr" | "--option" | "-j" => {
                        k += if matches!(w.value.as_str(), "--arg" | "--argstr" | "--option") {
                            2
                        } else {
                            1
                        };
                    }
                    v if !v.starts_with('-') => e.script(w, "nix-shell evaluates"),
                    _ => {}
                }
                k += 1;
            }
        }
        "direnv" if args.first().is_some_and(|w| w.value == "exec") => {
            if let Some(dir) = args.get(1) {
                e.script(dir, "direnv exec runs the .envrc of");
                if args.len() > 2 {
                    e.invoke(&args[2..], None);
                }
            }
        }
        "nvm" => match args.first().map(|w| w.value.as_str()) {
            Some("exec") if args.len() > 2 => e.invoke(&args[2..], None),
            Some("run") if args.len() > 2 => {
                let mut words = vec![Word::synthetic("node", false)];
                words.extend(args[2..].iter().cloned());
                e.invoke(&words, None);
            }
            _ => {}
        },
        _ => {}
    }
}
