//! Rules for archives: `tar` (extract: Tree of `-C`; create/append: the archive) and `unzip`.

use super::here;
use crate::gate::bash::eval::{Eval, Inv};
use crate::gate::bash::opts::{OptSpec, parse_opts, spec};

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
