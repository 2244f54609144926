//! Rules for tools whose output file is an option or an operand, not a redirection: `shuf -o`,
//! `iconv -o`, `pandoc -o`, `xmllint --output`, `openssl … -out`, `xxd IN OUT`, `fallocate F`,
//! `mktemp` with a directory or template, `zip` (the archive; with `-m` its inputs, which it
//! deletes).

use super::here;
use crate::gate::bash::eval::{Eval, Inv};
use crate::gate::bash::lex::Word;
use crate::gate::bash::opts::{parse_opts, spec};

/// `-o FILE` / `--output FILE` / `--output=FILE` of `shuf`, `iconv`, `pandoc`, `xmllint`.
pub(super) fn rule_output_option(e: &mut Eval, inv: &Inv<'_>) {
    let sp = match inv.name {
        "shuf" => spec(
            "oneni",
            "--output --head-count --input-range --random-source",
        ),
        "iconv" => spec("oft", "--output --from-code --to-code"),
        "pandoc" => spec(
            "oftrwMVdsL",
            "--output --from --to --read --write --metadata",
        ),
        _ => spec("o", "--output"),
    };
    let a = parse_opts(inv.args, &sp);
    for w in a.values(&["-o", "--output"]) {
        e.write(w, inv.name);
    }
}

/// Compilers, assemblers, linkers and binary tools, which write the file after `-o` (also
/// `-oFILE`, `--output[=]FILE`, gcc's `-MF FILE` dependency file, rustc's `--out-dir DIR`), and
/// the tools whose operands are their outputs: `objcopy IN [OUT]` and `strip FILE…` (in place
/// without `-o`), `cpp IN OUT`, `ptx IN OUT`, `logsave LOG CMD…` (which also runs `CMD`).
pub(super) fn rule_compiler_output(e: &mut Eval, inv: &Inv<'_>) {
    let via = format!("{} output", inv.name);
    let mut args = inv.args.iter().peekable();
    let mut operands = Vec::new();
    let mut output = false;
    while let Some(w) = args.next() {
        let v = w.value.as_str();
        if v.starts_with("-o") || v.starts_with("--output") {
            output = true;
        }
        match v {
            // The linker's map file: `-Wl,-Map=F`, `-Wl,-Map,F`, `-Xlinker -Map=F`.
            _ if v.starts_with("-Wl,") => {
                let items: Vec<&str> = v[4..].split(',').collect();
                for (k, item) in items.iter().enumerate() {
                    let file = match *item {
                        "-Map" | "--Map" | "-o" | "--output" => items.get(k + 1).copied(),
                        _ => ["-Map=", "--Map=", "--output=", "--out-implib="]
                            .iter()
                            .find_map(|p| item.strip_prefix(p)),
                    };
                    if let Some(f) = file {
                        e.write(&Word::synthetic(f, w.dynamic), &via);
                    }
                }
            }
            "-Xlinker" => {
                if let Some(x) = args.next()
                    && (x.value.contains("Map") || x.value.starts_with("-o") || x.dynamic)
                {
                    e.unknown(x.raw.clone(), format!("{via} (-Xlinker {})", x.value));
                }
            }
            _ if v.starts_with("-save-temps") => {
                e.write_tree(&here(), &format!("{via} -save-temps"))
            }
            "-o" | "--output" | "-MF" | "--out-dir" => {
                if let Some(f) = args.next() {
                    if v == "--out-dir" {
                        e.write_tree(f, &via);
                    } else {
                        e.write(f, &via);
                    }
                }
            }
            _ if v.starts_with("--output=") => {
                let (_, f) = v.split_once('=').unwrap_or_default();
                e.write(&Word::synthetic(f, w.dynamic), &via);
            }
            _ if v.starts_with("--out-dir=") => {
                let (_, d) = v.split_once('=').unwrap_or_default();
                e.write_tree(&Word::synthetic(d, w.dynamic), &via);
            }
            _ if v.starts_with("-o") && v.len() > 2 && !v.starts_with("--") => {
                e.write(&Word::synthetic(&v[2..], w.dynamic), &via);
            }
            _ if !v.starts_with('-') || v == "-" => operands.push(w),
            _ => {}
        }
    }
    let compiler = matches!(inv.name, "gcc" | "cc" | "c++" | "g++" | "clang" | "clang++");
    let only_prints = inv.args.iter().any(|w| {
        matches!(
            w.value.as_str(),
            "-E" | "-M" | "-MM" | "--version" | "-v" | "--help" | "-fsyntax-only"
        ) || w.value.starts_with("-print-")
            || w.value.starts_with("-dump")
    });
    if compiler && !output && !only_prints && !operands.is_empty() {
        // No `-o`: `a.out`, or `NAME.o`/`NAME.s` with `-c`/`-S`, in the working directory.
        let ext = if inv.args.iter().any(|w| w.value == "-c") {
            Some(".o")
        } else if inv.args.iter().any(|w| w.value == "-S") {
            Some(".s")
        } else {
            None
        };
        match ext {
            None => e.write(&Word::synthetic("a.out", false), &via),
            Some(ext) => {
                for f in &operands {
                    let base = f.value.rsplit('/').next().unwrap_or_default();
                    let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
                    e.write(&Word::synthetic(&format!("{stem}{ext}"), f.dynamic), &via);
                }
            }
        }
    }
    match inv.name {
        "objcopy" | "strip" => operands
            .iter()
            .skip(usize::from(inv.name == "objcopy" && operands.len() > 1))
            .for_each(|f| e.write(f, &via)),
        "cpp" | "ptx" => operands.iter().skip(1).for_each(|f| e.write(f, &via)),
        "logsave" => {
            if let Some(log) = operands.first() {
                e.write(log, &via);
            }
            e.unknown("<logsave command>", "logsave runs a command");
        }
        _ => {}
    }
}

