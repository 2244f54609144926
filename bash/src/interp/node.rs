//! JavaScript in interpreter code (`node -e`, Deno, Bun): its calls that write, read, load or run
//! code ([`CALLS`]: `fs` and fs-extra, `child_process`, `vm`, Deno's and Bun's file APIs, rimraf,
//! mkdirp, del), and the forms only it has: a member of a module required in place
//! (`require('fs').rmSync`), `fs` under its other spellings (`fs/promises`, `node:fs`,
//! `graceful-fs`), a program-running `child_process` member passed as a value, and
//! `spawnSync(PROGRAM, [ARGS])` read as a command line.

use super::tokens::{CArg, CTok, Spanned};
use super::{At, Call, argv_text, list_words};
use crate::eval::Eval;

/// Node's, Deno's and Bun's calls.
pub(super) const CALLS: &[(&str, Call)] = &[
    ("fs.open promises.open fsPromises.open", Call::Open),
    (
        "Deno.writeTextFile Deno.writeTextFileSync Deno.writeFile Deno.writeFileSync \
         Deno.remove Deno.removeSync Deno.truncate Deno.truncateSync Deno.create \
         Deno.createSync Deno.mkdir Deno.mkdirSync Deno.chmod Deno.chmodSync Deno.utime \
         Deno.utimeSync Bun.write",
        Call::Write(&[0]),
    ),
    (
        "Deno.rename Deno.renameSync Deno.link Deno.linkSync",
        Call::Write(&[0, 1]),
    ),
    (
        "Deno.copyFile Deno.copyFileSync Deno.symlink Deno.symlinkSync",
        Call::Write(&[1]),
    ),
    ("Deno.open Deno.openSync", Call::Open),
    (
        "Deno.Command Deno.run Bun.spawn Bun.spawnSync Bun.$",
        Call::Opaque,
    ),
    (
        "*execFileSync *execFile *spawnSync *spawn *fork Function globalThis.Function \
         global.Function .constructor *_load *_compile *createRequire *runMain \
         process.dlopen Worker worker_threads.Worker",
        Call::Opaque,
    ),
    (
        "vm.runInThisContext vm.runInNewContext vm.runInContext vm.Script \
         vm.compileFunction .runInThisContext .runInNewContext .runInContext \
         globalThis.eval global.eval",
        Call::Code,
    ),
    (
        "module.paths.push module.paths.unshift",
        Call::LoadPath(&[0]),
    ),
    ("module.require", Call::Require),
    (
        "*writeFileSync *writeFile *appendFileSync *appendFile *createWriteStream \
         *unlinkSync *rmSync *rmdirSync *mkdirSync *truncateSync fs.unlink fs.rm fs.rmdir \
         fs.mkdir fs.truncate *openSync *chmodSync *utimesSync *lchmodSync *lchownSync \
         *chownSync *lutimesSync *mkdtempSync fs.chmod fs.lchmod fs.chown fs.lchown \
         fs.utimes fs.lutimes fs.mkdtemp",
        Call::Write(&[0]),
    ),
    (
        "*symlinkSync *linkSync fs.symlink fs.link",
        Call::Write(&[0, 1]),
    ),
    (
        "process.binding process._linkedBinding internalBinding",
        Call::Opaque,
    ),
    (
        "*outputFileSync *outputFile *outputJsonSync *outputJson *outputJSONSync \
         *outputJSON *writeJsonSync *writeJSONSync fs.writeJson fs.writeJSON *removeSync \
         fs.remove *emptyDirSync *emptyDir *ensureFileSync *ensureFile *ensureDirSync \
         *ensureDir *mkdirpSync *mkdirsSync fs.mkdirs fs.mkdirp mkdirp mkdirp.sync \
         makeDir makeDirectory rimraf rimraf.sync rimraf.rimraf rimraf.rimrafSync \
         rimraf.native rimraf.manual rimrafSync deleteSync del.sync *deleteAsync \
         writeFileAtomic writeFileAtomic.sync",
        Call::Write(&[0]),
    ),
    ("*copySync fs.copy", Call::Write(&[1])),
    (
        "*moveSync fs.move *ensureLinkSync *ensureSymlinkSync fs.ensureLink \
         fs.ensureSymlink",
        Call::Write(&[0, 1]),
    ),
    ("*renameSync fs.rename", Call::Write(&[0, 1])),
    ("*copyFileSync *cpSync fs.copyFile fs.cp", Call::Write(&[1])),
    ("*readFileSync fs.readFile", Call::Read),
    ("*execSync child_process.exec", Call::Shell),
];

/// The members of node's `child_process` that run a program.
pub(super) const CHILD_PROCESS: [&str; 7] = [
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
    "fork",
];

