//! Rules for commands that write or edit the files they name: `tee`, `sed -i`, `cp`/`mv`/`install`/
//! `ln`, `rm`/`touch`/`mkdir`/`chmod`/…, `dd`, `patch`.

use super::here;
use crate::eval::{Eval, Inv};
use crate::lex::Word;
use crate::opts::{OptSpec, parse_opts, spec};

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
        // The script is in a file the analysis does not read: it may hold `w` or `e`.
        e.unknown(
            f.raw.clone(),
            "sed -f (a script file, which may write files or run commands)",
        );
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
        e.unknown(
            scripts.join("; "),
            "sed w/W command (writes a file named in the script)",
        );
    }
    for f in a.operands.get(usize::from(!scripted)..).unwrap_or_default() {
        if in_place {
            e.write(f, "sed -i")
        } else {
            e.read(f)
        }
    }
}

/// Whether a sed script may write a file or run a command: a `w`/`W` command, the `w` or `e` flag
/// of `s///`, or the `e` command. Parses the script as GNU sed does (addresses, `s` and `y` with any
/// delimiter and escapes, `a`/`i`/`c` text, labels, `r` file names, comments), so a `w` or `e`
/// inside a regular expression or a replacement (`s/a/e/`, `/e/p`) is not one; a script it
/// cannot parse counts as writing (fail closed).
fn sed_writes(script: &str) -> bool {
    let b = script.as_bytes();
    let mut i = 0;
    // Skips a delimited part (`/re/`, `|x|`) starting after its opening delimiter; returns the
    // index after the closing one, or None when it never closes.
    let part = |mut i: usize, delim: u8| -> Option<usize> {
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                c if c == delim => return Some(i + 1),
                // A newline may only appear escaped, except in GNU's bracket expressions; be
                // lenient.
                _ => i += 1,
            }
        }
        None
    };
    let to_end_of_line = |i: usize| {
        b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| i + p)
    };
    let to_end_of_command = |i: usize| {
        b[i..]
            .iter()
            .position(|&c| matches!(c, b'\n' | b';' | b'}'))
            .map_or(b.len(), |p| i + p)
    };
    while i < b.len() {
        // Separators and blanks between commands.
        while i < b.len() && (b[i].is_ascii_whitespace() || matches!(b[i], b';' | b'{' | b'}')) {
            i += 1;
        }
        if i >= b.len() {
            return false;
        }
        // Up to two addresses: N, $, /re/, \cREc, first~step, +N, ~N; then `!`.
        for _ in 0..2 {
            match b.get(i) {
                Some(b'/') => match part(i + 1, b'/') {
                    Some(j) => i = j,
                    None => return true,
                },
                Some(b'\\') => match b.get(i + 1) {
                    Some(&d) => match part(i + 2, d) {
                        Some(j) => i = j,
                        None => return true,
                    },
                    None => return true,
                },
                Some(c) if c.is_ascii_digit() || matches!(c, b'$' | b'+' | b'~') => {
                    while i < b.len()
                        && (b[i].is_ascii_digit() || matches!(b[i], b'$' | b'+' | b'~'))
                    {
                        i += 1;
                    }
                }
                _ => break,
            }
            // Address flags (`/re/I`, `/re/M`).
            while i < b.len() && matches!(b[i], b'I' | b'M') {
                i += 1;
            }
            if b.get(i) == Some(&b',') {
                i += 1;
            } else {
                break;
            }
        }
        while i < b.len() && (b[i] == b'!' || b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        let Some(&cmd) = b.get(i) else { return false };
        i += 1;
        // `w /dev/stdout`, `w /dev/stderr`: GNU sed's names for its own output streams.
        let stream_file = |i: usize| -> Option<usize> {
            let end = to_end_of_line(i);
            matches!(script[i..end].trim(), "/dev/stdout" | "/dev/stderr").then_some(end)
        };
        match cmd {
            b'w' | b'W' => match stream_file(i) {
                Some(end) => i = end,
                None => return true,
            },
            b'e' => return true,
            b'{' | b'}' | b';' => {}
            b's' => {
                let Some(&d) = b.get(i) else { return true };
                let Some(j) = part(i + 1, d).and_then(|j| part(j, d)) else {
                    return true;
                };
                i = j;
                // Flags: g p i I m M e w and a number; `w FILE` ends the command.
                while i < b.len() && !matches!(b[i], b'\n' | b';' | b'}') {
                    match b[i] {
                        b'w' => match stream_file(i + 1) {
                            Some(end) => i = end,
                            None => return true,
                        },
                        b'e' => return true,
                        b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b' ' | b'\t' => i += 1,
                        c if c.is_ascii_digit() => i += 1,
                        b'#' => break,
                        _ => return true,
                    }
                }
            }
            b'y' => {
                let Some(&d) = b.get(i) else { return true };
                match part(i + 1, d).and_then(|j| part(j, d)) {
                    Some(j) => i = j,
                    None => return true,
                }
            }
            // Text to the end of the line; a trailing backslash continues it.
            b'a' | b'i' | b'c' => loop {
                i = to_end_of_line(i);
                if i > 0 && b.get(i - 1) == Some(&b'\\') && i < b.len() {
                    i += 1;
                    continue;
                }
                break;
            },
            // A comment, a label definition, a file name to read: to the end of the line.
            b'#' | b':' | b'r' | b'R' => i = to_end_of_line(i),
            // Branches take a label to the end of the command.
            b'b' | b't' | b'T' => i = to_end_of_command(i),
            b'q' | b'Q' | b'l' | b'L' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b' ') {
                    i += 1;
                }
            }
            b'=' | b'd' | b'D' | b'F' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P'
            | b'x' | b'z' => {}
            _ => return true,
        }
    }
    false
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
    // `cp f f`, `mv f f` (`cp src/app.py{,}`) fail ("are the same file") and write nothing,
    // unless a backup is asked for.
    if matches!(inv.name, "cp" | "mv")
        && target_dir.is_none()
        && !a.has(&["-b", "--backup"])
        && let [x, y] = &a.operands[..]
        && !x.dynamic
        && !y.dynamic
        && !x.value.is_empty()
        && x.value == y.value
    {
        return;
    }
    if inv.name == "mv" {
        sources.iter().for_each(|s| e.write(s, via));
    }
    // `cp -l`/`cp -s` and `link` make links like `ln` (a hard link is invisible to the gate's
    // path resolution, so whatever is later written through it lands on its source).
    let links = inv.name == "ln"
        || inv.name == "link"
        || (inv.name == "cp" && a.has(&["-l", "-s", "--link", "--symbolic-link"]));
    if links {
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
        (None, [only]) if links => {
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
    // A file moved or copied into place may be a symlink (`mv /tmp/l src/a.py`, `cp -P`): a
    // later write to it in the same command lands wherever the link points.
    if matches!(inv.name, "mv" | "cp" | "install" | "rsync") {
        let dests: Vec<String> = match (target_dir, a.operands.as_slice()) {
            (Some(dir), _) => vec![dir.value.clone()],
            (None, [_, .., dest]) => vec![dest.value.clone()],
            _ => Vec::new(),
        };
        for d in dests {
            e.replaced.push(e.cwd.join(&d));
        }
    }
}

/// `chmod MODE FILE…`: not a spec, since a mode may look like an option (`chmod -x f`; only
/// `-c -f -v -R` are options); the files, and with `-R` their trees, change.
pub(super) fn rule_chmod(e: &mut Eval, inv: &Inv<'_>) {
    let is_opt = |w: &&Word| {
        w.value.starts_with("--")
            || (w.value.len() > 1
                && w.value.starts_with('-')
                && w.value[1..].bytes().all(|b| b"cfvR".contains(&b)))
    };
    let recursive =
        inv.args.iter().filter(is_opt).any(|w| {
            w.value == "--recursive" || (!w.value.starts_with("--") && w.value.contains('R'))
        });
    let skip = usize::from(!inv.args.iter().any(|w| w.value.starts_with("--reference")));
    for w in inv.args.iter().filter(|w| !is_opt(w)).skip(skip) {
        e.emit(w, recursive, "chmod");
    }
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
    if a.has(&["--help", "--version"]) {
        return;
    }
    for f in a.values(&["--filter"]) {
        e.run_text(&f.value);
    }
    // With `--filter`, each part goes to the command instead of a file.
    if a.has(&["--filter"]) {
        return;
    }
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
}

/// `vim -Es -c 'wq' f`, `vi f`: an editor run from a command may write every file it names.
/// `vim`/`vi`/`nvim`/`view`/`ex FILE…` write their operands and `-w`/`-W` script-out files. In
/// Ex mode (`ex`, `-e`, `-E`, `-es`) editor commands come from stdin (a heredoc, `< FILE`, a
/// pipe) and can write any file or run a program: a run-time unknown; there `-s` is the silent
/// flag, elsewhere `-s FILE` feeds FILE as typed keys (unknown too, like `-S`). `-u VIMRC` is code
/// the editor runs, checked like `bash FILE` (`NONE`, `NORC`, `DEFAULTS` name none).
pub(super) fn rule_editor(e: &mut Eval, inv: &Inv<'_>) {
    if inv.name == "ed" {
        return rule_ed(e, inv);
    }
    const EX_SPEC: OptSpec = spec("cSuiTwWt", "--cmd");
    const VI_SPEC: OptSpec = spec("cSuiTwWst", "--cmd");
    let ex_mode = inv.name == "ex" || parse_opts(inv.args, &EX_SPEC).has(&["-e", "-E"]);
    let a = parse_opts(inv.args, if ex_mode { &EX_SPEC } else { &VI_SPEC });
    a.operands.iter().for_each(|w| e.write(w, inv.name));
    for f in a.values(&["-w", "-W"]) {
        e.write(f, inv.name);
    }
    for rc in a
        .values(&["-u"])
        .filter(|w| !matches!(w.value.as_str(), "NONE" | "NORC" | "DEFAULTS"))
    {
        e.script(rc, &format!("{} -u runs a vimrc", inv.name));
    }
    if let Some(keys) = a.values(&["-s"]).next() {
        e.unknown(
            format!("<keys from {}>", keys.value),
            format!(
                "{} -s (keys typed from a file can write any file)",
                inv.name
            ),
        );
    }
    let stdin_file = e
        .stdin_file
        .as_ref()
        .is_some_and(|f| f.dynamic || f.value != "/dev/null");
    if ex_mode && (inv.stdin.is_some() || stdin_file || e.piped) {
        e.unknown(
            "<stdin>",
            format!(
                "{} in Ex mode reads editor commands from stdin (they can write any file or run a program)",
                inv.name
            ),
        );
    }
}

/// `ed FILE`: writes FILE. Its commands come from stdin: a literal heredoc or here-string is read
/// for `w FILE`, `W FILE`, `e FILE`/`f FILE` (a later `w` writes that file), `r FILE`, and `!CMD`
/// (also `w !CMD`, `r !CMD`, `e !CMD`; analysed as a command line); commands from a file or a pipe
/// are a run-time unknown.
fn rule_ed(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("p", "--prompt"));
    a.operands.iter().for_each(|w| e.write(w, "ed"));
    let stdin_file = e
        .stdin_file
        .as_ref()
        .is_some_and(|f| f.dynamic || f.value != "/dev/null");
    match inv.stdin {
        Some(script) => {
            let mut input = false;
            for line in script.lines() {
                if input {
                    input = line != ".";
                    continue;
                }
                input = ed_command(e, line, 0);
            }
        }
        None if stdin_file || e.piped => e.unknown(
            "<stdin>",
            "ed reads commands from stdin (they can write any file or run a program)",
        ),
        None => {}
    }
}

