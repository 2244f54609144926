//! Rules for archives: `tar` (extract: Tree of `-C`; create/append: the archive) and `unzip`.

use super::here;
use crate::eval::{Eval, Inv};
use crate::lex::Word;
use crate::opts::{OptSpec, parse_opts, spec};

const TAR_SPEC: OptSpec = spec(
    "fCTXbHVgNKL",
    "--file --directory --files-from --exclude-from --exclude --transform --owner \
        --group --mode --format --label --newer --to-command --use-compress-program \
        --strip-components --blocking-factor",
);

pub(super) fn rule_tar(e: &mut Eval, inv: &Inv<'_>) {
    let mut args = inv.args.to_vec();
    // Old style: `tar xzf a.tgz` is `tar -xzf a.tgz`.
    if let Some(first) = args
        .first_mut()
        .filter(|w| !w.value.is_empty() && w.value.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        first.value.insert(0, '-');
    }
    let a = parse_opts(&args, &TAR_SPEC);
    let file = a.value(&["-f", "--file"]);
    if a.has(&["-x", "--extract", "--get"]) {
        file.iter().for_each(|f| e.read(f));
        // `tar -xOf a.tar`: the members go to stdout.
        if !a.has(&["-O", "--to-stdout"]) {
            e.write_tree(a.value(&["-C", "--directory"]).unwrap_or(&here()), "tar -x");
        }
    }
    if a.has(&[
        "-c",
        "--create",
        "-r",
        "--append",
        "-u",
        "--update",
        "-A",
        "--catenate",
        "--concatenate",
        "--delete",
    ]) {
        file.iter().for_each(|f| e.write(f, "tar -c"));
        if a.has(&["--remove-files"]) {
            a.operands
                .iter()
                .for_each(|w| e.emit(w, true, "tar --remove-files"));
        }
    }
}

pub(super) fn rule_unzip(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("dP", ""));
    if a.has(&["-l", "-t", "-p", "-v", "-Z", "-z"]) {
        return;
    }
    a.operands.first().iter().for_each(|z| e.read(z));
    e.write_tree(a.value(&["-d"]).unwrap_or(&here()), "unzip");
}

/// `unrar CMD [-switches] ARCHIVE [FILES…] [DEST/]` and `rar CMD …`: `x`/`e` extract into
/// `DEST/` (an operand ending in `/`), `-opDIR`, or here; `a`, `m`, `u`, `f`, `d`, `c`, `k`, `r`,
/// `rn`, `s`, … write the archive (`m` also removes the files it moves in); `l`, `v`, `t`, `p`
/// read.
pub(super) fn rule_unrar(e: &mut Eval, inv: &Inv<'_>) {
    let Some((cmd, rest)) = inv.args.split_first() else {
        return;
    };
    let cmd = cmd.value.to_ascii_lowercase();
    let switches = rest.iter().filter(|w| w.value.starts_with('-'));
    let out_dir = switches.clone().find_map(|w| {
        w.value
            .strip_prefix("-op")
            .map(|d| Word::synthetic(d, w.dynamic))
    });
    let operands: Vec<&Word> = rest.iter().filter(|w| !w.value.starts_with('-')).collect();
    let via = format!("{} {cmd}", inv.name);
    match cmd.as_str() {
        "l" | "lt" | "lta" | "lb" | "v" | "vt" | "vta" | "vb" | "t" | "p" | "i" => {
            operands.iter().for_each(|w| e.read(w));
        }
        "x" | "e" => {
            operands.first().iter().for_each(|w| e.read(w));
            let dest = operands
                .iter()
                .skip(1)
                .last()
                .filter(|w| w.value.ends_with('/'))
                .map(|w| (*w).clone());
            e.write_tree(&out_dir.or(dest).unwrap_or_else(here), &via);
        }
        _ => {
            if let Some((archive, files)) = operands.split_first() {
                e.write(archive, &via);
                if cmd == "m" || switches.clone().any(|w| w.value == "-df") {
                    files.iter().for_each(|w| e.write_tree(w, &via));
                }
            }
        }
    }
}

