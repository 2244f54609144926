//! The `git` rule: working-tree writes of each subcommand, after `-C DIR`.

use super::{here, url_file};
use crate::eval::{Eval, Inv};
use crate::lex::Word;
use crate::opts::{OptSpec, parse_opts, spec, stop_spec};

const GIT_SPEC: OptSpec = stop_spec("Cc", "--git-dir --work-tree --namespace --config-env");

pub(super) fn rule_git(e: &mut Eval, inv: &Inv<'_>) {
    let g = parse_opts(inv.args, &GIT_SPEC);
    let Some((sub, rest)) = inv.args.get(g.end..).and_then(<[Word]>::split_first) else {
        return;
    };
    // `-c alias.x='!cmd'` runs a shell command (and `alias.x='checkout -- .'` a subcommand this
    // rule never sees); `core.hooksPath`, `core.fsmonitor`, `core.sshCommand`, pagers, editors,
    // filters, textconv, drivers, helpers run programs too. Such settings (and `--config-env`,
    // whose value is not visible) are run-time unknowns; `-c color.ui=never` is not.
    for cfg in g
        .values(&["-c"])
        .filter(|w| w.dynamic || runs_programs(&w.value))
        .chain(g.values(&["--config-env"]))
    {
        e.unknown(
            cfg.value.clone(),
            "git -c (configuration that can run commands)",
        );
    }
    let saved = e.cwd.clone();
    for dir in g.values(&["-C"]) {
        e.cwd = e.cwd_after(dir);
    }
    // `--work-tree DIR` moves where the working-tree writes land; `--git-dir` alone makes the
    // working tree the current directory.
    let work_tree = g.value(&["--work-tree"]).cloned();
    if let Some(wt) = &work_tree {
        e.cwd = e.cwd_after(wt);
    }
    git_subcommand(e, &sub.value, rest);
    e.cwd = saved;
}

/// Whether a configuration setting (`KEY=VALUE` of `git -c`, `git clone -c`) makes git run a
/// program.
fn runs_programs(setting: &str) -> bool {
    let (key, value) = setting.split_once('=').unwrap_or((setting, "true"));
    let key = key.to_ascii_lowercase();
    // A value that runs nothing: `core.pager=cat`, `pager.log=false`, `core.fsmonitor=false`,
    // `core.hooksPath=/dev/null` (read-only commands written with them are common).
    if matches!(
        value.trim(),
        "" | "cat" | "false" | "0" | "no" | "off" | "/dev/null"
    ) && !key.starts_with("alias.")
    {
        return false;
    }
    // A pager that only shows its input (`core.pager=less`, `pager.diff='less -R'`,
    // `core.pager=delta`): flags only, none naming a file (less `-o`/`-O` log files) or a
    // command (`+cmd`).
    if (key == "core.pager" || key.starts_with("pager.")) && display_pager(value) {
        return false;
    }
    [
        "alias.",
        "hookspath",
        "fsmonitor",
        "sshcommand",
        "pager",
        "editor",
        "textconv",
        "external",
        "filter.",
        "credential",
        "program",
        "driver",
        "gitproxy",
        "include",
        "askpass",
        "worktree",
        "command",
        "cmd",
        "uploadpack",
        "receivepack",
        "viewer",
        ".allow",
        "exec",
        "vcs",
        "helper",
        "difffilter",
    ]
    .iter()
    .any(|k| key.contains(k))
}

/// Whether a pager setting is a known pager that only displays its input: `less`, `more`,
/// `most`, `delta`, `bat`, `diff-so-fancy`, `diff-highlight` with plain flags.
fn display_pager(value: &str) -> bool {
    let mut words = value.split_whitespace();
    let Some(program) = words.next() else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    matches!(
        program,
        "less" | "more" | "most" | "delta" | "bat" | "batcat" | "diff-so-fancy" | "diff-highlight"
    ) && !value.contains(['|', ';', '&', '$', '`', '<', '>', '(', ')'])
        && words.all(|w| {
            (w.starts_with("--") && !w.contains('=') && w.len() > 2 && !w.contains("log"))
                || (w.starts_with('-')
                    && w.len() > 1
                    && w[1..]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() && b != b'o' && b != b'O'))
        })
}

