//! Python in interpreter code (`python -c`, `python3 - <<EOF`): its calls that write, read, load
//! or run code ([`CALLS`], and [`PATH_METHODS`], the `pathlib` methods on any receiver, tried after
//! every language's table), and the forms only Python has: builtins and modules looked up by
//! name, `getattr`, `sys.path` set, `__import__` of a literal name, `cProfile.run`'s output, the
//! `logging`/`py_compile`/`compileall` calls whose output a keyword names.

use super::tokens::{CArg, CTok, Spanned, paren_args};
use super::{At, Call, names_a_writing_call, resolve};
use crate::eval::Eval;

/// Python's calls.
pub(super) const CALLS: &[(&str, Call)] = &[
    (
        "gzip.open bz2.open lzma.open tarfile.open zipfile.ZipFile tarfile.TarFile \
         gzip.GzipFile bz2.BZ2File lzma.LZMAFile wave.open aifc.open sunau.open",
        Call::Open,
    ),
    ("sqlite3.connect shelve.open dbm.open", Call::Write(&[0])),
    ("remove rmtree makedirs truncate mkfifo", Call::Write(&[0])),
    (
        "*FileHandler *RotatingFileHandler *TimedRotatingFileHandler *WatchedFileHandler",
        Call::Write(&[0]),
    ),
    (
        ".to_csv .to_json .to_parquet .to_excel .to_pickle .to_feather .to_hdf .to_html \
         .to_latex .to_markdown .to_xml .to_stata .to_orc .write_csv .write_parquet \
         .write_json .write_ndjson .write_ipc .write_excel .savefig .tofile np.save \
         np.savez np.savez_compressed np.savetxt numpy.save numpy.savez numpy.savetxt \
         torch.save joblib.dump .save_pretrained",
        Call::WriteIfGiven,
    ),
    ("copyfile copytree copy2", Call::Write(&[1])),
    (
        "tempfile.mkstemp tempfile.mkdtemp tempfile.NamedTemporaryFile \
         tempfile.TemporaryDirectory tempfile.TemporaryFile tempfile.SpooledTemporaryFile",
        Call::TempIn,
    ),
    (
        "os.execv os.execvp os.execve os.execvpe os.execl os.execlp os.execle os.execlpe \
         os.spawnl os.spawnlp os.spawnv os.spawnvp os.posix_spawn os.posix_spawnp \
         pty.spawn asyncio.create_subprocess_exec __import__ importlib.import_module \
         runpy.run_path runpy.run_module *spec_from_file_location *spec_from_loader \
         *module_from_spec .exec_module .load_module *SourceFileLoader \
         *SourcelessFileLoader *ExtensionFileLoader importlib.reload imp.load_source \
         imp.load_module imp.load_compiled imp.load_dynamic pickle.load pickle.loads \
         pickle.Unpickler marshal.load marshal.loads dill.load dill.loads \
         cloudpickle.load cloudpickle.loads yaml.unsafe_load yaml.unsafe_load_all \
         types.FunctionType types.CodeType code.interact code.InteractiveConsole \
         code.InteractiveInterpreter .interact builtins.__import__ fileinput.input \
         fileinput.FileInput logging.basicConfig shutil.unpack_archive dictConfig \
         fileConfig logging.config.dictConfig logging.config.fileConfig .extractall \
         .extract",
        Call::Opaque,
    ),
    (
        "compile builtins.compile .runsource .runcode pdb.run cProfile.run profile.run \
         builtins.exec builtins.eval __builtins__.exec __builtins__.eval",
        Call::Code,
    ),
    ("sys.path.insert", Call::LoadPath(&[1])),
    (
        "sys.path.append sys.path.extend site.addsitedir",
        Call::LoadPath(&[0]),
    ),
    ("execfile", Call::LoadFile),
    ("*urlretrieve", Call::Write(&[1])),
    (
        "os.remove os.unlink os.rmdir os.mkdir os.makedirs os.truncate shutil.rmtree \
         os.open os.chmod os.utime os.mkfifo os.mknod os.lchmod os.chown os.lchown \
         os.removedirs",
        Call::Write(&[0]),
    ),
    ("os.symlink os.link", Call::Write(&[0, 1])),
    (
        "shutil.copymode shutil.copystat *copy_file",
        Call::Write(&[1]),
    ),
    ("os.renames *move_file", Call::Write(&[0, 1])),
    ("shutil.make_archive", Call::Write(&[0])),
    (
        "py_compile.compile compileall.compile_file compileall.compile_dir \
         compileall.compile_path",
        Call::Opaque,
    ),
    ("*create_tree", Call::Write(&[0])),
    ("*copy_tree", Call::Write(&[1])),
    ("os.rename os.replace shutil.move", Call::Write(&[0, 1])),
    (
        "shutil.copy shutil.copyfile shutil.copy2 shutil.copytree",
        Call::Write(&[1]),
    ),
    ("io.open codecs.open builtins.open io.FileIO", Call::Open),
    (
        "os.system os.popen subprocess.run subprocess.call subprocess.check_call \
         subprocess.check_output subprocess.Popen subprocess.getoutput \
         subprocess.getstatusoutput asyncio.create_subprocess_shell",
        Call::Shell,
    ),
];