/// The module of a `require('m').name` receiver ending before the name at `j`.
pub(super) fn required_module(toks: &[Spanned<'_>], pair: &[usize], j: usize) -> Option<String> {
    let close = j.checked_sub(2)?;
    if !matches!(toks[j - 1].tok, CTok::Punct(b'.'))
        || !matches!(toks[close].tok, CTok::Punct(b')'))
    {
        return None;
    }
    let open = *pair.get(close).filter(|&&o| o != usize::MAX)?;
    match (
        &toks.get(open.checked_sub(1)?)?.tok,
        &toks.get(open + 1)?.tok,
        open + 2 == close,
    ) {
        (
            CTok::Ident(f),
            CTok::Str {
                value,
                dynamic: false,
            },
            true,
        ) if imports_by_name(f) => Some(value.trim_start_matches("node:").to_string()),
        _ => None,
    }
}

/// Calls that return the module named by their one argument: `require('fs')`, `import('fs')`,
/// Python's `__import__('os')` and `importlib.import_module('os')`.
pub(super) fn imports_by_name(name: &str) -> bool {
    matches!(
        name,
        "require"
            | "import"
            | "__import__"
            | "builtins.__import__"
            | "importlib.import_module"
            | "import_module"
    )
}

/// `fs/promises.rm`, `fs.promises.rm`, `node:fs.rm` → `fs.rm`: the rows of [`CALLS`] name
/// Node's file API once (fs-extra, graceful-fs and original-fs members are `fs`'s).
pub(super) fn fs_name(name: &str) -> String {
    let n = name.trim_start_matches("node:");
    for prefix in [
        "fs/promises.",
        "fs.promises.",
        "fsPromises.",
        "node:fs/promises.",
        "fs-extra.",
        "fs-extra/esm.",
        "graceful-fs.",
        "original-fs.",
    ] {
        if let Some(rest) = n.strip_prefix(prefix) {
            return format!("fs.{rest}");
        }
    }
    n.to_string()
}

/// A program-running member of child_process taken as a value, not called here
/// (`util.promisify(cp.exec)`, `[cp.exec][0](…)`): what it runs is out of sight.
pub(super) fn program_runner_as_value(
    e: &mut Eval,
    at: &At<'_, '_>,
    name: &str,
    after_dot: bool,
    canonical: &str,
) -> bool {
    let At {
        code, via, toks, j, ..
    } = *at;
    if (after_dot || name.contains('.'))
        && canonical
            .strip_prefix("child_process.")
            .is_some_and(|m| CHILD_PROCESS.contains(&m))
        && !matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
    {
        e.unknown(
            code.get(toks[j].start..toks[j].end).unwrap_or(name),
            format!("{via}: {canonical} passed as a value (what it runs is out of sight)"),
        );
        return true;
    }
    false
}

/// The member of a module required in place (`require('child_process').exec(…)`), or, in a script
/// that loads child_process, `m.exec(…)` on any value as its `exec`
/// (`import('child_process').then(m => m.exec(…))`); `None` for any other name.
pub(super) fn module_member(
    at: &At<'_, '_>,
    name: &str,
    after_dot: bool,
    uses_child_process: bool,
) -> Option<String> {
    match required_module(at.toks, at.pair, at.j) {
        Some(m) => Some(format!("{m}.{name}")),
        None if (after_dot || name.contains('.'))
            && uses_child_process
            && let Some(member) = name.rsplit('.').next()
            && CHILD_PROCESS.contains(&member) =>
        {
            Some(format!("child_process.{member}"))
        }
        None => None,
    }
}

/// `spawnSync('git', ['log'], {stdio: 'inherit'})`, `execFileSync(…)`: a program and a literal
/// argument list are analysed as that command line (with `shell: true` also as the words joined
/// into one); options that move the working directory or set the environment, or arguments
/// built at run time, stay unknown. Whether it handled the call.
pub(super) fn spawned_argv(
    e: &mut Eval,
    canonical: &str,
    args: &[CArg<'_>],
    positional: &[&CArg<'_>],
) -> bool {
    if matches!(
        canonical.rsplit('.').next(),
        Some("spawnSync" | "spawn" | "execFileSync" | "execFile")
    ) && !canonical.starts_with("os.")
        && let Some(program) = positional.first().and_then(|a| a.lit())
        && let Some(argv) = match positional.get(1) {
            None => Some(Vec::new()),
            Some(a) if a.raw.trim_start().starts_with('{') => Some(Vec::new()),
            Some(a) if a.raw.trim_start().starts_with('[') => {
                let w = list_words(a);
                w.iter().all(|w| !w.dynamic).then_some(w)
            }
            Some(_) => None,
        }
        && !args.iter().any(|a| {
            a.raw.trim_start().starts_with('{') && (a.raw.contains("cwd") || a.raw.contains("env"))
        })
    {
        let words =
            std::iter::once(program.to_string()).chain(argv.iter().map(|w| w.value.clone()));
        e.run_text(&argv_text(words.clone().map(Some)));
        // Ruby's `spawn("cmd args")` (and a program string holding spaces anywhere:
        // `spawn('rm f', {shell: true})`) is a command line.
        if args.iter().any(|a| a.raw.contains("shell"))
            || (program.contains(char::is_whitespace) && argv.is_empty())
        {
            e.run_text(&words.collect::<Vec<_>>().join(" "));
        }
        return true;
    }
    false
}