fn git_subcommand(e: &mut Eval, sub: &str, rest: &[Word]) {
    let via = format!("git {sub}");
    let tree = |e: &mut Eval| e.write_tree(&here(), &via);
    // Every subcommand that takes diff or revision options (`log`, `show`, `blame`,
    // `whatchanged`, `diff-tree`, `diff-index`, `rev-list`, `shortlog`, `stash show`, …) writes
    // the file of `--output FILE` / `--output=FILE` instead of standard output.
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        if w.value == "--" {
            break;
        }
        if w.value == "--output" {
            if let Some(f) = rest.get(k + 1) {
                e.write(f, &via);
            }
            k += 1;
        } else if let Some(f) = w.value.strip_prefix("--output=") {
            e.write(&Word::synthetic(f, w.dynamic), &via);
        }
        k += 1;
    }
    // Showing the patch a stopped `am`/`rebase` is at reads only.
    if matches!(sub, "am" | "rebase") && rest.iter().any(|w| w.value == "--show-current-patch") {
        return;
    }
    match sub {
        "am" | "merge" | "pull" | "rebase" | "cherry-pick" | "revert" | "switch" => tree(e),
        // `git unpack-file BLOB` writes the blob to a new `.merge_file_XXXXXX` here.
        "unpack-file" if rest.iter().any(|w| !w.value.starts_with('-')) => {
            e.write(&Word::synthetic(".merge_file_*", true), &via)
        }
        // `start` with commits, `good`, `bad`, `skip`, `reset`, `replay` check commits out;
        // `run` also runs a command. `log`, `view`, `terms` only read.
        "bisect"
            if !rest.first().is_some_and(|w| {
                matches!(
                    w.value.as_str(),
                    "log" | "view" | "visualize" | "terms" | "help"
                )
            }) =>
        {
            tree(e)
        }
        "merge-file" => {
            let a = parse_opts(rest, &spec("L", "--marker-size"));
            if a.has(&["-p", "--stdout"]) {
                a.operands.iter().for_each(|p| e.read(p));
            } else if let Some((current, others)) = a.operands.split_first() {
                e.write(current, &via);
                others.iter().for_each(|p| e.read(p));
            }
        }
        // Changing what the index tracks (`--split-index`, `--force-remove`,
        // `--assume-unchanged`, `--skip-worktree`, ...) changes what the gate counts as tracked.
        "update-index"
            if !rest
                .iter()
                .all(|w| matches!(w.value.as_str(), "--refresh" | "--really-refresh" | "-q")) =>
        {
            tree(e)
        }
        "read-tree" | "checkout-index" | "update-index" | "filter-branch" | "filter-repo"
        | "sparse-checkout"
            if rest.iter().any(|w| {
                matches!(
                    w.value.as_str(),
                    "-u" | "--reset"
                        | "-a"
                        | "--all"
                        | "-f"
                        | "--force"
                        | "set"
                        | "reapply"
                        | "init"
                        | "disable"
                        | "--tree-filter"
                ) || (matches!(sub, "read-tree" | "checkout-index")
                    && w.value.len() > 2
                    && w.value.starts_with('-')
                    && !w.value.starts_with("--")
                    && w.value[1..].contains(['u', 'a', 'f']))
            }) =>
        {
            tree(e)
        }
        // `git submodule foreach CMD`: CMD runs in each submodule's directory.
        "submodule" if rest.first().is_some_and(|w| w.value == "foreach") => {
            let words: Vec<&str> = rest[1..]
                .iter()
                .map(|w| w.value.as_str())
                .skip_while(|w| matches!(*w, "--recursive" | "-q" | "--quiet"))
                .collect();
            let saved = e.cwd.clone();
            e.cwd = crate::eval::Cwd {
                path: "<each submodule's directory>".into(),
                dynamic: true,
            };
            e.run_text(&words.join(" "));
            e.cwd = saved;
        }
        // Their listing forms read (`git submodule status`, `git lfs ls-files`).
        "submodule" | "lfs"
            if !rest.is_empty()
                && !rest.first().is_some_and(|w| {
                    matches!(
                        w.value.as_str(),
                        "status" | "summary" | "ls-files" | "env" | "version" | "logs" | "--help"
                    )
                }) =>
        {
            tree(e)
        }
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
            // `-f` with nothing else throws away the working tree's changes.
            let force = a.has(&["-f", "--force"]);
            match (a.dashdash, a.operands.as_slice()) {
                (Some(dd), ops) => {
                    let paths = ops.get(dd..).unwrap_or_default();
                    if paths.is_empty() {
                        // `git checkout branch --` switches branches; `git checkout -f --` resets.
                        if dd > 0 || force {
                            tree(e);
                        }
                    } else {
                        paths.iter().for_each(|p| e.write(p, &via));
                    }
                }
                (None, []) if force => tree(e),
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
            // `--cached` leaves the file but untracks it, and what git tracks decides what the
            // gate treats as ignored build output: a write of the path too.
            if !a.has(&["-n", "--dry-run"]) {
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
            // `-u CMD` runs CMD as the upload-pack; `-c`/`--config` settings of the new
            // repository run programs as `git -c` ones do (a `core.hooksPath` or
            // `core.fsmonitor` at checkout); `--template DIR` copies DIR's hooks, which run.
            for w in a.values(&["-u", "--upload-pack"]) {
                e.unknown(
                    format!("<{}>", w.value),
                    format!("{via} -u (runs a program named on its command line)"),
                );
            }
            for w in a
                .values(&["-c", "--config"])
                .filter(|w| w.dynamic || runs_programs(&w.value))
            {
                e.unknown(
                    w.value.clone(),
                    format!("{via} -c (configuration that can run commands)"),
                );
            }
            for w in a.values(&["--template"]) {
                e.script(w, &format!("{via} --template (its hooks run)"));
            }
            // The repository itself goes to `--separate-git-dir DIR`.
            for w in a.values(&["--separate-git-dir"]) {
                e.write_tree(w, &via);
            }
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
        // Output files of read commands: `git diff --output=f`, `git log --output f`.
        "diff" | "log" | "show" | "format-patch" | "range-diff" => {
            let a = parse_opts(rest, &spec("o", "--output --output-directory"));
            // `--out=F` and other abbreviations of `--output` (exact ones are written above).
            for w in a.values(&["--output"]) {
                e.write(w, &via);
            }
            if sub == "format-patch" {
                // Patches land in `-o DIR`, else in the working directory.
                match a.value(&["-o", "--output-directory"]) {
                    Some(dir) => e.write_tree(dir, &via),
                    None if !a.has(&["--stdout"]) => tree(e),
                    None => {}
                }
            }
        }
        "archive" => {
            let a = parse_opts(
                rest,
                &spec("o", "--output --format --prefix --remote --exec"),
            );
            for w in a.values(&["-o", "--output"]) {
                e.write(w, &via);
            }
        }
        "bundle" if rest.first().is_some_and(|w| w.value == "create") => {
            if let Some(f) = parse_opts(&rest[1..], &spec("", "")).operands.first() {
                e.write(f, &via);
            }
        }
        "init" => {
            let a = parse_opts(
                rest,
                &spec("", "--template --separate-git-dir --object-format"),
            );
            for w in a.values(&["--separate-git-dir"]) {
                e.write_tree(w, &via);
            }
            match a.operands.first() {
                Some(dir) => e.write_tree(dir, &via),
                None => tree(e),
            }
        }
        // Setting configuration writes `.git/config` (or `--file F`), and a setting such as
        // `core.fsmonitor` runs a program on every later `git status`; reading it writes nothing.
        "config" => {
            let a = parse_opts(rest, &spec("f", "--file --blob --default --type"));
            let reads = [
                "--get",
                "--get-all",
                "--get-regexp",
                "--get-urlmatch",
                "--list",
                "-l",
                "--show-origin",
                "--show-scope",
                "--get-color",
                "--get-colorbool",
                "-e",
                "--edit",
            ];
            let read_only = a.has(&reads)
                || a.operands
                    .first()
                    .is_some_and(|w| matches!(w.value.as_str(), "get" | "list"))
                || (a.operands.len() == 1 && !a.has(&["--unset", "--unset-all", "--add"]));
            if !read_only {
                match a.value(&["-f", "--file"]) {
                    Some(f) => e.write(f, &via),
                    None if a.has(&["--global", "--system"]) => {
                        e.unknown("~/.gitconfig", via.clone());
                    }
                    None => e.write(&Word::synthetic(".git/config", false), &via),
                }
            }
        }
        "ls-remote" => {
            let a = parse_opts(rest, &spec("u", "--upload-pack --sort --server-option"));
            for w in a.values(&["-u", "--upload-pack"]) {
                e.unknown(
                    format!("<{}>", w.value),
                    format!("{via} -u (runs a program named on its command line)"),
                );
            }
        }
        // `git difftool -x 'diff -u'`: the command given runs with the two versions of each file
        // appended (a temporary copy and the working-tree file); analysed as that command line.
        "difftool"
            if rest.iter().all(|w| {
                let v = w.value.as_str();
                !(v.starts_with("-O")
                    || v.starts_with("--open-files-in-pager")
                    || (v.starts_with("--tool") && v != "--tool-help")
                    || v == "-t"
                    || v == "-g"
                    || v == "--gui")
            }) && extcmd(rest).is_some_and(|c| c.iter().all(|w| !w.dynamic)) =>
        {
            for c in extcmd(rest).unwrap_or_default() {
                e.run_text(&format!("{} \"$LOCAL\" \"$REMOTE\"", c.value));
            }
        }
        // Commands that run a program given on the command line.
        "difftool" | "grep" | "mergetool"
            if (sub == "mergetool" && rest.iter().all(|w| w.value != "--tool-help"))
                || rest.iter().any(|w| {
                    let v = w.value.as_str();
                    v == "-x"
                        || v.starts_with("--extcmd")
                        || v.starts_with("-O")
                        || v.starts_with("--open-files-in-pager")
                        || (v.starts_with("--tool") && v != "--tool-help")
                        || v == "-t"
                }) =>
        {
            e.unknown(
                sub,
                format!("{via} (runs a program named on its command line)"),
            );
        }
        // `git worktree move WT NEW`: the checkout lands at NEW.
        "worktree" if rest.first().is_some_and(|w| w.value == "move") => {
            if let Some(dest) = parse_opts(&rest[1..], &spec("", "")).operands.get(1) {
                e.write_tree(dest, &via);
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

/// The commands of `git difftool -x CMD` / `--extcmd=CMD` / `--extcmd CMD` (none: `None`).
fn extcmd(rest: &[Word]) -> Option<Vec<Word>> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        let v = w.value.as_str();
        if v == "--" {
            break;
        }
        if v == "-x" || v == "--extcmd" {
            out.push(rest.get(k + 1)?.clone());
            k += 1;
        } else if let Some(c) = v.strip_prefix("--extcmd=") {
            out.push(Word::synthetic(c, w.dynamic));
        }
        k += 1;
    }
    (!out.is_empty()).then_some(out)
}