/// `jar {c|u|x|t}[vfm0Me…] [JARFILE] …` (also with a leading `-`) and the long forms
/// (`--create`, `--update`, `--extract`, `--file=F`): extracting writes here (or `-C`/`--dir`
/// DIR), creating and updating write the jar file.
pub(super) fn rule_jar(e: &mut Eval, inv: &Inv<'_>) {
    let mut mode = String::new();
    let mut file: Option<Word> = None;
    let mut dir: Option<Word> = None;
    let mut k = 0;
    let mut wants_file = false;
    while let Some(w) = inv.args.get(k) {
        let v = w.value.as_str();
        if k == 0
            && !v.starts_with("--")
            && v.trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_alphanumeric())
            && !v.trim_start_matches('-').is_empty()
        {
            mode = v.trim_start_matches('-').to_string();
            wants_file = mode.contains('f');
        } else if let Some(f) = v.strip_prefix("--file=") {
            file = Some(Word::synthetic(f, w.dynamic));
        } else if v == "--file" || v == "-f" {
            file = inv.args.get(k + 1).cloned();
            k += 1;
        } else if let Some(d) = v.strip_prefix("--dir=") {
            dir = Some(Word::synthetic(d, w.dynamic));
        } else if v == "--dir" {
            dir = inv.args.get(k + 1).cloned();
            k += 1;
        } else if v.starts_with("--") {
            match v {
                "--create" => mode.push('c'),
                "--update" => mode.push('u'),
                "--extract" => mode.push('x'),
                "--list" => mode.push('t'),
                _ => {}
            }
        } else if wants_file && !v.starts_with('-') {
            file = Some(w.clone());
            wants_file = false;
        }
        k += 1;
    }
    if mode.contains('x') {
        file.iter().for_each(|f| e.read(f));
        e.write_tree(&dir.unwrap_or_else(here), "jar x");
    } else if (mode.contains('c') || mode.contains('u'))
        && let Some(f) = &file
    {
        e.write(f, "jar c");
    }
}

/// Extractors into the working directory or a directory option: `unar [-o DIR]`, `cabextract
/// [-d DIR]`, `aunpack [-X DIR]` (and `atool -x`), `dtrx`; listing and testing modes read.
pub(super) fn rule_extract(e: &mut Eval, inv: &Inv<'_>) {
    let (dir_opts, read_flags): (&[&str], &[&str]) = match inv.name {
        "unar" => (
            &["-o", "-output-directory", "--output-directory"],
            &["-h", "--help", "-v"],
        ),
        "cabextract" => (
            &["-d", "--directory"],
            &["-l", "--list", "-t", "--test", "-p", "--pipe"],
        ),
        "atool" | "aunpack" => (
            &["-X", "--extract-to"],
            &["-l", "--list", "-c", "--cat", "-d", "--diff"],
        ),
        _ => (&[], &["-l", "--list", "-h", "--help"]),
    };
    let args = inv.args;
    if args.iter().any(|w| read_flags.contains(&w.value.as_str())) {
        return;
    }
    // `atool` without `-x`/`-X` lists or packs by other options: only `-x` extracts.
    if inv.name == "atool"
        && !args.iter().any(|w| {
            matches!(w.value.as_str(), "-x" | "--extract" | "-X")
                || w.value.starts_with("--extract-to")
        })
    {
        return;
    }
    let mut dir = None;
    let mut k = 0;
    while let Some(w) = args.get(k) {
        for o in dir_opts {
            if w.value == *o {
                dir = args.get(k + 1).cloned();
            } else if let Some(d) = w.value.strip_prefix(&format!("{o}=")) {
                dir = Some(Word::synthetic(d, w.dynamic));
            }
        }
        k += 1;
    }
    if args.iter().all(|w| w.value.starts_with('-')) {
        return;
    }
    e.write_tree(&dir.unwrap_or_else(here), inv.name);
}