/// `pathlib` methods on any receiver (`Path('f').write_text(…)`): tried after every language's
/// table, so that a qualified call of another language (`File.open`, `fs.rename`) is that call.
pub(super) const PATH_METHODS: &[(&str, Call)] = &[
    (
        ".chmod .write_text .write_bytes .unlink .touch .mkdir .rmdir",
        Call::RecvWrite,
    ),
    (".open", Call::RecvOpen),
    (".read_text .read_bytes", Call::RecvRead),
    (".rename .replace .symlink_to .hardlink_to", Call::RecvMove),
];

/// The builtins looked up by name (`globals()['__builtins__'].open(…)`): any of their
/// members may be taken from there.
pub(super) fn builtins_by_name(e: &mut Eval, at: &At<'_, '_>) -> bool {
    let At {
        code, via, toks, j, ..
    } = *at;
    if let CTok::Punct(b'[') = toks[j].tok
        && let Some(CTok::Str { value, .. }) = toks.get(j + 1).map(|t| &t.tok)
        && matches!(value.as_str(), "__builtins__" | "builtins")
        && matches!(toks.get(j + 2).map(|t| &t.tok), Some(CTok::Punct(b']')))
        && matches!(toks.get(j + 3).map(|t| &t.tok), Some(CTok::Punct(b'.')))
    {
        e.unknown(
            code.get(toks[j].start..toks[j + 2].end).unwrap_or(value),
            format!("{via}: the builtins looked up by name"),
        );
        return true;
    }
    false
}

/// A module looked up at run time, then a writing member called on it
/// (`sys.modules['os'].remove(p)`, `importlib.sys.modules[m].system(c)`).
pub(super) fn sys_modules_member(e: &mut Eval, at: &At<'_, '_>, name: &str) -> bool {
    let At {
        code,
        via,
        toks,
        pair,
        j,
        ..
    } = *at;
    if name.ends_with("sys.modules")
        && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'[')))
        && let Some(&close) = pair.get(j + 1).filter(|&&c| c != usize::MAX)
        && matches!(toks.get(close + 1).map(|t| &t.tok), Some(CTok::Punct(b'.')))
        && let Some(CTok::Ident(member)) = toks.get(close + 2).map(|t| &t.tok)
        && names_a_writing_call(member.rsplit('.').next().unwrap_or(member))
    {
        e.unknown(
            code.get(toks[j].start..toks[close + 2].end).unwrap_or(name),
            format!("{via}: a member of a module looked up in sys.modules"),
        );
        return true;
    }
    false
}

/// A member looked up by a name: `getattr(os, 'remove')`, `getattr(os, n)`.
pub(super) fn getattr(e: &mut Eval, at: &At<'_, '_>, name: &str, after_dot: bool) -> bool {
    let At {
        code,
        via,
        toks,
        pair,
        j,
        aliases,
        ..
    } = *at;
    let looked_up = resolve(name, aliases);
    if matches!(
        looked_up.as_str(),
        "getattr" | "operator.methodcaller" | "operator.attrgetter"
    ) && (looked_up != "getattr" || !after_dot)
        && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
        && pair[j + 1] != usize::MAX
    {
        let (args, _) = paren_args(toks, pair, j + 1, code);
        let member_at = usize::from(looked_up == "getattr");
        let member = args.get(member_at).map(|a| a.lit().map(str::to_owned));
        if let Some(member) = member
            && member.as_deref().is_none_or(names_a_writing_call)
        {
            let end = toks[pair[j + 1]].end;
            e.unknown(
                code.get(toks[j].start..end).unwrap_or(name),
                format!("{via}: getattr of a member the analysis cannot follow"),
            );
        }
        return true;
    }
    false
}

