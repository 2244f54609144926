//! The `git` rule: working-tree writes of each subcommand, after `-C DIR`.

use super::{here, url_file};
use crate::gate::bash::eval::{Eval, Inv};
use crate::gate::bash::lex::Word;
use crate::gate::bash::opts::{OptSpec, parse_opts, spec, stop_spec};

const GIT_SPEC: OptSpec = stop_spec("Cc", "--git-dir --work-tree --namespace --config-env");

pub(super) fn rule_git(e: &mut Eval, inv: &Inv<'_>) {
    let g = parse_opts(inv.args, &GIT_SPEC);
    let Some((sub, rest)) = inv.args.get(g.end..).and_then(<[Word]>::split_first) else {
        return;
    };
    let saved = e.cwd.clone();
    for dir in g.values(&["-C"]) {
        e.cwd = e.cwd_after(dir);
    }
    git_subcommand(e, &sub.value, rest);
    e.cwd = saved;
}

fn git_subcommand(e: &mut Eval, sub: &str, rest: &[Word]) {
    let via = format!("git {sub}");
    let tree = |e: &mut Eval| e.write_tree(&here(), &via);
    match sub {
        "am" | "merge" | "pull" | "rebase" | "cherry-pick" | "revert" | "switch" => tree(e),
        "apply" => {
            let a = parse_opts(rest, &spec("pC", ""));
            let report_only =
                a.has(&["--check", "--stat", "--numstat", "--summary"]) && !a.has(&["--apply"]);
            a.operands.iter().for_each(|p| e.read(p));
            if !report_only && !a.has(&["--cached"]) {
                tree(e);
            }
        }
        "stash" => {
            let (cmd, args) = match rest.first() {
                Some(w) if !w.value.starts_with('-') => (w.value.as_str(), &rest[1..]),
                _ => ("push", rest),
            };
            let a = parse_opts(args, &spec("m", "--message --pathspec-from-file"));
            match cmd {
                "push" if !a.operands.is_empty() => {
                    a.operands.iter().for_each(|p| e.write(p, &via))
                }
                "push" | "save" | "pop" | "apply" | "branch" => tree(e),
                _ => {}
            }
        }
        "checkout" => {
            let a = parse_opts(rest, &spec("bB", "--orphan"));
            match (a.dashdash, a.operands.as_slice()) {
                (Some(dd), ops) => ops
                    .get(dd..)
                    .unwrap_or_default()
                    .iter()
                    .for_each(|p| e.write(p, &via)),
                (None, []) => {}
                (None, [_]) => tree(e),
                (None, [_, paths @ ..]) if !a.has(&["-b", "-B", "--orphan"]) => {
                    paths.iter().for_each(|p| e.write(p, &via))
                }
                (None, _) => tree(e),
            }
        }
        "restore" => {
            let a = parse_opts(rest, &spec("s", "--source --pathspec-from-file"));
            if !a.has(&["-S", "--staged"]) || a.has(&["-W", "--worktree"]) {
                a.operands.iter().for_each(|p| e.write(p, &via));
            }
        }
        "reset"
            if rest
                .iter()
                .any(|w| matches!(w.value.as_str(), "--hard" | "--keep" | "--merge")) =>
        {
            tree(e)
        }
        "clean" => {
            let a = parse_opts(rest, &spec("e", "--exclude"));
            if a.has(&["-f", "--force"]) && !a.has(&["-n", "--dry-run"]) {
                if a.operands.is_empty() {
                    tree(e);
                }
                a.operands.iter().for_each(|p| e.write_tree(p, &via));
            }
        }
        "mv" => parse_opts(rest, &spec("", ""))
            .operands
            .iter()
            .for_each(|p| e.write(p, &via)),
        "rm" => {
            let a = parse_opts(rest, &spec("", "--pathspec-from-file"));
            if !a.has(&["--cached", "-n", "--dry-run"]) {
                a.operands
                    .iter()
                    .for_each(|p| e.emit(p, a.has(&["-r"]), &via));
            }
        }
        "clone" => {
            let a = parse_opts(
                rest,
                &spec(
                    "obcuj",
                    "--origin --branch --config --upload-pack --jobs --depth --reference \
        --separate-git-dir --template --filter",
                ),
            );
            match a.operands.as_slice() {
                [url] => {
                    let trimmed = Word {
                        value: url
                            .value
                            .trim_end_matches('/')
                            .trim_end_matches(".git")
                            .to_string(),
                        ..(*url).clone()
                    };
                    let mut dest = url_file(&trimmed);
                    if dest.value.is_empty() {
                        dest.value = trimmed
                            .value
                            .rsplit([':', '/'])
                            .next()
                            .unwrap_or_default()
                            .to_string();
                        dest.dynamic = url.dynamic || dest.value.is_empty();
                    }
                    e.write_tree(&dest, &via);
                }
                [_, dest, ..] => e.write_tree(dest, &via),
                [] => {}
            }
        }
        "worktree" if rest.first().is_some_and(|w| w.value == "add") => {
            let a = parse_opts(&rest[1..], &spec("bB", "--reason"));
            a.operands
                .first()
                .iter()
                .for_each(|p| e.write_tree(p, &via));
        }
        _ => {}
    }
}
