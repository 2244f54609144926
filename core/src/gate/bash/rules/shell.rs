//! Rules for shell builtins and shells: `cd`/`pushd`/`popd` move the working directory,
//! `bash -c`, `sh` reading a heredoc and `eval` run their text as a command line.

use crate::gate::bash::eval::{Cwd, Eval, Inv};
use crate::gate::bash::opts::{OptSpec, parse_opts, spec, stop_spec};

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
        a.operands
            .first()
            .iter()
            .for_each(|cmd| e.run_text(&cmd.value));
    } else if let (true, Some(stdin)) = (a.operands.is_empty() || a.has(&["-s"]), inv.stdin) {
        e.run_text(stdin);
    }
}
