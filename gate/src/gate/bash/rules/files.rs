//! Rules for commands that write or edit the files they name: `tee`, `sed -i`, `cp`/`mv`/`install`/
//! `ln`, `rm`/`touch`/`mkdir`/`chmod`/…, `dd`, `patch`.

use super::here;
use crate::gate::bash::eval::{Eval, Inv};
use crate::gate::bash::lex::Word;
use crate::gate::bash::opts::{OptSpec, parse_opts, spec};

pub(super) fn rule_tee(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("", ""));
    let via = if a.has(&["-a", "--append"]) {
        "tee -a"
    } else {
        "tee"
    };
    for w in &a.operands {
        e.write(w, via);
    }
}

const SED_SPEC: OptSpec = OptSpec {
    val: "efl",
    attached: "i",
    digits: "",
    long_val: "--expression --file --line-length",
    stop: false,
};

pub(super) fn rule_sed(e: &mut Eval, inv: &Inv<'_>) {
    // BSD `sed -i '' …`: the empty word is the backup suffix, not the script.
    let args: Vec<Word> = inv
        .args
        .iter()
        .enumerate()
        .filter(|(k, w)| !(w.value.is_empty() && *k > 0 && inv.args[k - 1].value == "-i"))
        .map(|(_, w)| w.clone())
        .collect();
    let a = parse_opts(&args, &SED_SPEC);
    for f in a.values(&["-f", "--file"]) {
        e.read(f);
    }
    let scripted = a.has(&["-e", "--expression", "-f", "--file"]);
    let in_place = a.has(&["-i", "--in-place"]);
    let scripts: Vec<&str> = a
        .values(&["-e", "--expression"])
        .map(|w| w.value.as_str())
        .chain(
            a.operands
                .first()
                .filter(|_| !scripted)
                .map(|w| w.value.as_str()),
        )
        .collect();
    if scripts.iter().any(|s| sed_writes(s)) {
        e.out.writes.push(crate::gate::bash::BashWrite {
            target: crate::gate::bash::BashTarget::Dynamic(scripts.join("; ")),
            via: "sed w/W command (writes a file named in the script)".into(),
        });
    }
    for f in a.operands.get(usize::from(!scripted)..).unwrap_or_default() {
        if in_place {
            e.write(f, "sed -i")
        } else {
            e.read(f)
        }
    }
}

/// Whether a sed script may write a file: a `w`/`W` command or the `w` flag of `s///` (`s/a/b/w f`),
/// or `e` (run a command). Conservative: any `w`, `W` or `e` right after a command position, a
/// closing delimiter or a flag.
fn sed_writes(script: &str) -> bool {
    let b = script.as_bytes();
    (0..b.len()).any(|i| {
        matches!(b[i], b'w' | b'W' | b'e')
            && b.get(i + 1)
                .is_none_or(|c| c.is_ascii_whitespace() || *c == b'/')
            && (i == 0
                || matches!(
                    b[i - 1],
                    b';' | b'\n' | b'}' | b'{' | b'/' | b'|' | b'#' | b'!' | b' '
                )
                || (b[i - 1].is_ascii_digit()
                    || matches!(b[i - 1], b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'$')))
    })
}

pub(super) fn rule_copy(e: &mut Eval, inv: &Inv<'_>) {
    let val = if inv.name == "install" { "tSmog" } else { "tS" };
    let long = "--target-directory --suffix --mode --owner --group";
    let a = parse_opts(inv.args, &spec(val, long));
    let via = inv.name;
    if inv.name == "install" && a.has(&["-d", "--directory"]) {
        a.operands.iter().for_each(|w| e.write(w, via));
        return;
    }
    let target_dir = a.value(&["-t", "--target-directory"]);
    let sources = if target_dir.is_some() {
        &a.operands[..]
    } else {
        &a.operands[..a.operands.len().saturating_sub(1)]
    };
    if inv.name == "mv" {
        sources.iter().for_each(|s| e.write(s, via));
    }
    if inv.name == "ln" {
        // Whatever is later written through the link lands on its target: a link made in the
        // same command (`ln -s REPO/.claude /tmp/l && echo > /tmp/l/settings.json`) is a write
        // to its target. A relative symbolic target is relative to the link's directory.
        let link_dir = target_dir.map(|d| d.value.clone()).or_else(|| {
            a.operands
                .last()
                .filter(|_| a.operands.len() > 1)
                .and_then(|d| d.value.rsplit_once('/').map(|(dir, _)| dir.to_string()))
        });
        let single = a.operands.len() == 1;
        for s in if single { &a.operands[..] } else { sources } {
            e.write(s, "ln (link target)");
            if let Some(dir) = link_dir.as_deref().filter(|_| !s.value.starts_with('/')) {
                let mut w: Word = (*s).clone();
                w.value = format!("{dir}/{}", s.value);
                w.raw = format!("{dir}/{}", s.raw);
                e.write(&w, "ln (link target)");
            }
        }
    }
    match (target_dir, a.operands.as_slice()) {
        (Some(dir), _) => e.write(dir, via),
        (None, [only]) if inv.name == "ln" => {
            let base = only
                .value
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default();
            e.write(
                &Word {
                    value: base.to_string(),
                    raw: only.raw.clone(),
                    dynamic: only.dynamic,
                    ..Word::default()
                },
                via,
            );
        }
        (None, [_, .., dest]) => e.write(dest, via),
        _ => {}
    }
}