/// `ctags`/`etags`: the tag file, `-f FILE`/`-o FILE`, else `tags` (`TAGS` for etags and
/// `ctags -e`) in the working directory.
pub(super) fn rule_ctags(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("foLI", "--output"));
    if a.has(&[
        "--help",
        "--version",
        "--list-languages",
        "--list-kinds",
        "--list-maps",
    ]) || a.flags.iter().any(|(f, _)| f.starts_with("--list"))
    {
        return;
    }
    let via = format!("{} tag file", inv.name);
    match a.value(&["-f", "-o", "--output"]) {
        Some(f) => e.write(f, &via),
        None => {
            let emacs = inv.name == "etags" || a.has(&["-e"]);
            e.write(
                &Word::synthetic(if emacs { "TAGS" } else { "tags" }, false),
                &via,
            );
        }
    }
    for f in a.values(&["-L"]) {
        e.read(f);
    }
}

/// `openssl SUBCOMMAND … -out FILE` (also `-keyout`): single-dash long options.
pub(super) fn rule_openssl(e: &mut Eval, inv: &Inv<'_>) {
    let mut args = inv.args.iter();
    while let Some(w) = args.next() {
        if matches!(w.value.as_str(), "-out" | "-keyout" | "-signature")
            && let Some(f) = args.next()
        {
            e.write(f, "openssl -out");
        }
    }
}

/// `xxd [opts] [IN [OUT]]`: the second operand is written.
pub(super) fn rule_xxd(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec("cglosnC", "--cols --groupsize --len --seek --name"),
    );
    if let Some(input) = a.operands.first() {
        e.read(input);
    }
    if let Some(out) = a.operands.get(1) {
        e.write(out, "xxd");
    }
}

/// `fallocate [-l LEN] [-o OFF] FILE`: allocates (and creates) the file.
pub(super) fn rule_fallocate(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("lo", "--length --offset"));
    a.operands.iter().for_each(|w| e.write(w, "fallocate"));
}

/// `mktemp`: creates its file (or `-d` directory) in `-p DIR`/`--tmpdir=DIR`, else, for a
/// template without `-t`, relative to the working directory; with no template in `$TMPDIR`.
pub(super) fn rule_mktemp(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("p", "--tmpdir --suffix"));
    if a.has(&["-u", "--dry-run"]) {
        return;
    }
    if let Some(dir) = a.value(&["-p", "--tmpdir"]) {
        return e.write_tree(dir, "mktemp -p");
    }
    let Some(template) = a.operands.first() else {
        return;
    };
    if a.has(&["-t"]) {
        return;
    }
    match template.value.rsplit_once('/') {
        Some((dir, _)) => {
            let w = Word {
                value: if dir.is_empty() {
                    "/".into()
                } else {
                    dir.into()
                },
                raw: template.raw.clone(),
                dynamic: template.dynamic,
                ..Word::default()
            };
            e.write_tree(&w, "mktemp");
        }
        None => e.write_tree(&here(), "mktemp"),
    }
}

