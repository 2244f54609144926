//! Rules for formatters and fixers that rewrite source files in place: `black`, `isort`,
//! `autopep8`/`yapf -i`, `ruff format`/`ruff check --fix`, `prettier --write`, `eslint`/`stylelint
//! --fix`, `gofmt`/`goimports -w`, `rustfmt`, `clang-format -i`, `php-cs-fixer fix`, `phpcbf`, and
//! `cargo fmt`/`cargo fix`/`cargo clippy --fix`.
//!
//! Their check modes (`--check`, `--diff`, `--dry-run`, no `--write`) only read. A formatter given
//! no paths works on the working directory where it defaults to one (ruff, php-cs-fixer, phpcbf,
//! cargo), so the whole tree is the write target.

use super::here;
use crate::eval::{Eval, Inv};
use crate::opts::{Args, parse_opts, spec};

/// Writes `a`'s operands as trees (a directory operand formats everything in it), or the working
/// directory when there are none and `default_here`. Nothing when `write` is false: a check run
/// shows the agent diffs or a verdict, not the files, so it explores nothing.
fn operands(e: &mut Eval, a: &Args<'_>, write: bool, default_here: bool, via: &str) {
    if !write {
        return;
    }
    if a.operands.is_empty() {
        if default_here {
            e.write_tree(&here(), via);
        }
        return;
    }
    for w in &a.operands {
        e.write_tree(w, via);
    }
}

pub(super) fn rule_formatter(e: &mut Eval, inv: &Inv<'_>) {
    let name = inv.name;
    match name {
        "black" | "isort" => {
            let a = parse_opts(
                inv.args,
                &spec(
                    "lcptS",
                    "--line-length --config --target-version --include --exclude --extend-exclude --force-exclude --settings-path --profile --src --skip --skip-glob --python-version --workers",
                ),
            );
            let check = a.has(&["--check", "--diff", "--check-only", "-c"]);
            operands(e, &a, !check, false, name);
        }
        "autopep8" | "yapf" => {
            let a = parse_opts(
                inv.args,
                &spec(
                    "j",
                    "--style --max-line-length --select --ignore --jobs --exclude --global-config",
                ),
            );
            let in_place = a.has(&["-i", "--in-place"]);
            operands(e, &a, in_place, false, name);
        }
        "ruff" => {
            let Some((sub, mut rest)) = inv.args.split_first() else {
                return;
            };
            // `ruff [OPTIONS] PATHS`: the old spelling of `ruff check`.
            let legacy = !matches!(
                sub.value.as_str(),
                "check"
                    | "format"
                    | "rule"
                    | "config"
                    | "linter"
                    | "clean"
                    | "version"
                    | "help"
                    | "server"
                    | "analyze"
                    | "generate-shell-completion"
            );
            if legacy {
                rest = inv.args;
            }
            let a = parse_opts(
                rest,
                &spec(
                    "",
                    "--config --line-length --target-version --select --ignore --extend-select --exclude --extend-exclude --output-format --stdin-filename",
                ),
            );
            let write = match sub.value.as_str() {
                "format" => !a.has(&["--check", "--diff"]),
                _ if legacy || sub.value == "check" => {
                    a.has(&["--fix", "--unsafe-fixes", "--fix-only"])
                        && !a.has(&["--diff", "--no-fix"])
                }
                _ => false,
            };
            operands(e, &a, write, true, &format!("ruff {}", sub.value));
        }
        "prettier" => {
            let a = parse_opts(
                inv.args,
                &spec(
                    "",
                    "--config --ignore-path --parser --plugin --print-width --tab-width --trailing-comma --end-of-line --log-level --cache-location",
                ),
            );
            operands(e, &a, a.has(&["--write", "-w"]), false, "prettier --write");
        }
        "eslint" | "stylelint" => {
            let a = parse_opts(
                inv.args,
                &spec(
                    "cf",
                    "--config --ext --format --rule --plugin --ignore-path --ignore-pattern --output-file --resolve-plugins-relative-to --max-warnings --cache-location",
                ),
            );
            operands(e, &a, a.has(&["--fix"]), false, &format!("{name} --fix"));
        }
        "gofmt" | "goimports" => {
            let a = parse_opts(inv.args, &spec("r", "-local"));
            operands(e, &a, a.has(&["-w"]), false, &format!("{name} -w"));
        }
        "rustfmt" => {
            let a = parse_opts(
                inv.args,
                &spec(
                    "",
                    "--edition --config --config-path --emit --color --style-edition",
                ),
            );
            let check = a.has(&["--check"]) || a.values(&["--emit"]).any(|v| v.value == "stdout");
            operands(e, &a, !check, false, name);
        }
        "clang-format" => {
            let a = parse_opts(
                inv.args,
                &spec("", "--style --assume-filename --lines --offset --length"),
            );
            operands(e, &a, a.has(&["-i"]), false, "clang-format -i");
        }
        "php-cs-fixer" => {
            let Some((sub, rest)) = inv.args.split_first() else {
                return;
            };
            let a = parse_opts(
                rest,
                &spec(
                    "",
                    "--config --rules --path-mode --using-cache --cache-file --format --allow-risky",
                ),
            );
            let write = sub.value == "fix" && !a.has(&["--dry-run"]);
            operands(e, &a, write, true, "php-cs-fixer fix");
        }
        "phpcbf" => {
            let a = parse_opts(inv.args, &spec("", ""));
            operands(e, &a, true, true, name);
        }
        "cargo" => rule_cargo(e, inv),
        _ => {}
    }
}

