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