/// `zip [opts] ARCHIVE FILES…`: the archive is written; `-m`/`--move` deletes the inputs.
pub(super) fn rule_zip(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec(
            "bnitxO",
            "--temp-path --suffixes --include --exclude --output-file",
        ),
    );
    if let Some(out) = a.value(&["-O", "--output-file"]) {
        e.write(out, "zip");
    }
    let Some((archive, inputs)) = a.operands.split_first() else {
        return;
    };
    e.write(archive, "zip");
    if a.has(&["-m", "--move"]) {
        inputs.iter().for_each(|w| e.emit(w, true, "zip -m"));
    } else {
        inputs.iter().for_each(|w| e.read(w));
    }
}

/// `sqlite3 [opts] DB [SQL…]`: the database is written by statements that change it, by dot
/// commands that write files, and (unknown statements) when the SQL comes from stdin.
pub(super) fn rule_sqlite(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec("", "-cmd -init -separator -newline -nullvalue"),
    );
    let (db, sql) = match a.operands.split_first() {
        Some((db, sql)) => (Some(*db), sql),
        None => (None, &[][..]),
    };
    let mut text: String = sql
        .iter()
        .map(|w| w.value.to_ascii_lowercase())
        .chain(a.values(&["-cmd"]).map(|w| w.value.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join(" ");
    if sql.is_empty() && !a.has(&["--help", "-help", "--version", "-version"]) {
        // Without SQL operands the commands come from stdin: a heredoc, the text a literal
        // `echo`/`printf` pipes in; a file or another program's output is not known.
        match (inv.stdin, &e.pipe_text) {
            (Some(t), _) => text.push_str(&t.to_ascii_lowercase()),
            (None, Some(t)) if e.piped => text.push_str(&t.to_ascii_lowercase()),
            _ if e.piped
                || e.stdin_file
                    .as_ref()
                    .is_some_and(|f| f.dynamic || f.value != "/dev/null") =>
            {
                e.unknown(
                    "<sqlite3 commands on stdin>",
                    "sqlite3 reading its commands from stdin",
                );
            }
            _ => {}
        }
    }
    if [
        ".output",
        ".once",
        ".backup",
        ".save",
        ".import",
        ".restore",
        ".shell",
        ".system",
        ".open",
        ".read",
        ".log",
        ".excel",
        ".cd",
        ".load",
        ".clone",
        ".archive",
        ".ar ",
        "writefile(",
        "edit(",
        "load_extension",
    ]
    .iter()
    .any(|k| text.contains(k))
    {
        e.unknown(
            "sqlite3 dot command",
            "sqlite3 (writes files or runs commands)",
        );
    }
    // `ATTACH [DATABASE] 'file' AS x`, `VACUUM INTO 'file'`: database files written.
    for key in ["attach", "into"] {
        for (k, _) in text.match_indices(key) {
            let rest = text[k + key.len()..].trim_start();
            let rest = rest.strip_prefix("database").map_or(rest, str::trim_start);
            if key == "into"
                && !text[..k]
                    .rsplit(';')
                    .next()
                    .unwrap_or_default()
                    .contains("vacuum")
            {
                continue;
            }
            let q = rest.chars().next();
            let name = match q {
                Some(c @ ('\'' | '"')) => rest[1..].split(c).next(),
                _ => None,
            };
            match name {
                Some(n) if !n.contains('$') => {
                    let n = n.strip_prefix("file:").unwrap_or(n);
                    let n = n.split('?').next().unwrap_or_default();
                    if !n.is_empty() && n != ":memory:" {
                        // The original spelling: the text was lower-cased.
                        let orig = sql
                            .iter()
                            .map(|w| w.value.as_str())
                            .chain(inv.stdin)
                            .find_map(|t| {
                                t.to_ascii_lowercase()
                                    .find(n)
                                    .map(|p| t[p..p + n.len()].to_string())
                            })
                            .unwrap_or_else(|| n.to_string());
                        e.write(&Word::synthetic(&orig, false), &format!("sqlite3 {key}"));
                    }
                }
                _ => e.unknown(format!("<sqlite3 {key} …>"), format!("sqlite3 {key}")),
            }
        }
    }
    let changes = [
        "create", "insert", "update", "delete", "drop", "alter", "replace", "attach", "vacuum",
        "reindex", "pragma",
    ]
    .iter()
    .any(|k| text.contains(k));
    let Some(db) = db else { return };
    if changes || (sql.is_empty() && a.values(&["-cmd"]).next().is_none()) {
        e.write(db, "sqlite3");
    } else {
        e.read(db);
    }
}

/// `ssh-keygen … -f FILE`: writes FILE and FILE.pub unless it only reads (`-l`, `-y`, `-F`, `-B`).
pub(super) fn rule_ssh_keygen(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("abCEfFIJjKmMNnOrstVwYzZ", ""));
    if a.has(&["-l", "-y", "-F", "-B", "-Q"]) {
        return;
    }
    for f in a.values(&["-f"]) {
        e.write(f, "ssh-keygen -f");
        let mut public = f.clone();
        public.value.push_str(".pub");
        public.raw.push_str(".pub");
        e.write(&public, "ssh-keygen -f");
    }
}