pub(super) fn rule_operands(e: &mut Eval, inv: &Inv<'_>) {
    if inv.name == "chmod" {
        // `chmod -x f`: a mode may look like an option; only -c -f -v -R are options.
        let is_opt = |w: &&Word| {
            w.value.starts_with("--")
                || (w.value.len() > 1
                    && w.value.starts_with('-')
                    && w.value[1..].bytes().all(|b| b"cfvR".contains(&b)))
        };
        let recursive = inv.args.iter().filter(is_opt).any(|w| {
            w.value == "--recursive" || (!w.value.starts_with("--") && w.value.contains('R'))
        });
        let skip = usize::from(!inv.args.iter().any(|w| w.value.starts_with("--reference")));
        for w in inv.args.iter().filter(|w| !is_opt(w)).skip(skip) {
            e.emit(w, recursive, "chmod");
        }
        return;
    }
    let sp = match inv.name {
        "touch" => spec("drt", "--date --reference"),
        "mkdir" => spec("m", "--mode --context"),
        "truncate" => spec("sr", "--size --reference"),
        "shred" => spec("ns", "--iterations --size"),
        "ed" => spec("p", "--prompt"),
        "ex" => spec("cSuiTwW", ""),
        _ => spec("", ""),
    };
    let a = parse_opts(inv.args, &sp);
    let tree = inv.name == "rm" && a.has(&["-r", "-R", "--recursive"]);
    a.operands.iter().for_each(|w| e.emit(w, tree, inv.name));
}

/// `of=x` -> `x`, keeping dynamic-ness and the raw text.
fn strip_word(w: &Word, prefix: &str) -> Option<Word> {
    let value = w.value.strip_prefix(prefix)?;
    let raw = w.raw.strip_prefix(prefix).unwrap_or(&w.raw);
    Some(Word {
        value: value.to_string(),
        raw: raw.to_string(),
        dynamic: w.dynamic,
        ..Word::default()
    })
}

pub(super) fn rule_dd(e: &mut Eval, inv: &Inv<'_>) {
    for w in inv.args {
        if let Some(out) = strip_word(w, "of=") {
            e.write(&out, "dd of=");
        } else if let Some(input) = strip_word(w, "if=") {
            e.read(&input);
        }
    }
}

const PATCH_SPEC: OptSpec = spec(
    "iodpBDFgrVYz",
    "--input --output --directory --strip --prefix --ifdef --fuzz --get --reject-file \
        --version-control --basename-prefix --suffix",
);

pub(super) fn rule_patch(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &PATCH_SPEC);
    if a.has(&["--dry-run"]) {
        return;
    }
    e.in_dir(a.value(&["-d", "--directory"]), |e| {
        a.values(&["-i", "--input"])
            .chain(a.operands.get(1).copied())
            .for_each(|w| e.read(w));
        match (a.value(&["-o", "--output"]), a.operands.first().copied()) {
            (Some(out), _) | (None, Some(out)) => e.write(out, "patch"),
            (None, None) => e.write_tree(&here(), "patch"),
        }
    });
}

/// `sponge FILE`: soaks up stdin, then writes FILE.
pub(super) fn rule_sponge(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("", ""));
    a.operands.iter().for_each(|w| e.write(w, "sponge"));
}

/// `uniq [opts] [INPUT [OUTPUT]]`: the second operand is written.
pub(super) fn rule_uniq(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec("fsw", "--skip-fields --skip-chars --check-chars"),
    );
    if let Some(input) = a.operands.first() {
        e.read(input);
    }
    if let Some(output) = a.operands.get(1) {
        e.write(output, "uniq OUTPUT");
    }
}

/// `gzip f`, `xz -d f.xz`, …: replace each operand by its (de)compressed sibling, unless they
/// write to stdout (`-c`, `--stdout`) or only test or list.
pub(super) fn rule_compress(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec("bSoTFM", "--suffix --output --threads --format"),
    );
    if a.has(&[
        "-c",
        "--stdout",
        "--to-stdout",
        "-t",
        "--test",
        "-l",
        "--list",
    ]) {
        a.operands.iter().for_each(|w| e.read(w));
        return;
    }
    let via = inv.name;
    for w in &a.operands {
        e.write(w, via);
        // The sibling: `f` -> `f.gz` (and back); whatever the suffix, it sits next to `f`.
        let mut sibling = (*w).clone();
        sibling.value = format!("{}*", w.value);
        sibling.raw = format!("{}*", w.raw);
        sibling.dynamic = true;
        e.write(&sibling, via);
    }
    for o in a.values(&["-o", "--output"]) {
        e.write(o, via);
    }
}

/// `split [opts] [INPUT [PREFIX]]` and `csplit [opts] INPUT PATTERN…`: files named PREFIX… (`x`
/// and `xx` by default) in the working directory.
pub(super) fn rule_split(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec(
            "abClnfdx",
            "--suffix-length --bytes --line-bytes --lines --number --prefix --digits --additional-suffix --filter",
        ),
    );
    let prefix = if inv.name == "split" {
        a.operands
            .get(1)
            .map(|w| w.value.clone())
            .unwrap_or_else(|| "x".into())
    } else {
        a.value(&["-f", "--prefix"])
            .map(|w| w.value.clone())
            .unwrap_or_else(|| "xx".into())
    };
    if let Some(input) = a.operands.first() {
        e.read(input);
    }
    let mut w = Word::synthetic(&format!("{prefix}*"), true);
    w.raw = format!("{prefix}*");
    e.write(&w, inv.name);
    for f in a.values(&["--filter"]) {
        e.run_text(&f.value);
    }
}

/// `vim -Es -c 'wq' f`, `vi f`: an editor run from a command may write every file it names.
pub(super) fn rule_editor(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("cSuiTwWsrt", "--cmd"));
    a.operands.iter().for_each(|w| e.write(w, inv.name));
    for f in a.values(&["-w", "-W"]) {
        e.write(f, inv.name);
    }
}