/// `sys.path = [...]`, `sys.path += [...]`, `sys.path[:0] = [...]`: where modules are then
/// loaded from, set at run time.
pub(super) fn sys_path_assigned(
    e: &mut Eval,
    at: &At<'_, '_>,
    name: &str,
    after_dot: bool,
) -> bool {
    let At {
        code,
        via,
        toks,
        pair,
        j,
        ..
    } = *at;
    if name == "sys.path" && !after_dot {
        let assign_at = match toks.get(j + 1).map(|t| &t.tok) {
            Some(CTok::Punct(b'[')) => pair.get(j + 1).map(|&c| c.saturating_add(1)),
            Some(CTok::Punct(b'+')) => Some(j + 2),
            _ => Some(j + 1),
        };
        if let Some(k) = assign_at
            && matches!(toks.get(k).map(|t| &t.tok), Some(CTok::Punct(b'=')))
            && !matches!(toks.get(k + 1).map(|t| &t.tok), Some(CTok::Punct(b'=')))
        {
            let end = toks
                .iter()
                .skip(k)
                .take_while(|t| !matches!(t.tok, CTok::Punct(b';' | b'\n')))
                .last()
                .map_or(toks[j].end, |t| t.end);
            e.unknown(
                code.get(toks[j].start..end).unwrap_or(name),
                format!("{via}: sys.path set to load code from"),
            );
        }
        return true;
    }
    false
}

/// The literal path of a `Path('p').method(…)` receiver; `None` for any other receiver.
pub(super) fn path_receiver(
    toks: &[Spanned<'_>],
    pair: &[usize],
    j: usize,
    name: &str,
    code: &str,
) -> Option<String> {
    if name.contains(['.', ':']) || j < 2 || !matches!(toks[j - 2].tok, CTok::Punct(b')')) {
        return None;
    }
    let open = pair[j - 2];
    let callee = match toks.get(open.checked_sub(1)?)?.tok {
        CTok::Ident(c) => c.rsplit('.').next().unwrap_or(c),
        _ => return None,
    };
    if !matches!(callee, "Path" | "PurePath" | "PosixPath") {
        return None;
    }
    let (args, _) = paren_args(toks, pair, open, code);
    args.first().and_then(CArg::lit).map(str::to_string)
}

/// Python's `posix`/`nt` are `os`; `__builtins__.open` is `builtins.open`.
pub(super) fn module_name(canonical: String) -> String {
    match canonical.split_once('.') {
        Some(("posix" | "nt", rest)) => format!("os.{rest}"),
        Some(("__builtins__", rest)) => format!("builtins.{rest}"),
        _ => canonical,
    }
}

/// `__import__('os')`, `importlib.import_module('json')`: a module from the search path by its
/// literal name, as `import os` is (its members are followed by the scanner). Other arguments
/// (`fromlist`, a name built at run time) stay opaque.
pub(super) fn import_by_literal_name(at: &At<'_, '_>, canonical: &str, after_dot: bool) -> bool {
    let At { toks, pair, j, .. } = *at;
    !after_dot
        && matches!(
            canonical,
            "__import__" | "builtins.__import__" | "importlib.import_module"
        )
        && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
        && pair.get(j + 1) == Some(&(j + 3))
        && matches!(
            toks.get(j + 2).map(|t| &t.tok),
            Some(CTok::Str { dynamic: false, .. })
        )
}

/// `cProfile.run(STMT, FILENAME)`: the statistics go to FILENAME.
pub(super) fn profile_output(e: &mut Eval, canonical: &str, positional: &[&CArg<'_>], via: &str) {
    if matches!(canonical, "cProfile.run" | "profile.run")
        && let Some(f) = positional.get(1)
    {
        e.write(&f.word(), via);
    }
}

/// Calls the tables count as running code the analysis cannot follow whose file output a
/// keyword or argument names: `logging.basicConfig(filename=…)` (without `handlers`; logs to
/// stderr otherwise), `py_compile.compile(f, cfile=…)` (a syntax check writes only under
/// `__pycache__`), and `compileall` with only the options that keep it there. Whether it handled
/// the call.
pub(super) fn opaque_with_output(
    e: &mut Eval,
    canonical: &str,
    name: &str,
    args: &[CArg<'_>],
    positional: &[&CArg<'_>],
    via: &str,
) -> bool {
    let kw = |k: &str| args.iter().find(|a| a.kw == Some(k));
    if name.ends_with("basicConfig") && kw("handlers").is_none() {
        if let Some(f) = kw("filename").or(positional.first().copied()) {
            e.write(&f.word(), via);
        }
        return true;
    }
    if canonical.ends_with("py_compile.compile") {
        if let Some(f) = kw("cfile").or(positional.get(1).copied()) {
            e.write(&f.word(), via);
        }
        return true;
    }
    canonical.starts_with("compileall.")
        && positional.len() <= 1
        && args.iter().all(|a| {
            matches!(
                a.kw,
                None | Some("quiet" | "force" | "maxlevels" | "workers")
            )
        })
}