/// `ar KEY ARCHIVE [FILES]`: `r q d m s` write the archive, `x` extracts into the working
/// directory, `t p` read.
pub(super) fn rule_ar(e: &mut Eval, inv: &Inv<'_>) {
    let Some((key, rest)) = inv.args.split_first() else {
        return;
    };
    let k = key.value.trim_start_matches('-');
    let Some(archive) = rest.first() else { return };
    if k.contains(['r', 'q', 'd', 'm', 's']) {
        e.write(archive, "ar");
    }
    if k.contains('x') {
        e.write_tree(&here(), "ar x");
    }
}

/// Interpreters of languages the analysis does not read (`tclsh`, `expect`, `lua`, `Rscript`,
/// `julia`, `osascript`): code given inline or on stdin is a run-time unknown; a script file is
/// a script.
pub(super) fn rule_opaque_interpreter(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("ecf", "--eval --command --file"));
    if a.has(&["-e", "-c", "--eval", "--command"]) || inv.stdin.is_some() || e.piped {
        return e.unknown(
            inv.name,
            format!("{} code (a language the gate does not analyse)", inv.name),
        );
    }
    match a.operands.first() {
        Some(f) => e.script(f, &format!("{} runs a script file", inv.name)),
        None => {
            if let Some(file) = e.stdin_file.clone() {
                e.script(&file, &format!("{} runs a script on stdin", inv.name));
            }
        }
    }
}

/// `gdb` with commands (`-ex`, `-x`, `--eval-command`, `--command`): they can run shell
/// commands and write files.
pub(super) fn rule_gdb(e: &mut Eval, inv: &Inv<'_>) {
    let commands = inv.args.iter().any(|w| {
        let v = w.value.as_str();
        matches!(v, "-ex" | "-x" | "-iex" | "-ix" | "-batch" | "--batch")
            || v.starts_with("--eval-command")
            || v.starts_with("--command")
            || v.starts_with("--init-eval-command")
    });
    if commands {
        e.unknown("gdb", "gdb commands (can run shell commands)");
    }
}

/// `tmux` and `screen` commands that start a program in a session: it runs outside this command
/// (and outside any sandbox it runs under), so it is a run-time unknown; `send-keys` types into
/// one.
pub(super) fn rule_multiplexer(e: &mut Eval, inv: &Inv<'_>) {
    let starts = if inv.name == "screen" {
        inv.args
            .iter()
            .any(|w| w.value.starts_with("-d") || w.value == "-X" || w.value == "-Dm")
    } else {
        inv.args.iter().any(|w| {
            matches!(
                w.value.as_str(),
                "new-session"
                    | "new"
                    | "new-window"
                    | "neww"
                    | "split-window"
                    | "splitw"
                    | "respawn-pane"
                    | "respawnp"
                    | "respawn-window"
                    | "respawnw"
                    | "run-shell"
                    | "run"
                    | "if-shell"
                    | "if"
                    | "pipe-pane"
                    | "pipep"
                    | "send-keys"
                    | "send"
                    | "source-file"
                    | "source"
            )
        })
    };
    if starts {
        e.unknown(
            inv.name,
            format!("{} runs a command in a session outside this one", inv.name),
        );
    }
}