/// One ed command line (after its address); returns whether text input (`a`, `i`, `c`) follows.
fn ed_command(e: &mut Eval, line: &str, depth: usize) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    // The address: numbers, `.`, `$`, `,`, `;`, `+`, `-`, marks `'x`, `/re/`, `?re?`.
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' | b'.' | b'$' | b',' | b';' | b'+' | b'-' | b'^' | b' ' | b'\t' => i += 1,
            b'\'' => i += 2,
            b'/' | b'?' => i = skip_delimited(b, i),
            _ => break,
        }
    }
    let Some(&cmd) = b.get(i) else { return false };
    let rest = line.get(i + 1..).unwrap_or_default();
    let file = |r: &str| {
        let r = r.trim();
        Word::synthetic(r, r.contains(['$', '`', '*', '?', '[', '~']))
    };
    match cmd {
        b'a' | b'i' | b'c' => return rest.trim().is_empty(),
        b'!' => e.run_text(rest),
        b'w' | b'W' | b'e' | b'E' | b'f' | b'r' => {
            let rest = if cmd == b'w' {
                rest.strip_prefix('q').unwrap_or(rest)
            } else {
                rest
            };
            let arg = rest.trim();
            if let Some(shell) = arg.strip_prefix('!') {
                e.run_text(shell);
            } else if !arg.is_empty() {
                if cmd == b'r' {
                    e.read(&file(arg));
                } else {
                    e.write(&file(arg), "ed");
                }
            }
        }
        // `g/re/COMMANDS`: the commands run on each matching line.
        b'g' | b'G' | b'v' | b'V' if depth == 0 => {
            let after = skip_delimited(b, i + 1);
            ed_command(e, line.get(after..).unwrap_or_default(), depth + 1);
        }
        _ => {}
    }
    false
}

/// The offset after the delimited text starting at `b[i]` (`/re/`), backslash escapes skipped.
fn skip_delimited(b: &[u8], i: usize) -> usize {
    let Some(&d) = b.get(i) else { return i };
    let mut k = i + 1;
    while let Some(&c) = b.get(k) {
        k += 1;
        if c == b'\\' {
            k += 1;
        } else if c == d {
            break;
        }
    }
    k.min(b.len())
}