/// `cargo fmt` (unless `--check`), `cargo fix`, `cargo clippy --fix` rewrite the package's files;
/// other subcommands write only `target/` (ignored) and are left alone.
fn rule_cargo(e: &mut Eval, inv: &Inv<'_>) {
    // Toolchain selectors (`cargo +nightly fmt`) and global options come before the subcommand.
    let mut args = inv
        .args
        .iter()
        .skip_while(|w| w.value.starts_with('+') || w.value.starts_with('-'));
    let Some(sub) = args.next() else {
        return;
    };
    let rest: Vec<_> = args.map(|w| w.value.as_str()).collect();
    let writes = match sub.value.as_str() {
        "fmt" => !rest.contains(&"--check"),
        "fix" => true,
        "clippy" => rest.contains(&"--fix"),
        _ => false,
    };
    if writes {
        e.write_tree(&here(), &format!("cargo {}", sub.value));
    }
}

/// Search-and-replace tools that rewrite files: `sd FIND REPLACE FILES…` and `rpl OLD NEW
/// FILES…` (stdin to stdout without files; `sd -p` previews), `fastmod REGEX SUBST [PATHS]`
/// (the working directory without paths), `ruplacer PATTERN REPLACEMENT [PATH] --go`, `comby
/// MATCH REWRITE -i`, `ast-grep … -U`/`--update-all`/`-i`, `semgrep --autofix`, `codemod`.
pub(super) fn rule_replacer(e: &mut Eval, inv: &Inv<'_>) {
    let name = inv.name;
    let args = inv.args;
    let has = |flags: &[&str]| {
        args.iter().any(|w| {
            flags.iter().any(|f| {
                w.value == *f || w.value.strip_prefix(f).is_some_and(|r| r.starts_with('='))
            })
        })
    };
    if has(&["--help", "-h", "--version", "-V"]) {
        return;
    }
    let via = format!("{name} (rewrites its files)");
    match name {
        "sd" | "rpl" => {
            let a = parse_opts(args, &spec("nf", "--max-replacements --flags --encoding"));
            if a.has(&["-p", "--preview", "--dry-run", "-s", "--simulate"]) {
                return;
            }
            for w in a.operands.iter().skip(2) {
                e.write_tree(w, &via);
            }
        }
        "fastmod" | "ruplacer" => {
            if name == "ruplacer" && !has(&["--go"]) {
                return;
            }
            let a = parse_opts(
                args,
                &spec(
                    "edtg",
                    "--extensions --dir --type --glob --iglob --type-not",
                ),
            );
            let paths: Vec<_> = a.operands.iter().skip(2).collect();
            if paths.is_empty() {
                e.write_tree(&here(), &via);
            }
            for w in paths {
                e.write_tree(w, &via);
            }
        }
        "comby" if has(&["-i", "-in-place", "--in-place"]) => e.write_tree(&here(), &via),
        "ast-grep" | "sg" if has(&["-U", "--update-all", "-i", "--interactive"]) => {
            e.write_tree(&here(), &via)
        }
        "semgrep" if has(&["--autofix", "-a"]) => e.write_tree(&here(), &via),
        "codemod" if !args.is_empty() => e.write_tree(&here(), &via),
        _ => {}
    }
}

/// `sg` is ast-grep when its first word is one of ast-grep's subcommands or options, else the
/// shadow-utils command that runs a command under another group.
pub(super) fn rule_sg(e: &mut Eval, inv: &Inv<'_>) {
    let ast_grep = inv.args.first().is_some_and(|w| {
        matches!(
            w.value.as_str(),
            "run" | "scan" | "test" | "new" | "lsp" | "completions" | "help"
        ) || (w.value.starts_with('-') && !matches!(w.value.as_str(), "-" | "-c"))
    });
    if ast_grep {
        rule_replacer(e, inv);
    } else {
        crate::registry::unseen_command(e, inv, &crate::registry::HELP_OR_BARE);
    }
}
